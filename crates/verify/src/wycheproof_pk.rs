//! Wycheproof's public-key test files against ango's public-key backends:
//! X25519 (xdh), ECDSA P-256/SHA-256 (DER), Ed25519, RSASSA-PSS
//! (SHA-256, MGF1-SHA-256, salt 32), ML-DSA verification and ML-KEM
//! (key generation from a seed with decapsulation, and decapsulation with
//! a given expanded key). The file's `schema` decides how it is read.
//!
//! Results: `valid` must be accepted (and reproduce the expected output),
//! `invalid` must be rejected, `acceptable` may go either way (counted
//! apart).

use ango_core::pk::{PkAlgorithm, PkBackend};
use ango_core::{Error, Result};
use serde_json::Value;

/// The built-in files (vectors/wycheproof, sources in SOURCE.md).
pub const BUILTIN: &[(&str, &str)] = &[
    (
        "x25519_test.json",
        include_str!("../../../vectors/wycheproof/x25519_test.json"),
    ),
    (
        "ed25519_test.json",
        include_str!("../../../vectors/wycheproof/ed25519_test.json"),
    ),
    (
        "ecdsa_secp256r1_sha256_test.json",
        include_str!("../../../vectors/wycheproof/ecdsa_secp256r1_sha256_test.json"),
    ),
    (
        "rsa_pss_2048_sha256_mgf1_32_test.json",
        include_str!("../../../vectors/wycheproof/rsa_pss_2048_sha256_mgf1_32_test.json"),
    ),
    (
        "rsa_pss_3072_sha256_mgf1_32_test.json",
        include_str!("../../../vectors/wycheproof/rsa_pss_3072_sha256_mgf1_32_test.json"),
    ),
    (
        "mldsa_44_verify_test.json",
        include_str!("../../../vectors/wycheproof/mldsa_44_verify_test.json"),
    ),
    (
        "mldsa_65_verify_test.json",
        include_str!("../../../vectors/wycheproof/mldsa_65_verify_test.json"),
    ),
    (
        "mldsa_87_verify_test.json",
        include_str!("../../../vectors/wycheproof/mldsa_87_verify_test.json"),
    ),
    (
        "mlkem_768_test.json",
        include_str!("../../../vectors/wycheproof/mlkem_768_test.json"),
    ),
    (
        "mlkem_512_semi_expanded_decaps_test.json",
        include_str!("../../../vectors/wycheproof/mlkem_512_semi_expanded_decaps_test.json"),
    ),
    (
        "mlkem_768_semi_expanded_decaps_test.json",
        include_str!("../../../vectors/wycheproof/mlkem_768_semi_expanded_decaps_test.json"),
    ),
    (
        "mlkem_1024_semi_expanded_decaps_test.json",
        include_str!("../../../vectors/wycheproof/mlkem_1024_semi_expanded_decaps_test.json"),
    ),
];

/// How a file's tests are run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    Xdh,
    SigVerify,
    MlKemSeed,
    MlKemDecaps,
}

/// One test, decoded.
#[derive(Clone, Debug)]
pub struct Case {
    pub tc_id: u64,
    pub algorithm: PkAlgorithm,
    pub result: String,
    /// Public key (signature verification: SPKI DER for RSA/ECDSA, raw
    /// otherwise; xdh: the peer's public value).
    pub public: Vec<u8>,
    /// Secret input: xdh private scalar, ML-KEM seed or expanded key.
    pub secret: Vec<u8>,
    pub msg: Vec<u8>,
    pub sig: Vec<u8>,
    /// ML-KEM ciphertext.
    pub ct: Vec<u8>,
    /// Expected output: xdh shared secret, ML-KEM K; empty if none.
    pub expected: Vec<u8>,
    /// ML-KEM: the expected encapsulation key from the seed.
    pub ek: Vec<u8>,
    /// Wycheproof's flags (what the test probes).
    pub flags: Vec<String>,
}

