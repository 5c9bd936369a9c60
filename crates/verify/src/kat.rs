//! Known-answer tests of one (algorithm, backend), run in the same process
//! that will time the pair. Valid AEAD cases must seal to the expected
//! ciphertext and tag and open back; a flipped tag bit and a flipped
//! ciphertext bit must be rejected; `FAILS` cases must be rejected. Cipher
//! cases must encrypt to OUT and decrypt back to IN.

use crate::vectors::{builtin_cases, Case};
use ango_core::{Algorithm, Backend, Error, Kind, Result};

#[derive(Clone, Debug, Default, PartialEq)]
pub struct KatReport {
    pub passed: usize,
    pub failed: usize,
    /// Cases the backend cannot express (e.g. a nonce length it lacks).
    pub skipped: usize,
    pub failures: Vec<String>,
    pub skips: Vec<String>,
    /// Whether a passed case used the nonce and tag lengths that are timed.
    pub covers_measured_config: bool,
}

impl KatReport {
    /// The pair may be timed: no failure, and the measured configuration is
    /// among the cases that passed.
    pub fn ok(&self) -> bool {
        self.failed == 0 && self.passed > 0 && self.covers_measured_config
    }

    /// Short form for records: "pass 12/12 (2 skipped)".
    pub fn summary(&self) -> String {
        let total = self.passed + self.failed;
        let verdict = if self.ok() { "pass" } else { "FAIL" };
        let mut s = format!("{verdict} {}/{total}", self.passed);
        if self.skipped > 0 {
            s.push_str(&format!(" ({} skipped)", self.skipped));
        }
        if self.passed > 0 && !self.covers_measured_config {
            s.push_str(" (no vector covers the measured nonce/tag lengths)");
        }
        s
    }
}

fn flip(v: &[u8], bit: usize) -> Vec<u8> {
    let mut w = v.to_vec();
    if !w.is_empty() {
        let i = bit / 8 % w.len();
        w[i] ^= 1 << (bit % 8);
    }
    w
}

enum Outcome {
    Pass { measured_config: bool },
    Skip(String),
}

fn aead_case(b: &dyn Backend, a: Algorithm, c: &Case) -> Result<Outcome> {
    let key = c.get("KEY")?;
    let nonce = c.get("NONCE")?;
    let ad = c.get("AD")?;
    let pt = c.get("IN")?;
    let ct = c.get("CT")?;
    let tag = c.get("TAG")?;
    c.finish()?;
    let mut inst = match b.aead(a, key, nonce.len(), tag.len()) {
        Ok(i) => i,
        Err(Error::Backend { message, .. }) => return Ok(Outcome::Skip(message)),
        Err(e) => return Err(e),
    };
    let measured_config = nonce.len() == a.nonce_len() && tag.len() == a.tag_len();
    let mut out = vec![0u8; ct.len()];
    if c.fails {
        return match inst.open(nonce, ad, ct, tag, &mut out) {
            Err(Error::AuthFailed) => Ok(Outcome::Pass { measured_config }),
            Err(e) => Err(Error::Kat(format!(
                "invalid case rejected with an odd error: {e}"
            ))),
            Ok(()) => Err(Error::Kat("invalid case was accepted".into())),
        };
    }
    let mut buf = pt.to_vec();
    let mut t = vec![0u8; tag.len()];
    inst.seal(nonce, ad, &mut buf, &mut t)?;
    if buf != ct {
        return Err(Error::Kat(format!(
            "ciphertext {} != {}",
            hex::encode(&buf),
            hex::encode(ct)
        )));
    }
    if t != tag {
        return Err(Error::Kat(format!(
            "tag {} != {}",
            hex::encode(&t),
            hex::encode(tag)
        )));
    }
    inst.open(nonce, ad, ct, tag, &mut out)
        .map_err(|e| Error::Kat(format!("open of a valid case failed: {e}")))?;
    if out != pt {
        return Err(Error::Kat("open did not give back the plaintext".into()));
    }
    for bit in [0, 7 * 8 + 3] {
        if !matches!(
            inst.open(nonce, ad, ct, &flip(tag, bit), &mut out),
            Err(Error::AuthFailed)
        ) {
            return Err(Error::Kat(format!(
                "a tag with bit {bit} flipped was not rejected"
            )));
        }
    }
    if !ct.is_empty()
        && !matches!(
            inst.open(nonce, ad, &flip(ct, 1), tag, &mut out),
            Err(Error::AuthFailed)
        )
    {
        return Err(Error::Kat(
            "a flipped ciphertext bit was not rejected".into(),
        ));
    }
    if !ad.is_empty()
        && !matches!(
            inst.open(nonce, &flip(ad, 2), ct, tag, &mut out),
            Err(Error::AuthFailed)
        )
    {
        return Err(Error::Kat("a flipped AD bit was not rejected".into()));
    }
    Ok(Outcome::Pass { measured_config })
}

