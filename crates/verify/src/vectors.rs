//! Reader for ango's vector files (the ring/BoringSSL style).
//!
//! ```text
//! # Source: ...            header comments name where the values come from
//! [aes-128-gcm]            section: the algorithm of the cases that follow
//! # GCM spec Test Case 3   a comment directly above a case names it
//! KEY = 00...              attributes, lower-case hex; empty value allowed
//! FAILS                    the case must be rejected
//! ```
//! Cases are separated by blank lines. A case whose attributes are not all
//! read by the test that uses it fails (see [`Case::finish`]).

use ango_core::{Algorithm, Error, Result};
use std::cell::RefCell;
use std::collections::BTreeMap;

/// Sections that name a primitive below the level of `ango speed`'s
/// algorithms (tested directly against ango's own implementations).
pub const PRIMITIVE_SECTIONS: &[&str] = &["poly1305", "hchacha20"];

#[derive(Debug)]
pub struct Case {
    /// The section name as written (`aes-128-gcm`, `poly1305`, ...).
    pub section: String,
    /// The algorithm, when the section names one of `Algorithm`'s.
    pub algorithm: Option<Algorithm>,
    pub name: String,
    pub line: usize,
    pub fails: bool,
    attrs: BTreeMap<String, Vec<u8>>,
    read: RefCell<Vec<String>>,
}

impl Case {
    /// An attribute's bytes; an error if the case lacks it.
    pub fn get(&self, key: &str) -> Result<&[u8]> {
        self.read.borrow_mut().push(key.to_string());
        self.attrs
            .get(key)
            .map(Vec::as_slice)
            .ok_or_else(|| Error::Kat(format!("{}: missing attribute {key}", self.name)))
    }

    pub fn has(&self, key: &str) -> bool {
        self.attrs.contains_key(key)
    }

    /// Error if the test did not read every attribute the case carries.
    pub fn finish(&self) -> Result<()> {
        let read = self.read.borrow();
        for k in self.attrs.keys() {
            if !read.iter().any(|r| r == k) {
                return Err(Error::Kat(format!(
                    "{} (line {}): attribute {k} was never used",
                    self.name, self.line
                )));
            }
        }
        Ok(())
    }
}

/// A parsed vector file.
#[derive(Debug)]
pub struct VectorFile {
    pub path: String,
    /// The `# Source:` lines of the header.
    pub sources: Vec<String>,
    pub cases: Vec<Case>,
}

/// Parse a vector file's text; `path` is only used in messages.
pub fn parse(path: &str, text: &str) -> Result<VectorFile> {
    let mut sources = Vec::new();
    let mut cases = Vec::new();
    let mut section: Option<(String, Option<Algorithm>)> = None;
    let mut pending_name: Option<String> = None;
    let mut cur: Option<Case> = None;
    let bad = |line: usize, msg: String| Error::data(format!("{path}:{line}"), msg);

    for (i, raw) in text.lines().enumerate() {
        let ln = i + 1;
        let line = raw.trim();
        if line.is_empty() {
            if let Some(c) = cur.take() {
                cases.push(c);
            }
            pending_name = None;
            continue;
        }
        if let Some(c) = line.strip_prefix('#') {
            let c = c.trim();
            if let Some(s) = c.strip_prefix("Source:") {
                sources.push(s.trim().to_string());
            } else if cur.is_none() {
                pending_name = Some(c.to_string());
            }
            continue;
        }
        if line.starts_with('[') && line.ends_with(']') {
            if let Some(c) = cur.take() {
                cases.push(c);
            }
            let name = line[1..line.len() - 1].trim().to_string();
            let alg = match Algorithm::parse(&name) {
                Ok(a) => Some(a),
                Err(_) if PRIMITIVE_SECTIONS.contains(&name.as_str()) => None,
                Err(e) => {
                    return Err(bad(
                        ln,
                        format!("{e}, or a primitive: {}", PRIMITIVE_SECTIONS.join(", ")),
                    ))
                }
            };
            section = Some((name, alg));
            continue;
        }
        let (sec, alg) = section
            .clone()
            .ok_or_else(|| bad(ln, "attribute before any [algorithm] section".into()))?;
        let case = cur.get_or_insert_with(|| Case {
            section: sec,
            algorithm: alg,
            name: pending_name
                .take()
                .unwrap_or_else(|| format!("{path}:{ln}")),
            line: ln,
            fails: false,
            attrs: BTreeMap::new(),
            read: RefCell::new(Vec::new()),
        });
        if line == "FAILS" {
            case.fails = true;
            continue;
        }
        let (k, v) = line
            .split_once('=')
            .ok_or_else(|| bad(ln, format!("expected KEY = hex, got '{line}'")))?;
        let k = k.trim().to_string();
        let bytes = hex::decode(v.trim()).map_err(|e| {
            let what = match e {
                hex::FromHexError::OddLength => "an odd number of hex digits".to_string(),
                hex::FromHexError::InvalidHexCharacter { c, index } => {
                    format!("'{c}' (character {}) is not a hex digit", index + 1)
                }
                e => e.to_string(),
            };
            bad(
                ln,
                format!("{k} has {what}; a value is whole bytes as pairs of hex digits 0-9a-f, or empty"),
            )
        })?;
        if let (Some(a), "KEY") = (case.algorithm, k.as_str()) {
            if bytes.len() != a.key_len() {
                return Err(bad(
                    ln,
                    format!(
                        "KEY is {} bytes; {a} takes {}-byte keys",
                        bytes.len(),
                        a.key_len()
                    ),
                ));
            }
        }
        if case.attrs.insert(k.clone(), bytes).is_some() {
            return Err(bad(ln, format!("duplicate attribute {k}")));
        }
    }
    if let Some(c) = cur.take() {
        cases.push(c);
    }
    if sources.is_empty() {
        return Err(Error::data(path, "vector file names no '# Source:'"));
    }
    Ok(VectorFile {
        path: path.to_string(),
        sources,
        cases,
    })
}

