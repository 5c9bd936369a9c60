//! Run a Wycheproof AEAD test file (`aes_gcm_test.json`,
//! `aes_ccm_test.json`, `chacha20_poly1305_test.json`, ...) against any
//! backend: every `valid` case must seal to its ciphertext and tag and open
//! back; every `invalid` case must be rejected; `acceptable` cases may go
//! either way and are counted apart.

use ango_core::{Algorithm, Backend, Error, Result};
use serde_json::Value;

/// The algorithm of a Wycheproof file's test group.
pub fn algorithm_of(file_algorithm: &str, key_bits: u64) -> Option<Algorithm> {
    match (file_algorithm.to_ascii_uppercase().as_str(), key_bits) {
        ("AES-GCM", 128) => Some(Algorithm::Aes128Gcm),
        ("AES-GCM", 256) => Some(Algorithm::Aes256Gcm),
        ("AES-CCM", 128) => Some(Algorithm::Aes128Ccm),
        ("AES-CCM", 256) => Some(Algorithm::Aes256Ccm),
        ("CHACHA20-POLY1305", 256) => Some(Algorithm::ChaCha20Poly1305),
        ("XCHACHA20-POLY1305", 256) => Some(Algorithm::XChaCha20Poly1305),
        _ => None,
    }
}

/// One AEAD test case.
#[derive(Clone, Debug)]
pub struct TestCase {
    pub tc_id: u64,
    /// None when the group is of an algorithm ango lacks (AES-192).
    pub algorithm: Option<Algorithm>,
    /// Why no implementation runs it (with `algorithm` None).
    pub skip: Option<String>,
    pub key: Vec<u8>,
    pub iv: Vec<u8>,
    pub aad: Vec<u8>,
    pub msg: Vec<u8>,
    pub ct: Vec<u8>,
    pub tag: Vec<u8>,
    /// "valid", "invalid" or "acceptable".
    pub result: String,
    pub flags: Vec<String>,
}

/// Parsed file: every test case (those no implementation can run carry
/// the reason).
#[derive(Debug, Default)]
pub struct TestFile {
    pub algorithm: String,
    pub number_of_tests: usize,
    pub cases: Vec<TestCase>,
}

fn hex_field(t: &Value, k: &str) -> Result<Vec<u8>> {
    let s = t[k]
        .as_str()
        .ok_or_else(|| Error::data("wycheproof", format!("test lacks '{k}'")))?;
    hex::decode(s).map_err(|e| Error::data("wycheproof", format!("'{k}': {e}")))
}

/// Parse a Wycheproof AEAD file's text. A file of another schema is a
/// usage error naming those ango reads; one whose algorithm ango lacks
/// altogether (AES-GCM-SIV, …) is refused likewise.
pub fn parse(path: &str, text: &str) -> Result<TestFile> {
    let v: Value =
        serde_json::from_str(text).map_err(|e| Error::data(path, format!("not JSON: {e}")))?;
    let alg = v["algorithm"]
        .as_str()
        .ok_or_else(|| Error::data(path, "not a Wycheproof test file (no \"algorithm\")"))?
        .to_string();
    let groups = v["testGroups"]
        .as_array()
        .ok_or_else(|| Error::data(path, "not a Wycheproof test file (no \"testGroups\")"))?;
    if let Some(schema) = v["schema"].as_str() {
        if !SCHEMAS.contains(&schema) {
            return Err(crate::wycheproof_pk::unknown_schema(path, schema));
        }
    }
    let mut out = TestFile {
        algorithm: alg.clone(),
        ..Default::default()
    };
    for g in groups {
        let key_bits = g["keySize"].as_u64().unwrap_or(0);
        let a = algorithm_of(&alg, key_bits);
        for t in g["tests"].as_array().into_iter().flatten() {
            out.cases.push(TestCase {
                tc_id: t["tcId"].as_u64().unwrap_or(0),
                algorithm: a,
                skip: a
                    .is_none()
                    .then(|| format!("{alg} with {key_bits}-bit keys: not an algorithm ango has")),
                key: hex_field(t, "key")?,
                iv: hex_field(t, "iv")?,
                aad: hex_field(t, "aad")?,
                msg: hex_field(t, "msg")?,
                ct: hex_field(t, "ct")?,
                tag: hex_field(t, "tag")?,
                result: t["result"].as_str().unwrap_or("").to_string(),
                flags: flags_of(t),
            });
        }
    }
    if !out.cases.iter().any(|c| c.algorithm.is_some()) {
        return Err(Error::usage(format!(
            "{path}: {alg} is not an algorithm ango has; its AEAD files are AES-GCM, AES-CCM, \
             ChaCha20-Poly1305 and XChaCha20-Poly1305"
        )));
    }
    out.number_of_tests = v["numberOfTests"]
        .as_u64()
        .map_or(out.cases.len(), |n| n as usize);
    if out.number_of_tests != out.cases.len() {
        return Err(Error::data(
            path,
            format!(
                "numberOfTests is {} but the groups hold {} tests",
                out.number_of_tests,
                out.cases.len()
            ),
        ));
    }
    Ok(out)
}

