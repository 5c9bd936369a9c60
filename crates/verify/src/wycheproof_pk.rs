//! Wycheproof's public-key test files against ango's public-key backends:
//! X25519 (raw, ASN.1, PEM and JWK keys), ECDSA P-256/SHA-256 (DER and
//! P1363 signatures), Ed25519, RSASSA-PSS (SHA-256, MGF1-SHA-256, salt 32;
//! keys with and without PSS parameters), ML-DSA (verification, signing
//! from a seed and from an expanded key) and ML-KEM (key generation from a
//! seed, encapsulation with a given m, decapsulation with a given key).
//! The file's `schema` decides how it is read.
//!
//! Results: `valid` must be accepted (and reproduce the expected output
//! byte for byte), `invalid` must be rejected (an implementation that
//! refuses the input at its API rejects it), `acceptable` may go either way
//! (counted as passed, and apart). A case an implementation cannot run —
//! its API lacks the operation the case needs — is skipped with that
//! reason, never passed or failed. Every test of a file is accounted for.

use crate::wycheproof_common::{flags_of, AEAD_SCHEMAS};
pub use crate::wycheproof_common::{Outcome, Verdict};
use ango_core::pk::{PkAlgorithm, PkBackend};
use ango_core::{Error, Result};
use serde_json::Value;

/// The built-in files: every upstream file of a public-key algorithm ango
/// has (vectors/wycheproof, their commit in SOURCE.md).
pub const BUILTIN: &[(&str, &str)] = &[
    (
        "ecdsa_secp256r1_sha256_p1363_test.json",
        include_str!("../../../vectors/wycheproof/ecdsa_secp256r1_sha256_p1363_test.json"),
    ),
    (
        "ecdsa_secp256r1_sha256_test.json",
        include_str!("../../../vectors/wycheproof/ecdsa_secp256r1_sha256_test.json"),
    ),
    (
        "ed25519_test.json",
        include_str!("../../../vectors/wycheproof/ed25519_test.json"),
    ),
    (
        "mldsa_44_sign_noseed_test.json",
        include_str!("../../../vectors/wycheproof/mldsa_44_sign_noseed_test.json"),
    ),
    (
        "mldsa_44_sign_seed_test.json",
        include_str!("../../../vectors/wycheproof/mldsa_44_sign_seed_test.json"),
    ),
    (
        "mldsa_44_verify_test.json",
        include_str!("../../../vectors/wycheproof/mldsa_44_verify_test.json"),
    ),
    (
        "mldsa_65_sign_noseed_test.json",
        include_str!("../../../vectors/wycheproof/mldsa_65_sign_noseed_test.json"),
    ),
    (
        "mldsa_65_sign_seed_test.json",
        include_str!("../../../vectors/wycheproof/mldsa_65_sign_seed_test.json"),
    ),
    (
        "mldsa_65_verify_test.json",
        include_str!("../../../vectors/wycheproof/mldsa_65_verify_test.json"),
    ),
    (
        "mldsa_87_sign_noseed_test.json",
        include_str!("../../../vectors/wycheproof/mldsa_87_sign_noseed_test.json"),
    ),
    (
        "mldsa_87_sign_seed_test.json",
        include_str!("../../../vectors/wycheproof/mldsa_87_sign_seed_test.json"),
    ),
    (
        "mldsa_87_verify_test.json",
        include_str!("../../../vectors/wycheproof/mldsa_87_verify_test.json"),
    ),
    (
        "mlkem_1024_encaps_test.json",
        include_str!("../../../vectors/wycheproof/mlkem_1024_encaps_test.json"),
    ),
    (
        "mlkem_1024_keygen_seed_test.json",
        include_str!("../../../vectors/wycheproof/mlkem_1024_keygen_seed_test.json"),
    ),
    (
        "mlkem_1024_semi_expanded_decaps_test.json",
        include_str!("../../../vectors/wycheproof/mlkem_1024_semi_expanded_decaps_test.json"),
    ),
    (
        "mlkem_1024_test.json",
        include_str!("../../../vectors/wycheproof/mlkem_1024_test.json"),
    ),
    (
        "mlkem_512_encaps_test.json",
        include_str!("../../../vectors/wycheproof/mlkem_512_encaps_test.json"),
    ),
    (
        "mlkem_512_keygen_seed_test.json",
        include_str!("../../../vectors/wycheproof/mlkem_512_keygen_seed_test.json"),
    ),
    (
        "mlkem_512_semi_expanded_decaps_test.json",
        include_str!("../../../vectors/wycheproof/mlkem_512_semi_expanded_decaps_test.json"),
    ),
    (
        "mlkem_512_test.json",
        include_str!("../../../vectors/wycheproof/mlkem_512_test.json"),
    ),
    (
        "mlkem_768_encaps_test.json",
        include_str!("../../../vectors/wycheproof/mlkem_768_encaps_test.json"),
    ),
    (
        "mlkem_768_keygen_seed_test.json",
        include_str!("../../../vectors/wycheproof/mlkem_768_keygen_seed_test.json"),
    ),
    (
        "mlkem_768_semi_expanded_decaps_test.json",
        include_str!("../../../vectors/wycheproof/mlkem_768_semi_expanded_decaps_test.json"),
    ),
    (
        "mlkem_768_test.json",
        include_str!("../../../vectors/wycheproof/mlkem_768_test.json"),
    ),
    (
        "rsa_pss_2048_sha256_mgf1_32_params_test.json",
        include_str!("../../../vectors/wycheproof/rsa_pss_2048_sha256_mgf1_32_params_test.json"),
    ),
    (
        "rsa_pss_2048_sha256_mgf1_32_test.json",
        include_str!("../../../vectors/wycheproof/rsa_pss_2048_sha256_mgf1_32_test.json"),
    ),
    (
        "rsa_pss_3072_sha256_mgf1_32_params_test.json",
        include_str!("../../../vectors/wycheproof/rsa_pss_3072_sha256_mgf1_32_params_test.json"),
    ),
    (
        "rsa_pss_3072_sha256_mgf1_32_test.json",
        include_str!("../../../vectors/wycheproof/rsa_pss_3072_sha256_mgf1_32_test.json"),
    ),
    (
        "x25519_asn_test.json",
        include_str!("../../../vectors/wycheproof/x25519_asn_test.json"),
    ),
    (
        "x25519_jwk_test.json",
        include_str!("../../../vectors/wycheproof/x25519_jwk_test.json"),
    ),
    (
        "x25519_pem_test.json",
        include_str!("../../../vectors/wycheproof/x25519_pem_test.json"),
    ),
    (
        "x25519_test.json",
        include_str!("../../../vectors/wycheproof/x25519_test.json"),
    ),
];

