//! `ango verify --wycheproof PATH`: every case of every Wycheproof file
//! (AEAD and public-key schemas) against every implementation here of the
//! file's algorithms, one [`FileReport`] per (file, implementation) whose
//! passed + failed + skipped is the file's numberOfTests.

use crate::wycheproof::{self, TestFile};
use crate::wycheproof_pk::{self, Outcome, PkFile};
use ango_core::{AlgorithmId, CaseFailure, Catalog, Entry, EntryBackend, Error, Result};
use serde::Serialize;
use std::collections::BTreeMap;

/// A file, read by the reader of its schema.
pub enum Loaded {
    Aead(TestFile),
    Pk(PkFile),
}

impl Loaded {
    pub fn number_of_tests(&self) -> usize {
        match self {
            Loaded::Aead(f) => f.number_of_tests,
            Loaded::Pk(f) => f.number_of_tests,
        }
    }

    /// The schema the file names (AEAD files before the schema field:
    /// `aead_test_schema_v1.json`).
    pub fn schema(&self) -> &str {
        match self {
            Loaded::Aead(_) => wycheproof::SCHEMAS[0],
            Loaded::Pk(f) => &f.schema,
        }
    }

    /// The algorithms of its cases that ango has, in order.
    fn algorithms(&self) -> Vec<AlgorithmId> {
        let mut v: Vec<AlgorithmId> = match self {
            Loaded::Aead(f) => f
                .cases
                .iter()
                .filter_map(|c| c.algorithm.map(AlgorithmId::Sym))
                .collect(),
            Loaded::Pk(f) => wycheproof_pk::algorithms(f)
                .into_iter()
                .map(AlgorithmId::Pk)
                .collect(),
        };
        v.sort_by_key(|a| a.name());
        v.dedup();
        v
    }
}

/// Read one file's text by its schema. A schema ango does not read, or an
/// algorithm it lacks altogether, is a usage error naming what it reads.
pub fn load(name: &str, text: &str) -> Result<Loaded> {
    match wycheproof_pk::schema_of(text) {
        Some(s) if wycheproof::SCHEMAS.contains(&s.as_str()) => {
            Ok(Loaded::Aead(wycheproof::parse(name, text)?))
        }
        Some(_) if wycheproof_pk::is_pk_file(text) => {
            Ok(Loaded::Pk(wycheproof_pk::parse(name, text)?))
        }
        Some(s) => Err(wycheproof_pk::unknown_schema(name, &s)),
        // Older AEAD files carry no schema field.
        None => Ok(Loaded::Aead(wycheproof::parse(name, text)?)),
    }
}

/// What one implementation did with one file.
#[derive(Clone, Debug, Serialize)]
pub struct FileReport {
    pub file: String,
    /// The canonical names of the file's algorithms this implementation
    /// provides, comma-separated.
    pub algorithm: String,
    pub backend: String,
    pub implementation: String,
    /// The file's numberOfTests = passed + failed + skipped.
    pub cases: usize,
    pub passed: usize,
    pub failed: usize,
    pub skipped: usize,
    /// Why cases were skipped, with how many each.
    pub skip_reasons: BTreeMap<String, usize>,
    /// Of `passed`: the `acceptable` cases (may go either way).
    pub acceptable: usize,
    /// Every failed case's tcId.
    pub failed_ids: Vec<u64>,
    /// The known library defects that explain failures here, if any
    /// (vectors/known-defects.toml), each ending with what it means for
    /// timing.
    pub known_defect: Option<String>,
    /// Every failed case, with what happened (not in the JSON: `failed_ids`
    /// and the terminal carry it).
    #[serde(skip)]
    pub failures: Vec<String>,
    /// Failures no known defect explains (the exit status counts these).
    #[serde(skip)]
    pub unexplained: Vec<CaseFailure>,
    /// Known-defect lines that no longer reproduce here.
    #[serde(skip)]
    pub not_reproduced: Vec<String>,
    /// The human label (`openssl`, `ango[aes/vaes512+ghash/vpclmul]`).
    #[serde(skip)]
    pub label: String,
}

/// Run every case of `file` (named `name`) against every implementation in
/// `catalog` of one of its algorithms.
pub fn run_file(catalog: &Catalog, name: &str, file: &Loaded) -> Vec<FileReport> {
    // Implementations, by label, with their entry per algorithm.
    let mut by_label: Vec<(String, Vec<&Entry>)> = Vec::new();
    for a in file.algorithms() {
        for e in catalog.runnable(a) {
            match by_label.iter_mut().find(|(l, _)| *l == e.label()) {
                Some((_, v)) => v.push(e),
                None => by_label.push((e.label(), vec![e])),
            }
        }
    }
    by_label
        .into_iter()
        .map(|(label, entries)| run_entries(name, file, &label, &entries))
        .collect()
}

