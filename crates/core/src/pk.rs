//! Public-key algorithms: canonical names, operations, and the traits the
//! public-key backends (OpenSSL, liboqs, RustCrypto) implement.
//!
//! The names are the interface of `ango pk` and of the TLS lab: `x25519`,
//! `ml-kem-768`, `x25519mlkem768`, `rsa-2048`, `p-256`, `ml-dsa-44`, ...

use crate::error::{Error, Result};
use crate::traits::Unavailable;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Key encapsulation (or key exchange used as one) or signature.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PkKind {
    Kem,
    Sig,
}

impl PkKind {
    /// As records write it: `kem` or `sig`.
    pub const fn name(self) -> &'static str {
        match self {
            PkKind::Kem => "kem",
            PkKind::Sig => "sig",
        }
    }
}

macro_rules! pk_algorithms {
    ($( $var:ident => $name:literal, $kind:ident, $label:literal, $family:literal; )*) => {
        /// A public-key algorithm ango can measure, by its canonical name.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum PkAlgorithm { $( $var, )* }

        impl PkAlgorithm {
            /// Every algorithm, in the order tables list them.
            pub const ALL: &'static [PkAlgorithm] = &[ $( PkAlgorithm::$var, )* ];

            /// The canonical lower-case name.
            pub const fn name(self) -> &'static str {
                match self { $( PkAlgorithm::$var => $name, )* }
            }
            pub const fn kind(self) -> PkKind {
                match self { $( PkAlgorithm::$var => PkKind::$kind, )* }
            }
            /// How seed 003 and the standards write it ("ML-KEM-768").
            pub const fn label(self) -> &'static str {
                match self { $( PkAlgorithm::$var => $label, )* }
            }
            /// The family, for grouping in tables ("ML-KEM", "CROSS").
            pub const fn family(self) -> &'static str {
                match self { $( PkAlgorithm::$var => $family, )* }
            }
        }
    };
}

pk_algorithms! {
    X25519 => "x25519", Kem, "X25519", "ECDH";
    MlKem512 => "ml-kem-512", Kem, "ML-KEM-512", "ML-KEM";
    MlKem768 => "ml-kem-768", Kem, "ML-KEM-768", "ML-KEM";
    MlKem1024 => "ml-kem-1024", Kem, "ML-KEM-1024", "ML-KEM";
    X25519MlKem768 => "x25519mlkem768", Kem, "X25519MLKEM768", "hybrid";
    Rsa2048 => "rsa-2048", Sig, "RSA-2048", "RSA";
    Rsa3072 => "rsa-3072", Sig, "RSA-3072", "RSA";
    P256 => "p-256", Sig, "P-256 (ECDSA)", "ECDSA";
    Ed25519 => "ed25519", Sig, "Ed25519", "EdDSA";
    MlDsa44 => "ml-dsa-44", Sig, "ML-DSA-44", "ML-DSA";
    MlDsa65 => "ml-dsa-65", Sig, "ML-DSA-65", "ML-DSA";
    MlDsa87 => "ml-dsa-87", Sig, "ML-DSA-87", "ML-DSA";
    SlhDsaSha2_128f => "slh-dsa-sha2-128f", Sig, "SLH-DSA-SHA2-128f", "SLH-DSA";
    Mayo1 => "mayo-1", Sig, "MAYO-1", "MAYO";
    Mayo2 => "mayo-2", Sig, "MAYO-2", "MAYO";
    CrossRsdp128Balanced => "cross-rsdp-128-balanced", Sig, "CROSS-RSDP-128-balanced", "CROSS";
    CrossRsdp128Fast => "cross-rsdp-128-fast", Sig, "CROSS-RSDP-128-fast", "CROSS";
    CrossRsdp128Small => "cross-rsdp-128-small", Sig, "CROSS-RSDP-128-small", "CROSS";
    CrossRsdpg128Balanced => "cross-rsdpg-128-balanced", Sig, "CROSS-RSDPG-128-balanced", "CROSS";
    CrossRsdpg128Fast => "cross-rsdpg-128-fast", Sig, "CROSS-RSDPG-128-fast", "CROSS";
    CrossRsdpg128Small => "cross-rsdpg-128-small", Sig, "CROSS-RSDPG-128-small", "CROSS";
    OvIs => "ov-is", Sig, "OV-Is", "UOV";
    OvIp => "ov-ip", Sig, "OV-Ip", "UOV";
    OvIsPkc => "ov-is-pkc", Sig, "OV-Is-pkc", "UOV";
    OvIpPkc => "ov-ip-pkc", Sig, "OV-Ip-pkc", "UOV";
    OvIsPkcSkc => "ov-is-pkc-skc", Sig, "OV-Is-pkc-skc", "UOV";
    OvIpPkcSkc => "ov-ip-pkc-skc", Sig, "OV-Ip-pkc-skc", "UOV";
    Snova24_5_4 => "snova-24-5-4", Sig, "SNOVA_24_5_4", "SNOVA";
    Snova25_8_3 => "snova-25-8-3", Sig, "SNOVA_25_8_3", "SNOVA";
    Snova37_17_2 => "snova-37-17-2", Sig, "SNOVA_37_17_2", "SNOVA";
}

