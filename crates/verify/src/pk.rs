//! The public-key checks run before anything is timed: a round trip,
//! tampered inputs rejected, ML-KEM's implicit rejection, the sizes of what
//! was produced, Wycheproof's vectors, and cross-library agreement.
//!
//! Every failure carries a stable case id ([`CaseFailure`]) so it can be
//! matched against the known library defects ([`crate::defects`]).

use crate::cross::Rng;
use crate::wycheproof_pk::{self, PkFile};
use ango_core::pk::{PkAlgorithm, PkBackend, PkInstance, PkKind, Signer, SizeEntry};
use ango_core::EntryBackend;
use ango_core::{CaseFailure, Result};

/// The signed message of the round-trip checks, in bytes.
pub const CHECK_MESSAGE_BYTES: usize = 32;

/// What a set of checks found.
#[derive(Clone, Debug, Default)]
pub struct Checked {
    pub passed: usize,
    pub failures: Vec<CaseFailure>,
    /// The id of every case run (failed or not).
    pub ran: Vec<String>,
    /// Wycheproof cases that may go either way, and those this backend
    /// cannot run (it lacks the import they need): counted, not judged.
    pub acceptable: usize,
    pub unsupported: usize,
    /// Per-file summaries ("mldsa_44_verify_test.json 170/180").
    pub summary: Vec<String>,
    /// The sizes of what the round trip produced.
    pub sizes: Vec<SizeEntry>,
    /// For a verify-only signer: the provider whose key pairs and
    /// signatures it was checked with.
    pub keys_from: Option<String>,
}

impl Checked {
    fn ok(&mut self, cond: bool, case: &str, what: &str) {
        self.ran.push(format!("check:{case}"));
        if cond {
            self.passed += 1;
        } else {
            self.failures
                .push(CaseFailure::new(format!("check:{case}"), what));
        }
    }

    /// Add another set's results.
    pub fn extend(&mut self, other: Checked) {
        self.passed += other.passed;
        self.failures.extend(other.failures);
        self.ran.extend(other.ran);
        self.acceptable += other.acceptable;
        self.unsupported += other.unsupported;
        self.summary.extend(other.summary);
        self.sizes.extend(other.sizes);
        self.keys_from = self.keys_from.take().or(other.keys_from);
    }
}

fn flip(v: &[u8], bit: usize) -> Vec<u8> {
    let mut w = v.to_vec();
    if !w.is_empty() {
        let i = bit % (8 * w.len());
        w[i / 8] ^= 1 << (i % 8);
    }
    w
}

/// Whether `b` lacks key generation for `a` (a verify-only signer): its
/// key pairs and signatures then come from [`key_source`].
pub fn lacks_keygen(b: &dyn PkBackend, a: PkAlgorithm) -> bool {
    !ango_core::pk::makes_keys(&b.untimed_ops(a))
}

/// The provider whose key pairs and signatures a verify-only signer of
/// `a` is checked and timed with.
pub fn key_source(a: PkAlgorithm) -> Option<EntryBackend<'static>> {
    ango_backends::catalog().key_source(a).map(EntryBackend)
}

/// A signer that makes key pairs and signatures for another one, with its
/// provider's name.
pub type Donor = Option<(Box<dyn Signer>, String)>;

/// For a verify-only `b`: a signer of [`key_source`] to make its key pairs
/// and signatures (checks and timing alike), with that provider's name;
/// `None` for a signer that makes its own.
pub fn donor(b: &dyn PkBackend, a: PkAlgorithm) -> Result<Donor> {
    if !lacks_keygen(b, a) {
        return Ok(None);
    }
    let src = key_source(a).ok_or_else(|| {
        ango_core::Error::Unsupported(format!(
            "{} makes no {a} keys and no other provider here does",
            b.label()
        ))
    })?;
    Ok(Some((src.signer(a)?, src.label())))
}

/// A new key pair's public key, from the donor if there is one.
fn keygen_by(s: &mut dyn Signer, d: &mut Donor) -> Result<Vec<u8>> {
    match d {
        Some((m, _)) => m.keygen(),
        None => s.keygen(),
    }
}

