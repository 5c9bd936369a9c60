//! Known library defects as data (`vectors/known-defects.toml`).
//!
//! A failed check is ango's business only when no known defect explains
//! it: a library that fails Wycheproof is a finding to show plainly (and
//! the pair is never timed), not a failure of ango. A known defect that no
//! longer reproduces, on a library version the entry names, is reported
//! as such.

use ango_core::{CaseFailure, DefectCategory, DefectMatch, Error, Result};
use serde::Deserialize;

/// The built-in list, read at compile time.
pub const BUILTIN: &str = include_str!("../../../vectors/known-defects.toml");
pub const BUILTIN_PATH: &str = "vectors/known-defects.toml";

/// One entry of the file.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct KnownDefect {
    pub id: String,
    /// The provider's name as ango knows it (`liboqs`, `openssl`, …).
    pub provider: String,
    /// The library within the provider's version string whose version
    /// `versions` names (default: the provider's name), for providers that
    /// join several (`ml-dsa` within RustCrypto's).
    #[serde(default)]
    pub library: Option<String>,
    /// Versions of that library it is known in (`0.13.0`).
    pub versions: Vec<String>,
    /// Canonical algorithm names.
    pub algorithms: Vec<String>,
    /// The provider's variants it is about (PQClean's `avx2`); empty: every
    /// variant.
    #[serde(default)]
    pub variants: Vec<String>,
    pub category: DefectCategory,
    pub description: String,
    pub citation: String,
    /// The case ids it explains (`<file>#<tcId>`, `check:<what>`).
    pub cases: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    defect: Vec<KnownDefect>,
}

/// Parse a known-defects file; `path` names it in errors.
pub fn parse(path: &str, text: &str) -> Result<Vec<KnownDefect>> {
    let f: File = toml::from_str(text).map_err(|e| Error::data(path, e.to_string().trim()))?;
    for d in &f.defect {
        if d.cases.is_empty() || d.versions.is_empty() || d.algorithms.is_empty() {
            return Err(Error::data(
                path,
                format!(
                    "defect '{}': cases, versions and algorithms must not be empty",
                    d.id
                ),
            ));
        }
    }
    Ok(f.defect)
}

/// The built-in known defects.
pub fn builtin() -> &'static [KnownDefect] {
    static LIST: std::sync::OnceLock<Vec<KnownDefect>> = std::sync::OnceLock::new();
    LIST.get_or_init(|| parse(BUILTIN_PATH, BUILTIN).expect("vectors/known-defects.toml parses"))
}

/// Whether a built-in known defect that makes results wrong concerns
/// `label` (a provider, with its variant) at `version` for `algorithm`:
/// such a pair is checked and shown, never timed, and left out of the
/// differential fuzz. An `input-check` entry (an unchecked input, right
/// results) does not stop timing.
pub fn concerns(label: &str, version: &str, algorithm: &str) -> bool {
    builtin()
        .iter()
        .any(|d| d.category != DefectCategory::InputCheck && d.applies(label, version, algorithm))
}

/// [`concerns`] for a catalog entry.
pub fn concerns_entry(e: &ango_core::Entry, algorithm: &str) -> bool {
    concerns(&e.label(), &(e.provider.version)(), algorithm)
}

impl KnownDefect {
    /// Whether the entry is about this provider (with its variant, as
    /// `pqclean[avx2]`, for a provider that has several), library version
    /// and algorithm. `version` is the provider's whole version string; a
    /// listed version matches where `<library> <version>` appears in it
    /// (case aside) as whole words, so another component's number never
    /// does.
    pub fn applies(&self, who: &str, version: &str, algorithm: &str) -> bool {
        let (provider, variant) = match who.split_once('[') {
            Some((p, v)) => (p, v.strip_suffix(']')),
            None => (who, None),
        };
        let variant_ok = self.variants.is_empty()
            || variant.is_some_and(|v| self.variants.iter().any(|x| x == v));
        let lib = self
            .library
            .as_deref()
            .unwrap_or(&self.provider)
            .to_ascii_lowercase();
        let words: Vec<String> = version
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '-'))
            .filter(|w| !w.is_empty())
            .map(str::to_ascii_lowercase)
            .collect();
        self.provider == provider
            && variant_ok
            && self.algorithms.iter().any(|a| a == algorithm)
            && self.versions.iter().any(|v| {
                words
                    .windows(2)
                    .any(|w| w[0] == lib && w[1] == v.to_ascii_lowercase())
            })
    }
}

/// How a check's failures divide between known defects and the rest.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Explained {
    /// Known defects that explain some failures, each with its cases.
    pub known: Vec<DefectMatch>,
    /// Failures no known defect explains: these fail the run.
    pub unexplained: Vec<CaseFailure>,
    /// Known defects that apply here but none of whose cases failed.
    pub not_reproduced: Vec<String>,
}

impl Explained {
    /// Whether every failure is explained by `input-check` entries alone
    /// (the pair is still timed).
    pub fn only_input_checks(&self) -> bool {
        self.all_explained()
            && self
                .known
                .iter()
                .all(|m| m.category == DefectCategory::InputCheck)
    }

    /// True when every failure is explained by a known defect.
    pub fn all_explained(&self) -> bool {
        self.unexplained.is_empty()
    }
}

