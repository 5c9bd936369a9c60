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

/// A 32-byte X25519 (or Ed25519) value, checked for its length: the
/// message names `what` and the length given.
#[cfg(any(feature = "ring", feature = "aws-lc"))]
pub(crate) fn bytes32(what: &str, v: &[u8]) -> std::result::Result<Vec<u8>, String> {
    if v.len() != 32 {
        return Err(format!("{what}: expected 32 bytes, got {}", v.len()));
    }
    Ok(v.to_vec())
}

/// FIPS 203 §7.3's decapsulation-key check, for the libraries that lack
/// one (PQClean, libsodium): the H(ek) stored in dk = dk_PKE ‖ ek ‖ H(ek) ‖
/// z must be SHA3-256 of the ek stored beside it. A caller of such a
/// library that takes a key from elsewhere must run it; their adapters run
/// it on import, never in a timed call. `dk` has the length of one of the
/// three parameter sets (the caller checked it).
#[cfg(any(feature = "pqclean", feature = "libsodium"))]
pub(crate) fn mlkem_dk_hash_ok(dk: &[u8]) -> bool {
    use sha3::Digest as _;
    let k = (dk.len() - 96) / 768;
    let ek = &dk[384 * k..768 * k + 32];
    let stored = &dk[768 * k + 32..768 * k + 64];
    sha3::Sha3_256::digest(ek).as_slice() == stored
}

/// The error an adapter returns when [`mlkem_dk_hash_ok`] fails.
#[cfg(any(feature = "pqclean", feature = "libsodium"))]
pub(crate) const DK_HASH_REFUSED: &str =
    "secret key refused: its H(ek) does not match the ek it holds (FIPS 203 §7.3)";

#[cfg(all(test, any(feature = "pqclean", feature = "libsodium")))]
mod tests {
    use sha3::Digest as _;

    #[test]
    fn the_dk_hash_check_reads_the_fips203_layout() {
        for k in [2usize, 3, 4] {
            // dk_PKE ‖ ek ‖ H(ek) ‖ z with arbitrary bytes and the right hash.
            let mut dk: Vec<u8> = (0..384 * k).map(|i| i as u8).collect();
            let ek: Vec<u8> = (0..384 * k + 32).map(|i| (i * 7) as u8).collect();
            dk.extend_from_slice(&ek);
            dk.extend_from_slice(sha3::Sha3_256::digest(&ek).as_slice());
            dk.extend_from_slice(&[9u8; 32]);
            assert_eq!(dk.len(), 768 * k + 96);
            assert!(super::mlkem_dk_hash_ok(&dk));
            for pos in [384 * k, 768 * k + 31, 768 * k + 32, 768 * k + 63] {
                let mut bad = dk.clone();
                bad[pos] ^= 1;
                assert!(!super::mlkem_dk_hash_ok(&bad), "k={k} pos={pos}");
            }
            // z and dk_PKE are not covered by the hash.
            let mut other = dk.clone();
            other[0] ^= 1;
            other[768 * k + 95] ^= 1;
            assert!(super::mlkem_dk_hash_ok(&other));
        }
    }
}

/// A public-key library built twice, portable and AVX2 (libcrux, PQClean):
/// the two builds are variants of one provider, called by name so each
/// record says which ran.
#[cfg(any(feature = "libcrux", feature = "pqclean"))]
pub(crate) mod two_builds {
    use ango_core::catalog::{Make, MakeKem, MakeSigner};
    use ango_core::{AlgorithmId, Entry, Hw, Kem, PkAlgorithm, Provider, Signer};
    use std::sync::Arc;

    /// What a provider tells about itself.
    pub(crate) struct Builds {
        /// The portable build's variant name (`portable`, `clean`).
        pub portable: &'static str,
        /// Who needs AVX2, for the unavailability reason (`libcrux's`).
        pub whose: &'static str,
        /// The constructor of (algorithm, AVX2 build?); None where the
        /// library lacks the algorithm.
        pub make: fn(PkAlgorithm, bool) -> Option<Make>,
        /// The implementation label of (algorithm, AVX2 build?).
        pub implementation: fn(PkAlgorithm, bool) -> String,
    }

    pub(crate) fn kem<T: Kem + Default + 'static>() -> Option<Make> {
        let f: MakeKem = Arc::new(|| Ok(Box::new(T::default()) as Box<dyn Kem>));
        Some(Make::Kem(f))
    }

    pub(crate) fn signer<T: Signer + Default + 'static>() -> Option<Make> {
        let f: MakeSigner = Arc::new(|| Ok(Box::new(T::default()) as Box<dyn Signer>));
        Some(Make::Signer(f))
    }

    fn avx2_here() -> bool {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            return true;
        }
        false
    }

    /// Two entries per algorithm the library has; the AVX2 one is the
    /// automatic variant where the CPU has AVX2 (as the library's own
    /// dispatch would choose), else the portable one.
    pub(crate) fn entries(p: &'static Provider, b: &Builds) -> Vec<Entry> {
        let avx2 = avx2_here();
        let mut v = Vec::new();
        for &a in PkAlgorithm::ALL {
            for simd in [false, true] {
                let Some(make) = (b.make)(a, simd) else {
                    continue;
                };
                v.push(Entry {
                    algorithm: AlgorithmId::Pk(a),
                    provider: p,
                    variant: if simd { "avx2" } else { b.portable }.into(),
                    auto: simd == avx2,
                    implementation: (b.implementation)(a, simd),
                    needs: if simd { vec!["avx2"] } else { Vec::new() },
                    hw: vec![Hw::On],
                    hw_note: "public-key points run with every CPU feature".into(),
                    available: if !simd || avx2 {
                        Ok(())
                    } else {
                        Err(format!("{} AVX2 code needs a CPU with AVX2", b.whose))
                    },
                    untimed: Vec::new(),
                    make,
                });
            }
        }
        v
    }
}
