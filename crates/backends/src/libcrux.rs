//! libcrux (Cryspen's formally verified ML-KEM and ML-DSA, extracted from
//! F*/hax-checked Rust): ML-KEM-512/768/1024 and ML-DSA-44/65/87, each as
//! two variants, its portable code and its AVX2 code (`simd256`).
//!
//! The crate's top-level functions choose portable or AVX2 by CPU at run
//! time and do not say which ran; ango calls the two instantiations the
//! crate exports by name (`mlkem768::portable`, `mlkem768::avx2`, …), so a
//! record's variant is the code that ran. `avx2` is offered only where the
//! CPU has AVX2 (the crate's AVX2 functions assume it).
//!
//! How each call reaches the library: packed keys and one-shot calls
//! (`generate_key_pair`, `encapsulate`, `decapsulate`, `sign`, `verify`)
//! with 32/64 bytes from the OS random generator passed in. Key checks:
//! every peer public key goes through `validate_public_key` (FIPS 203
//! §7.2, the modulus check) and every imported secret key through
//! `validate_private_key_only` (§7.3, the H(ek) check) before use; a key
//! that fails is refused. libcrux-ml-dsa has no key-validation function.
//! `timing: api-call` times those one-shot calls on packed keys;
//! `timing: operation` times ML-KEM encapsulation and decapsulation through
//! the crate's `unpacked` API, the key expanded once before the clock and
//! kept (as a TLS stack that caches a peer key would). ML-DSA has no such
//! API here, so both timings time the same call.

use ango_core::catalog::Make;
use ango_core::pk::prepared;
use ango_core::{
    Entry, Kem, PkAlgorithm, PkOp, Prepared, Provider, Result, Signer, SizeEntry,
};

const NAME: &str = "libcrux";
/// The crate versions Cargo.toml pins exactly.
const VERSION: &str = "libcrux-ml-kem 0.0.11, libcrux-ml-dsa 0.0.11";

provider_errors!(NAME);

fn random<const N: usize>() -> [u8; N] {
    let mut b = [0u8; N];
    getrandom::fill(&mut b).expect("the OS random generator failed");
    b
}