impl PkAlgorithm {
    /// The set `ango pk` measures by default: seed 003's primitive study
    /// (§4-1, §4-2) and the algorithms the issue adds beside it.
    pub const DEFAULT: &'static [PkAlgorithm] = &[
        PkAlgorithm::X25519,
        PkAlgorithm::MlKem512,
        PkAlgorithm::MlKem768,
        PkAlgorithm::MlKem1024,
        PkAlgorithm::X25519MlKem768,
        PkAlgorithm::Rsa2048,
        PkAlgorithm::Rsa3072,
        PkAlgorithm::P256,
        PkAlgorithm::Ed25519,
        PkAlgorithm::MlDsa44,
        PkAlgorithm::MlDsa65,
        PkAlgorithm::MlDsa87,
        PkAlgorithm::SlhDsaSha2_128f,
    ];

    /// The operations this kind of algorithm has, in table order.
    pub fn ops(self) -> &'static [PkOp] {
        match self.kind() {
            PkKind::Kem => &[PkOp::Keygen, PkOp::Encaps, PkOp::Decaps],
            PkKind::Sig => &[PkOp::Keygen, PkOp::Sign, PkOp::Verify],
        }
    }

    /// Parse a canonical name (case-insensitive; `_` accepted for `-`).
    pub fn parse(s: &str) -> Result<PkAlgorithm> {
        let t = s.trim().to_ascii_lowercase().replace('_', "-");
        PkAlgorithm::ALL
            .iter()
            .copied()
            .find(|a| a.name() == t)
            .ok_or_else(|| {
                Error::usage(format!(
                    "unknown public-key algorithm '{s}'; valid: {}",
                    PkAlgorithm::ALL
                        .iter()
                        .map(|a| a.name())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })
    }

    /// Parse a comma-separated list; `all` means every algorithm, `default`
    /// the default set. Duplicates are dropped, order kept.
    pub fn parse_list(s: &str) -> Result<Vec<PkAlgorithm>> {
        let mut out: Vec<PkAlgorithm> = Vec::new();
        let valid = format!(
            "{}, all, default, kem, sig",
            crate::algo::names(PkAlgorithm::ALL.iter().map(|a| a.name()))
        );
        for part in crate::algo::list_items(s, "--algo", &valid)? {
            let add: Vec<PkAlgorithm> = match part.to_ascii_lowercase().as_str() {
                "all" => PkAlgorithm::ALL.to_vec(),
                "default" => PkAlgorithm::DEFAULT.to_vec(),
                "kem" | "kems" => PkAlgorithm::ALL
                    .iter()
                    .copied()
                    .filter(|a| a.kind() == PkKind::Kem)
                    .collect(),
                "sig" | "sigs" => PkAlgorithm::ALL
                    .iter()
                    .copied()
                    .filter(|a| a.kind() == PkKind::Sig)
                    .collect(),
                _ => vec![PkAlgorithm::parse(part)?],
            };
            for a in add {
                if !out.contains(&a) {
                    out.push(a);
                }
            }
        }
        if out.is_empty() {
            return Err(Error::usage(
                "empty algorithm list; valid: all, default, kem, sig, or names (see `ango list`)",
            ));
        }
        Ok(out)
    }
}

impl fmt::Display for PkAlgorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for PkAlgorithm {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for PkAlgorithm {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        PkAlgorithm::parse(&s).map_err(serde::de::Error::custom)
    }
}

/// A public-key operation. For X25519, `encaps` is what a TLS client does
/// (an ephemeral key pair and the shared secret with the peer's public key)
/// and `decaps` the peer's shared-secret computation, as seed 003 defines
/// them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PkOp {
    Keygen,
    Encaps,
    Decaps,
    Sign,
    Verify,
}

