//! `ango ct`: does secret data change what the code does? Two checks per
//! target (every variant of ango's AES, GHASH, ChaCha20 and Poly1305, every
//! AEAD composition of them, one library implementation per AEAD, and every
//! variant of seed 002's Camellia and SC2000):
//!
//! - **memcheck** (the ctgrind method): the target runs under valgrind with
//!   its key and input marked undefined (nonces and lengths are public),
//!   so memcheck reports every branch and every memory index that depends
//!   on them, with its source line; outputs are marked defined before they
//!   are used. Valgrind 3.19 cannot run VAES-256, VPCLMULQDQ-256, AVX-512
//!   or GFNI code: those targets are `not-run` with that reason.
//! - **dudect** (Reparaz, Balasch, Verbauwhede, DATE 2017): the time of one
//!   call, read with the time-stamp counter, for a fixed input and for
//!   random inputs in random order; Welch's t between the two classes, on
//!   all measurements and on measurements cropped at dudect's percentiles.
//!   |t| > 4.5 is a leak; a crossing is measured once more before it is
//!   called one (`leaks` if it crosses again, `inconclusive` if not).
//!
//! Positive controls: the T-table AES, the FIPS S-box AES and the 4-bit
//! GHASH must come out `leaks`, the bitsliced AES and the table-free GHASH
//! `constant-time`; otherwise the check says it is broken here.

use ango_core::{Algorithm, AlgorithmId, EntryBackend, Error, Result};
use ango_prims::aes::Aes;
use ango_prims::chacha20::ChaCha20;
use ango_prims::ghash::Ghash;
use ango_prims::poly1305::Poly1305;
use serde::Serialize;

pub use ango_core::ct::{CtRecord, Verdict};

/// dudect's threshold on |t|.
pub const THRESHOLD: f64 = 4.5;
/// Bytes of secret input per call.
pub const INPUT: usize = 64;
/// Bytes of secret input per call of the long-message targets: the AEAD
/// compositions whose code for long messages is its own (AES-GCM's 512-bit
/// loop from 512 bytes; ChaCha20-Poly1305's wide code from 961 bytes and
/// its MAC stitched into the 2 KiB stretches from 3-4 KiB), which the
/// 64-byte targets never reach.
pub const LONG_INPUT: usize = 5120;
/// The compositions that get a long-message target as well.
const LONG: [&str; 3] = [
    "aes/vaes512+ghash/vpclmul",
    "chacha20/avx512+poly1305/ifma",
    "chacha20/avx512-zmm+poly1305/ifma",
];
/// Bytes of AAD for the AEAD targets (public, as a TLS record header).
const AAD: [u8; 13] = [0x17; 13];

/// CPU features valgrind 3.19 cannot run.
const NOT_UNDER_VALGRIND: &[&str] = &[
    "vaes",
    "vpclmulqdq",
    "avx512f",
    "avx512bw",
    "avx512vl",
    "avx512ifma",
    "gfni",
];