/// ango's own checks of one (backend, algorithm): round trip, tampering,
/// implicit rejection, key pairs that differ; and the sizes. Each KEM key
/// pair decapsulates once (ring's X25519 key is consumed by its one
/// agreement); a verify-only signer verifies key pairs and signatures made
/// by [`key_source`].
pub fn check(b: &dyn PkBackend, a: PkAlgorithm, rng: &mut Rng) -> Checked {
    let mut c = Checked::default();
    match PkInstance::new(b, a) {
        Err(e) => c.failures.push(CaseFailure::new(
            "check:instance",
            format!("cannot make an instance: {e}"),
        )),
        Ok(PkInstance::Kem(mut k)) => {
            let r = (|| -> Result<()> {
                let pk = k.keygen()?;
                k.set_peer(&pk)?;
                let (ct, ss) = k.encaps()?;
                let (ct_b, ss_b) = k.encaps()?;
                let ss2 = k.decaps(&ct)?;
                c.ok(
                    ss == ss2 && !ss.is_empty(),
                    "round-trip",
                    "decaps(encaps) gives the encapsulated secret",
                );
                c.ok(
                    ss_b != ss && ct_b != ct,
                    "fresh-encaps",
                    "two encapsulations differ",
                );
                let sizes = k.key_sizes()?;
                let pk2 = k.keygen()?;
                c.ok(pk2 != pk, "fresh-keys", "two key pairs differ");
                let ss3 = k.decaps(&ct)?;
                c.ok(
                    ss3 != ss,
                    "other-key",
                    "another key pair decapsulates to another secret",
                );
                // A third key pair for the tampered ciphertext. Any bit but
                // the very last: X25519 ignores the top bit of a public
                // value (and the hybrid ends with one).
                let pk3 = k.keygen()?;
                k.set_peer(&pk3)?;
                let (ct3, ss_3) = k.encaps()?;
                let bit = (rng.next_u64() as usize) % (8 * ct3.len() - 1);
                let bad = k.decaps(&flip(&ct3, bit))?;
                c.ok(
                    bad != ss_3,
                    "implicit-rejection",
                    "a ciphertext with one bit flipped yields another secret (implicit rejection)",
                );
                c.sizes.push(SizeEntry::new("public_key", "raw", pk.len()));
                c.sizes.push(SizeEntry::new("ciphertext", "raw", ct.len()));
                c.sizes
                    .push(SizeEntry::new("shared_secret", "raw", ss.len()));
                c.sizes.extend(sizes);
                Ok(())
            })();
            if let Err(e) = r {
                c.failures
                    .push(CaseFailure::new("check:error", format!("error: {e}")));
            }
        }
        Ok(PkInstance::Sig(mut s)) => {
            let r = (|| -> Result<()> {
                let msg: Vec<u8> = (0..CHECK_MESSAGE_BYTES)
                    .map(|_| rng.next_u64() as u8)
                    .collect();
                let mut d = donor(b, a)?;
                let pk = keygen_by(s.as_mut(), &mut d)?;
                let sig = match &mut d {
                    Some((m, _)) => m.sign(&msg)?,
                    None => s.sign(&msg)?,
                };
                let (pk_enc, sig_enc) = match &d {
                    Some((m, _)) => (m.public_key_encoding(), m.signature_encoding()),
                    None => (s.public_key_encoding(), s.signature_encoding()),
                };
                s.set_peer(&pk)?;
                c.ok(
                    s.verify(&msg, &sig)?,
                    "round-trip",
                    "verify(sign(m)) accepts",
                );
                c.ok(
                    !s.verify(&flip(&msg, rng.next_u64() as usize), &sig)?,
                    "flipped-message",
                    "a message with one bit flipped is rejected",
                );
                c.ok(
                    !s.verify(&msg, &flip(&sig, rng.next_u64() as usize))?,
                    "flipped-signature",
                    "a signature with one bit flipped is rejected",
                );
                c.ok(
                    !s.verify(&msg, &sig[..sig.len() - 1])?,
                    "truncated-signature",
                    "a truncated signature is rejected",
                );
                let sizes = if d.is_none() {
                    s.key_sizes()?
                } else {
                    Vec::new()
                };
                let pk2 = keygen_by(s.as_mut(), &mut d)?;
                s.set_peer(&pk2)?;
                c.ok(
                    !s.verify(&msg, &sig)?,
                    "other-key",
                    "another key pair's public key rejects it",
                );
                c.keys_from = d.map(|(_, name)| name);
                c.sizes.push(SizeEntry::new("public_key", pk_enc, pk.len()));
                c.sizes
                    .push(SizeEntry::new("signature", sig_enc, sig.len()));
                c.sizes.extend(sizes);
                Ok(())
            })();
            if let Err(e) = r {
                c.failures
                    .push(CaseFailure::new("check:error", format!("error: {e}")));
            }
        }
    }
    c
}

