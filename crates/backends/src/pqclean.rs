//! PQClean (the reference-grade C of the NIST submissions, as packaged by
//! `pqcrypto-mlkem` and `pqcrypto-mldsa`): ML-KEM-512/768/1024 and
//! ML-DSA-44/65/87, each as two variants, PQClean's `clean` C and its `avx2`
//! C.
//!
//! The crates' safe functions pick AVX2 by CPU and do not say which ran;
//! ango calls the two sets of C functions the crates export in their `ffi`
//! modules (`PQCLEAN_MLKEM768_CLEAN_crypto_kem_enc`,
//! `PQCLEAN_MLKEM768_AVX2_crypto_kem_enc`, …), so a record's variant is the
//! code that ran. `avx2` is offered only where the CPU has AVX2.
//!
//! How each call reaches the library: the C API of the NIST submissions,
//! one call per operation (`crypto_kem_keypair`/`enc`/`dec`,
//! `crypto_sign_keypair`, `crypto_sign_signature_ctx`, `crypto_sign_verify_ctx`:
//! detached signatures, empty context, PQClean's hedged signing with its
//! own randomness). PQClean offers no key-validation function: it
//! decapsulates with a secret key whose stored H(ek) is wrong (Wycheproof's
//! InvalidDecapsulationKey cases), so the adapter applies FIPS 203 §7.3's
//! hash check itself when it imports a key, as any caller of PQClean must
//! (keys from its own keygen are not checked, and no timed call is). The C API keeps no state
//! between calls, so `operation` and `api-call` time the same call.

use ango_core::catalog::Make;
use ango_core::{Entry, Kem, PkAlgorithm, Provider, Result, Signer, SizeEntry};

const NAME: &str = "pqclean";
/// The crate versions Cargo.toml pins exactly (each bundles its PQClean
/// sources).
const VERSION: &str = "pqcrypto-mlkem 0.1.1, pqcrypto-mldsa 0.1.2 (PQClean)";

provider_errors!(NAME);

fn check_len(what: &str, alg: &str, want: usize, got: usize) -> Result<()> {
    if want == got {
        Ok(())
    } else {
        Err(err(format!(
            "{alg} {what}: expected {want} bytes, got {got}"
        )))
    }
}