/// What a target is.
#[derive(Clone, Debug)]
enum Kind {
    Aes(Aes),
    Ghash(Ghash),
    ChaCha20(ChaCha20),
    Poly1305(Poly1305),
    /// A variant of one of seed 002's block ciphers (ECB, 128-bit key).
    Block(&'static ango_prims::block::BlockVariant),
    /// A variant of MUGI (the key secret, a fixed IV; the keystream XORed
    /// into the input).
    Stream(&'static ango_prims::block::StreamVariant),
    /// A catalog entry of an AEAD, by its id.
    Aead(Algorithm, String),
}

/// One thing to check.
#[derive(Clone, Debug)]
pub struct Target {
    /// Stable id: `<backend>/<algorithm>/<implementation>`.
    pub id: String,
    pub algorithm: String,
    pub backend: String,
    pub implementation: String,
    /// CPU features it needs (memcheck cannot run some).
    pub needs: Vec<&'static str>,
    /// What a positive control must come out as.
    pub control: Option<Verdict>,
    /// Bytes of secret input per call ([`INPUT`], or [`LONG_INPUT`]).
    pub input: usize,
    kind: Kind,
}

fn target(
    algorithm: &str,
    backend: &str,
    implementation: &str,
    needs: Vec<&'static str>,
    kind: Kind,
) -> Target {
    let control = match implementation {
        "aes/ttable-nct" | "aes/fips-sbox-nct" | "ghash/4bit-nct" => Some(Verdict::Leaks),
        "aes/bitsliced" | "ghash/ctmul" => Some(Verdict::ConstantTime),
        _ => None,
    };
    Target {
        id: format!("{backend}/{algorithm}/{implementation}"),
        algorithm: algorithm.to_string(),
        backend: backend.to_string(),
        implementation: implementation.to_string(),
        needs,
        control,
        input: INPUT,
        kind,
    }
}

/// Every target, runnable here or not (`runs_here` says).
pub fn targets() -> Vec<Target> {
    let mut v = Vec::new();
    for &n in ango_prims::aes::VARIANTS {
        if let Ok(a) = Aes::by_name(n) {
            v.push(target(
                "aes-128",
                "ango",
                &format!("aes/{n}"),
                Aes::needs(n).to_vec(),
                Kind::Aes(a),
            ));
        }
    }
    for &n in ango_prims::ghash::VARIANTS {
        if let Ok(g) = Ghash::by_name(n) {
            let needs = Ghash::needs(n).to_vec();
            v.push(target(
                "ghash",
                "ango",
                &format!("ghash/{n}"),
                needs,
                Kind::Ghash(g),
            ));
        }
    }
    for &n in ango_prims::chacha20::VARIANTS {
        if let Ok(c) = ChaCha20::by_name(n) {
            let needs = ChaCha20::needs(n).to_vec();
            v.push(target(
                "chacha20",
                "ango",
                &format!("chacha20/{n}"),
                needs,
                Kind::ChaCha20(c),
            ));
        }
    }
    for &n in ango_prims::poly1305::VARIANTS {
        if let Ok(p) = Poly1305::by_name(n) {
            let needs = Poly1305::needs(n).to_vec();
            v.push(target(
                "poly1305",
                "ango",
                &format!("poly1305/{n}"),
                needs,
                Kind::Poly1305(p),
            ));
        }
    }
    // Seed 002's block ciphers: every variant, 128-bit keys, ECB.
    for (cipher, variants) in ango_prims::cryptrec::BLOCK_CIPHERS {
        for var in variants.iter().filter(|var| (var.available)().is_ok()) {
            v.push(target(
                &format!("{cipher}-128"),
                "ango",
                &format!("{cipher}/{}", var.name),
                var.needs.to_vec(),
                Kind::Block(var),
            ));
        }
    }
    for var in ango_prims::cryptrec::MUGI
        .iter()
        .filter(|var| (var.available)().is_ok())
    {
        v.push(target(
            "mugi",
            "ango",
            &format!("mugi/{}", var.name),
            var.needs.to_vec(),
            Kind::Stream(var),
        ));
    }
    // Every composition of ango's, and the first library of each AEAD.
    for a in [
        Algorithm::Aes128Gcm,
        Algorithm::Aes128Ccm,
        Algorithm::ChaCha20Poly1305,
        Algorithm::XChaCha20Poly1305,
    ] {
        let catalog = ango_backends::catalog();
        let entries = catalog.runnable(AlgorithmId::Sym(a));
        // `auto` runs one of the variants checked here.
        for e in entries
            .iter()
            .filter(|e| e.provider.name == "ango" && e.variant != "auto")
        {
            let t = target(
                a.name(),
                "ango",
                &e.variant,
                e.needs.clone(),
                Kind::Aead(a, e.id()),
            );
            let long = LONG.contains(&e.variant.as_str()).then(|| Target {
                id: format!("{}@{LONG_INPUT}", t.id),
                input: LONG_INPUT,
                ..t.clone()
            });
            v.push(t);
            v.extend(long);
        }
        if let Some(e) = entries.iter().find(|e| {
            e.provider.name != "ango" && !ango_verify::defects::concerns_entry(e, a.name())
        }) {
            v.push(target(
                a.name(),
                e.provider.name,
                &e.implementation,
                e.needs.clone(),
                Kind::Aead(a, e.id()),
            ));
        }
    }
    v
}

/// The targets `--impl` names: `all`, or names each of which is a target's
/// implementation, one of its parts (`aes/bitsliced`, `ghash/ctmul`), an
/// algorithm or a backend. An unknown name is a usage error naming the
/// valid ones.
pub fn select(all: Vec<Target>, list: Option<&str>) -> Result<Vec<Target>> {
    let Some(list) = list else {
        return Ok(all);
    };
    let names = ango_core::algo::list_items(
        list,
        "--impl",
        "all, or implementation, algorithm or backend names",
    )?;
    if names.contains(&"all") {
        return Ok(all);
    }
    let matches = |t: &Target, n: &str| {
        t.implementation == n
            || t.implementation.split('+').any(|p| p == n)
            || t.algorithm == n
            || t.backend == n
    };
    for n in &names {
        if !all.iter().any(|t| matches(t, n)) {
            let mut valid: Vec<String> = all
                .iter()
                .flat_map(|t| {
                    let mut v: Vec<String> =
                        t.implementation.split('+').map(String::from).collect();
                    v.push(t.backend.clone());
                    v.push(t.algorithm.clone());
                    v
                })
                .collect();
            valid.sort();
            valid.dedup();
            return Err(Error::usage(format!(
                "unknown --impl '{n}'; valid: all, {}",
                valid.join(", ")
            )));
        }
    }
    Ok(all
        .into_iter()
        .filter(|t| names.iter().any(|n| matches(t, n)))
        .collect())
}

/// The call under test: key fixed at construction, `buf` (the target's
/// `input` bytes of secret input) processed in place.
pub type Op = Box<dyn FnMut(&mut [u8])>;

impl Target {
    /// Why memcheck cannot run this target here, if it cannot.
    pub fn memcheck_blocker(&self) -> Option<String> {
        let bad: Vec<&str> = self
            .needs
            .iter()
            .copied()
            .filter(|f| NOT_UNDER_VALGRIND.contains(f))
            .collect();
        (!bad.is_empty()).then(|| {
            format!(
                "valgrind 3.19 cannot run VAES-256, VPCLMULQDQ-256, AVX-512 or GFNI code (this needs {})",
                bad.join(", ")
            )
        })
    }

    /// For one of ango's AEAD compositions, the ids of its primitive
    /// parts' targets (`aes/ttable-nct+ghash/vpclmul` → the AES and GHASH
    /// targets); empty otherwise.
    pub fn parts(&self) -> Vec<String> {
        if self.backend != "ango" || !matches!(self.kind, Kind::Aead(..)) {
            return Vec::new();
        }
        self.implementation
            .split('+')
            .filter_map(|p| {
                let algo = match p.split('/').next()? {
                    "aes" => "aes-128",
                    other => other,
                };
                Some(format!("ango/{algo}/{p}"))
            })
            .collect()
    }

    /// Whether its name says "not constant time".
    pub fn labelled_nct(&self) -> bool {
        self.implementation.contains("-nct")
    }

    /// Key bytes it takes.
    fn key_len(&self) -> usize {
        match self.kind {
            Kind::Aes(_) | Kind::Ghash(_) | Kind::Block(_) | Kind::Stream(_) => 16,
            Kind::Aead(a, _) => a.key_len(),
            _ => 32,
        }
    }

    /// Build the call with `key` (the key schedule runs here).
    pub fn op(&self, key: &[u8]) -> Result<Op> {
        Ok(match &self.kind {
            Kind::Aes(a) => {
                let k = a
                    .key(key)
                    .ok_or_else(|| Error::Unsupported("AES key length".into()))?;
                Box::new(move |buf: &mut [u8]| k.encrypt_blocks(buf))
            }
            Kind::Ghash(g) => {
                let h: [u8; 16] = key.try_into().map_err(|_| Error::usage("GHASH key"))?;
                let k = g.key(&h);
                Box::new(move |buf: &mut [u8]| {
                    let mut y = [0u8; 16];
                    k.update_padded(&mut y, buf);
                    buf[..16].copy_from_slice(&y);
                })
            }
            Kind::ChaCha20(c) => {
                let k: [u8; 32] = key.try_into().map_err(|_| Error::usage("ChaCha20 key"))?;
                let c = *c;
                Box::new(move |buf: &mut [u8]| c.xor_keystream(&k, 1, &[7; 12], buf))
            }
            Kind::Poly1305(p) => {
                let k: [u8; 32] = key.try_into().map_err(|_| Error::usage("Poly1305 key"))?;
                let p = *p;
                Box::new(move |buf: &mut [u8]| {
                    let tag = p.mac(&k, buf);
                    buf[..16].copy_from_slice(&tag);
                })
            }
            Kind::Block(var) => {
                let k = (var.make)(key)
                    .ok_or_else(|| Error::Unsupported("block cipher key length".into()))?;
                Box::new(move |buf: &mut [u8]| k.encrypt_blocks(buf))
            }
            Kind::Stream(var) => {
                let k: [u8; 16] = key.try_into().map_err(|_| Error::usage("MUGI key"))?;
                let make = var.make;
                Box::new(move |buf: &mut [u8]| make(&k, &[5; 16]).apply(buf))
            }
            Kind::Aead(a, id) => {
                let e = ango_backends::catalog().entry(id)?;
                let nonce = vec![9u8; a.nonce_len()];
                let mut inst =
                    ango_core::Backend::aead(&EntryBackend(e), *a, key, nonce.len(), 16)?;
                Box::new(move |buf: &mut [u8]| {
                    let mut tag = [0u8; 16];
                    inst.seal(&nonce, &AAD, buf, &mut tag)
                        .expect("sealing a fixed-size message");
                    buf[..16].iter_mut().zip(tag).for_each(|(b, t)| *b ^= t);
                })
            }
        })
    }
}

/// A small deterministic generator for keys and inputs (the check needs
/// inputs that differ, not unpredictable ones).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn fill(&mut self, b: &mut [u8]) {
        for c in b.chunks_mut(8) {
            let x = self.next().to_le_bytes();
            c.copy_from_slice(&x[..c.len()]);
        }
    }
}