fn cipher_case(b: &dyn Backend, a: Algorithm, c: &Case) -> Result<Outcome> {
    let key = c.get("KEY")?;
    let iv = c.get("IV")?;
    let pt = c.get("IN")?;
    let ct = c.get("OUT")?;
    c.finish()?;
    if c.fails {
        return Err(Error::Kat("FAILS makes no sense for a cipher".into()));
    }
    let mut inst = b.cipher(a, key)?;
    let mut buf = pt.to_vec();
    inst.encrypt(iv, &mut buf)?;
    if buf != ct {
        return Err(Error::Kat(format!(
            "output {} != {}",
            hex::encode(&buf),
            hex::encode(ct)
        )));
    }
    inst.decrypt(iv, &mut buf)?;
    if buf != pt {
        return Err(Error::Kat("decryption did not give back the input".into()));
    }
    // A second message through the same instance must not depend on the first.
    let mut again = pt.to_vec();
    inst.encrypt(iv, &mut again)?;
    if again != ct {
        return Err(Error::Kat(
            "a second encryption with the same IV differed".into(),
        ));
    }
    Ok(Outcome::Pass {
        measured_config: true,
    })
}

/// Run every built-in vector of `algo` against `backend`.
pub fn run(backend: &dyn Backend, algo: Algorithm) -> Result<KatReport> {
    Ok(run_cases(backend, algo, &builtin_cases(algo)?))
}

/// Run the given cases (those of other algorithms are ignored).
pub fn run_cases(backend: &dyn Backend, algo: Algorithm, cases: &[(String, Case)]) -> KatReport {
    let mut r = KatReport::default();
    for (path, case) in cases.iter().filter(|(_, c)| c.algorithm == Some(algo)) {
        let res = match algo.kind() {
            Kind::Aead => aead_case(backend, algo, case),
            Kind::Cipher => cipher_case(backend, algo, case),
        };
        match res {
            Ok(Outcome::Pass { measured_config }) => {
                r.passed += 1;
                r.covers_measured_config |= measured_config;
            }
            Ok(Outcome::Skip(why)) => {
                r.skipped += 1;
                r.skips.push(format!("{path}: {}: {why}", case.name));
            }
            Err(e) => {
                r.failed += 1;
                r.failures.push(format!("{path}: {}: {e}", case.name));
            }
        }
    }
    r
}

/// Everything checked before a symmetric pair is timed: ango's built-in
/// known answers, then (AEADs) every case of the vendored upstream
/// Wycheproof files, with the failures divided between known library
/// defects (`vectors/known-defects.toml`) and the rest.
#[derive(Clone, Debug, Default)]
pub struct BeforeTiming {
    pub kat: KatReport,
    pub wycheproof: crate::wycheproof::Checked,
    pub explained: crate::defects::Explained,
    pub cross: Agreement,
}

/// The cross-library check before timing: the pair's digest of
/// [`CROSS_ROUNDS`] random messages ([`crate::cross::digest`]) against
/// every other implementation of the algorithm in the catalog that runs
/// here (those with a known defect of it left out).
#[derive(Clone, Debug, Default)]
pub struct Agreement {
    /// Other implementations whose output matches, of how many.
    pub agree: usize,
    pub others: usize,
    /// Those that differ (or failed to run), by label.
    pub differ: Vec<String>,
    /// The pair's own digest failed to run (its error).
    pub error: Option<String>,
}

impl Agreement {
    /// The pair agrees with most of the others (vacuously when it has none).
    pub fn ok(&self) -> bool {
        self.error.is_none() && (self.others == 0 || 2 * self.agree > self.others)
    }

    fn summary(&self) -> String {
        match (&self.error, self.others) {
            (Some(e), _) => format!("cross-library check failed to run: {e}"),
            (None, 0) => "cross-library: no other implementation here".into(),
            (None, n) => format!(
                "cross-library: agrees with {}/{n} other implementations{}",
                self.agree,
                if self.differ.is_empty() {
                    String::new()
                } else {
                    format!(" (differs from {})", self.differ.join(", "))
                }
            ),
        }
    }
}

/// Random messages (0..=[`CROSS_MAX_LEN`] bytes, AAD 0..64 bytes) in the
/// cross-library digest before timing.
pub const CROSS_ROUNDS: usize = 200;
pub const CROSS_MAX_LEN: usize = 2048;
const CROSS_SEED: u64 = 0x6372_6f73_7321;

