//! Library backends behind ango's traits. Each is a plain struct behind a
//! cargo feature; [`registry`] lists the ones built into this binary.

#[cfg(feature = "openssl")]
pub mod openssl;
pub mod pk;
#[cfg(feature = "prims")]
pub mod prims;
#[cfg(feature = "rustcrypto")]
pub mod rustcrypto;

use ango_core::{Algorithm, Backend, Error, Hw, Result, WithVariant};

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
    lookup(registry(), name, |b| b.name(), "backend")
}

/// Find `name` (case-insensitive) among `list`; an unknown name is a usage
/// error naming the valid ones.
pub(crate) fn lookup<T: ?Sized>(
    list: Vec<&'static T>,
    name: &str,
    name_of: fn(&T) -> &'static str,
    what: &str,
) -> Result<&'static T> {
    let n = name.trim().to_ascii_lowercase();
    if let Some(b) = list.iter().find(|b| name_of(b) == n) {
        return Ok(*b);
    }
    Err(Error::usage(format!(
        "unknown {what} '{name}'; valid: {}",
        list.iter()
            .map(|b| name_of(b))
            .collect::<Vec<_>>()
            .join(", ")
    )))
}

/// One implementation of an algorithm: a backend, pinned to a variant when
/// it has several.
pub struct Impl {
    /// `backend` or `backend[variant]`.
    pub label: String,
    pub backend: &'static dyn Backend,
    pub variant: Option<String>,
}

impl Impl {
    /// Run `f` on the backend, pinned to the variant if there is one.
    pub fn with<R>(&self, f: impl FnOnce(&dyn Backend) -> R) -> R {
        match &self.variant {
            Some(v) => f(&WithVariant {
                inner: self.backend,
                variant: v.clone(),
            }),
            None => f(self.backend),
        }
    }
}

/// Every (backend, variant) of `a` that this machine runs.
pub fn implementations(a: Algorithm) -> Vec<Impl> {
    let mut out = Vec::new();
    for b in registry() {
        if b.availability(a, Hw::On).is_err() && b.availability(a, Hw::Off).is_err() {
            continue;
        }
        let variants = b.variants(a);
        if variants.is_empty() {
            out.push(Impl {
                label: b.name().to_string(),
                backend: b,
                variant: None,
            });
        }
        for v in variants.into_iter().filter(|v| v.available.is_ok()) {
            out.push(Impl {
                label: format!("{}[{}]", b.name(), v.name),
                backend: b,
                variant: Some(v.name),
            });
        }
    }
    out
}