/// Welch's t between two classes, kept online (Welford).
#[derive(Clone, Copy, Default)]
struct Welch {
    n: [f64; 2],
    mean: [f64; 2],
    m2: [f64; 2],
}

impl Welch {
    fn push(&mut self, class: usize, x: f64) {
        self.n[class] += 1.0;
        let d = x - self.mean[class];
        self.mean[class] += d / self.n[class];
        self.m2[class] += d * (x - self.mean[class]);
    }
    fn t(&self) -> Option<f64> {
        if self.n[0] < 2.0 || self.n[1] < 2.0 {
            return None;
        }
        let v0 = self.m2[0] / (self.n[0] - 1.0);
        let v1 = self.m2[1] / (self.n[1] - 1.0);
        let se = (v0 / self.n[0] + v1 / self.n[1]).sqrt();
        (se > 0.0).then(|| (self.mean[0] - self.mean[1]) / se)
    }
}

/// dudect's cropping thresholds: the 1 − 0.5^(10(k+1)/100) percentiles.
fn crop_thresholds(times: &[u64]) -> Vec<u64> {
    let mut s = times.to_vec();
    s.sort_unstable();
    (0..100)
        .map(|k| {
            let p = 1.0 - 0.5f64.powf(10.0 * (k as f64 + 1.0) / 100.0);
            s[((s.len() - 1) as f64 * p) as usize]
        })
        .collect()
}