/// How a file's tests are run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// X25519: the private scalar and the peer's public value give `shared`.
    Xdh,
    /// Signature verification (`sig` on `msg`, with `ctx` for ML-DSA).
    SigVerify,
    /// ML-KEM: keygen from d‖z gives `ek`; decapsulating `c` gives `K`.
    MlKemSeed,
    /// ML-KEM: the expanded `dk` decapsulates `c` to `K`.
    MlKemDecaps,
    /// ML-KEM: encapsulating to `ek` with `m` gives `c` and `K`.
    MlKemEncaps,
    /// ML-KEM: keygen from d‖z gives `ek` and `dk`.
    MlKemKeygen,
    /// ML-DSA: a key (from the seed ξ, or the expanded key) signs `msg`
    /// (or an external μ) with `ctx` and `rnd` to exactly `sig`.
    MlDsaSign,
}

/// The schemas ango reads, with what each holds.
pub const SCHEMAS: &[(&str, Shape, &str)] = &[
    ("xdh_comp_schema_v1.json", Shape::Xdh, "X25519, raw keys"),
    (
        "xdh_asn_comp_schema_v1.json",
        Shape::Xdh,
        "X25519, SPKI/PKCS#8 DER keys",
    ),
    (
        "xdh_pem_comp_schema_v1.json",
        Shape::Xdh,
        "X25519, PEM keys",
    ),
    (
        "xdh_jwk_comp_schema_v1.json",
        Shape::Xdh,
        "X25519, JWK keys",
    ),
    (
        "ecdsa_verify_schema_v1.json",
        Shape::SigVerify,
        "ECDSA P-256/SHA-256, DER signatures",
    ),
    (
        "ecdsa_p1363_verify_schema_v1.json",
        Shape::SigVerify,
        "ECDSA P-256/SHA-256, P1363 signatures",
    ),
    ("eddsa_verify_schema_v1.json", Shape::SigVerify, "Ed25519"),
    (
        "rsassa_pss_verify_schema_v1.json",
        Shape::SigVerify,
        "RSA-PSS SHA-256/MGF1-SHA-256/salt 32",
    ),
    (
        "rsassa_pss_with_parameters_verify_schema.json",
        Shape::SigVerify,
        "RSA-PSS keys with PSS parameters",
    ),
    (
        "mldsa_verify_schema.json",
        Shape::SigVerify,
        "ML-DSA verification",
    ),
    (
        "mldsa_sign_seed_schema.json",
        Shape::MlDsaSign,
        "ML-DSA signing from a seed",
    ),
    (
        "mldsa_sign_noseed_schema.json",
        Shape::MlDsaSign,
        "ML-DSA signing from an expanded key",
    ),
    (
        "mlkem_test_schema.json",
        Shape::MlKemSeed,
        "ML-KEM keygen from a seed and decapsulation",
    ),
    (
        "mlkem_semi_expanded_decaps_test_schema.json",
        Shape::MlKemDecaps,
        "ML-KEM decapsulation",
    ),
    (
        "mlkem_encaps_test_schema.json",
        Shape::MlKemEncaps,
        "ML-KEM encapsulation with m",
    ),
    (
        "mlkem_keygen_seed_test_schema.json",
        Shape::MlKemKeygen,
        "ML-KEM keygen from a seed",
    ),
];