impl PkOp {
    pub const ALL: &'static [PkOp] = &[
        PkOp::Keygen,
        PkOp::Encaps,
        PkOp::Decaps,
        PkOp::Sign,
        PkOp::Verify,
    ];

    pub const fn name(self) -> &'static str {
        match self {
            PkOp::Keygen => "keygen",
            PkOp::Encaps => "encaps",
            PkOp::Decaps => "decaps",
            PkOp::Sign => "sign",
            PkOp::Verify => "verify",
        }
    }

    pub fn parse_list(s: &str) -> Result<Vec<PkOp>> {
        let mut out = Vec::new();
        let valid = "keygen, encaps, decaps, sign, verify, all";
        for part in crate::algo::list_items(s, "--ops", valid)? {
            let part = part.to_ascii_lowercase();
            if part == "all" {
                return Ok(PkOp::ALL.to_vec());
            }
            let op = PkOp::ALL
                .iter()
                .copied()
                .find(|o| o.name() == part)
                .ok_or_else(|| {
                    Error::usage(format!(
                        "unknown operation '{part}'; valid: keygen, encaps, decaps, sign, verify, all"
                    ))
                })?;
            if !out.contains(&op) {
                out.push(op);
            }
        }
        if out.is_empty() {
            return Err(Error::usage(
                "empty operation list; valid: keygen, encaps, decaps, sign, verify, all",
            ));
        }
        Ok(out)
    }
}

impl fmt::Display for PkOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One measured size: which object, in which encoding, how many bytes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SizeEntry {
    /// `public_key`, `secret_key`, `ciphertext`, `signature` or
    /// `shared_secret`.
    pub object: String,
    /// e.g. `raw`, `spki-der`, `pkcs8-der`, `x962-der` (ECDSA signature).
    pub encoding: String,
    pub bytes: usize,
}

impl SizeEntry {
    pub fn new(object: &str, encoding: &str, bytes: usize) -> SizeEntry {
        SizeEntry {
            object: object.into(),
            encoding: encoding.into(),
            bytes,
        }
    }
}

/// How a public-key operation is timed (`timing` in the record).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Timing {
    /// The operation alone: contexts, fetched algorithms and parsed keys
    /// are made before the clock and reused, as `openssl speed` and
    /// liboqs' `speed_kem` do.
    Operation,
    /// What a program that sets up per call pays: each timed call makes its
    /// own context (with OpenSSL, its implicit algorithm fetch) and returns
    /// the encoded output.
    ApiCall,
}

impl Timing {
    pub const ALL: &'static [Timing] = &[Timing::Operation, Timing::ApiCall];

    pub const fn name(self) -> &'static str {
        match self {
            Timing::Operation => "operation",
            Timing::ApiCall => "api-call",
        }
    }

    /// Parse `--timing`: `operation`, `api-call` or `both`.
    pub fn parse_list(s: &str) -> Result<Vec<Timing>> {
        match s.trim().to_ascii_lowercase().as_str() {
            "operation" => Ok(vec![Timing::Operation]),
            "api-call" => Ok(vec![Timing::ApiCall]),
            "both" => Ok(Timing::ALL.to_vec()),
            _ => Err(Error::usage(format!(
                "invalid --timing '{s}'; valid: operation, api-call, both"
            ))),
        }
    }
}