/// The largest |t| over the uncropped test and the cropped ones that have
/// at least a tenth of the measurements in each class.
pub fn max_abs_t(times: &[u64], classes: &[u8]) -> f64 {
    let crops = crop_thresholds(times);
    let mut tests = vec![Welch::default(); crops.len() + 1];
    for (&t, &c) in times.iter().zip(classes) {
        let c = usize::from(c);
        tests[0].push(c, t as f64);
        for (k, &lim) in crops.iter().enumerate() {
            if t < lim {
                tests[k + 1].push(c, t as f64);
            }
        }
    }
    let min_n = times.len() as f64 / 20.0;
    tests
        .iter()
        .filter(|w| w.n[0] >= min_n && w.n[1] >= min_n)
        .filter_map(Welch::t)
        .fold(0.0, |m, t| m.max(t.abs()))
}

/// One dudect measurement run of `n` calls: the times (TSC ticks) and
/// classes (0: the fixed input, 1: a random one).
pub fn measure(t: &Target, n: usize, seed: u64) -> Result<(Vec<u64>, Vec<u8>)> {
    let mut rng = Rng(seed | 1);
    let mut key = vec![0u8; t.key_len()];
    rng.fill(&mut key);
    let mut op = t.op(&key)?;
    let mut fixed = vec![0u8; t.input];
    rng.fill(&mut fixed);
    let classes: Vec<u8> = (0..n).map(|_| (rng.next() >> 32) as u8 & 1).collect();
    let mut inputs = vec![0u8; n * t.input];
    for (i, chunk) in inputs.chunks_mut(t.input).enumerate() {
        if classes[i] == 0 {
            chunk.copy_from_slice(&fixed);
        } else {
            rng.fill(chunk);
        }
    }
    // Warm up: caches, branch predictors, the frequency.
    let mut warm = fixed.clone();
    for _ in 0..1000.min(n) {
        op(&mut warm);
    }
    let mut times = vec![0u64; n];
    for (i, input) in inputs.chunks_mut(t.input).enumerate() {
        let t0 = ango_harness::cycles::tsc_now();
        op(input);
        let t1 = ango_harness::cycles::tsc_now();
        times[i] = t1.wrapping_sub(t0);
    }
    std::hint::black_box(&inputs);
    Ok((times, classes))
}