/// What ango's reader decided about a case before any library sees it.
#[derive(Clone, Debug, PartialEq)]
pub enum Pre {
    /// Run it.
    Run,
    /// The reader refused the case's key encoding (ASN.1, PEM, JWK, P1363,
    /// PSS parameters): the case is rejected for every implementation.
    Reject(String),
    /// No implementation can run it (an algorithm ango lacks), with why.
    Skip(String),
}

/// One test, decoded.
#[derive(Clone, Debug)]
pub struct Case {
    pub tc_id: u64,
    /// None when the group is of an algorithm ango lacks (`pre` says so).
    pub algorithm: Option<PkAlgorithm>,
    pub result: String,
    pub pre: Pre,
    /// Public key (signature verification: SPKI DER for RSA/ECDSA, raw
    /// otherwise; xdh: the peer's public value; ML-KEM encaps: ek).
    pub public: Vec<u8>,
    /// Secret input: xdh private scalar, ML-KEM/ML-DSA seed or expanded key.
    pub secret: Vec<u8>,
    /// ML-DSA signing: whether `secret` is the seed ξ (else the expanded key).
    pub seeded: bool,
    pub msg: Option<Vec<u8>>,
    pub ctx: Vec<u8>,
    pub mu: Vec<u8>,
    pub rnd: Vec<u8>,
    pub sig: Vec<u8>,
    /// ML-KEM ciphertext (decaps input, encaps output).
    pub ct: Vec<u8>,
    /// Expected output: xdh shared secret, ML-KEM K; empty if none.
    pub expected: Vec<u8>,
    /// ML-KEM: the expected encapsulation key; ML-DSA: the group's key.
    pub ek: Vec<u8>,
    /// ML-KEM keygen: the expected decapsulation key; encaps: m.
    pub dk: Vec<u8>,
    /// Wycheproof's flags (what the test probes).
    pub flags: Vec<String>,
}

#[derive(Clone, Debug)]
pub struct PkFile {
    pub name: String,
    pub schema: String,
    pub shape: Shape,
    /// The file's numberOfTests (the cases below are all of them).
    pub number_of_tests: usize,
    pub cases: Vec<Case>,
}

fn hex_field(v: &Value, k: &str, path: &str) -> Result<Vec<u8>> {
    match v.get(k) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::String(s)) => {
            hex::decode(s).map_err(|e| Error::data(path, format!("{k}: {e}")))
        }
        Some(_) => Err(Error::data(path, format!("{k} is not a hex string"))),
    }
}

fn mldsa_by_pk_len(n: usize) -> Option<PkAlgorithm> {
    match n {
        1312 => Some(PkAlgorithm::MlDsa44),
        1952 => Some(PkAlgorithm::MlDsa65),
        2592 => Some(PkAlgorithm::MlDsa87),
        _ => None,
    }
}

fn mldsa_by_name(path: &str) -> Option<PkAlgorithm> {
    [
        ("44", PkAlgorithm::MlDsa44),
        ("65", PkAlgorithm::MlDsa65),
        ("87", PkAlgorithm::MlDsa87),
    ]
    .iter()
    .find(|(n, _)| path.contains(&format!("mldsa_{n}")))
    .map(|(_, a)| *a)
}

fn mlkem_by_name(p: &str) -> Option<PkAlgorithm> {
    match p {
        "ML-KEM-512" => Some(PkAlgorithm::MlKem512),
        "ML-KEM-768" => Some(PkAlgorithm::MlKem768),
        "ML-KEM-1024" => Some(PkAlgorithm::MlKem1024),
        _ => None,
    }
}

/// The usage error for a schema ango does not read: one line naming those
/// it does.
pub fn unknown_schema(path: &str, schema: &str) -> Error {
    let mut names: Vec<&str> = SCHEMAS.iter().map(|(n, _, _)| *n).collect();
    names.extend(AEAD_SCHEMAS);
    Error::usage(format!(
        "{path}: schema '{schema}' is not one ango reads; valid: {}",
        names.join(", ")
    ))
}

