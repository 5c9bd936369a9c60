//! Public-key backends behind [`ango_core::PkBackend`]: OpenSSL 3.5, liboqs
//! (the `oqs` crate's vendored build) and RustCrypto, each behind a cargo
//! feature. [`registry`] lists the ones built into this binary.

#[cfg(feature = "openssl")]
pub mod openssl;
#[cfg(feature = "pk-oqs")]
pub mod oqs;
#[cfg(feature = "pk-rustcrypto")]
pub mod rustcrypto;

use ango_core::{PkBackend, Result};

/// Every public-key backend compiled into this binary, in table order.
#[allow(unused_mut, clippy::vec_init_then_push)]
pub fn registry() -> Vec<&'static dyn PkBackend> {
    let mut v: Vec<&'static dyn PkBackend> = Vec::new();
    #[cfg(feature = "openssl")]
    v.push(&openssl::OpenSslPk);
    #[cfg(feature = "pk-oqs")]
    v.push(&oqs::LibOqs);
    #[cfg(feature = "pk-rustcrypto")]
    v.push(&rustcrypto::RustCryptoPk);
    v
}

/// Public-key backends ango knows of but this binary was built without.
pub fn not_built() -> Vec<(&'static str, &'static str)> {
    #[allow(unused_mut)]
    let mut v = Vec::new();
    #[cfg(not(feature = "openssl"))]
    v.push(("openssl", "built without the `openssl` feature"));
    #[cfg(not(feature = "pk-oqs"))]
    v.push(("liboqs", "built without the `pk-oqs` feature"));
    #[cfg(not(feature = "pk-rustcrypto"))]
    v.push(("rustcrypto", "built without the `pk-rustcrypto` feature"));
    v
}

/// Look a public-key backend up by name.
pub fn by_name(name: &str) -> Result<&'static dyn PkBackend> {
    crate::lookup(registry(), name, |b| b.name(), "public-key backend")
}