/// What memcheck said.
#[derive(Clone, Debug, Serialize)]
pub struct Memcheck {
    /// `pass`, `flagged` or `not-run`.
    pub status: &'static str,
    /// Why not run, or how it ran.
    pub detail: String,
    /// Every distinct place memcheck reported (function and source line).
    pub findings: Vec<String>,
}

/// Run `target` under valgrind memcheck: `exe` is ango itself, called as
/// `exe __ct-worker <id>`.
pub fn memcheck(t: &Target, exe: &std::path::Path) -> Memcheck {
    let not_run = |detail: String| Memcheck {
        status: "not-run",
        detail,
        findings: Vec::new(),
    };
    if let Some(why) = t.memcheck_blocker() {
        return not_run(why);
    }
    let out = std::process::Command::new("valgrind")
        .args([
            "--tool=memcheck",
            "-q",
            "--error-exitcode=99",
            "--num-callers=30",
            "--error-limit=no",
            "--log-fd=2",
        ])
        .arg(exe)
        .args(["__ct-worker", &t.id])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .output();
    let out = match out {
        Ok(o) => o,
        Err(e) => {
            return not_run(format!(
                "valgrind could not be started ({e}); scripts/setup installs it"
            ))
        }
    };
    let err = String::from_utf8_lossy(&out.stderr);
    let findings = memcheck_findings(&err);
    match out.status.code() {
        Some(99) => Memcheck {
            status: "flagged",
            detail: format!(
                "{} places where secret data decides a branch or a memory address",
                findings.len()
            ),
            findings,
        },
        Some(0) => Memcheck {
            status: "pass",
            detail: "no secret-dependent branch or memory index".into(),
            findings,
        },
        other => not_run(format!(
            "valgrind ended with {}: {}",
            other.map_or("a signal".to_string(), |c| format!("exit {c}")),
            err.lines()
                .rfind(|l| !l.trim().is_empty())
                .unwrap_or("no message")
                .trim()
        )),
    }
}

/// Each distinct error of a memcheck log: its kind and the first frame
/// that has a source line (`function (file:line)`).
pub fn memcheck_findings(log: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut lines = log.lines().map(|l| {
        // "==123== text" → "text"
        l.split_once("== ").map_or(l, |(_, r)| r).trim()
    });
    while let Some(l) = lines.next() {
        let kind = if l.starts_with("Conditional jump or move depends on uninitialised") {
            "branch"
        } else if l.starts_with("Use of uninitialised value") {
            "memory index"
        } else if l.starts_with("Syscall param") {
            "system call"
        } else {
            continue;
        };
        let frame = lines
            .by_ref()
            .take_while(|l| !l.is_empty())
            .filter(|l| l.starts_with("at ") || l.starts_with("by "))
            .find(|l| l.contains(".rs:") || l.contains(".c:") || l.contains(".S:"))
            .map(|l| l.split_once(": ").map_or(l, |(_, r)| r).to_string())
            .unwrap_or_else(|| "(no source line)".into());
        let f = format!("{kind} at {frame}");
        if !out.contains(&f) {
            out.push(f);
        }
    }
    out
}

/// The marker the worker writes to stderr before each target of a batch;
/// valgrind's reports for that target follow it on the same descriptor.
const MARK: &str = "ango-ct-target ";
/// And after it: the target ran to its end.
const DONE: &str = "ango-ct-done ";