impl fmt::Display for Timing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One prepared operation for `timing: operation`: [`PreparedOp::run`]
/// does exactly the timed work, writing into buffers made beforehand;
/// [`PreparedOp::output`] gives its result for the check made after the
/// clock stops (keygen: nothing; encaps and decaps: the shared secret; sign:
/// the signature; verify: `[1]` accepted or `[0]` rejected).
pub trait PreparedOp {
    fn run(&mut self) -> Result<()>;
    fn output(&self) -> &[u8];
}

pub type Prepared<'a> = Box<dyn PreparedOp + 'a>;

/// A prepared operation from a closure that writes its output into a
/// buffer of `len` bytes (made now, reused by every call) and returns how
/// many bytes it wrote.
pub fn prepared<'a, F>(len: usize, f: F) -> Prepared<'a>
where
    F: FnMut(&mut [u8]) -> Result<usize> + 'a,
{
    Box::new(BufOp {
        f,
        buf: vec![0; len],
        n: 0,
    })
}

struct BufOp<F> {
    f: F,
    buf: Vec<u8>,
    n: usize,
}

impl<F: FnMut(&mut [u8]) -> Result<usize>> PreparedOp for BufOp<F> {
    fn run(&mut self) -> Result<()> {
        self.n = (self.f)(&mut self.buf)?;
        Ok(())
    }
    fn output(&self) -> &[u8] {
        &self.buf[..self.n]
    }
}

/// A KEM instance of one backend. It owns at most one key pair (from
/// `keygen`) and one peer public key (from `set_peer`); every operation can
/// be repeated, so each call can be timed on its own.
pub trait Kem {
    /// Make a fresh key pair, keep it, return its public key in the
    /// algorithm's raw encoding (what goes on the wire in TLS).
    fn keygen(&mut self) -> Result<Vec<u8>>;
    /// Set the public key `encaps` encapsulates to (raw encoding).
    fn set_peer(&mut self, pk: &[u8]) -> Result<()>;
    /// Encapsulate to the peer: (ciphertext, shared secret).
    fn encaps(&mut self) -> Result<(Vec<u8>, Vec<u8>)>;
    /// Decapsulate with the kept key pair.
    fn decaps(&mut self, ct: &[u8]) -> Result<Vec<u8>>;
    /// Sizes of the kept key pair's encodings (after `keygen`), beyond the
    /// raw public key, ciphertext and secret the caller measures itself:
    /// e.g. the secret key, and DER forms where the algorithm has them.
    fn key_sizes(&self) -> Result<Vec<SizeEntry>>;
    /// Known-answer tests: derive the key pair from `seed` (ML-KEM: the
    /// 64-byte d‖z of FIPS 203), keep it, return its public key.
    fn keygen_from_seed(&mut self, seed: &[u8]) -> Result<Vec<u8>> {
        let _ = seed;
        Err(crate::Error::Unsupported(
            "key generation from a seed".into(),
        ))
    }
    /// Known-answer tests: keep a secret key given in the algorithm's raw
    /// encoding (X25519: the 32-byte scalar; ML-KEM: the expanded
    /// decapsulation key of FIPS 203). An invalid key is an error.
    fn import_secret(&mut self, sk: &[u8]) -> Result<()> {
        let _ = sk;
        Err(crate::Error::Unsupported("importing a secret key".into()))
    }
    /// Known-answer tests: encapsulate to the peer with the given
    /// randomness (ML-KEM: FIPS 203's 32-byte m), for libraries that expose
    /// a derandomized encapsulation. An invalid peer key or `m` is an error.
    fn encaps_derand(&mut self, m: &[u8]) -> Result<(Vec<u8>, Vec<u8>)> {
        let _ = m;
        Err(crate::Error::Unsupported(
            "encapsulation with a given m".into(),
        ))
    }
    /// Known-answer tests: the kept secret key in the encoding
    /// `import_secret` takes (ML-KEM: the expanded decapsulation key).
    fn export_secret(&self) -> Result<Vec<u8>> {
        Err(crate::Error::Unsupported(
            "exporting the decapsulation key".into(),
        ))
    }
    /// `timing: operation`: make now, before the clock, everything repeated
    /// calls of `op` can reuse (contexts, fetched algorithms, parsed keys)
    /// and return the call itself. Needs the kept key pair (decaps, with
    /// `ct` the ciphertext) or peer key (encaps). `None` when this API has
    /// no per-call set-up to hoist: the plain call is then timed both ways.
    fn prepare(&mut self, op: PkOp, ct: &[u8]) -> Result<Option<Prepared<'_>>> {
        let _ = (op, ct);
        Ok(None)
    }
}