/// Parse a Wycheproof public-key file. An unknown schema is a usage error
/// naming the ones ango reads.
pub fn parse(path: &str, text: &str) -> Result<PkFile> {
    let v: Value = serde_json::from_str(text).map_err(|e| Error::data(path, e))?;
    let schema = v["schema"].as_str().unwrap_or_default().to_string();
    let Some(&(_, shape, _)) = SCHEMAS.iter().find(|(n, _, _)| *n == schema) else {
        return Err(unknown_schema(path, &schema));
    };
    let groups = v["testGroups"]
        .as_array()
        .ok_or_else(|| Error::data(path, "no testGroups"))?;
    let mut cases = Vec::new();
    for g in groups {
        let tests = g["tests"].as_array().cloned().unwrap_or_default();
        // The group's algorithm and public key, or why no library runs it.
        let group: std::result::Result<(PkAlgorithm, Vec<u8>), String> = match shape {
            Shape::Xdh => match g["curve"].as_str() {
                Some("curve25519") => Ok((PkAlgorithm::X25519, Vec::new())),
                c => Err(format!("curve {c:?}: not an algorithm ango has")),
            },
            Shape::SigVerify => sig_group(&schema, g, path)?,
            Shape::MlDsaSign => {
                let pk = hex_field(g, "publicKey", path)?;
                match mldsa_by_name(path).or_else(|| mldsa_by_pk_len(pk.len())) {
                    Some(a) => Ok((a, pk)),
                    None => Err("ML-DSA parameter set unknown".into()),
                }
            }
            _ => match mlkem_by_name(g["parameterSet"].as_str().unwrap_or_default()) {
                Some(a) => Ok((a, Vec::new())),
                None => Err(format!(
                    "parameter set {}: not one ango has",
                    g["parameterSet"]
                )),
            },
        };
        for t in tests {
            let mut c = Case {
                tc_id: t["tcId"].as_u64().unwrap_or(0),
                algorithm: None,
                result: t["result"].as_str().unwrap_or("invalid").to_string(),
                pre: Pre::Run,
                public: Vec::new(),
                secret: Vec::new(),
                seeded: false,
                msg: match t.get("msg") {
                    None | Some(Value::Null) => None,
                    Some(_) => Some(hex_field(&t, "msg", path)?),
                },
                ctx: hex_field(&t, "ctx", path)?,
                mu: hex_field(&t, "mu", path)?,
                rnd: hex_field(&t, "rnd", path)?,
                sig: hex_field(&t, "sig", path)?,
                ct: hex_field(&t, "c", path)?,
                expected: Vec::new(),
                ek: hex_field(&t, "ek", path)?,
                dk: hex_field(&t, "dk", path)?,
                flags: flags_of(&t),
            };
            match &group {
                Err(why) => c.pre = Pre::Skip(why.clone()),
                Ok((a, pk)) => {
                    c.algorithm = Some(*a);
                    c.public = pk.clone();
                }
            }
            match shape {
                Shape::Xdh => {
                    match xdh_keys(&schema, &t) {
                        Ok((public, private)) => {
                            c.public = public;
                            c.secret = private;
                        }
                        Err(why) if c.pre == Pre::Run => c.pre = Pre::Reject(why),
                        Err(_) => {}
                    }
                    c.expected = hex_field(&t, "shared", path)?;
                }
                Shape::SigVerify if schema.starts_with("ecdsa_p1363") => {
                    match p1363_to_der(&c.sig) {
                        Ok(der) => c.sig = der,
                        Err(why) if c.pre == Pre::Run => c.pre = Pre::Reject(why),
                        Err(_) => {}
                    }
                }
                Shape::SigVerify => {}
                Shape::MlKemSeed => {
                    c.secret = hex_field(&t, "seed", path)?;
                    c.expected = hex_field(&t, "K", path)?;
                }
                Shape::MlKemKeygen => c.secret = hex_field(&t, "seed", path)?,
                Shape::MlKemDecaps => {
                    c.secret = hex_field(&t, "dk", path)?;
                    c.expected = hex_field(&t, "K", path)?;
                }
                Shape::MlKemEncaps => {
                    c.public = c.ek.clone();
                    c.dk = hex_field(&t, "m", path)?;
                    c.expected = hex_field(&t, "K", path)?;
                }
                Shape::MlDsaSign => {
                    c.seeded = g.get("privateSeed").is_some();
                    c.secret = hex_field(
                        g,
                        if c.seeded {
                            "privateSeed"
                        } else {
                            "privateKey"
                        },
                        path,
                    )?;
                    c.ek = c.public.clone();
                }
            }
            cases.push(c);
        }
    }
    let number_of_tests = v["numberOfTests"]
        .as_u64()
        .map_or(cases.len(), |n| n as usize);
    if number_of_tests != cases.len() {
        return Err(Error::data(
            path,
            format!(
                "numberOfTests is {number_of_tests} but the groups hold {} tests",
                cases.len()
            ),
        ));
    }
    Ok(PkFile {
        name: path.to_string(),
        schema,
        shape,
        number_of_tests,
        cases,
    })
}