#[derive(Clone, Debug)]
pub struct PkFile {
    pub name: String,
    pub shape: Shape,
    pub cases: Vec<Case>,
    /// Groups or tests left out, with the reason (counted, not hidden).
    pub skipped: Vec<String>,
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

/// Parse a Wycheproof public-key file. An unknown schema is a usage error
/// naming the ones ango reads.
pub fn parse(path: &str, text: &str) -> Result<PkFile> {
    let v: Value = serde_json::from_str(text).map_err(|e| Error::data(path, e))?;
    let schema = v["schema"].as_str().unwrap_or_default();
    let shape = match schema {
        "xdh_comp_schema_v1.json" => Shape::Xdh,
        "ecdsa_verify_schema_v1.json"
        | "eddsa_verify_schema_v1.json"
        | "rsassa_pss_verify_schema_v1.json"
        | "mldsa_verify_schema.json" => Shape::SigVerify,
        "mlkem_test_schema.json" => Shape::MlKemSeed,
        "mlkem_semi_expanded_decaps_test_schema.json" => Shape::MlKemDecaps,
        other => {
            return Err(Error::usage(format!(
                "{path}: schema '{other}' is not one ango reads; valid: xdh_comp_schema_v1 (X25519), \
                 ecdsa_verify_schema_v1 (P-256, SHA-256, DER), eddsa_verify_schema_v1 (Ed25519), \
                 rsassa_pss_verify_schema_v1 (SHA-256, MGF1-SHA-256, salt 32), mldsa_verify_schema, \
                 mlkem_test_schema, mlkem_semi_expanded_decaps_test_schema, and the AEAD schemas"
            )))
        }
    };
    let mut cases = Vec::new();
    let mut skipped = Vec::new();
    let groups = v["testGroups"]
        .as_array()
        .ok_or_else(|| Error::data(path, "no testGroups"))?;
    for g in groups {
        let tests = g["tests"].as_array().cloned().unwrap_or_default();
        // The group's algorithm and public key, or why it is left out.
        let group: std::result::Result<(Option<PkAlgorithm>, Vec<u8>), String> = match schema {
            "xdh_comp_schema_v1.json" => match g["curve"].as_str() {
                Some("curve25519") => Ok((Some(PkAlgorithm::X25519), Vec::new())),
                c => Err(format!("curve {c:?}")),
            },
            "ecdsa_verify_schema_v1.json" => {
                let curve = g["publicKey"]["curve"].as_str().unwrap_or_default();
                if curve == "secp256r1" && g["sha"] == "SHA-256" {
                    Ok((Some(PkAlgorithm::P256), hex_field(g, "publicKeyDer", path)?))
                } else {
                    Err(format!("ECDSA {curve} with {}", g["sha"]))
                }
            }
            "eddsa_verify_schema_v1.json" => {
                if g["publicKey"]["curve"] == "edwards25519" {
                    Ok((
                        Some(PkAlgorithm::Ed25519),
                        hex_field(&g["publicKey"], "pk", path)?,
                    ))
                } else {
                    Err(format!("EdDSA {}", g["publicKey"]["curve"]))
                }
            }
            "rsassa_pss_verify_schema_v1.json" => {
                let bits = g["keySize"].as_u64().unwrap_or(0);
                let ok = g["sha"] == "SHA-256" && g["mgfSha"] == "SHA-256" && g["sLen"] == 32;
                match (bits, ok) {
                    (2048, true) => Ok((Some(PkAlgorithm::Rsa2048), hex_field(g, "publicKeyDer", path)?)),
                    (3072, true) => Ok((Some(PkAlgorithm::Rsa3072), hex_field(g, "publicKeyDer", path)?)),
                    _ => Err(format!(
                        "RSA-PSS {bits} bits, {} / MGF1-{} / salt {} (ango signs with SHA-256, MGF1-SHA-256, salt 32)",
                        g["sha"], g["mgfSha"], g["sLen"]
                    )),
                }
            }
            "mldsa_verify_schema.json" => {
                let pk = hex_field(g, "publicKey", path)?;
                // Groups with a malformed key (wrong length) keep the
                // file's parameter set: their tests must all be rejected.
                match mldsa_by_pk_len(pk.len()).or_else(|| mldsa_by_name(path)) {
                    Some(a) => Ok((Some(a), pk)),
                    None => Err("ML-DSA parameter set unknown".into()),
                }
            }
            _ => match mlkem_by_name(g["parameterSet"].as_str().unwrap_or_default()) {
                Some(a) => Ok((Some(a), Vec::new())),
                None => Err(format!("parameter set {}", g["parameterSet"])),
            },
        };
        let (algorithm, public) = match group {
            Ok((Some(a), pk)) => (a, pk),
            Ok((None, _)) => continue,
            Err(why) => {
                skipped.push(format!("{} tests: {why}", tests.len()));
                continue;
            }
        };
        for t in tests {
            if t.get("ctx")
                .is_some_and(|c| c.as_str().is_some_and(|s| !s.is_empty()))
            {
                skipped.push(format!(
                    "tcId {}: a non-empty context string (ango signs with the empty context)",
                    t["tcId"]
                ));
                continue;
            }
            let c = Case {
                tc_id: t["tcId"].as_u64().unwrap_or(0),
                algorithm,
                result: t["result"].as_str().unwrap_or("invalid").to_string(),
                public: match shape {
                    Shape::Xdh => hex_field(&t, "public", path)?,
                    _ => public.clone(),
                },
                secret: match shape {
                    Shape::Xdh => hex_field(&t, "private", path)?,
                    Shape::MlKemSeed => hex_field(&t, "seed", path)?,
                    Shape::MlKemDecaps => hex_field(&t, "dk", path)?,
                    Shape::SigVerify => Vec::new(),
                },
                msg: hex_field(&t, "msg", path)?,
                sig: hex_field(&t, "sig", path)?,
                ct: hex_field(&t, "c", path)?,
                expected: match shape {
                    Shape::Xdh => hex_field(&t, "shared", path)?,
                    _ => hex_field(&t, "K", path)?,
                },
                ek: hex_field(&t, "ek", path)?,
                flags: t["flags"]
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|f| f.as_str().map(String::from))
                            .collect()
                    })
                    .unwrap_or_default(),
            };
            cases.push(c);
        }
    }
    Ok(PkFile {
        name: path.to_string(),
        shape,
        cases,
        skipped,
    })
}