/// A signature instance of one backend, shaped like [`Kem`].
pub trait Signer {
    /// Make a fresh key pair, keep it, return its public key (raw encoding:
    /// the standard's byte string; for RSA and ECDSA the DER
    /// SubjectPublicKeyInfo).
    fn keygen(&mut self) -> Result<Vec<u8>>;
    /// Sign with the kept key.
    fn sign(&mut self, msg: &[u8]) -> Result<Vec<u8>>;
    /// Set the public key `verify` checks against (same encoding as
    /// `keygen` returns).
    fn set_peer(&mut self, pk: &[u8]) -> Result<()>;
    /// Verify against the peer key: Ok(true) valid, Ok(false) rejected.
    fn verify(&mut self, msg: &[u8], sig: &[u8]) -> Result<bool>;
    /// Sizes of the kept key pair's encodings (see [`Kem::key_sizes`]).
    fn key_sizes(&self) -> Result<Vec<SizeEntry>>;
    /// The encoding name of signatures (`raw`, `x962-der` for ECDSA,
    /// `rsa-pss-sha256`).
    fn signature_encoding(&self) -> &'static str {
        "raw"
    }
    /// The encoding name of the public key `keygen` returns (`raw`,
    /// `spki-der`).
    fn public_key_encoding(&self) -> &'static str {
        "raw"
    }
    /// Verify with a context string (ML-DSA, FIPS 204): as `verify` when
    /// `ctx` is empty; an implementation without contexts lacks the rest.
    fn verify_ctx(&mut self, msg: &[u8], ctx: &[u8], sig: &[u8]) -> Result<bool> {
        if ctx.is_empty() {
            return self.verify(msg, sig);
        }
        Err(crate::Error::Unsupported(
            "verification with a context string".into(),
        ))
    }
    /// Known-answer tests: derive the key pair from `seed` (ML-DSA: FIPS
    /// 204's 32-byte ξ), keep it, return its public key.
    fn keygen_from_seed(&mut self, seed: &[u8]) -> Result<Vec<u8>> {
        let _ = seed;
        Err(crate::Error::Unsupported(
            "key generation from a seed".into(),
        ))
    }
    /// Known-answer tests: keep a secret key in the algorithm's raw
    /// encoding (ML-DSA: FIPS 204's expanded signing key). A key the
    /// library finds invalid is an error.
    fn import_secret(&mut self, sk: &[u8]) -> Result<()> {
        let _ = sk;
        Err(crate::Error::Unsupported(
            "importing an expanded signing key".into(),
        ))
    }
    /// Known-answer tests: sign `msg` with the kept key, context `ctx` and
    /// the signing randomness `rnd` (ML-DSA: 32 bytes; all zero is the
    /// deterministic variant). An over-long context is an error.
    fn sign_with(&mut self, msg: &[u8], ctx: &[u8], rnd: &[u8]) -> Result<Vec<u8>> {
        let _ = (msg, ctx, rnd);
        Err(crate::Error::Unsupported(
            "signing with a given context and randomness".into(),
        ))
    }
    /// Known-answer tests: sign an externally computed μ (FIPS 204's
    /// external-μ interface) with randomness `rnd`.
    fn sign_mu(&mut self, mu: &[u8], rnd: &[u8]) -> Result<Vec<u8>> {
        let _ = (mu, rnd);
        Err(crate::Error::Unsupported("signing an external μ".into()))
    }
    /// `timing: operation`, as [`Kem::prepare`]: sign `msg` with the kept
    /// key, or verify `sig` on `msg` against the peer key.
    fn prepare(&mut self, op: PkOp, msg: &[u8], sig: &[u8]) -> Result<Option<Prepared<'_>>> {
        let _ = (op, msg, sig);
        Ok(None)
    }
}