macro_rules! kem {
    ($ty:ident, $ffi:path, $kp:ident, $derand:ident, $encd:ident, $enc:ident, $dec:ident, $pk:expr, $sk:expr, $ct:expr, $alg:literal) => {
        #[derive(Default)]
        struct $ty {
            sk: Option<Vec<u8>>,
            peer: Option<Vec<u8>>,
        }

        impl Kem for $ty {
            fn keygen(&mut self) -> Result<Vec<u8>> {
                use $ffi as f;
                self.sk = None;
                let (mut pk, mut sk) = (vec![0u8; $pk], vec![0u8; $sk]);
                // SAFETY: FFI; both buffers have the sizes the C API
                // writes (CRYPTO_PUBLICKEYBYTES, CRYPTO_SECRETKEYBYTES).
                let rc = unsafe { f::$kp(pk.as_mut_ptr(), sk.as_mut_ptr()) };
                if rc != 0 {
                    return Err(err(format!("{} keypair returned {rc}", $alg)));
                }
                self.sk = Some(sk);
                Ok(pk)
            }

            /// ML-KEM.KeyGen_internal(d, z) from the 64-byte d‖z
            /// (PQClean's `crypto_kem_keypair_derand`, whose coins are
            /// d then z).
            fn keygen_from_seed(&mut self, seed: &[u8]) -> Result<Vec<u8>> {
                self.sk = None;
                check_len("seed d||z", $alg, 64, seed.len())?;
                let (mut pk, mut sk) = (vec![0u8; $pk], vec![0u8; $sk]);
                // SAFETY: FFI; both buffers have the sizes the C API
                // writes, the seed the 64 bytes it reads.
                let rc = unsafe { $derand(pk.as_mut_ptr(), sk.as_mut_ptr(), seed.as_ptr()) };
                if rc != 0 {
                    return Err(err(format!("{} keypair_derand returned {rc}", $alg)));
                }
                self.sk = Some(sk);
                Ok(pk)
            }

            fn import_secret(&mut self, sk: &[u8]) -> Result<()> {
                self.sk = None;
                check_len("secret key", $alg, $sk, sk.len())?;
                if !crate::pk::mlkem_dk_hash_ok(sk) {
                    return Err(err(format!("{} {}", $alg, crate::pk::DK_HASH_REFUSED)));
                }
                self.sk = Some(sk.to_vec());
                Ok(())
            }

            fn set_peer(&mut self, pk: &[u8]) -> Result<()> {
                self.peer = None;
                check_len("public key", $alg, $pk, pk.len())?;
                self.peer = Some(pk.to_vec());
                Ok(())
            }

            fn encaps(&mut self) -> Result<(Vec<u8>, Vec<u8>)> {
                use $ffi as f;
                let pk = self.peer.as_ref().ok_or_else(no_peer)?;
                let (mut ct, mut ss) = (vec![0u8; $ct], vec![0u8; 32]);
                // SAFETY: FFI; `pk` has CRYPTO_PUBLICKEYBYTES (checked in
                // set_peer), `ct` CRYPTO_CIPHERTEXTBYTES, `ss` CRYPTO_BYTES.
                let rc = unsafe { f::$enc(ct.as_mut_ptr(), ss.as_mut_ptr(), pk.as_ptr()) };
                if rc != 0 {
                    return Err(err(format!("{} enc returned {rc}", $alg)));
                }
                Ok((ct, ss))
            }

            /// ML-KEM.Encaps_internal(ek, m) (PQClean's
            /// `crypto_kem_enc_derand`, whose coins are m).
            fn encaps_derand(&mut self, m: &[u8]) -> Result<(Vec<u8>, Vec<u8>)> {
                let pk = self.peer.as_ref().ok_or_else(no_peer)?;
                check_len("m", $alg, 32, m.len())?;
                let (mut ct, mut ss) = (vec![0u8; $ct], vec![0u8; 32]);
                // SAFETY: FFI; `pk` has CRYPTO_PUBLICKEYBYTES (checked in
                // set_peer), `ct` CRYPTO_CIPHERTEXTBYTES, `ss` CRYPTO_BYTES,
                // `m` the 32 bytes the C API reads.
                let rc = unsafe { $encd(ct.as_mut_ptr(), ss.as_mut_ptr(), pk.as_ptr(), m.as_ptr()) };
                if rc != 0 {
                    return Err(err(format!("{} enc_derand returned {rc}", $alg)));
                }
                Ok((ct, ss))
            }

            fn export_secret(&self) -> Result<Vec<u8>> {
                self.sk.clone().ok_or_else(no_key)
            }

            fn decaps(&mut self, ct: &[u8]) -> Result<Vec<u8>> {
                use $ffi as f;
                let sk = self.sk.as_ref().ok_or_else(no_key)?;
                check_len("ciphertext", $alg, $ct, ct.len())?;
                let mut ss = vec![0u8; 32];
                // SAFETY: FFI; `ct` and `sk` have the sizes the C API reads
                // (checked above and at keygen/import), `ss` CRYPTO_BYTES.
                let rc = unsafe { f::$dec(ss.as_mut_ptr(), ct.as_ptr(), sk.as_ptr()) };
                if rc != 0 {
                    return Err(err(format!("{} dec returned {rc}", $alg)));
                }
                Ok(ss)
            }

            fn key_sizes(&self) -> Result<Vec<SizeEntry>> {
                let sk = self.sk.as_ref().ok_or_else(no_key)?;
                Ok(vec![SizeEntry::new(
                    "secret_key",
                    "fips203-expanded",
                    sk.len(),
                )])
            }
        }
    };
}

use pqcrypto_mlkem::ffi as kf;

// PQClean's seeded key generation and encapsulation: in the crate's static
// library (kem.c) but not declared by its `ffi` module.
extern "C" {
    fn PQCLEAN_MLKEM512_CLEAN_crypto_kem_keypair_derand(
        pk: *mut u8,
        sk: *mut u8,
        coins: *const u8,
    ) -> i32;
    fn PQCLEAN_MLKEM512_CLEAN_crypto_kem_enc_derand(
        ct: *mut u8,
        ss: *mut u8,
        pk: *const u8,
        coins: *const u8,
    ) -> i32;
    fn PQCLEAN_MLKEM768_CLEAN_crypto_kem_keypair_derand(
        pk: *mut u8,
        sk: *mut u8,
        coins: *const u8,
    ) -> i32;
    fn PQCLEAN_MLKEM768_CLEAN_crypto_kem_enc_derand(
        ct: *mut u8,
        ss: *mut u8,
        pk: *const u8,
        coins: *const u8,
    ) -> i32;
    fn PQCLEAN_MLKEM1024_CLEAN_crypto_kem_keypair_derand(
        pk: *mut u8,
        sk: *mut u8,
        coins: *const u8,
    ) -> i32;
    fn PQCLEAN_MLKEM1024_CLEAN_crypto_kem_enc_derand(
        ct: *mut u8,
        ss: *mut u8,
        pk: *const u8,
        coins: *const u8,
    ) -> i32;
}