pub use crate::wycheproof_common::{flags_of, Outcome, Verdict, AEAD_SCHEMAS as SCHEMAS};

/// Run one case against `b`. An implementation that refuses the case's
/// parameters (nonce or tag length) at its API rejects it: right for an
/// invalid case; a valid case it cannot take is skipped with the reason.
pub fn run_case(b: &dyn Backend, c: &TestCase) -> Verdict {
    let Some(algo) = c.algorithm else {
        return Verdict::Skip(c.skip.clone().unwrap_or_default());
    };
    let mut inst = match b.aead(algo, &c.key, c.iv.len(), c.tag.len()) {
        Ok(i) => i,
        Err(_) => {
            return match c.result.as_str() {
                "invalid" => Verdict::Pass { acceptable: false },
                "acceptable" => Verdict::Pass { acceptable: true },
                _ => Verdict::Skip(format!(
                    "its API refuses a {}-bit nonce with a {}-bit tag",
                    c.iv.len() * 8,
                    c.tag.len() * 8,
                )),
            }
        }
    };
    let mut out = vec![0u8; c.ct.len()];
    let opened =
        c.ct.len() == c.msg.len() && inst.open(&c.iv, &c.aad, &c.ct, &c.tag, &mut out).is_ok();
    match c.result.as_str() {
        "valid" => {
            let mut buf = c.msg.clone();
            let mut tag = vec![0u8; c.tag.len()];
            let sealed = inst.seal(&c.iv, &c.aad, &mut buf, &mut tag).is_ok();
            if !opened || out != c.msg {
                Verdict::Fail("the valid ciphertext did not open to the message".into())
            } else if !sealed || buf != c.ct || tag != c.tag {
                Verdict::Fail("sealing the message gave another ciphertext or tag".into())
            } else {
                Verdict::Pass { acceptable: false }
            }
        }
        "invalid" if opened => Verdict::Fail("the invalid ciphertext opened".into()),
        "invalid" => Verdict::Pass { acceptable: false },
        _ => Verdict::Pass { acceptable: true },
    }
}

/// Run every case of `algo` in `file` against `b`.
pub fn run(b: &dyn Backend, algo: Algorithm, file: &TestFile) -> Outcome {
    let mut o = Outcome::default();
    for c in file.cases.iter().filter(|c| c.algorithm == Some(algo)) {
        o.add(c.tc_id, &c.result, &c.flags, run_case(b, c));
    }
    o
}

/// The upstream AEAD files vendored under `vectors/wycheproof/` (their
/// commits in its SOURCE.md), run before any symmetric pair is timed.
pub const BUILTIN: &[(&str, &str)] = &[
    (
        "aes_gcm_test.json",
        include_str!("../../../vectors/wycheproof/aes_gcm_test.json"),
    ),
    (
        "aes_ccm_test.json",
        include_str!("../../../vectors/wycheproof/aes_ccm_test.json"),
    ),
    (
        "chacha20_poly1305_test.json",
        include_str!("../../../vectors/wycheproof/chacha20_poly1305_test.json"),
    ),
    (
        "xchacha20_poly1305_test.json",
        include_str!("../../../vectors/wycheproof/xchacha20_poly1305_test.json"),
    ),
];