/// The worker side of [`memcheck`]: run each target a few times with its
/// key and input marked secret, its output marked public, one after the
/// other, each between markers on stderr.
pub fn memcheck_worker(ids: &[String]) -> Result<()> {
    use ango_harness::valgrind::{poison, unpoison};
    let all = targets();
    for id in ids {
        let t = all
            .iter()
            .find(|t| &t.id == id)
            .ok_or_else(|| Error::usage(format!("no constant-time target '{id}'")))?;
        eprintln!("{MARK}{id}");
        let mut rng = Rng(0x5eed);
        let mut key = vec![0u8; t.key_len()];
        rng.fill(&mut key);
        poison(&key);
        let mut op = t.op(&key)?;
        for _ in 0..2 {
            let mut buf = vec![0u8; t.input];
            rng.fill(&mut buf);
            poison(&buf);
            op(&mut buf);
            unpoison(&buf);
            std::hint::black_box(&buf);
        }
        eprintln!("{DONE}{id}");
    }
    Ok(())
}

/// The kinds of memcheck report that make a target flagged.
const REPORTS: &[&str] = &[
    "Conditional jump or move depends on uninitialised",
    "Use of uninitialised value",
    "Syscall param",
    "Invalid read",
    "Invalid write",
];

/// Memcheck over a batch of targets in one valgrind process (valgrind's
/// start-up, reading this binary's debug information, costs seconds; one
/// process per target would pay it for each). Each target's reports are
/// those between its markers. Targets the process did not finish (it
/// crashed or was killed) are left out of the result, for single runs.
pub fn memcheck_batch(ts: &[&Target], exe: &std::path::Path) -> Vec<(String, Memcheck)> {
    let ids: Vec<&str> = ts.iter().map(|t| t.id.as_str()).collect();
    let out = std::process::Command::new("valgrind")
        .args([
            "--tool=memcheck",
            "-q",
            "--num-callers=30",
            "--error-limit=no",
            "--log-fd=2",
        ])
        .arg(exe)
        .arg("__ct-worker")
        .args(&ids)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .output();
    let Ok(out) = out else {
        return Vec::new();
    };
    let log = String::from_utf8_lossy(&out.stderr);
    let mut res = Vec::new();
    let mut cur: Option<(String, String)> = None;
    for line in log.lines() {
        if let Some(id) = line.strip_prefix(MARK) {
            cur = Some((id.to_string(), String::new()));
        } else if let Some(id) = line.strip_prefix(DONE) {
            if let Some((cid, section)) = cur.take() {
                if cid == id {
                    let findings = memcheck_findings(&section);
                    let flagged = section
                        .lines()
                        .any(|l| REPORTS.iter().any(|k| l.contains(k)));
                    res.push((
                        cid,
                        if flagged {
                            Memcheck {
                                status: "flagged",
                                detail: format!(
                                    "{} places where secret data decides a branch or a memory \
                                     address",
                                    findings.len()
                                ),
                                findings,
                            }
                        } else {
                            Memcheck {
                                status: "pass",
                                detail: "no secret-dependent branch or memory index".into(),
                                findings,
                            }
                        },
                    ));
                }
            }
        } else if let Some((_, section)) = cur.as_mut() {
            section.push_str(line);
            section.push('\n');
        }
    }
    res
}

/// Memcheck results by target id, so a composition's parts run once.
pub type MemcheckCache = std::collections::BTreeMap<String, Memcheck>;

/// Run memcheck on every target in `targets` not yet in `cache`: the
/// targets dealt into `jobs` batches, each one valgrind process, all at
/// once (memcheck times nothing, so the CPUs can all be used; the dudect
/// measurements that follow run one at a time); a target a batch did not
/// finish then runs alone.
pub fn memcheck_all(
    targets: &[Target],
    exe: &std::path::Path,
    cache: &mut MemcheckCache,
    jobs: usize,
) {
    // Targets valgrind cannot run are recorded as such at once.
    let mut todo: Vec<&Target> = Vec::new();
    for t in targets {
        if cache.contains_key(&t.id) || todo.iter().any(|x| x.id == t.id) {
            continue;
        }
        match t.memcheck_blocker() {
            Some(_) => {
                cache.insert(t.id.clone(), memcheck(t, exe));
            }
            None => todo.push(t),
        }
    }
    // One batch per CPU, the targets dealt out in turn.
    let jobs = jobs.clamp(1, todo.len().max(1));
    let batches: Vec<Vec<&Target>> = (0..jobs)
        .map(|j| todo.iter().skip(j).step_by(jobs).copied().collect())
        .collect();
    let done: Vec<Vec<(String, Memcheck)>> = std::thread::scope(|s| {
        let hs: Vec<_> = batches
            .iter()
            .map(|b| s.spawn(move || memcheck_batch(b, exe)))
            .collect();
        hs.into_iter()
            .map(|h| h.join().expect("a memcheck thread panicked"))
            .collect()
    });
    for (id, m) in done.into_iter().flatten() {
        cache.insert(id, m);
    }
    // What a batch did not finish runs alone (its own valgrind process
    // says what went wrong).
    for t in todo {
        if ango_harness::measure::stop_requested() {
            return;
        }
        if !cache.contains_key(&t.id) {
            cache.insert(t.id.clone(), memcheck(t, exe));
        }
    }
}