#[cfg(target_arch = "x86_64")]
extern "C" {
    fn PQCLEAN_MLKEM512_AVX2_crypto_kem_keypair_derand(
        pk: *mut u8,
        sk: *mut u8,
        coins: *const u8,
    ) -> i32;
    fn PQCLEAN_MLKEM512_AVX2_crypto_kem_enc_derand(
        ct: *mut u8,
        ss: *mut u8,
        pk: *const u8,
        coins: *const u8,
    ) -> i32;
    fn PQCLEAN_MLKEM768_AVX2_crypto_kem_keypair_derand(
        pk: *mut u8,
        sk: *mut u8,
        coins: *const u8,
    ) -> i32;
    fn PQCLEAN_MLKEM768_AVX2_crypto_kem_enc_derand(
        ct: *mut u8,
        ss: *mut u8,
        pk: *const u8,
        coins: *const u8,
    ) -> i32;
    fn PQCLEAN_MLKEM1024_AVX2_crypto_kem_keypair_derand(
        pk: *mut u8,
        sk: *mut u8,
        coins: *const u8,
    ) -> i32;
    fn PQCLEAN_MLKEM1024_AVX2_crypto_kem_enc_derand(
        ct: *mut u8,
        ss: *mut u8,
        pk: *const u8,
        coins: *const u8,
    ) -> i32;
}

