//! The providers: each library (and ango's own code) is one module that
//! exports a [`Provider`](ango_core::Provider) listing its entries, behind
//! a cargo feature. [`catalog`] holds every provider built into this
//! binary; adding a library is one module and one line in `providers!`.

/// A provider module's error helpers, written once: `err(msg)` (an error
/// of this backend), `no_key()` and `no_peer()` (a public-key call made
/// before keygen or set_peer). `provider_errors!(NAME)` at the top of the
/// module.
macro_rules! provider_errors {
    ($backend:expr) => {
        #[allow(dead_code)]
        fn err(msg: impl std::fmt::Display) -> ango_core::Error {
            ango_core::Error::Backend {
                backend: $backend,
                message: msg.to_string(),
            }
        }

        #[allow(dead_code)]
        fn no_key() -> ango_core::Error {
            err("no key pair: call keygen first")
        }

        #[allow(dead_code)]
        fn no_peer() -> ango_core::Error {
            err("no peer public key: call set_peer first")
        }
    };
}

/// The lengths of ring's and AWS-LC's `LessSafeKey` AEADs: a 12-byte
/// nonce and a 16-byte tag.
#[cfg(any(feature = "ring", feature = "aws-lc"))]
const LESS_SAFE_KEY_LENGTHS: (usize, usize) = (12, 16);
#[cfg(any(feature = "ring", feature = "aws-lc"))]
const LESS_SAFE_KEY: ango_core::AeadLengths =
    ango_core::AeadLengths::new(LESS_SAFE_KEY_LENGTHS.0, LESS_SAFE_KEY_LENGTHS.1);

/// The seal of ring's and AWS-LC's `LessSafeKey` (one API in both
/// crates): in place, the tag separate. Expanded in each module's `impl
/// Aead`, with that crate's `Nonce` and `Aad` and the module's `err`.
#[cfg(any(feature = "ring", feature = "aws-lc"))]
macro_rules! less_safe_key_seal {
    () => {
        fn seal(
            &mut self,
            nonce: &[u8],
            aad: &[u8],
            buf: &mut [u8],
            tag: &mut [u8],
        ) -> ango_core::Result<()> {
            crate::LESS_SAFE_KEY.seal(NAME, nonce, tag)?;
            let n = Nonce::try_assume_unique_for_key(nonce).map_err(|_| err("nonce length"))?;
            let t = self
                .0
                .seal_in_place_separate_tag(n, Aad::from(aad), buf)
                .map_err(|_| err("encryption failed"))?;
            tag.copy_from_slice(t.as_ref());
            Ok(())
        }
    };
}

pub mod pk;

use ango_core::{Catalog, Provider};

/// Declares each provider's module (behind its cargo feature) and lists it
/// in [`PROVIDERS`] in table order, or in `NOT_BUILT` with why when the
/// binary is built without it.
macro_rules! providers {
    ($( $name:literal: $module:ident if $feature:literal, )*) => {
        $(
            #[cfg(feature = $feature)]
            pub mod $module;
        )*

        /// Every provider built into this binary, in table order.
        pub const PROVIDERS: &[&Provider] = &[
            $(
                #[cfg(feature = $feature)]
                &$module::PROVIDER,
            )*
        ];

        /// Providers ango knows of but this binary was built without, with why.
        const NOT_BUILT: &[(&str, &str)] = &[
            $(
                #[cfg(not(feature = $feature))]
                ($name, concat!("built without the `", $feature, "` feature")),
            )*
        ];
    };
}

// Adding a library: its module (with `provider_errors!(NAME)`), its line
// here, its dependency and feature in Cargo.toml (in `symmetric` or
// `default`).
providers! {
    "openssl": openssl if "openssl",
    "liboqs": liboqs if "pk-oqs",
    "rustcrypto": rustcrypto if "rustcrypto",
    "ring": ring if "ring",
    "aws-lc": aws_lc if "aws-lc",
    "libcrux": libcrux if "libcrux",
    "pqclean": pqclean if "pqclean",
    "libsodium": libsodium if "libsodium",
    "libtomcrypt": libtomcrypt if "libtomcrypt",
    "libgcrypt": libgcrypt if "libgcrypt",
    "ango": prims if "prims",
}

/// The catalog of this binary, made once.
pub fn catalog() -> &'static Catalog {
    static CATALOG: std::sync::OnceLock<Catalog> = std::sync::OnceLock::new();
    CATALOG.get_or_init(|| Catalog::new(PROVIDERS.to_vec(), NOT_BUILT.to_vec()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ango_core::{Algorithm, AlgorithmId, PkAlgorithm};

    #[test]
    fn every_algorithm_has_entries_and_ids_are_unique() {
        let c = catalog();
        let mut ids: Vec<String> = c.entries.iter().map(|e| e.id()).collect();
        let n = ids.len();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), n, "duplicate entry ids");
        for &a in Algorithm::ALL {
            assert!(c.of(AlgorithmId::Sym(a)).next().is_some(), "{a}");
        }
        for &a in PkAlgorithm::DEFAULT {
            assert!(c.runnable(AlgorithmId::Pk(a)).len() >= 2, "{a}");
        }
        // Exactly one automatic variant per (provider, algorithm) that runs.
        for p in &c.providers {
            for a in AlgorithmId::all() {
                let autos = c
                    .of_provider(a, p)
                    .filter(|e| e.auto && e.available.is_ok())
                    .count();
                assert!(autos <= 1, "{} {a}: {autos}", p.name);
            }
        }
    }

    #[test]
    fn unknown_and_unbuilt_names_list_the_valid_ones() {
        let e = catalog().provider("wolfssl").unwrap_err().to_string();
        for p in PROVIDERS {
            assert!(e.contains(p.name), "{e}");
        }
        assert!(catalog().providers_named(" , ").is_err());
        let v = catalog().providers_named("OpenSSL,ango,openssl").unwrap();
        assert_eq!(v.len(), 2);
    }

    #[test]
    fn own_variants_are_typed_entries() {
        let c = catalog();
        let gcm: Vec<_> = c
            .of(AlgorithmId::Sym(Algorithm::Aes128Gcm))
            .filter(|e| e.provider.has_variants && e.variant != "auto")
            .collect();
        // Every AES variant × every GHASH variant, available here or not
        // (and `auto` beside them, which runs one of them), written out
        // here rather than recomputed from the lists the catalog uses.
        let aes = ["fips-sbox-nct", "ttable-nct", "bitsliced"];
        let ghash = ["4bit-nct", "ctmul"];
        #[cfg(target_arch = "x86_64")]
        let (aes, ghash) = (
            [&aes[..], &["aesni", "vaes", "vaes512"]].concat(),
            [&ghash[..], &["pclmul", "vpclmul"]].concat(),
        );
        let mut want: Vec<String> = aes
            .iter()
            .flat_map(|a| ghash.iter().map(move |g| format!("aes/{a}+ghash/{g}")))
            .collect();
        let mut got: Vec<String> = gcm.iter().map(|e| e.variant.to_string()).collect();
        want.sort();
        got.sort();
        assert_eq!(got, want);
        #[cfg(target_arch = "x86_64")]
        assert_eq!(got.len(), 24);
        let portable = gcm
            .iter()
            .find(|e| e.variant == "aes/ttable-nct+ghash/4bit-nct")
            .unwrap();
        assert!(portable.available.is_ok());
        let mut a = portable.aead(&[7u8; 16], 12, 16).unwrap();
        let (mut buf, mut tag) = ([0u8; 5], [0u8; 16]);
        a.seal(&[1u8; 12], b"", &mut buf, &mut tag).unwrap();
    }
}
