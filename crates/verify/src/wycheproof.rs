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
    pub algorithm: Algorithm,
    pub key: Vec<u8>,
    pub iv: Vec<u8>,
    pub aad: Vec<u8>,
    pub msg: Vec<u8>,
    pub ct: Vec<u8>,
    pub tag: Vec<u8>,
    /// "valid", "invalid" or "acceptable".
    pub result: String,
}

/// Parsed file: the cases ango can run, and the groups it cannot (with why).
#[derive(Debug, Default)]
pub struct TestFile {
    pub algorithm: String,
    pub cases: Vec<TestCase>,
    pub unsupported: Vec<String>,
}

fn hex_field(t: &Value, k: &str) -> Result<Vec<u8>> {
    let s = t[k]
        .as_str()
        .ok_or_else(|| Error::data("wycheproof", format!("test lacks '{k}'")))?;
    hex::decode(s).map_err(|e| Error::data("wycheproof", format!("'{k}': {e}")))
}

/// Parse a Wycheproof AEAD file's text.
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
    let mut out = TestFile {
        algorithm: alg.clone(),
        ..Default::default()
    };
    for g in groups {
        let key_bits = g["keySize"].as_u64().unwrap_or(0);
        let Some(a) = algorithm_of(&alg, key_bits) else {
            out.unsupported
                .push(format!("{alg} with {key_bits}-bit keys"));
            continue;
        };
        for t in g["tests"].as_array().into_iter().flatten() {
            out.cases.push(TestCase {
                tc_id: t["tcId"].as_u64().unwrap_or(0),
                algorithm: a,
                key: hex_field(t, "key")?,
                iv: hex_field(t, "iv")?,
                aad: hex_field(t, "aad")?,
                msg: hex_field(t, "msg")?,
                ct: hex_field(t, "ct")?,
                tag: hex_field(t, "tag")?,
                result: t["result"].as_str().unwrap_or("").to_string(),
            });
        }
    }
    if out.cases.is_empty() && out.unsupported.is_empty() {
        return Err(Error::data(path, "no AEAD test groups in the file"));
    }
    Ok(out)
}

#[derive(Debug, Default, Clone, PartialEq)]
pub struct Outcome {
    pub passed: usize,
    pub failed: usize,
    /// Lengths the backend cannot express (reported, not counted as pass).
    pub skipped: usize,
    pub acceptable: usize,
    pub failures: Vec<String>,
    /// The tcId of every case judged (passed or failed), and of the failed.
    pub judged_ids: Vec<u64>,
    pub failed_ids: Vec<u64>,
}

/// Run every case of `algo` in `file` against `b`.
pub fn run(b: &dyn Backend, algo: Algorithm, file: &TestFile) -> Outcome {
    let mut o = Outcome::default();
    for c in file.cases.iter().filter(|c| c.algorithm == algo) {
        let mut inst = match b.aead(algo, &c.key, c.iv.len(), c.tag.len()) {
            Ok(i) => i,
            Err(_) => {
                o.skipped += 1;
                continue;
            }
        };
        let mut out = vec![0u8; c.ct.len()];
        let opened =
            c.ct.len() == c.msg.len() && inst.open(&c.iv, &c.aad, &c.ct, &c.tag, &mut out).is_ok();
        let ok = match c.result.as_str() {
            "valid" => {
                let mut buf = c.msg.clone();
                let mut tag = vec![0u8; c.tag.len()];
                let sealed = inst.seal(&c.iv, &c.aad, &mut buf, &mut tag).is_ok()
                    && buf == c.ct
                    && tag == c.tag;
                opened && out == c.msg && sealed
            }
            "invalid" => !opened,
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
            o.failures.push(format!("tcId {} ({})", c.tc_id, c.result));
        }
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
        if !f.cases.iter().any(|x| x.algorithm == algo) {
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
            s.push_str(&format!(" ({} with lengths its API lacks)", o.skipped));
        }
        c.summary.push(s);
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_groups_and_reports_unsupported_key_sizes() {
        let f = parse(
            "t.json",
            r#"{"algorithm":"AES-GCM","testGroups":[
                {"keySize":192,"tests":[]},
                {"keySize":128,"tests":[{"tcId":7,"key":"00","iv":"01","aad":"","msg":"","ct":"","tag":"02","result":"invalid"}]}]}"#,
        )
        .unwrap();
        assert_eq!(f.cases.len(), 1);
        assert_eq!(f.cases[0].algorithm, Algorithm::Aes128Gcm);
        assert_eq!(f.unsupported, vec!["AES-GCM with 192-bit keys".to_string()]);
        assert!(parse("t", "[]").is_err());
        assert!(parse("t", "nonsense").is_err());
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
                    .any(|(_, f)| f.cases.iter().any(|c| c.algorithm == a)),
                "no built-in Wycheproof case for {a}"
            );
        }
    }
}