/// Every runnable implementation's digest of `algo`, computed once per
/// process: (entry label, digest or error).
fn catalog_digests(algo: Algorithm) -> Vec<(String, std::result::Result<u64, String>)> {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    type Digests = Vec<(String, std::result::Result<u64, String>)>;
    static CACHE: OnceLock<Mutex<HashMap<Algorithm, Digests>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(d) = cache.lock().expect("not poisoned").get(&algo) {
        return d.clone();
    }
    let d: Digests = ango_backends::catalog()
        .runnable(ango_core::AlgorithmId::Sym(algo))
        .into_iter()
        .filter(|e| !crate::defects::concerns_entry(e, algo.name()))
        .map(|e| {
            let d = crate::cross::digest(
                &ango_core::EntryBackend(e),
                algo,
                CROSS_ROUNDS,
                CROSS_MAX_LEN,
                CROSS_SEED,
            );
            (e.label(), d.map_err(|x| x.to_string()))
        })
        .collect();
    cache.lock().expect("not poisoned").insert(algo, d.clone());
    d
}

/// `backend`'s agreement with every other implementation of `algo`.
pub fn agreement(backend: &dyn Backend, algo: Algorithm) -> Agreement {
    let mut a = Agreement::default();
    let me = backend.label();
    let digests = catalog_digests(algo);
    // A catalog entry's own digest was made with the others, in this process.
    let mine = match digests.iter().find(|(label, _)| *label == me) {
        Some((_, d)) => d.clone(),
        None => crate::cross::digest(backend, algo, CROSS_ROUNDS, CROSS_MAX_LEN, CROSS_SEED)
            .map_err(|e| e.to_string()),
    };
    let mine = match mine {
        Ok(d) => d,
        Err(e) => {
            a.error = Some(e);
            return a;
        }
    };
    for (label, d) in digests {
        if label == me {
            continue;
        }
        a.others += 1;
        if d.as_ref().ok() == Some(&mine) {
            a.agree += 1;
        } else {
            a.differ.push(label);
        }
    }
    a
}

impl BeforeTiming {
    /// The pair may be timed: its known answers pass and no Wycheproof case
    /// failed (a known defect is shown, never timed).
    pub fn ok(&self) -> bool {
        self.kat.ok() && self.wycheproof.failures.is_empty() && self.cross.ok()
    }

    /// Whether every reason not to time it is a known library defect.
    pub fn only_known_defects(&self) -> bool {
        self.kat.ok()
            && self.cross.ok()
            && self.explained.unexplained.is_empty()
            && !self.explained.known.is_empty()
    }

    /// Every case behind [`BeforeTiming::summary`] as numbers: the known
    /// answers, the Wycheproof cases and one comparison per other
    /// implementation of the cross-library check.
    pub fn counts(&self) -> ango_core::CaseCounts {
        let cross_failed = self.cross.differ.len() + usize::from(self.cross.error.is_some());
        ango_core::CaseCounts::new(self.kat.passed, self.kat.failed, self.kat.skipped)
            + ango_core::CaseCounts::new(self.wycheproof.passed, self.wycheproof.failures.len(), 0)
            + ango_core::CaseCounts::new(self.cross.agree, cross_failed, 0)
    }

    /// Short form for records: "pass 12/12; Wycheproof chacha20_poly1305_test.json 300/300".
    pub fn summary(&self) -> String {
        let mut s = self.kat.summary();
        if !self.wycheproof.summary.is_empty() {
            s.push_str(&format!(
                "; Wycheproof {}",
                self.wycheproof.summary.join(", ")
            ));
        }
        s.push_str("; ");
        s.push_str(&self.cross.summary());
        s
    }

    /// Failures no known defect explains, one line each (known-answer ones,
    /// then Wycheproof's with their case ids).
    pub fn unexplained(&self) -> Vec<String> {
        let mut v = self.kat.failures.clone();
        if v.is_empty() && !self.kat.ok() {
            v.push(format!("known-answer tests: {}", self.kat.summary()));
        }
        v.extend(
            self.explained
                .unexplained
                .iter()
                .map(|f| format!("{} [{}]", f.text, f.case)),
        );
        if !self.cross.ok() {
            v.push(self.cross.summary());
        }
        v
    }
}

/// The checks before timing `algo` with `backend` (see [`BeforeTiming`]).
pub fn before_timing(backend: &dyn Backend, algo: Algorithm) -> Result<BeforeTiming> {
    let kat = run(backend, algo)?;
    let wycheproof = if algo.kind() == Kind::Aead {
        crate::wycheproof::checks_in(crate::wycheproof::builtin_files(), backend, algo)
    } else {
        crate::wycheproof::Checked::default()
    };
    let explained = crate::defects::explain(
        crate::defects::builtin(),
        &backend.label(),
        &backend.version(),
        algo.name(),
        &wycheproof.failures,
        &wycheproof.ran,
    );
    // A pair with a known defect of the algorithm is never timed; its
    // digest would only differ for that reason.
    let cross = if explained.known.is_empty() {
        agreement(backend, algo)
    } else {
        Agreement::default()
    };
    Ok(BeforeTiming {
        kat,
        wycheproof,
        explained,
        cross,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flip_changes_one_bit() {
        assert_eq!(flip(&[0, 0], 9), vec![0, 2]);
        assert_eq!(flip(&[], 3), Vec::<u8>::new());
    }
}