/// The vector files compiled into ango, by path relative to the repository.
pub const BUILTIN: &[(&str, &str)] = &[
    (
        "vectors/aes_gcm.txt",
        include_str!("../../../vectors/aes_gcm.txt"),
    ),
    (
        "vectors/aes_ccm.txt",
        include_str!("../../../vectors/aes_ccm.txt"),
    ),
    (
        "vectors/chacha20_poly1305.txt",
        include_str!("../../../vectors/chacha20_poly1305.txt"),
    ),
    (
        "vectors/aes_ecb.txt",
        include_str!("../../../vectors/aes_ecb.txt"),
    ),
    (
        "vectors/aes_ctr.txt",
        include_str!("../../../vectors/aes_ctr.txt"),
    ),
    (
        "vectors/chacha20.txt",
        include_str!("../../../vectors/chacha20.txt"),
    ),
    (
        "vectors/chacha20_block.txt",
        include_str!("../../../vectors/chacha20_block.txt"),
    ),
    (
        "vectors/poly1305.txt",
        include_str!("../../../vectors/poly1305.txt"),
    ),
    (
        "vectors/hchacha20.txt",
        include_str!("../../../vectors/hchacha20.txt"),
    ),
    (
        "vectors/xchacha20_poly1305.txt",
        include_str!("../../../vectors/xchacha20_poly1305.txt"),
    ),
    (
        "vectors/camellia.txt",
        include_str!("../../../vectors/camellia.txt"),
    ),
    (
        "vectors/camellia-nessie.txt",
        include_str!("../../../vectors/camellia-nessie.txt"),
    ),
    (
        "vectors/sc2000.txt",
        include_str!("../../../vectors/sc2000.txt"),
    ),
    (
        "vectors/mugi.txt",
        include_str!("../../../vectors/mugi.txt"),
    ),
    (
        "vectors/hierocrypt3.txt",
        include_str!("../../../vectors/hierocrypt3.txt"),
    ),
    (
        "vectors/cipherunicorn-a-crosscheck.txt",
        include_str!("../../../vectors/cipherunicorn-a-crosscheck.txt"),
    ),
];

/// Every built-in case for `algo`.
pub fn builtin_cases(algo: Algorithm) -> Result<Vec<(String, Case)>> {
    builtin_section(algo.name())
}

