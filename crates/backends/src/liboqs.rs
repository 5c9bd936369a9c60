//! liboqs as a provider. Its adapter lives in [`crate::pk::oqs`], beside
//! the other public-key halves; this is its place in the provider list.

pub use crate::pk::oqs::PROVIDER;