kem!(
    MlKem512Clean,
    pqcrypto_mlkem::ffi,
    PQCLEAN_MLKEM512_CLEAN_crypto_kem_keypair,
    PQCLEAN_MLKEM512_CLEAN_crypto_kem_keypair_derand,
    PQCLEAN_MLKEM512_CLEAN_crypto_kem_enc_derand,
    PQCLEAN_MLKEM512_CLEAN_crypto_kem_enc,
    PQCLEAN_MLKEM512_CLEAN_crypto_kem_dec,
    kf::PQCLEAN_MLKEM512_CLEAN_CRYPTO_PUBLICKEYBYTES,
    kf::PQCLEAN_MLKEM512_CLEAN_CRYPTO_SECRETKEYBYTES,
    kf::PQCLEAN_MLKEM512_CLEAN_CRYPTO_CIPHERTEXTBYTES,
    "ML-KEM-512"
);
kem!(
    MlKem768Clean,
    pqcrypto_mlkem::ffi,
    PQCLEAN_MLKEM768_CLEAN_crypto_kem_keypair,
    PQCLEAN_MLKEM768_CLEAN_crypto_kem_keypair_derand,
    PQCLEAN_MLKEM768_CLEAN_crypto_kem_enc_derand,
    PQCLEAN_MLKEM768_CLEAN_crypto_kem_enc,
    PQCLEAN_MLKEM768_CLEAN_crypto_kem_dec,
    kf::PQCLEAN_MLKEM768_CLEAN_CRYPTO_PUBLICKEYBYTES,
    kf::PQCLEAN_MLKEM768_CLEAN_CRYPTO_SECRETKEYBYTES,
    kf::PQCLEAN_MLKEM768_CLEAN_CRYPTO_CIPHERTEXTBYTES,
    "ML-KEM-768"
);
kem!(
    MlKem1024Clean,
    pqcrypto_mlkem::ffi,
    PQCLEAN_MLKEM1024_CLEAN_crypto_kem_keypair,
    PQCLEAN_MLKEM1024_CLEAN_crypto_kem_keypair_derand,
    PQCLEAN_MLKEM1024_CLEAN_crypto_kem_enc_derand,
    PQCLEAN_MLKEM1024_CLEAN_crypto_kem_enc,
    PQCLEAN_MLKEM1024_CLEAN_crypto_kem_dec,
    kf::PQCLEAN_MLKEM1024_CLEAN_CRYPTO_PUBLICKEYBYTES,
    kf::PQCLEAN_MLKEM1024_CLEAN_CRYPTO_SECRETKEYBYTES,
    kf::PQCLEAN_MLKEM1024_CLEAN_CRYPTO_CIPHERTEXTBYTES,
    "ML-KEM-1024"
);
#[cfg(target_arch = "x86_64")]
kem!(
    MlKem512Avx2,
    pqcrypto_mlkem::ffi,
    PQCLEAN_MLKEM512_AVX2_crypto_kem_keypair,
    PQCLEAN_MLKEM512_AVX2_crypto_kem_keypair_derand,
    PQCLEAN_MLKEM512_AVX2_crypto_kem_enc_derand,
    PQCLEAN_MLKEM512_AVX2_crypto_kem_enc,
    PQCLEAN_MLKEM512_AVX2_crypto_kem_dec,
    kf::PQCLEAN_MLKEM512_AVX2_CRYPTO_PUBLICKEYBYTES,
    kf::PQCLEAN_MLKEM512_AVX2_CRYPTO_SECRETKEYBYTES,
    kf::PQCLEAN_MLKEM512_AVX2_CRYPTO_CIPHERTEXTBYTES,
    "ML-KEM-512"
);
#[cfg(target_arch = "x86_64")]
kem!(
    MlKem768Avx2,
    pqcrypto_mlkem::ffi,
    PQCLEAN_MLKEM768_AVX2_crypto_kem_keypair,
    PQCLEAN_MLKEM768_AVX2_crypto_kem_keypair_derand,
    PQCLEAN_MLKEM768_AVX2_crypto_kem_enc_derand,
    PQCLEAN_MLKEM768_AVX2_crypto_kem_enc,
    PQCLEAN_MLKEM768_AVX2_crypto_kem_dec,
    kf::PQCLEAN_MLKEM768_AVX2_CRYPTO_PUBLICKEYBYTES,
    kf::PQCLEAN_MLKEM768_AVX2_CRYPTO_SECRETKEYBYTES,
    kf::PQCLEAN_MLKEM768_AVX2_CRYPTO_CIPHERTEXTBYTES,
    "ML-KEM-768"
);
#[cfg(target_arch = "x86_64")]
kem!(
    MlKem1024Avx2,
    pqcrypto_mlkem::ffi,
    PQCLEAN_MLKEM1024_AVX2_crypto_kem_keypair,
    PQCLEAN_MLKEM1024_AVX2_crypto_kem_keypair_derand,
    PQCLEAN_MLKEM1024_AVX2_crypto_kem_enc_derand,
    PQCLEAN_MLKEM1024_AVX2_crypto_kem_enc,
    PQCLEAN_MLKEM1024_AVX2_crypto_kem_dec,
    kf::PQCLEAN_MLKEM1024_AVX2_CRYPTO_PUBLICKEYBYTES,
    kf::PQCLEAN_MLKEM1024_AVX2_CRYPTO_SECRETKEYBYTES,
    kf::PQCLEAN_MLKEM1024_AVX2_CRYPTO_CIPHERTEXTBYTES,
    "ML-KEM-1024"
);

macro_rules! dsa {
    ($ty:ident, $ffi:path, $kp:ident, $sign:ident, $verify:ident, $pk:expr, $sk:expr, $sig:expr, $alg:literal) => {
        #[derive(Default)]
        struct $ty {
            sk: Option<Vec<u8>>,
            peer: Option<Vec<u8>>,
        }

        impl Signer for $ty {
            fn keygen(&mut self) -> Result<Vec<u8>> {
                use $ffi as f;
                self.sk = None;
                let (mut pk, mut sk) = (vec![0u8; $pk], vec![0u8; $sk]);
                // SAFETY: FFI; both buffers have the sizes the C API writes.
                let rc = unsafe { f::$kp(pk.as_mut_ptr(), sk.as_mut_ptr()) };
                if rc != 0 {
                    return Err(err(format!("{} keypair returned {rc}", $alg)));
                }
                self.sk = Some(sk);
                Ok(pk)
            }

            fn sign(&mut self, msg: &[u8]) -> Result<Vec<u8>> {
                use $ffi as f;
                let sk = self.sk.as_ref().ok_or_else(no_key)?;
                let mut sig = vec![0u8; $sig];
                let mut len = 0usize;
                // SAFETY: FFI; `sig` has CRYPTO_BYTES (the most the C API
                // writes), `msg` is read for its length, `sk` has
                // CRYPTO_SECRETKEYBYTES.
                let rc = unsafe {
                    f::$sign(
                        sig.as_mut_ptr(),
                        &mut len,
                        msg.as_ptr(),
                        msg.len(),
                        [].as_ptr(),
                        0,
                        sk.as_ptr(),
                    )
                };
                if rc != 0 || len > sig.len() {
                    return Err(err(format!("{} signature returned {rc}", $alg)));
                }
                sig.truncate(len);
                Ok(sig)
            }

            fn set_peer(&mut self, pk: &[u8]) -> Result<()> {
                self.peer = None;
                check_len("public key", $alg, $pk, pk.len())?;
                self.peer = Some(pk.to_vec());
                Ok(())
            }

            fn verify(&mut self, msg: &[u8], s: &[u8]) -> Result<bool> {
                use $ffi as f;
                let pk = self.peer.as_ref().ok_or_else(no_peer)?;
                // SAFETY: FFI; each pointer is read for the length passed
                // with it, `pk` has CRYPTO_PUBLICKEYBYTES (set_peer).
                let rc = unsafe {
                    f::$verify(
                        s.as_ptr(),
                        s.len(),
                        msg.as_ptr(),
                        msg.len(),
                        [].as_ptr(),
                        0,
                        pk.as_ptr(),
                    )
                };
                Ok(rc == 0)
            }

            fn key_sizes(&self) -> Result<Vec<SizeEntry>> {
                let sk = self.sk.as_ref().ok_or_else(no_key)?;
                Ok(vec![SizeEntry::new(
                    "secret_key",
                    "fips204-expanded",
                    sk.len(),
                )])
            }
        }
    };
}