fn memcheck_cached(t: &Target, exe: &std::path::Path, cache: &mut MemcheckCache) -> Memcheck {
    cache
        .entry(t.id.clone())
        .or_insert_with(|| memcheck(t, exe))
        .clone()
}

/// Check one target: memcheck (unless `exe` is None) — for a composition
/// valgrind cannot run whole, memcheck of its parts, found in `all` — then
/// dudect with `n` measurements (again once if it crosses).
pub fn check(
    t: &Target,
    all: &[Target],
    n: usize,
    exe: Option<&std::path::Path>,
    run_id: &str,
    cache: &mut MemcheckCache,
) -> Result<CtRecord> {
    let mut parts_flagged = Vec::new();
    let mc = match exe {
        Some(e) => {
            let mc = memcheck_cached(t, e, cache);
            if mc.status == "not-run" {
                for id in t.parts() {
                    if let Some(p) = all.iter().find(|x| x.id == id) {
                        if memcheck_cached(p, e, cache).status == "flagged" {
                            parts_flagged.push(p.implementation.clone());
                        }
                    }
                }
            }
            mc
        }
        None => Memcheck {
            status: "not-run",
            detail: "left out of this pass".into(),
            findings: Vec::new(),
        },
    };
    let (times, classes) = measure(t, n, 0x0d0d_0ec7)?;
    let first = max_abs_t(&times, &classes);
    let (max_t, first_t, dudect) = if first > THRESHOLD {
        let (times, classes) = measure(t, n, 0x7e57_a9a1)?;
        let again = max_abs_t(&times, &classes);
        let v = if again > THRESHOLD {
            Verdict::Leaks
        } else {
            Verdict::Inconclusive
        };
        (again, Some(first), v)
    } else {
        (first, None, Verdict::ConstantTime)
    };
    let verdict = if mc.status == "flagged" || !parts_flagged.is_empty() {
        Verdict::Leaks
    } else {
        dudect
    };
    let label_agrees = (t.backend == "ango" && verdict != Verdict::Inconclusive)
        .then(|| t.labelled_nct() == (verdict == Verdict::Leaks));
    let input = t.input;
    Ok(CtRecord {
        head: ango_core::Header::new(ango_core::SuiteId::Ct, run_id.to_string()),
        algorithm: t.algorithm.clone(),
        backend: t.backend.clone(),
        implementation: t.implementation.clone(),
        memcheck: mc.status.into(),
        memcheck_detail: mc.detail,
        memcheck_findings: mc.findings,
        parts_flagged,
        max_abs_t: max_t,
        first_max_abs_t: first_t,
        measurements: n,
        threshold: THRESHOLD,
        verdict,
        control: t.control,
        label_agrees,
        input_bytes: t.input,
        method: format!(
            "memcheck: key and {input}-byte input marked undefined under valgrind, output marked defined; \
             dudect: {n} calls on {input}-byte inputs, fixed vs random class in random order, TSC ticks per call, \
             Welch's t on all and on 100 cropped subsets, |t| > {THRESHOLD} re-measured once"
        ),
        time: ango_core::results::utc_now().0,
    })
}