macro_rules! kem {
    ($ty:ident, $m:ident, $v:ident, $sk:ident, $pk:ident, $ct:ident, $alg:literal) => {
        #[derive(Default)]
        struct $ty {
            sk: Option<libcrux_ml_kem::$m::$sk>,
            peer: Option<libcrux_ml_kem::$m::$pk>,
        }

        impl Kem for $ty {
            fn keygen(&mut self) -> Result<Vec<u8>> {
                self.keygen_from_seed(&random::<64>())
            }

            fn keygen_from_seed(&mut self, seed: &[u8]) -> Result<Vec<u8>> {
                self.sk = None;
                let seed: [u8; 64] = seed
                    .try_into()
                    .map_err(|_| err(format!("{}: the seed d||z is 64 bytes", $alg)))?;
                let (sk, pk) = libcrux_ml_kem::$m::$v::generate_key_pair(seed).into_parts();
                self.sk = Some(sk);
                Ok(pk.as_slice().to_vec())
            }

            fn import_secret(&mut self, sk: &[u8]) -> Result<()> {
                self.sk = None;
                let sk = libcrux_ml_kem::$m::$sk::try_from(sk)
                    .map_err(|_| err(format!("{}: wrong secret-key length", $alg)))?;
                if !libcrux_ml_kem::$m::$v::validate_private_key_only(&sk) {
                    return Err(err(format!(
                        "{}: validate_private_key_only refused the key (H(ek) check)",
                        $alg
                    )));
                }
                self.sk = Some(sk);
                Ok(())
            }

            fn set_peer(&mut self, pk: &[u8]) -> Result<()> {
                self.peer = None;
                let pk = libcrux_ml_kem::$m::$pk::try_from(pk)
                    .map_err(|_| err(format!("{}: wrong public-key length", $alg)))?;
                if !libcrux_ml_kem::$m::$v::validate_public_key(&pk) {
                    return Err(err(format!(
                        "{}: validate_public_key refused the key (modulus check)",
                        $alg
                    )));
                }
                self.peer = Some(pk);
                Ok(())
            }

            fn encaps(&mut self) -> Result<(Vec<u8>, Vec<u8>)> {
                let pk = self.peer.as_ref().ok_or_else(no_peer)?;
                let (ct, ss) = libcrux_ml_kem::$m::$v::encapsulate(pk, random::<32>());
                Ok((ct.as_slice().to_vec(), ss.to_vec()))
            }

            /// `encapsulate` takes its 32 bytes of randomness as FIPS 203's m.
            fn encaps_derand(&mut self, m: &[u8]) -> Result<(Vec<u8>, Vec<u8>)> {
                let pk = self.peer.as_ref().ok_or_else(no_peer)?;
                let m: [u8; 32] = m
                    .try_into()
                    .map_err(|_| err(format!("{}: m is 32 bytes", $alg)))?;
                let (ct, ss) = libcrux_ml_kem::$m::$v::encapsulate(pk, m);
                Ok((ct.as_slice().to_vec(), ss.to_vec()))
            }

            fn export_secret(&self) -> Result<Vec<u8>> {
                Ok(self.sk.as_ref().ok_or_else(no_key)?.as_slice().to_vec())
            }

            fn decaps(&mut self, ct: &[u8]) -> Result<Vec<u8>> {
                let sk = self.sk.as_ref().ok_or_else(no_key)?;
                let ct = libcrux_ml_kem::$m::$ct::try_from(ct)
                    .map_err(|_| err(format!("{}: wrong ciphertext length", $alg)))?;
                Ok(libcrux_ml_kem::$m::$v::decapsulate(sk, &ct).to_vec())
            }

            /// `timing: operation`: the crate's `unpacked` API, the key
            /// expanded once before the clock (the public key's matrix and
            /// NTT form for encaps, the key pair for decaps) and reused.
            fn prepare(&mut self, op: PkOp, ct: &[u8]) -> Result<Option<Prepared<'_>>> {
                use libcrux_ml_kem::$m::$v::unpacked as u;
                match op {
                    PkOp::Encaps => {
                        let pk = self.peer.as_ref().ok_or_else(no_peer)?;
                        let mut up = u::init_public_key();
                        u::unpacked_public_key(pk, &mut up);
                        let ct_len = u::encapsulate(&up, [0u8; 32]).0.as_slice().len();
                        Ok(Some(prepared(ct_len + 32, move |out| {
                            let (c, ss) = u::encapsulate(&up, random::<32>());
                            out[..ct_len].copy_from_slice(c.as_slice());
                            out[ct_len..].copy_from_slice(&ss);
                            Ok(ct_len + 32)
                        })))
                    }
                    PkOp::Decaps => {
                        let sk = self.sk.as_ref().ok_or_else(no_key)?;
                        let mut kp = u::init_key_pair();
                        u::key_pair_from_private_mut(sk, &mut kp);
                        let c = libcrux_ml_kem::$m::$ct::try_from(ct)
                            .map_err(|_| err(format!("{}: wrong ciphertext length", $alg)))?;
                        Ok(Some(prepared(32, move |out| {
                            out.copy_from_slice(&u::decapsulate(&kp, &c));
                            Ok(32)
                        })))
                    }
                    _ => Ok(None),
                }
            }

            fn key_sizes(&self) -> Result<Vec<SizeEntry>> {
                let sk = self.sk.as_ref().ok_or_else(no_key)?;
                Ok(vec![SizeEntry::new(
                    "secret_key",
                    "fips203-expanded",
                    sk.as_slice().len(),
                )])
            }
        }
    };
}

kem!(
    MlKem512Portable,
    mlkem512,
    portable,
    MlKem512PrivateKey,
    MlKem512PublicKey,
    MlKem512Ciphertext,
    "ML-KEM-512"
);
kem!(
    MlKem768Portable,
    mlkem768,
    portable,
    MlKem768PrivateKey,
    MlKem768PublicKey,
    MlKem768Ciphertext,
    "ML-KEM-768"
);
kem!(
    MlKem1024Portable,
    mlkem1024,
    portable,
    MlKem1024PrivateKey,
    MlKem1024PublicKey,
    MlKem1024Ciphertext,
    "ML-KEM-1024"
);
kem!(
    MlKem512Avx2,
    mlkem512,
    avx2,
    MlKem512PrivateKey,
    MlKem512PublicKey,
    MlKem512Ciphertext,
    "ML-KEM-512"
);
kem!(
    MlKem768Avx2,
    mlkem768,
    avx2,
    MlKem768PrivateKey,
    MlKem768PublicKey,
    MlKem768Ciphertext,
    "ML-KEM-768"
);
kem!(
    MlKem1024Avx2,
    mlkem1024,
    avx2,
    MlKem1024PrivateKey,
    MlKem1024PublicKey,
    MlKem1024Ciphertext,
    "ML-KEM-1024"
);