#[derive(Clone, Debug, Default)]
pub struct Outcome {
    pub passed: usize,
    pub failed: usize,
    pub acceptable: usize,
    /// Tests the backend cannot run (it lacks the import the test needs).
    pub unsupported: usize,
    pub failures: Vec<String>,
    /// The tcId of each entry of `failures`.
    pub failed_ids: Vec<u64>,
    /// The tcId of every case judged (passed or failed; not the acceptable
    /// or unsupported ones).
    pub judged_ids: Vec<u64>,
}

/// Run every case of `algo` in `file` against backend `b`.
pub fn run(b: &dyn PkBackend, algo: PkAlgorithm, file: &PkFile) -> Outcome {
    let mut o = Outcome::default();
    for c in file.cases.iter().filter(|c| c.algorithm == algo) {
        // What the backend did: None = it cannot run the test (lacks the
        // import); Some(Err) = it rejected the input somewhere;
        // Some(Ok(output)) = it accepted and produced `output` (signature
        // verification: empty output for "accepted").
        let done: Option<std::result::Result<Vec<u8>, ()>> = match file.shape {
            Shape::SigVerify => b.signer(algo).ok().map(|mut s| {
                let ok = s.set_peer(&c.public).is_ok() && s.verify(&c.msg, &c.sig).unwrap_or(false);
                if ok {
                    Ok(Vec::new())
                } else {
                    Err(())
                }
            }),
            Shape::Xdh => b
                .kem(algo)
                .ok()
                .and_then(|mut k| match k.import_secret(&c.secret) {
                    Err(Error::Unsupported(_)) => None,
                    Err(_) => Some(Err(())),
                    Ok(()) => Some(k.decaps(&c.public).map_err(drop)),
                }),
            Shape::MlKemSeed => {
                b.kem(algo)
                    .ok()
                    .and_then(|mut k| match k.keygen_from_seed(&c.secret) {
                        Err(Error::Unsupported(_)) => None,
                        Err(_) => Some(Err(())),
                        Ok(ek) if !c.ek.is_empty() && ek != c.ek => {
                            Some(Ok(b"wrong encapsulation key".to_vec()))
                        }
                        Ok(_) => Some(k.decaps(&c.ct).map_err(drop)),
                    })
            }
            Shape::MlKemDecaps => {
                b.kem(algo)
                    .ok()
                    .and_then(|mut k| match k.import_secret(&c.secret) {
                        Err(Error::Unsupported(_)) => None,
                        Err(_) => Some(Err(())),
                        Ok(()) => Some(k.decaps(&c.ct).map_err(drop)),
                    })
            }
        };
        // Valid: accepted with exactly the expected output. Invalid: any
        // acceptance counts against the backend, whatever it output.
        let accepted: Option<bool> = done.map(|d| match d {
            Err(()) => false,
            Ok(out) => c.result != "valid" || file.shape == Shape::SigVerify || out == c.expected,
        });
        let Some(accepted) = accepted else {
            o.unsupported += 1;
            continue;
        };
        let ok = match c.result.as_str() {
            "valid" => accepted,
            "invalid" => !accepted,
            _ => {
                o.acceptable += 1;
                continue;
            }
        };
        o.judged_ids.push(c.tc_id);
        if ok {
            o.passed += 1;
        } else {
            o.failed += 1;
            o.failed_ids.push(c.tc_id);
            o.failures.push(if c.flags.is_empty() {
                format!("tcId {} ({})", c.tc_id, c.result)
            } else {
                format!("tcId {} ({}, {})", c.tc_id, c.result, c.flags.join("+"))
            });
        }
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
        ) == (o.tc_id, &o.result, &o.public, &o.secret, &o.msg)
            && (&self.sig, &self.ct, &self.expected, &self.ek)
                == (&o.sig, &o.ct, &o.expected, &o.ek)
            && self.algorithm == o.algorithm
    }
}

