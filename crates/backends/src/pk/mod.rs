//! The public-key halves of the providers: OpenSSL 3.5 (its entries are in
//! the `openssl` provider), liboqs (the `oqs` crate's vendored build; a
//! provider of its own) and RustCrypto (in the `rustcrypto` provider), each
//! behind a cargo feature.

#[cfg(feature = "openssl")]
pub mod openssl;
#[cfg(feature = "pk-oqs")]
pub mod oqs;
#[cfg(feature = "pk-rustcrypto")]
pub mod rustcrypto;