/// A signature-verification group: its algorithm and public key, or why no
/// library of ango's runs it. Errors only on malformed hex.
fn sig_group(
    schema: &str,
    g: &Value,
    path: &str,
) -> Result<std::result::Result<(PkAlgorithm, Vec<u8>), String>> {
    Ok(match schema {
        "ecdsa_verify_schema_v1.json" | "ecdsa_p1363_verify_schema_v1.json" => {
            let curve = g["publicKey"]["curve"].as_str().unwrap_or_default();
            if curve == "secp256r1" && g["sha"] == "SHA-256" {
                Ok((PkAlgorithm::P256, hex_field(g, "publicKeyDer", path)?))
            } else {
                Err(format!(
                    "ECDSA {curve} with {}: not an algorithm ango has",
                    g["sha"]
                ))
            }
        }
        "eddsa_verify_schema_v1.json" => {
            if g["publicKey"]["curve"] == "edwards25519" {
                Ok((
                    PkAlgorithm::Ed25519,
                    hex_field(&g["publicKey"], "pk", path)?,
                ))
            } else {
                Err(format!(
                    "EdDSA {}: not an algorithm ango has",
                    g["publicKey"]["curve"]
                ))
            }
        }
        "rsassa_pss_verify_schema_v1.json" | "rsassa_pss_with_parameters_verify_schema.json" => {
            let bits = g["keySize"].as_u64().unwrap_or(0);
            let ok = g["sha"] == "SHA-256" && g["mgfSha"] == "SHA-256" && g["sLen"] == 32;
            let algo = match (bits, ok) {
                (2048, true) => PkAlgorithm::Rsa2048,
                (3072, true) => PkAlgorithm::Rsa3072,
                _ => {
                    return Ok(Err(format!(
                        "RSA-PSS {bits} bits, {} / MGF1-{} / salt {}: ango has SHA-256, MGF1-SHA-256, salt 32",
                        g["sha"], g["mgfSha"], g["sLen"]
                    )))
                }
            };
            let der = hex_field(g, "publicKeyDer", path)?;
            if schema.starts_with("rsassa_pss_with") {
                // The key's PSS parameters are the group's (checked above);
                // each library gets the key as rsaEncryption.
                match rsa_spki_from_pss(&der, &hex_field(g, "publicKeyAsn", path)?) {
                    Ok(spki) => Ok((algo, spki)),
                    Err(why) => Err(why),
                }
            } else {
                Ok((algo, der))
            }
        }
        _ => {
            let pk = hex_field(g, "publicKey", path)?;
            // Groups with a malformed key (wrong length) keep the file's
            // parameter set: their tests must all be rejected.
            match mldsa_by_pk_len(pk.len()).or_else(|| mldsa_by_name(path)) {
                Some(a) => Ok((a, pk)),
                None => Err("ML-DSA parameter set unknown".into()),
            }
        }
    })
}

const OID_X25519: der::asn1::ObjectIdentifier =
    der::asn1::ObjectIdentifier::new_unwrap("1.3.101.110");
const OID_RSA: der::asn1::ObjectIdentifier =
    der::asn1::ObjectIdentifier::new_unwrap("1.2.840.113549.1.1.1");
const OID_RSA_PSS: der::asn1::ObjectIdentifier =
    der::asn1::ObjectIdentifier::new_unwrap("1.2.840.113549.1.1.10");

/// An X25519 test's (public, private) as raw 32-byte strings, decoded from
/// the file's encoding (raw hex, SPKI/PKCS#8 DER, PEM, JWK); Err says why
/// the reader refused it.
fn xdh_keys(schema: &str, t: &Value) -> std::result::Result<(Vec<u8>, Vec<u8>), String> {
    let hex_of = |k: &str| -> std::result::Result<Vec<u8>, String> {
        hex::decode(t[k].as_str().unwrap_or_default()).map_err(|e| format!("{k}: {e}"))
    };
    match schema {
        "xdh_comp_schema_v1.json" => Ok((hex_of("public")?, hex_of("private")?)),
        "xdh_asn_comp_schema_v1.json" => Ok((
            x25519_spki(&hex_of("public")?)?,
            x25519_pkcs8(&hex_of("private")?)?,
        )),
        "xdh_pem_comp_schema_v1.json" => {
            let pem = |k: &str, label: &str| -> std::result::Result<Vec<u8>, String> {
                let s = t[k].as_str().ok_or(format!("{k} is not a PEM string"))?;
                let (l, der) =
                    pem_rfc7468::decode_vec(s.as_bytes()).map_err(|e| format!("{k}: PEM: {e}"))?;
                if l != label {
                    return Err(format!("{k}: PEM label {l}, expected {label}"));
                }
                Ok(der)
            };
            Ok((
                x25519_spki(&pem("public", "PUBLIC KEY")?)?,
                x25519_pkcs8(&pem("private", "PRIVATE KEY")?)?,
            ))
        }
        _ => Ok((jwk(&t["public"], "x")?, jwk(&t["private"], "d")?)),
    }
}