/// Every built-in case of a section (an algorithm or a primitive name).
pub fn builtin_section(section: &str) -> Result<Vec<(String, Case)>> {
    let mut out = Vec::new();
    for (path, text) in BUILTIN {
        let f = parse(path, text)?;
        for c in f.cases {
            if c.section == section {
                out.push((f.path.clone(), c));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_file_parses_and_names_its_source() {
        for (path, text) in BUILTIN {
            let f = parse(path, text).unwrap();
            assert!(!f.sources.is_empty(), "{path}");
            assert!(!f.cases.is_empty(), "{path}");
        }
    }

    #[test]
    fn every_primitive_section_has_vectors() {
        for s in PRIMITIVE_SECTIONS {
            assert!(
                !builtin_section(s).unwrap().is_empty(),
                "{s} has no vectors"
            );
        }
    }

    /// Every algorithm that runs here has vectors; one with no
    /// implementation (a cipher whose specification could not be reached)
    /// has none to run.
    #[test]
    fn every_algorithm_has_vectors() {
        let c = ango_backends::catalog();
        for &a in Algorithm::ALL {
            if c.runnable(ango_core::AlgorithmId::Sym(a)).is_empty() {
                continue;
            }
            assert!(!builtin_cases(a).unwrap().is_empty(), "{a} has no vectors");
        }
    }

    #[test]
    fn parser_reads_sections_names_and_fails() {
        let f = parse(
            "t",
            &format!(
                "# Source: test\n\n[aes-128-gcm]\n# first\nKEY = {}ff\nAD = \nFAILS\n\n# second\n\
                 KEY = {}01\n",
                "00".repeat(15),
                "00".repeat(15)
            ),
        )
        .unwrap();
        assert_eq!(f.cases.len(), 2);
        assert_eq!(f.cases[0].name, "first");
        assert!(f.cases[0].fails);
        assert_eq!(f.cases[0].get("KEY").unwrap()[15], 0xff);
        assert_eq!(f.cases[0].get("AD").unwrap(), &[] as &[u8]);
        assert!(!f.cases[1].fails);
        assert_eq!(f.cases[1].algorithm, Some(Algorithm::Aes128Gcm));
    }

    /// A key of another length than the algorithm's, an odd number of hex
    /// digits or a non-hex character: an error naming the file, the line
    /// and what is valid.
    #[test]
    fn bad_values_name_the_line_and_what_is_valid() {
        let e = parse("f.txt", "# Source: t\n[camellia-128-ecb]\nKEY = 0011\n").unwrap_err();
        assert!(
            e.to_string().contains("f.txt:3") && e.to_string().contains("takes 16-byte keys"),
            "{e}"
        );
        let e = parse("f.txt", "# Source: t\n[mugi]\nIV = 001\n").unwrap_err();
        assert!(
            e.to_string().contains("f.txt:3") && e.to_string().contains("odd number"),
            "{e}"
        );
        let e = parse("f.txt", "# Source: t\n\n[mugi]\nIV = 0g\n").unwrap_err();
        assert!(
            e.to_string().contains("f.txt:4") && e.to_string().contains("'g'"),
            "{e}"
        );
        let e = parse("f.txt", "# Source: t\n[rot13]\n").unwrap_err();
        assert!(
            e.to_string().contains("f.txt:2") && e.to_string().contains("mugi"),
            "{e}"
        );
    }

    #[test]
    fn unread_attribute_is_an_error() {
        let text = format!(
            "# Source: t\n[chacha20]\nKEY = {}\nEXTRA = 01\n",
            "00".repeat(32)
        );
        let f = parse("t", &text).unwrap();
        let c = &f.cases[0];
        c.get("KEY").unwrap();
        assert!(c.finish().is_err());
        c.get("EXTRA").unwrap();
        assert!(c.finish().is_ok());
    }

    #[test]
    fn bad_files_are_rejected() {
        assert!(
            parse("t", "[aes-128-gcm]\nKEY = 00\n").is_err(),
            "no source"
        );
        assert!(parse("t", "# Source: t\nKEY = 00\n").is_err(), "no section");
        assert!(
            parse("t", "# Source: t\n[rot13]\n").is_err(),
            "unknown algorithm"
        );
        assert!(
            parse("t", "# Source: t\n[chacha20]\nKEY = zz\n").is_err(),
            "bad hex"
        );
        assert!(parse("t", "# Source: t\n[chacha20]\nKEY = 00\nKEY = 01\n").is_err());
    }
}