/// The built-in files, parsed once: (file name, parsed).
pub fn builtin_files() -> &'static [(&'static str, TestFile)] {
    static FILES: std::sync::OnceLock<Vec<(&'static str, TestFile)>> = std::sync::OnceLock::new();
    FILES.get_or_init(|| {
        BUILTIN
            .iter()
            .map(|(n, t)| (*n, parse(n, t).expect("built-in Wycheproof files parse")))
            .collect()
    })
}

/// What the files found for one (backend, algorithm): failures with their
/// case ids (`<file>#<tcId>`), every judged case's id, and a summary per
/// file that has cases of the algorithm.
#[derive(Clone, Debug, Default)]
pub struct Checked {
    pub passed: usize,
    pub failures: Vec<ango_core::CaseFailure>,
    pub ran: Vec<String>,
    pub summary: Vec<String>,
}

/// Run every case of `algo` in `files` against `b`.
pub fn checks_in(files: &[(&str, TestFile)], b: &dyn Backend, algo: Algorithm) -> Checked {
    let mut c = Checked::default();
    for (name, f) in files {
        if !f.cases.iter().any(|x| x.algorithm == Some(algo)) {
            continue;
        }
        let o = run(b, algo, f);
        let id = |tc: &u64| format!("{name}#{tc}");
        c.passed += o.passed;
        c.ran.extend(o.judged_ids.iter().map(id));
        for (tc, text) in o.failed_ids.iter().zip(&o.failures) {
            c.failures.push(ango_core::CaseFailure::new(
                id(tc),
                format!("Wycheproof {name} {text}"),
            ));
        }
        let mut s = format!("{name} {}/{}", o.passed, o.passed + o.failed);
        if o.skipped > 0 {
            s.push_str(&format!(
                " ({} skipped: parameters its API refuses)",
                o.skipped
            ));
        }
        c.summary.push(s);
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_groups_and_marks_key_sizes_ango_lacks() {
        let f = parse(
            "t.json",
            r#"{"algorithm":"AES-GCM","numberOfTests":2,"testGroups":[
                {"keySize":192,"tests":[{"tcId":1,"key":"00","iv":"01","aad":"","msg":"","ct":"","tag":"02","result":"valid"}]},
                {"keySize":128,"tests":[{"tcId":7,"key":"00","iv":"01","aad":"","msg":"","ct":"","tag":"02","result":"invalid"}]}]}"#,
        )
        .unwrap();
        assert_eq!(f.cases.len(), 2);
        assert_eq!(f.cases[1].algorithm, Some(Algorithm::Aes128Gcm));
        assert_eq!(f.cases[0].algorithm, None);
        assert!(f.cases[0].skip.as_deref().unwrap().contains("192-bit"));
        assert!(parse("t", "[]").is_err());
        assert!(parse("t", "nonsense").is_err());
        // A count that does not add up, an algorithm ango lacks, a schema
        // it does not read: refused.
        assert!(parse(
            "t",
            r#"{"algorithm":"AES-GCM","numberOfTests":3,"testGroups":[]}"#
        )
        .is_err());
        let e = parse(
            "t",
            r#"{"algorithm":"AES-GCM-SIV","numberOfTests":0,"testGroups":[]}"#,
        )
        .unwrap_err();
        assert!(matches!(e, Error::Usage(_)), "{e}");
        let e = parse(
            "t",
            r#"{"algorithm":"X","schema":"x_schema.json","testGroups":[]}"#,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("aead_test_schema_v1.json") && e.contains("mlkem_encaps_test_schema.json"),
            "{e}"
        );
    }

    #[test]
    fn every_builtin_file_has_cases_of_its_algorithms() {
        let files = builtin_files();
        assert_eq!(files.len(), BUILTIN.len());
        for a in [
            Algorithm::Aes128Gcm,
            Algorithm::Aes256Gcm,
            Algorithm::Aes128Ccm,
            Algorithm::Aes256Ccm,
            Algorithm::ChaCha20Poly1305,
            Algorithm::XChaCha20Poly1305,
        ] {
            assert!(
                files
                    .iter()
                    .any(|(_, f)| f.cases.iter().any(|c| c.algorithm == Some(a))),
                "no built-in Wycheproof case for {a}"
            );
        }
    }
}