/// The raw key in an X25519 SubjectPublicKeyInfo (RFC 8410).
fn x25519_spki(der: &[u8]) -> std::result::Result<Vec<u8>, String> {
    use der::Decode as _;
    let spki = spki::SubjectPublicKeyInfoRef::from_der(der).map_err(|e| format!("SPKI: {e}"))?;
    if spki.algorithm.oid != OID_X25519 || spki.algorithm.parameters.is_some() {
        return Err(format!(
            "SPKI algorithm {} is not X25519",
            spki.algorithm.oid
        ));
    }
    let raw = spki
        .subject_public_key
        .as_bytes()
        .ok_or("SPKI: the key has unused bits")?;
    Ok(raw.to_vec())
}

/// The raw scalar in an X25519 PKCS#8 PrivateKeyInfo (RFC 8410: an OCTET
/// STRING holding the CurvePrivateKey OCTET STRING).
fn x25519_pkcs8(der: &[u8]) -> std::result::Result<Vec<u8>, String> {
    use der::Decode as _;
    let pki = pkcs8::PrivateKeyInfoRef::from_der(der).map_err(|e| format!("PKCS#8: {e}"))?;
    if pki.algorithm.oid != OID_X25519 || pki.algorithm.parameters.is_some() {
        return Err(format!(
            "PKCS#8 algorithm {} is not X25519",
            pki.algorithm.oid
        ));
    }
    let inner = <&der::asn1::OctetStringRef>::from_der(pki.private_key.as_bytes())
        .map_err(|e| format!("PKCS#8 CurvePrivateKey: {e}"))?;
    Ok(inner.as_bytes().to_vec())
}

/// A JWK's X25519 member (`x` or `d`), base64url without padding (RFC 8037).
fn jwk(v: &Value, member: &str) -> std::result::Result<Vec<u8>, String> {
    use base64ct::Encoding as _;
    if v["kty"] != "OKP" || v["crv"] != "X25519" {
        return Err(format!(
            "JWK kty {} crv {} is not OKP X25519",
            v["kty"], v["crv"]
        ));
    }
    let s = v[member].as_str().ok_or(format!("JWK lacks '{member}'"))?;
    base64ct::Base64UrlUnpadded::decode_vec(s).map_err(|e| format!("JWK {member}: {e}"))
}

/// A P1363 signature (r ‖ s, 32 bytes each for P-256) as the DER
/// Ecdsa-Sig-Value every library here takes.
fn p1363_to_der(sig: &[u8]) -> std::result::Result<Vec<u8>, String> {
    use der::Encode as _;
    if sig.len() != 64 {
        return Err(format!(
            "P1363 signature of {} bytes (P-256: 64)",
            sig.len()
        ));
    }
    let r = der::asn1::UintRef::new(&sig[..32]).map_err(|e| e.to_string())?;
    let s = der::asn1::UintRef::new(&sig[32..]).map_err(|e| e.to_string())?;
    let body = [r.to_der(), s.to_der()]
        .into_iter()
        .collect::<der::Result<Vec<Vec<u8>>>>()
        .map_err(|e| e.to_string())?
        .concat();
    der::asn1::Any::new(der::Tag::Sequence, body)
        .and_then(|a| a.to_der())
        .map_err(|e| e.to_string())
}

/// An RSASSA-PSS SubjectPublicKeyInfo (id-RSASSA-PSS with parameters) as the
/// rsaEncryption one holding the same RSAPublicKey.
fn rsa_spki_from_pss(der: &[u8], rsa_public_key: &[u8]) -> std::result::Result<Vec<u8>, String> {
    use der::{Decode as _, Encode as _};
    let spki = spki::SubjectPublicKeyInfoRef::from_der(der).map_err(|e| format!("SPKI: {e}"))?;
    if spki.algorithm.oid != OID_RSA_PSS {
        return Err(format!(
            "SPKI algorithm {} is not id-RSASSA-PSS",
            spki.algorithm.oid
        ));
    }
    if spki.subject_public_key.as_bytes() != Some(rsa_public_key) {
        return Err("the SPKI's key is not the group's RSAPublicKey".into());
    }
    let out = spki::SubjectPublicKeyInfoRef {
        algorithm: spki::AlgorithmIdentifierRef {
            oid: OID_RSA,
            parameters: Some(der::asn1::AnyRef::NULL),
        },
        subject_public_key: der::asn1::BitStringRef::from_bytes(rsa_public_key)
            .map_err(|e| e.to_string())?,
    };
    out.to_der().map_err(|e| e.to_string())
}

/// What an implementation did: None = it lacks the operation (the reason);
/// Some(Err) = it refused the input somewhere; Some(Ok(out)) = it accepted
/// and produced `out` (compared for valid cases).
type Done = std::result::Result<std::result::Result<Vec<u8>, String>, String>;

fn refused(e: Error) -> Done {
    match e {
        Error::Unsupported(why) => Err(why),
        e => Ok(Err(e.to_string())),
    }
}