/// The algorithms a file's cases cover, in order.
pub fn algorithms(file: &PkFile) -> Vec<PkAlgorithm> {
    let mut v: Vec<PkAlgorithm> = file.cases.iter().map(|c| c.algorithm).collect();
    v.sort();
    v.dedup();
    v
}

/// True if the text looks like a public-key Wycheproof file (by schema).
pub fn is_pk_file(text: &str) -> bool {
    serde_json::from_str::<Value>(text)
        .ok()
        .and_then(|v| v["schema"].as_str().map(String::from))
        .is_some_and(|s| {
            [
                "xdh_comp_schema_v1.json",
                "ecdsa_verify_schema_v1.json",
                "eddsa_verify_schema_v1.json",
                "rsassa_pss_verify_schema_v1.json",
                "mldsa_verify_schema.json",
                "mlkem_test_schema.json",
                "mlkem_semi_expanded_decaps_test_schema.json",
            ]
            .contains(&s.as_str())
        })
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
            let skipped_tests: usize = f
                .skipped
                .iter()
                .map(|s| {
                    if s.starts_with("tcId") {
                        1
                    } else {
                        s.split(' ').next().unwrap().parse::<usize>().unwrap()
                    }
                })
                .sum();
            assert_eq!(f.cases.len() + skipped_tests, n, "{name}: {:?}", f.skipped);
            assert!(!f.cases.is_empty(), "{name}");
        }
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