/// The built-in Wycheproof files, parsed once.
pub fn wycheproof_files() -> &'static [PkFile] {
    static FILES: std::sync::OnceLock<Vec<PkFile>> = std::sync::OnceLock::new();
    FILES.get_or_init(|| {
        wycheproof_pk::BUILTIN
            .iter()
            .map(|(n, t)| wycheproof_pk::parse(n, t).expect("built-in files parse"))
            .collect()
    })
}

/// Wycheproof's vectors for `a` against `b`, from `files`: every failed
/// case with its id (`<file>#<tcId>`), and a summary per file.
pub fn wycheproof_checks_in(files: &[PkFile], b: &dyn PkBackend, a: PkAlgorithm) -> Checked {
    let mut c = Checked::default();
    for f in files {
        if !f.cases.iter().any(|x| x.algorithm == Some(a)) {
            continue;
        }
        let o = wycheproof_pk::run(b, a, f);
        c.acceptable += o.acceptable;
        c.unsupported += o.skipped;
        if o.passed + o.failed == 0 {
            if o.skipped > 0 {
                c.summary.push(format!(
                    "{} not run ({} tests need what its API lacks)",
                    f.name, o.skipped
                ));
            }
            continue;
        }
        c.passed += o.passed - o.acceptable;
        c.ran
            .extend(o.judged_ids.iter().map(|id| format!("{}#{id}", f.name)));
        c.summary.push(format!(
            "{} {}/{}{}",
            f.name,
            o.passed - o.acceptable,
            o.passed - o.acceptable + o.failed,
            if o.acceptable > 0 {
                format!(" (+{} acceptable)", o.acceptable)
            } else {
                String::new()
            }
        ));
        for (id, text) in o.failed_ids.iter().zip(&o.failures) {
            c.failures.push(CaseFailure::new(
                format!("{}#{id}", f.name),
                format!("Wycheproof {} {text}", f.name),
            ));
        }
    }
    c
}

/// Wycheproof's built-in vectors for `a` against `b`.
pub fn wycheproof_checks(b: &dyn PkBackend, a: PkAlgorithm) -> Checked {
    wycheproof_checks_in(wycheproof_files(), b, a)
}

/// Every check of one (backend, algorithm) before timing: ango's own, then
/// Wycheproof's.
pub fn all_checks(b: &dyn PkBackend, a: PkAlgorithm, rng: &mut Rng) -> Checked {
    let mut c = check(b, a, rng);
    c.extend(wycheproof_checks(b, a));
    c
}

/// Divide a check's failures between the built-in known library defects
/// and the rest.
pub fn explain(b: &dyn PkBackend, a: PkAlgorithm, c: &Checked) -> crate::defects::Explained {
    crate::defects::explain(
        crate::defects::builtin(),
        &b.label(),
        &b.version(),
        a.name(),
        &c.failures,
        &c.ran,
    )
}

/// As [`explain`], for the checks of a user's Wycheproof `file`: a known
/// defect explains a failed case only if the case is the very one of the
/// built-in file of that name (same tcId, inputs and expectation), so a
/// file of another revision with renumbered cases is never excused.
pub fn explain_file(
    b: &dyn PkBackend,
    a: PkAlgorithm,
    c: &Checked,
    file: &PkFile,
) -> crate::defects::Explained {
    let builtin = wycheproof_files().iter().find(|f| f.name == file.name);
    let identical = |id: &str| -> bool {
        let Some(tc) = id.rsplit_once('#').and_then(|(_, n)| n.parse::<u64>().ok()) else {
            return false;
        };
        let find = |f: &PkFile| {
            f.cases
                .iter()
                .find(|x| x.tc_id == tc && x.algorithm == Some(a))
                .cloned()
        };
        matches!((builtin.and_then(find), find(file)), (Some(x), Some(y)) if x.same_as(&y))
    };
    let mut e = explain(b, a, c);
    for m in &mut e.known {
        let (keep, back): (Vec<String>, Vec<String>) =
            m.cases.drain(..).partition(|id| identical(id));
        m.cases = keep;
        for id in back {
            if let Some(f) = c.failures.iter().find(|f| f.case == id) {
                e.unexplained.push(f.clone());
            }
        }
    }
    e.known.retain(|m| !m.cases.is_empty());
    e
}