/// Run one case against backend `b` (whose algorithm is the case's).
pub fn run_case(b: &dyn PkBackend, shape: Shape, c: &Case) -> Verdict {
    let Some(algo) = c.algorithm else {
        return Verdict::Skip(match &c.pre {
            Pre::Skip(why) => why.clone(),
            _ => "no algorithm".into(),
        });
    };
    let done: Done = match &c.pre {
        Pre::Skip(why) => return Verdict::Skip(why.clone()),
        Pre::Reject(why) => Ok(Err(format!("ango's reader refused it: {why}"))),
        Pre::Run => run_op(b, algo, shape, c),
    };
    let out = match done {
        Err(why) => return Verdict::Skip(format!("its API lacks {why}")),
        Ok(o) => o,
    };
    match (c.result.as_str(), out) {
        ("valid", Ok(out)) => {
            let want = expected_output(shape, c);
            if want.is_empty() || out == want {
                Verdict::Pass { acceptable: false }
            } else {
                Verdict::Fail("accepted, but the output differs from the expected".into())
            }
        }
        ("valid", Err(e)) => Verdict::Fail(format!("rejected: {e}")),
        ("invalid", Ok(_)) => Verdict::Fail("accepted".into()),
        ("invalid", Err(_)) => Verdict::Pass { acceptable: false },
        _ => Verdict::Pass { acceptable: true },
    }
}

/// What a valid case must produce (empty: acceptance is enough).
fn expected_output(shape: Shape, c: &Case) -> Vec<u8> {
    match shape {
        Shape::SigVerify => Vec::new(),
        Shape::MlDsaSign => c.sig.clone(),
        Shape::MlKemEncaps => [c.ct.as_slice(), &c.expected].concat(),
        Shape::MlKemKeygen => [c.ek.as_slice(), &c.dk].concat(),
        _ => c.expected.clone(),
    }
}

fn run_op(b: &dyn PkBackend, algo: PkAlgorithm, shape: Shape, c: &Case) -> Done {
    let kem = || b.kem(algo).map_err(|e| e.to_string());
    match shape {
        Shape::SigVerify => {
            let mut s = b.signer(algo).map_err(|e| e.to_string())?;
            if let Err(e) = s.set_peer(&c.public) {
                return refused(e);
            }
            let msg = c.msg.as_deref().unwrap_or_default();
            match s.verify_ctx(msg, &c.ctx, &c.sig) {
                Ok(true) => Ok(Ok(Vec::new())),
                Ok(false) => Ok(Err("signature rejected".into())),
                Err(e) => refused(e),
            }
        }
        Shape::Xdh => {
            let mut k = kem()?;
            if let Err(e) = k.import_secret(&c.secret) {
                return refused(e);
            }
            k.decaps(&c.public).map_or_else(refused, |o| Ok(Ok(o)))
        }
        Shape::MlKemSeed => {
            let mut k = kem()?;
            match k.keygen_from_seed(&c.secret) {
                Err(e) => refused(e),
                Ok(ek) if !c.ek.is_empty() && ek != c.ek => {
                    Ok(Ok(b"wrong encapsulation key".to_vec()))
                }
                Ok(_) => k.decaps(&c.ct).map_or_else(refused, |o| Ok(Ok(o))),
            }
        }
        Shape::MlKemKeygen => {
            let mut k = kem()?;
            let ek = match k.keygen_from_seed(&c.secret) {
                Err(e) => return refused(e),
                Ok(ek) => ek,
            };
            match k.export_secret() {
                Ok(dk) => Ok(Ok([ek, dk].concat())),
                Err(e) => refused(e),
            }
        }
        Shape::MlKemDecaps => {
            let mut k = kem()?;
            if let Err(e) = k.import_secret(&c.secret) {
                return refused(e);
            }
            k.decaps(&c.ct).map_or_else(refused, |o| Ok(Ok(o)))
        }
        Shape::MlKemEncaps => {
            let mut k = kem()?;
            if let Err(e) = k.set_peer(&c.public) {
                return refused(e);
            }
            match k.encaps_derand(&c.dk) {
                Ok((ct, ss)) => Ok(Ok([ct, ss].concat())),
                // An invalid key must be refused whatever the randomness:
                // a library without a derandomized encapsulation is tested
                // with its own.
                Err(Error::Unsupported(_)) if c.result == "invalid" => k
                    .encaps()
                    .map_or_else(refused, |(ct, ss)| Ok(Ok([ct, ss].concat()))),
                Err(e) => refused(e),
            }
        }
        Shape::MlDsaSign => {
            let mut s = b.signer(algo).map_err(|e| e.to_string())?;
            let key = if c.seeded {
                s.keygen_from_seed(&c.secret)
            } else {
                s.import_secret(&c.secret).map(|()| Vec::new())
            };
            match key {
                Err(e) => return refused(e),
                Ok(pk)
                    if c.result == "valid" && !pk.is_empty() && !c.ek.is_empty() && pk != c.ek =>
                {
                    return Ok(Ok(b"wrong public key".to_vec()));
                }
                Ok(_) => {}
            }
            let rnd = if c.rnd.is_empty() {
                vec![0; 32]
            } else {
                c.rnd.clone()
            };
            let sig = match &c.msg {
                Some(m) => s.sign_with(m, &c.ctx, &rnd),
                None => s.sign_mu(&c.mu, &rnd),
            };
            sig.map_or_else(refused, |o| Ok(Ok(o)))
        }
    }
}