/// Whether an implementation with these untimed operations (see
/// [`PkBackend::untimed_ops`]) makes its own key pairs and signatures; one
/// that does not verifies those of another provider.
pub fn makes_keys(untimed: &[(PkOp, String)]) -> bool {
    !untimed
        .iter()
        .any(|(op, _)| matches!(op, PkOp::Keygen | PkOp::Sign))
}

/// A library that provides public-key algorithms.
pub trait PkBackend: Sync {
    /// Short lower-case name used on the command line and in records.
    fn name(&self) -> &'static str;
    /// Library name and exact version.
    fn version(&self) -> String;
    /// Whether this backend provides `algo`, and why not.
    fn availability(&self, algo: PkAlgorithm) -> Result<(), Unavailable>;
    /// The library's name for the algorithm or the code path (records,
    /// `ango list`): e.g. "EVP ML-KEM-768", "OQS_KEM_alg_ml_kem_768".
    fn implementation(&self, algo: PkAlgorithm) -> String;
    /// A KEM instance (KEM algorithms only).
    fn kem(&self, algo: PkAlgorithm) -> Result<Box<dyn Kem>>;
    /// How checks and findings name it: the provider, with the variant for
    /// a provider that has several (`pqclean[avx2]`).
    fn label(&self) -> String {
        self.name().to_string()
    }
    /// A signature instance (signature algorithms only).
    fn signer(&self, algo: PkAlgorithm) -> Result<Box<dyn Signer>>;
    /// Operations of `algo` this library lacks or cannot repeat with one
    /// kept key (ring's X25519 key is consumed by its one agreement; ring
    /// makes no RSA keys), each with the reason. They are never timed; a
    /// signer without key generation is checked and timed with key pairs
    /// and signatures made by another provider (see `key_source`).
    fn untimed_ops(&self, algo: PkAlgorithm) -> Vec<(PkOp, String)> {
        let _ = algo;
        Vec::new()
    }
}

/// An instance of one (backend, algorithm): KEM or signature by the
/// algorithm's kind.
pub enum PkInstance {
    Kem(Box<dyn Kem>),
    Sig(Box<dyn Signer>),
}

impl PkInstance {
    pub fn new(b: &dyn PkBackend, a: PkAlgorithm) -> Result<PkInstance> {
        Ok(match a.kind() {
            PkKind::Kem => PkInstance::Kem(b.kem(a)?),
            PkKind::Sig => PkInstance::Sig(b.signer(a)?),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_back_and_are_unique() {
        for a in PkAlgorithm::ALL {
            assert_eq!(PkAlgorithm::parse(a.name()).unwrap(), *a);
            assert_eq!(PkAlgorithm::parse(&a.name().to_uppercase()).unwrap(), *a);
        }
        let mut names: Vec<&str> = PkAlgorithm::ALL.iter().map(|a| a.name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), PkAlgorithm::ALL.len());
    }

    #[test]
    fn bad_names_list_the_valid_ones() {
        let e = PkAlgorithm::parse("ml-kem-999").unwrap_err().to_string();
        assert!(
            e.contains("ml-kem-768") && e.contains("ov-ip-pkc-skc"),
            "{e}"
        );
        let e = PkOp::parse_list("keygen,frob").unwrap_err().to_string();
        assert!(e.contains("encaps") && e.contains("verify"), "{e}");
    }

    #[test]
    fn lists_expand_and_dedupe() {
        let v = PkAlgorithm::parse_list("x25519,kem,X25519").unwrap();
        assert_eq!(v[0], PkAlgorithm::X25519);
        assert!(v.iter().all(|a| a.kind() == PkKind::Kem));
        assert_eq!(v.len(), 5);
        assert_eq!(
            PkOp::parse_list("sign, keygen,sign").unwrap(),
            vec![PkOp::Sign, PkOp::Keygen]
        );
    }
}