/// The positive controls that did not come out as they must: (id, wanted,
/// got). Non-empty means the check is broken here. A control that must be
/// constant time may come out `inconclusive` when memcheck passed it: one
/// crossing of dudect's threshold that the second measurement did not
/// repeat is a noisy spell of a shared machine (the maximum of 101 t
/// values), not a leak; memcheck is the deterministic half of the check.
pub fn broken_controls(records: &[CtRecord]) -> Vec<String> {
    records
        .iter()
        .filter_map(|r| {
            let want = r.control?;
            let noisy_pass = want == Verdict::ConstantTime
                && r.verdict == Verdict::Inconclusive
                && r.memcheck == "pass";
            (r.verdict != want && !noisy_pass).then(|| {
                format!(
                    "{} {} came out {} (memcheck {}, max |t| {:.1}); it must be {}",
                    r.algorithm,
                    r.implementation,
                    r.verdict.name(),
                    r.memcheck,
                    r.max_abs_t,
                    want.name()
                )
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn welch_t_sees_a_shift_and_not_noise() {
        let mut rng = Rng(99);
        let n = 20_000;
        let classes: Vec<u8> = (0..n).map(|_| (rng.next() & 1) as u8).collect();
        let noise: Vec<u64> = (0..n).map(|_| 1000 + rng.next() % 50).collect();
        assert!(max_abs_t(&noise, &classes) < THRESHOLD);
        let shifted: Vec<u64> = noise
            .iter()
            .zip(&classes)
            .map(|(t, c)| t + 5 * u64::from(*c))
            .collect();
        assert!(max_abs_t(&shifted, &classes) > THRESHOLD);
    }

    #[test]
    fn memcheck_log_is_read_into_places() {
        let log = "==1== Use of uninitialised value of size 8\n\
                   ==1==    at 0x1: ango_prims::aes::ttable::Keys::encrypt_block (ttable.rs:101)\n\
                   ==1==    by 0x2: main (main.rs:1)\n\
                   ==1== \n\
                   ==1== Conditional jump or move depends on uninitialised value(s)\n\
                   ==1==    at 0x3: memcmp (in /lib/libc.so)\n\
                   ==1==    by 0x4: ango::f (f.rs:7)\n\
                   ==1== \n";
        assert_eq!(
            memcheck_findings(log),
            vec![
                "memory index at ango_prims::aes::ttable::Keys::encrypt_block (ttable.rs:101)"
                    .to_string(),
                "branch at ango::f (f.rs:7)".to_string(),
            ]
        );
    }

    #[test]
    fn targets_cover_every_variant_and_the_controls() {
        let t = targets();
        for n in [
            "aes/ttable-nct",
            "aes/fips-sbox-nct",
            "aes/bitsliced",
            "ghash/4bit-nct",
            "ghash/ctmul",
        ] {
            assert!(
                t.iter()
                    .any(|x| x.implementation == n && x.control.is_some()),
                "{n}"
            );
        }
        assert!(t
            .iter()
            .any(|x| x.implementation == "aes/bitsliced+ghash/ctmul"));
        for n in [
            "camellia/bitsliced",
            "camellia/table64-nct",
            "sc2000/reference-nct",
        ] {
            assert!(t.iter().any(|x| x.implementation == n), "{n}");
        }
        assert!(t
            .iter()
            .any(|x| x.backend != "ango" && x.algorithm == "aes-128-gcm"));
        // The long-message targets: only the compositions named in LONG,
        // each beside its 64-byte target, and (where this CPU runs the
        // AVX-512 ChaCha20 with IFMA) ChaCha20-Poly1305's among them.
        let long: Vec<&Target> = t.iter().filter(|x| x.input == LONG_INPUT).collect();
        for x in &long {
            assert!(LONG.contains(&x.implementation.as_str()), "{}", x.id);
            assert!(x.id.ends_with("@5120"), "{}", x.id);
            assert!(t.iter().any(|y| y.input == INPUT
                && (&y.algorithm, &y.implementation) == (&x.algorithm, &x.implementation)));
        }
        if ChaCha20::by_name("avx512").is_ok() && Poly1305::by_name("ifma").is_ok() {
            assert!(long.iter().any(|x| x.algorithm == "chacha20-poly1305"));
        }
        let e = select(t.clone(), Some("rot13")).unwrap_err().to_string();
        assert!(e.contains("aes/bitsliced"), "{e}");
        assert!(select(t.clone(), Some("ghash/ctmul")).unwrap().len() >= 2);
    }

    #[test]
    fn every_target_runs_and_measures() {
        for t in targets() {
            let (times, classes) = measure(&t, 200, 5).unwrap();
            assert_eq!((times.len(), classes.len()), (200, 200), "{}", t.id);
        }
    }
}