macro_rules! dsa {
    ($ty:ident, $m:ident, $v:ident, $kp:ident, $sk:ident, $vk:ident, $sig:ident, $alg:literal) => {
        #[derive(Default)]
        struct $ty {
            kp: Option<libcrux_ml_dsa::$m::$kp>,
            /// The key known-answer tests sign with.
            kat: Option<libcrux_ml_dsa::$m::$sk>,
            peer: Option<libcrux_ml_dsa::$m::$vk>,
        }

        impl Signer for $ty {
            fn keygen(&mut self) -> Result<Vec<u8>> {
                let kp = libcrux_ml_dsa::$m::$v::generate_key_pair(random::<32>());
                let pk = kp.verification_key.as_slice().to_vec();
                self.kp = Some(kp);
                Ok(pk)
            }

            /// Hedged ML-DSA.Sign (FIPS 204 Algorithm 2) with an empty
            /// context, 32 fresh random bytes per call.
            fn sign(&mut self, msg: &[u8]) -> Result<Vec<u8>> {
                let kp = self.kp.as_ref().ok_or_else(no_key)?;
                let s = libcrux_ml_dsa::$m::$v::sign(&kp.signing_key, msg, b"", random::<32>())
                    .map_err(|e| err(format!("{} sign: {e:?}", $alg)))?;
                Ok(s.as_slice().to_vec())
            }

            /// `generate_key_pair` takes its randomness as FIPS 204's ξ.
            fn keygen_from_seed(&mut self, seed: &[u8]) -> Result<Vec<u8>> {
                self.kat = None;
                let xi: [u8; 32] = seed
                    .try_into()
                    .map_err(|_| err(format!("{}: the seed ξ is 32 bytes", $alg)))?;
                let kp = libcrux_ml_dsa::$m::$v::generate_key_pair(xi);
                let pk = kp.verification_key.as_slice().to_vec();
                self.kat = Some(kp.signing_key);
                Ok(pk)
            }

            /// The crate takes an expanded signing key as bytes of the
            /// right length (no other check).
            fn import_secret(&mut self, sk: &[u8]) -> Result<()> {
                self.kat = None;
                let sk = sk
                    .try_into()
                    .map_err(|_| err(format!("{}: wrong signing-key length", $alg)))?;
                self.kat = Some(libcrux_ml_dsa::$m::$sk::new(sk));
                Ok(())
            }

            /// `sign` with the context and its randomness as FIPS 204's rnd.
            fn sign_with(&mut self, msg: &[u8], ctx: &[u8], rnd: &[u8]) -> Result<Vec<u8>> {
                let sk = self.kat.as_ref().ok_or_else(no_key)?;
                let rnd: [u8; 32] = rnd
                    .try_into()
                    .map_err(|_| err(format!("{}: rnd is 32 bytes", $alg)))?;
                let s = libcrux_ml_dsa::$m::$v::sign(sk, msg, ctx, rnd)
                    .map_err(|e| err(format!("{} sign: {e:?}", $alg)))?;
                Ok(s.as_slice().to_vec())
            }

            fn set_peer(&mut self, pk: &[u8]) -> Result<()> {
                self.peer = None;
                let pk = pk
                    .try_into()
                    .map_err(|_| err(format!("{}: wrong public-key length", $alg)))?;
                self.peer = Some(libcrux_ml_dsa::$m::$vk::new(pk));
                Ok(())
            }

            fn verify(&mut self, msg: &[u8], s: &[u8]) -> Result<bool> {
                let pk = self.peer.as_ref().ok_or_else(no_peer)?;
                // A signature of the wrong length is a rejection, as in
                // every other library.
                let Ok(s) = s.try_into() else {
                    return Ok(false);
                };
                let s = libcrux_ml_dsa::$m::$sig::new(s);
                Ok(libcrux_ml_dsa::$m::$v::verify(pk, msg, b"", &s).is_ok())
            }

            fn verify_ctx(&mut self, msg: &[u8], ctx: &[u8], s: &[u8]) -> Result<bool> {
                let pk = self.peer.as_ref().ok_or_else(no_peer)?;
                let Ok(s) = s.try_into() else {
                    return Ok(false);
                };
                let s = libcrux_ml_dsa::$m::$sig::new(s);
                Ok(libcrux_ml_dsa::$m::$v::verify(pk, msg, ctx, &s).is_ok())
            }

            fn key_sizes(&self) -> Result<Vec<SizeEntry>> {
                let kp = self.kp.as_ref().ok_or_else(no_key)?;
                Ok(vec![SizeEntry::new(
                    "secret_key",
                    "fips204-expanded",
                    kp.signing_key.as_slice().len(),
                )])
            }
        }
    };
}