use pqcrypto_mldsa::ffi as sf;

dsa!(
    MlDsa44Clean,
    pqcrypto_mldsa::ffi,
    PQCLEAN_MLDSA44_CLEAN_crypto_sign_keypair,
    PQCLEAN_MLDSA44_CLEAN_crypto_sign_signature_ctx,
    PQCLEAN_MLDSA44_CLEAN_crypto_sign_verify_ctx,
    sf::PQCLEAN_MLDSA44_CLEAN_CRYPTO_PUBLICKEYBYTES,
    sf::PQCLEAN_MLDSA44_CLEAN_CRYPTO_SECRETKEYBYTES,
    sf::PQCLEAN_MLDSA44_CLEAN_CRYPTO_BYTES,
    "ML-DSA-44"
);
dsa!(
    MlDsa65Clean,
    pqcrypto_mldsa::ffi,
    PQCLEAN_MLDSA65_CLEAN_crypto_sign_keypair,
    PQCLEAN_MLDSA65_CLEAN_crypto_sign_signature_ctx,
    PQCLEAN_MLDSA65_CLEAN_crypto_sign_verify_ctx,
    sf::PQCLEAN_MLDSA65_CLEAN_CRYPTO_PUBLICKEYBYTES,
    sf::PQCLEAN_MLDSA65_CLEAN_CRYPTO_SECRETKEYBYTES,
    sf::PQCLEAN_MLDSA65_CLEAN_CRYPTO_BYTES,
    "ML-DSA-65"
);
dsa!(
    MlDsa87Clean,
    pqcrypto_mldsa::ffi,
    PQCLEAN_MLDSA87_CLEAN_crypto_sign_keypair,
    PQCLEAN_MLDSA87_CLEAN_crypto_sign_signature_ctx,
    PQCLEAN_MLDSA87_CLEAN_crypto_sign_verify_ctx,
    sf::PQCLEAN_MLDSA87_CLEAN_CRYPTO_PUBLICKEYBYTES,
    sf::PQCLEAN_MLDSA87_CLEAN_CRYPTO_SECRETKEYBYTES,
    sf::PQCLEAN_MLDSA87_CLEAN_CRYPTO_BYTES,
    "ML-DSA-87"
);
#[cfg(target_arch = "x86_64")]
dsa!(
    MlDsa44Avx2,
    pqcrypto_mldsa::ffi,
    PQCLEAN_MLDSA44_AVX2_crypto_sign_keypair,
    PQCLEAN_MLDSA44_AVX2_crypto_sign_signature_ctx,
    PQCLEAN_MLDSA44_AVX2_crypto_sign_verify_ctx,
    sf::PQCLEAN_MLDSA44_AVX2_CRYPTO_PUBLICKEYBYTES,
    sf::PQCLEAN_MLDSA44_AVX2_CRYPTO_SECRETKEYBYTES,
    sf::PQCLEAN_MLDSA44_AVX2_CRYPTO_BYTES,
    "ML-DSA-44"
);
#[cfg(target_arch = "x86_64")]
dsa!(
    MlDsa65Avx2,
    pqcrypto_mldsa::ffi,
    PQCLEAN_MLDSA65_AVX2_crypto_sign_keypair,
    PQCLEAN_MLDSA65_AVX2_crypto_sign_signature_ctx,
    PQCLEAN_MLDSA65_AVX2_crypto_sign_verify_ctx,
    sf::PQCLEAN_MLDSA65_AVX2_CRYPTO_PUBLICKEYBYTES,
    sf::PQCLEAN_MLDSA65_AVX2_CRYPTO_SECRETKEYBYTES,
    sf::PQCLEAN_MLDSA65_AVX2_CRYPTO_BYTES,
    "ML-DSA-65"
);
#[cfg(target_arch = "x86_64")]
dsa!(
    MlDsa87Avx2,
    pqcrypto_mldsa::ffi,
    PQCLEAN_MLDSA87_AVX2_crypto_sign_keypair,
    PQCLEAN_MLDSA87_AVX2_crypto_sign_signature_ctx,
    PQCLEAN_MLDSA87_AVX2_crypto_sign_verify_ctx,
    sf::PQCLEAN_MLDSA87_AVX2_CRYPTO_PUBLICKEYBYTES,
    sf::PQCLEAN_MLDSA87_AVX2_CRYPTO_SECRETKEYBYTES,
    sf::PQCLEAN_MLDSA87_AVX2_CRYPTO_BYTES,
    "ML-DSA-87"
);