/// Run every case of `algo` in `file` against backend `b`.
pub fn run(b: &dyn PkBackend, algo: PkAlgorithm, file: &PkFile) -> Outcome {
    let mut o = Outcome::default();
    for c in file.cases.iter().filter(|c| c.algorithm == Some(algo)) {
        o.add(c.tc_id, &c.result, &c.flags, run_case(b, file.shape, c));
    }
    o
}

impl Case {
    /// Whether two cases ask the same thing (same id, inputs, expectation).
    pub fn same_as(&self, o: &Case) -> bool {
        (
            self.tc_id,
            &self.result,
            &self.public,
            &self.secret,
            &self.msg,
            &self.ctx,
            &self.mu,
            &self.rnd,
        ) == (
            o.tc_id, &o.result, &o.public, &o.secret, &o.msg, &o.ctx, &o.mu, &o.rnd,
        ) && (&self.sig, &self.ct, &self.expected, &self.ek, &self.dk)
            == (&o.sig, &o.ct, &o.expected, &o.ek, &o.dk)
            && self.algorithm == o.algorithm
            && self.pre == o.pre
    }
}

/// The algorithms a file's cases cover, in order.
pub fn algorithms(file: &PkFile) -> Vec<PkAlgorithm> {
    let mut v: Vec<PkAlgorithm> = file.cases.iter().filter_map(|c| c.algorithm).collect();
    v.sort();
    v.dedup();
    v
}

/// The schema a Wycheproof file names, if it is JSON with one.
pub fn schema_of(text: &str) -> Option<String> {
    serde_json::from_str::<Value>(text)
        .ok()
        .and_then(|v| v["schema"].as_str().map(String::from))
}

/// True if the text looks like a public-key Wycheproof file (by schema).
pub fn is_pk_file(text: &str) -> bool {
    schema_of(text).is_some_and(|s| SCHEMAS.iter().any(|(n, _, _)| *n == s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_files_parse_with_their_counts() {
        for (name, text) in BUILTIN {
            let f = parse(name, text).unwrap();
            let v: Value = serde_json::from_str(text).unwrap();
            let n = v["numberOfTests"].as_u64().unwrap() as usize;
            assert_eq!(f.cases.len(), n, "{name}");
            assert_eq!(f.number_of_tests, n, "{name}");
            // Every case of these files is of an algorithm ango has.
            assert!(f.cases.iter().all(|c| c.algorithm.is_some()), "{name}");
        }
    }

    #[test]
    fn encodings_decode_and_bad_ones_are_refused() {
        // RFC 8410's SPKI and PKCS#8 for X25519, and P1363 → DER.
        let spki = hex::decode(
            "302a300506032b656e032100504a36999f489cd2fdbc08baff3d88fa00569ba986cba22548ffde80f9806829",
        )
        .unwrap();
        assert_eq!(x25519_spki(&spki).unwrap()[..2], [0x50, 0x4a]);
        let mut wrong_oid = spki.clone();
        wrong_oid[8] = 0x6f; // X448
        assert!(x25519_spki(&wrong_oid).is_err());
        let pkcs8 = hex::decode(
            "302e020100300506032b656e04220420c8a9d5a91091ad851c668b0736c1c9a02936c0d3ad62670858088047ba057475",
        )
        .unwrap();
        assert_eq!(x25519_pkcs8(&pkcs8).unwrap().len(), 32);
        let mut sig = vec![0u8; 64];
        sig[31] = 1;
        sig[32] = 0x80;
        let der = p1363_to_der(&sig).unwrap();
        // SEQUENCE { INTEGER 1, INTEGER 0x0080…00 (33 bytes) }
        assert_eq!(&der[..5], &[0x30, 3 + 35, 0x02, 0x01, 0x01]);
        assert_eq!(&der[5..8], &[0x02, 33, 0x00]);
        assert!(p1363_to_der(&sig[..63]).is_err());
        let j: Value = serde_json::from_str(
            r#"{"kty":"OKP","crv":"X25519","x":"UEo2mZ9InNL9vAi6_z2I-gBWm6mGy6IlSP_egPmAaCk"}"#,
        )
        .unwrap();
        assert_eq!(jwk(&j, "x").unwrap(), x25519_spki(&spki).unwrap());
        assert!(jwk(&j, "d").is_err());
    }

    #[test]
    fn unknown_schema_names_the_valid_ones() {
        let e = parse(
            "x.json",
            r#"{"schema":"dsa_verify_schema.json","testGroups":[]}"#,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("xdh_comp_schema_v1") && e.contains("mlkem_test_schema"),
            "{e}"
        );
    }
}