/// Divide `failures` of (provider at `version`, `algorithm`) between the
/// defects of `list` and the rest. `ran` holds the ids of every case that
/// was run: a defect none of whose listed cases failed is reported as no
/// longer reproducing only when some of them ran.
pub fn explain(
    list: &[KnownDefect],
    provider: &str,
    version: &str,
    algorithm: &str,
    failures: &[CaseFailure],
    ran: &[String],
) -> Explained {
    let mut out = Explained::default();
    let applicable: Vec<&KnownDefect> = list
        .iter()
        .filter(|d| d.applies(provider, version, algorithm))
        .collect();
    for f in failures {
        match applicable.iter().find(|d| d.cases.contains(&f.case)) {
            Some(d) => match out.known.iter_mut().find(|m| m.id == d.id) {
                Some(m) => m.cases.push(f.case.clone()),
                None => out.known.push(DefectMatch {
                    id: d.id.clone(),
                    category: d.category,
                    description: d.description.clone(),
                    citation: d.citation.clone(),
                    cases: vec![f.case.clone()],
                }),
            },
            None => out.unexplained.push(f.clone()),
        }
    }
    for d in applicable {
        let tried = d.cases.iter().any(|c| ran.contains(c));
        if tried && !out.known.iter().any(|m| m.id == d.id) {
            out.not_reproduced.push(format!(
                "known defect {} of {provider} ({}) does not reproduce here for {algorithm}: \
                 every case it lists passed",
                d.id, d.description
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = r#"
[[defect]]
id = "x-bug"
provider = "lib"
versions = ["1.2.0"]
algorithms = ["ml-dsa-44"]
category = "defect"
description = "accepts bad signatures"
citation = "example/lib#1"
cases = ["f.json#3", "f.json#9"]
"#;

    #[test]
    fn builtin_parses_and_names_the_mldsa_avx2_defects() {
        let l = builtin();
        assert!(l
            .iter()
            .any(|d| d.provider == "liboqs" && d.citation.contains("pq-crystals/dilithium#113")));
        assert!(l.iter().any(|d| d
            .cases
            .contains(&"mldsa_44_verify_test.json#147".to_string())));
    }

    #[test]
    fn failures_divide_into_known_and_unexplained() {
        let l = parse("t.toml", FILE).unwrap();
        let f = vec![
            CaseFailure::new("f.json#3", "tcId 3"),
            CaseFailure::new("f.json#4", "tcId 4"),
        ];
        let ran: Vec<String> = ["f.json#3", "f.json#4"].map(String::from).to_vec();
        let e = explain(&l, "lib", "lib 1.2.0 (crate 0.1)", "ml-dsa-44", &f, &ran);
        assert_eq!(e.known.len(), 1);
        assert_eq!(e.known[0].cases, vec!["f.json#3".to_string()]);
        assert_eq!(e.unexplained, vec![f[1].clone()]);
        assert!(!e.all_explained());
        // Another version or algorithm: nothing is explained.
        let e = explain(&l, "lib", "lib 1.2.01", "ml-dsa-44", &f[..1], &ran);
        assert!(e.known.is_empty() && e.unexplained.len() == 1);
        // Another component's number is not the library's version.
        let e = explain(
            &l,
            "lib",
            "lib 2.0 (crate 1.2.0)",
            "ml-dsa-44",
            &f[..1],
            &ran,
        );
        assert!(e.known.is_empty());
        let e = explain(&l, "lib", "lib 1.2.0", "ml-dsa-65", &f[..1], &ran);
        assert!(e.known.is_empty());
        // The defect applies but nothing failed: it no longer reproduces.
        let e = explain(&l, "lib", "lib 1.2.0", "ml-dsa-44", &[], &ran);
        assert!(e.all_explained() && e.known.is_empty());
        assert_eq!(e.not_reproduced.len(), 1);
        assert!(e.not_reproduced[0].contains("does not reproduce"));
        // ... but only when its cases ran.
        let e = explain(&l, "lib", "lib 1.2.0", "ml-dsa-44", &[], &[]);
        assert!(e.not_reproduced.is_empty());
    }

    #[test]
    fn an_entry_with_variants_is_about_those_variants_only() {
        let text = FILE.replace("category", "variants = [\"avx2\"]\ncategory");
        let l = parse("t.toml", &text).unwrap();
        let d = &l[0];
        assert!(d.applies("lib[avx2]", "lib 1.2.0", "ml-dsa-44"));
        assert!(!d.applies("lib[clean]", "lib 1.2.0", "ml-dsa-44"));
        assert!(!d.applies("lib", "lib 1.2.0", "ml-dsa-44"));
        // The clean variant passing does not make the avx2 defect "no longer
        // reproducing".
        let ran: Vec<String> = ["f.json#3"].map(String::from).to_vec();
        let e = explain(&l, "lib[clean]", "lib 1.2.0", "ml-dsa-44", &[], &ran);
        assert!(e.not_reproduced.is_empty());
        // Without `variants`, every variant.
        let l = parse("t.toml", FILE).unwrap();
        assert!(l[0].applies("lib[clean]", "lib 1.2.0", "ml-dsa-44"));
    }

    #[test]
    fn bad_files_are_errors() {
        assert!(parse("t.toml", "[[defect]]\nid = 1").is_err());
        let e = parse("t.toml", &FILE.replace("defect\"\ndesc", "bug\"\ndesc"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("t.toml"), "{e}");
        assert!(parse(
            "t.toml",
            &FILE.replace("[\"f.json#3\", \"f.json#9\"]", "[]")
        )
        .is_err());
    }
}