/// The constructor of one (algorithm, build); None for an algorithm
/// PQClean does not have here.
fn make(a: PkAlgorithm, avx2: bool) -> Option<Make> {
    use crate::pk::two_builds::{kem as k, signer as s};
    use PkAlgorithm as P;
    match (a, avx2) {
        (P::MlKem512, false) => k::<MlKem512Clean>(),
        (P::MlKem768, false) => k::<MlKem768Clean>(),
        (P::MlKem1024, false) => k::<MlKem1024Clean>(),
        (P::MlDsa44, false) => s::<MlDsa44Clean>(),
        (P::MlDsa65, false) => s::<MlDsa65Clean>(),
        (P::MlDsa87, false) => s::<MlDsa87Clean>(),
        #[cfg(target_arch = "x86_64")]
        (P::MlKem512, true) => k::<MlKem512Avx2>(),
        #[cfg(target_arch = "x86_64")]
        (P::MlKem768, true) => k::<MlKem768Avx2>(),
        #[cfg(target_arch = "x86_64")]
        (P::MlKem1024, true) => k::<MlKem1024Avx2>(),
        #[cfg(target_arch = "x86_64")]
        (P::MlDsa44, true) => s::<MlDsa44Avx2>(),
        #[cfg(target_arch = "x86_64")]
        (P::MlDsa65, true) => s::<MlDsa65Avx2>(),
        #[cfg(target_arch = "x86_64")]
        (P::MlDsa87, true) => s::<MlDsa87Avx2>(),
        _ => None,
    }
}

fn implementation(a: PkAlgorithm, avx2: bool) -> String {
    let prefix = match a {
        PkAlgorithm::MlKem512 => "PQCLEAN_MLKEM512",
        PkAlgorithm::MlKem768 => "PQCLEAN_MLKEM768",
        PkAlgorithm::MlKem1024 => "PQCLEAN_MLKEM1024",
        PkAlgorithm::MlDsa44 => "PQCLEAN_MLDSA44",
        PkAlgorithm::MlDsa65 => "PQCLEAN_MLDSA65",
        _ => "PQCLEAN_MLDSA87",
    };
    if avx2 {
        format!("{prefix}_AVX2_* (AVX2 C and assembly)")
    } else {
        format!("{prefix}_CLEAN_* (portable C)")
    }
}

/// PQClean as a provider: two variants of each of its six algorithms.
pub static PROVIDER: Provider = Provider {
    name: NAME,
    version: provider_version,
    worker_env: ango_core::catalog::no_worker_env,
    cpu_view: ango_core::catalog::no_cpu_view,
    has_variants: true,
    entries: provider_entries,
};

fn provider_version() -> String {
    VERSION.into()
}

fn provider_entries() -> Vec<Entry> {
    crate::pk::two_builds::entries(
        &PROVIDER,
        &crate::pk::two_builds::Builds {
            portable: "clean",
            whose: "PQClean's",
            make,
            implementation,
        },
    )
}