fn run_entries(name: &str, file: &Loaded, label: &str, entries: &[&Entry]) -> FileReport {
    let mut o = Outcome::default();
    let find = |a: AlgorithmId| entries.iter().find(|e| e.algorithm == a).copied();
    let missing =
        |a: &str| wycheproof_pk::Verdict::Skip(format!("{a}: {label} does not provide it"));
    match file {
        Loaded::Aead(f) => {
            for c in &f.cases {
                let v = match c.algorithm {
                    None => wycheproof::run_case(&EntryBackend(entries[0]), c),
                    Some(a) => match find(AlgorithmId::Sym(a)) {
                        Some(e) => wycheproof::run_case(&EntryBackend(e), c),
                        None => missing(a.name()),
                    },
                };
                o.add(c.tc_id, &c.result, &c.flags, v);
            }
        }
        Loaded::Pk(f) => {
            for c in &f.cases {
                let v = match c.algorithm {
                    None => wycheproof_pk::run_case(&EntryBackend(entries[0]), f.shape, c),
                    Some(a) => match find(AlgorithmId::Pk(a)) {
                        Some(e) => wycheproof_pk::run_case(&EntryBackend(e), f.shape, c),
                        None => missing(a.name()),
                    },
                };
                o.add(c.tc_id, &c.result, &c.flags, v);
            }
        }
    }
    let first = entries[0];
    let mut r = FileReport {
        file: name.to_string(),
        algorithm: entries
            .iter()
            .map(|e| e.algorithm.name())
            .collect::<Vec<_>>()
            .join(","),
        backend: first.provider.name.to_string(),
        implementation: first.implementation.clone(),
        cases: file.number_of_tests(),
        passed: o.passed,
        failed: o.failed,
        skipped: o.skipped,
        skip_reasons: o.skip_reasons.clone(),
        acceptable: o.acceptable,
        failed_ids: o.failed_ids.clone(),
        known_defect: None,
        failures: o.failures.clone(),
        unexplained: Vec::new(),
        not_reproduced: Vec::new(),
        label: label.to_string(),
    };
    explain(&mut r, file, entries, &o);
    r
}

/// Divide the failures between the known library defects and the rest,
/// per algorithm (the defects name algorithms).
fn explain(r: &mut FileReport, file: &Loaded, entries: &[&Entry], o: &Outcome) {
    let case_id = |tc: &u64| format!("{}#{tc}", r.file);
    let mut known = Vec::new();
    for e in entries {
        let of_algo =
            |tc: &u64| match file {
                Loaded::Aead(f) => f.cases.iter().any(|c| {
                    c.tc_id == *tc && c.algorithm.map(AlgorithmId::Sym) == Some(e.algorithm)
                }),
                Loaded::Pk(f) => f.cases.iter().any(|c| {
                    c.tc_id == *tc && c.algorithm.map(AlgorithmId::Pk) == Some(e.algorithm)
                }),
            };
        let failures: Vec<CaseFailure> = o
            .failed_ids
            .iter()
            .zip(&o.failures)
            .filter(|(tc, _)| of_algo(tc))
            .map(|(tc, text)| CaseFailure::new(case_id(tc), text.clone()))
            .collect();
        let ran: Vec<String> = o
            .judged_ids
            .iter()
            .filter(|tc| of_algo(tc))
            .map(case_id)
            .collect();
        let b = EntryBackend(e);
        let x = match (file, e.algorithm) {
            (Loaded::Pk(f), AlgorithmId::Pk(a)) => {
                let c = crate::pk::Checked {
                    failures,
                    ran,
                    ..Default::default()
                };
                crate::pk::explain_file(&b, a, &c, f)
            }
            _ => crate::defects::explain(
                crate::defects::builtin(),
                &e.label(),
                &(e.provider.version)(),
                e.algorithm.name(),
                &failures,
                &ran,
            ),
        };
        for m in &x.known {
            known.push(format!(
                "{}; {}",
                m.line(&e.label(), e.algorithm.name()),
                m.timing_note()
            ));
        }
        r.unexplained.extend(x.unexplained);
        r.not_reproduced.extend(x.not_reproduced);
    }
    if !known.is_empty() {
        r.known_defect = Some(known.join("; "));
    }
}

/// The files a path names: the file itself, or a directory's `*.json`
/// files in name order. Unreadable paths are usage errors.
pub fn files_of(path: &std::path::Path) -> Result<Vec<std::path::PathBuf>> {
    let meta = std::fs::metadata(path).map_err(|e| {
        Error::usage(format!(
            "cannot read {}: {e}; give a Wycheproof test file (.json) or a directory of them",
            path.display()
        ))
    })?;
    if !meta.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut v: Vec<std::path::PathBuf> = std::fs::read_dir(path)
        .map_err(|e| Error::usage(format!("cannot list {}: {e}", path.display())))?
        .filter_map(|d| d.ok().map(|d| d.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json") && p.is_file())
        .collect();
    v.sort();
    if v.is_empty() {
        return Err(Error::usage(format!(
            "{} holds no .json file; give a Wycheproof test file or a directory of them",
            path.display()
        )));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_vendored_file_adds_up_for_every_implementation() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../vectors/wycheproof");
        let files = files_of(&dir).unwrap();
        assert_eq!(files.len(), 36);
        let catalog = ango_backends::catalog();
        for p in files {
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            let text = std::fs::read_to_string(&p).unwrap();
            let f = load(&name, &text).unwrap();
            let reports = run_file(catalog, &name, &f);
            assert!(!reports.is_empty(), "{name}: no implementation");
            assert!(
                reports.iter().any(|r| r.passed + r.failed > 0),
                "{name}: no implementation ran a case"
            );
            for r in &reports {
                assert_eq!(
                    r.passed + r.failed + r.skipped,
                    r.cases,
                    "{name} {}",
                    r.label
                );
                assert_eq!(r.skip_reasons.values().sum::<usize>(), r.skipped);
                assert_eq!(r.failed_ids.len(), r.failed);
            }
        }
    }
}