/// A check's cases as numbers: those that may go either way and those the
/// backend cannot run are skipped.
pub fn case_counts(c: &Checked) -> ango_core::CaseCounts {
    ango_core::CaseCounts::new(c.passed, c.failures.len(), c.acceptable + c.unsupported)
}

/// One line for a check's outcome: `pass 5/5; Wycheproof …` or `FAIL 3/175; …`.
pub fn summary_line(c: &Checked) -> String {
    let mut s = if c.failures.is_empty() {
        format!("pass {}/{}", c.passed, c.passed)
    } else {
        format!("FAIL {}/{}", c.failures.len(), c.passed + c.failures.len())
    };
    if let Some(from) = &c.keys_from {
        s.push_str(&format!(" (keys and signatures made by {from})"));
    }
    if !c.summary.is_empty() {
        s.push_str(&format!("; Wycheproof {}", c.summary.join(", ")));
    }
    s
}

/// Cross-library checks for `a`: for every ordered pair of backends, a
/// public key made by one is used by the other (KEM: the other
/// encapsulates, the first decapsulates to the same secret; signature: the
/// first signs once, every other verifies). Returns (pairs passed, failures).
pub fn cross_checks(backends: &[&dyn PkBackend], a: PkAlgorithm) -> (usize, Vec<String>) {
    let mut passed = 0;
    let mut fails = Vec::new();
    let msg = b"ango cross-library check";
    for x in backends {
        // A signer's one key pair and signature are verified by every other
        // provider (an RSA key pair costs up to a second to make); a KEM key
        // pair is made for each decapsulation (ring's X25519 key is consumed
        // by its one agreement). A verify-only signer makes no keys: it is
        // only ever `y`.
        if a.kind() == PkKind::Sig && lacks_keygen(*x, a) {
            continue;
        }
        let signed = (a.kind() == PkKind::Sig).then(|| {
            (|| -> Result<(Vec<u8>, Vec<u8>)> {
                let mut sx = x.signer(a)?;
                let pk = sx.keygen()?;
                Ok((pk, sx.sign(msg)?))
            })()
            .map_err(|e| e.to_string())
        });
        for y in backends {
            if x.name() == y.name() {
                continue;
            }
            if let Some(Err(e)) = &signed {
                fails.push(format!("{a}: {} → {}: {e}", x.name(), y.name()));
                continue;
            }
            let r = (|| -> Result<bool> {
                Ok(match a.kind() {
                    PkKind::Kem => {
                        let (mut kx, mut ky) = (x.kem(a)?, y.kem(a)?);
                        let pk = kx.keygen()?;
                        ky.set_peer(&pk)?;
                        let (ct, ss) = ky.encaps()?;
                        kx.decaps(&ct)? == ss
                    }
                    PkKind::Sig => {
                        let Some(Ok((pk, sig))) = &signed else {
                            return Ok(false);
                        };
                        let mut sy = y.signer(a)?;
                        sy.set_peer(pk)?;
                        sy.verify(msg, sig)?
                    }
                })
            })();
            match r {
                Ok(true) => passed += 1,
                Ok(false) => fails.push(format!(
                    "{a}: {}'s key, {} {} → rejected or another secret",
                    x.name(),
                    y.name(),
                    if a.kind() == PkKind::Kem {
                        "encapsulates"
                    } else {
                        "verifies"
                    }
                )),
                Err(e) => fails.push(format!("{a}: {} → {}: {e}", x.name(), y.name())),
            }
        }
    }
    (passed, fails)
}