dsa!(
    MlDsa44Portable,
    ml_dsa_44,
    portable,
    MLDSA44KeyPair,
    MLDSA44SigningKey,
    MLDSA44VerificationKey,
    MLDSA44Signature,
    "ML-DSA-44"
);
dsa!(
    MlDsa65Portable,
    ml_dsa_65,
    portable,
    MLDSA65KeyPair,
    MLDSA65SigningKey,
    MLDSA65VerificationKey,
    MLDSA65Signature,
    "ML-DSA-65"
);
dsa!(
    MlDsa87Portable,
    ml_dsa_87,
    portable,
    MLDSA87KeyPair,
    MLDSA87SigningKey,
    MLDSA87VerificationKey,
    MLDSA87Signature,
    "ML-DSA-87"
);
dsa!(
    MlDsa44Avx2,
    ml_dsa_44,
    avx2,
    MLDSA44KeyPair,
    MLDSA44SigningKey,
    MLDSA44VerificationKey,
    MLDSA44Signature,
    "ML-DSA-44"
);
dsa!(
    MlDsa65Avx2,
    ml_dsa_65,
    avx2,
    MLDSA65KeyPair,
    MLDSA65SigningKey,
    MLDSA65VerificationKey,
    MLDSA65Signature,
    "ML-DSA-65"
);
dsa!(
    MlDsa87Avx2,
    ml_dsa_87,
    avx2,
    MLDSA87KeyPair,
    MLDSA87SigningKey,
    MLDSA87VerificationKey,
    MLDSA87Signature,
    "ML-DSA-87"
);

/// The constructor of one (algorithm, build); None for an algorithm
/// libcrux does not have.
fn make(a: PkAlgorithm, avx2: bool) -> Option<Make> {
    use crate::pk::two_builds::{kem as k, signer as s};
    use PkAlgorithm as P;
    match (a, avx2) {
        (P::MlKem512, false) => k::<MlKem512Portable>(),
        (P::MlKem768, false) => k::<MlKem768Portable>(),
        (P::MlKem1024, false) => k::<MlKem1024Portable>(),
        (P::MlKem512, true) => k::<MlKem512Avx2>(),
        (P::MlKem768, true) => k::<MlKem768Avx2>(),
        (P::MlKem1024, true) => k::<MlKem1024Avx2>(),
        (P::MlDsa44, false) => s::<MlDsa44Portable>(),
        (P::MlDsa65, false) => s::<MlDsa65Portable>(),
        (P::MlDsa87, false) => s::<MlDsa87Portable>(),
        (P::MlDsa44, true) => s::<MlDsa44Avx2>(),
        (P::MlDsa65, true) => s::<MlDsa65Avx2>(),
        (P::MlDsa87, true) => s::<MlDsa87Avx2>(),
        _ => None,
    }
}

fn implementation(a: PkAlgorithm, avx2: bool) -> String {
    let crate_name = match a.family() {
        "ML-KEM" => "libcrux-ml-kem 0.0.11",
        _ => "libcrux-ml-dsa 0.0.11",
    };
    if avx2 {
        format!("{crate_name} avx2 (simd256: AVX2 intrinsics)")
    } else {
        format!("{crate_name} portable (no SIMD)")
    }
}

/// libcrux as a provider: two variants of each of its six algorithms.
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
            portable: "portable",
            whose: "libcrux's",
            make,
            implementation,
        },
    )
}
