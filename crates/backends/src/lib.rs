//! Library backends behind ango's traits. Each is a plain struct behind a
//! cargo feature; [`registry`] lists the ones built into this binary.

#[cfg(feature = "openssl")]
pub mod openssl;
#[cfg(feature = "prims")]
pub mod prims;
#[cfg(feature = "rustcrypto")]
pub mod rustcrypto;

use ango_core::{Backend, Error, Result};

/// Every backend compiled into this binary, in table order.
#[allow(unused_mut, clippy::vec_init_then_push)]
pub fn registry() -> Vec<&'static dyn Backend> {
    let mut v: Vec<&'static dyn Backend> = Vec::new();
    #[cfg(feature = "openssl")]
    v.push(&openssl::OpenSsl);
    #[cfg(feature = "rustcrypto")]
    v.push(&rustcrypto::RustCrypto);
    #[cfg(feature = "prims")]
    v.push(&prims::Prims);
    v
}

/// Backends that ango knows of but that this binary was built without.
pub fn not_built() -> Vec<(&'static str, &'static str)> {
    #[allow(unused_mut)]
    let mut v = Vec::new();
    #[cfg(not(feature = "openssl"))]
    v.push(("openssl", "built without the `openssl` feature"));
    #[cfg(not(feature = "rustcrypto"))]
    v.push(("rustcrypto", "built without the `rustcrypto` feature"));
    #[cfg(not(feature = "prims"))]
    v.push(("ango", "built without the `prims` feature"));
    v
}

/// Look a backend up by name.
pub fn by_name(name: &str) -> Result<&'static dyn Backend> {
    let n = name.trim().to_ascii_lowercase();
    registry()
        .into_iter()
        .find(|b| b.name() == n)
        .ok_or_else(|| {
            Error::usage(format!(
                "unknown backend '{name}'; valid: {}",
                registry()
                    .iter()
                    .map(|b| b.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })
}
