//! The public-key study of seed 003 §4-1 and §4-2: key generation,
//! encapsulation and decapsulation of KEMs, key generation, signing and
//! verification of signatures, every call timed on its own (a distribution,
//! not a batch mean), the first call of each operation dropped.
//!
//! Each (algorithm, backend) is checked before it is timed: a round trip,
//! tampered inputs rejected, ML-KEM's implicit rejection, and the sizes of
//! what it produced. A failing pair is reported and not timed.

use crate::event::{Event, Sink};
use ango_backends::pk as registry;
use ango_core::pk::{Kem, PkAlgorithm, PkBackend, PkKind, PkOp, Signer, SizeEntry};
use ango_core::{Error, PkRecord, PkSamples, Result, SCHEMA_VERSION};
use ango_harness::measure::{stop_requested, timer_overhead_ns};
use ango_harness::stats::Summary;
use ango_harness::CycleCounter;
use ango_verify::cross::Rng;
use std::time::{Duration, Instant};

pub const SUITE: &str = "pk";
pub const DEFAULT_ITERATIONS: usize = 1000;
pub const QUICK_ITERATIONS: usize = 50;
pub const DEFAULT_MESSAGE_BYTES: usize = 32;
/// Longest time one point may take before it stops early (and says so).
pub const DEFAULT_MAX_SECONDS: f64 = 60.0;

/// Seed 003's definition of X25519 as a KEM, stated in every X25519 record.
pub const X25519_NOTE: &str = "X25519 as a KEM, as seed 003 defines it: encaps = what a TLS \
     client does (an ephemeral key pair and the shared secret with the peer's public key), \
     decaps = the peer's shared-secret computation (the ciphertext is the ephemeral public key)";

/// What the signed message is, stated in the output.
pub fn message_note(bytes: usize) -> String {
    format!(
        "sign/verify use a message of {bytes} random bytes (new each run), passed whole to the \
         scheme, which hashes it as its standard says (RSA-PSS and ECDSA: SHA-256)"
    )
}

#[derive(Clone, Debug)]
pub struct PkSpec {
    pub run_id: String,
    pub algorithms: Vec<PkAlgorithm>,
    pub backends: Vec<String>,
    pub ops: Vec<PkOp>,
    /// Calls kept per point; one more is made first and dropped.
    pub iterations: usize,
    pub message_bytes: usize,
    /// A point stops after this long even if fewer calls were made.
    pub max_seconds: f64,
}

impl PkSpec {
    /// The (backend, algorithm) pairs to measure and those that cannot be,
    /// with the reason.
    pub fn plan(&self) -> Result<PkPlan> {
        let mut plan = PkPlan::default();
        for &a in &self.algorithms {
            for bn in &self.backends {
                let b = registry::by_name(bn)?;
                match b.availability(a) {
                    Ok(()) => {
                        let ops: Vec<PkOp> = a
                            .ops()
                            .iter()
                            .copied()
                            .filter(|o| self.ops.contains(o))
                            .collect();
                        if !ops.is_empty() {
                            plan.run.push((b, a, ops));
                        }
                    }
                    Err(u) => plan.skip.push((b.name().to_string(), a, u.0)),
                }
            }
        }
        Ok(plan)
    }
}

#[derive(Default)]
pub struct PkPlan {
    pub run: Vec<(&'static dyn PkBackend, PkAlgorithm, Vec<PkOp>)>,
    pub skip: Vec<(String, PkAlgorithm, String)>,
}

impl PkPlan {
    pub fn points(&self) -> usize {
        self.run.iter().map(|(_, _, ops)| ops.len()).sum()
    }
}

/// The instance of one (backend, algorithm), KEM or signature.
enum Inst {
    Kem(Box<dyn Kem>),
    Sig(Box<dyn Signer>),
}

fn instance(b: &dyn PkBackend, a: PkAlgorithm) -> Result<Inst> {
    Ok(match a.kind() {
        PkKind::Kem => Inst::Kem(b.kem(a)?),
        PkKind::Sig => Inst::Sig(b.signer(a)?),
    })
}

fn flip(v: &[u8], bit: usize) -> Vec<u8> {
    let mut w = v.to_vec();
    if !w.is_empty() {
        let i = bit % (8 * w.len());
        w[i / 8] ^= 1 << (i % 8);
    }
    w
}

/// Checks before timing. Returns (checks passed, failures, sizes).
pub fn check(
    b: &dyn PkBackend,
    a: PkAlgorithm,
    rng: &mut Rng,
) -> (usize, Vec<String>, Vec<SizeEntry>) {
    let mut fails = Vec::new();
    let mut passed = 0;
    let mut sizes = Vec::new();
    let mut ok = |cond: bool, what: &str, fails: &mut Vec<String>| {
        if cond {
            passed += 1;
        } else {
            fails.push(what.to_string());
        }
    };
    match instance(b, a) {
        Err(e) => fails.push(format!("cannot make an instance: {e}")),
        Ok(Inst::Kem(mut k)) => {
            let r = (|| -> Result<()> {
                let pk = k.keygen()?;
                k.set_peer(&pk)?;
                let (ct, ss) = k.encaps()?;
                let ss2 = k.decaps(&ct)?;
                ok(
                    ss == ss2 && !ss.is_empty(),
                    "decaps(encaps) gives the encapsulated secret",
                    &mut fails,
                );
                let (ct_b, ss_b) = k.encaps()?;
                ok(
                    ss_b != ss && ct_b != ct,
                    "two encapsulations differ",
                    &mut fails,
                );
                // Any bit but the very last: X25519 ignores the top bit of a
                // public value (and the hybrid ends with one).
                let bit = (rng.next_u64() as usize) % (8 * ct.len() - 1);
                let bad = k.decaps(&flip(&ct, bit))?;
                ok(
                    bad != ss,
                    "a ciphertext with one bit flipped yields another secret (implicit rejection)",
                    &mut fails,
                );
                let pk2 = k.keygen()?;
                ok(pk2 != pk, "two key pairs differ", &mut fails);
                let ss3 = k.decaps(&ct)?;
                ok(
                    ss3 != ss,
                    "another key pair decapsulates to another secret",
                    &mut fails,
                );
                sizes.push(SizeEntry::new("public_key", "raw", pk.len()));
                sizes.push(SizeEntry::new("ciphertext", "raw", ct.len()));
                sizes.push(SizeEntry::new("shared_secret", "raw", ss.len()));
                sizes.extend(k.key_sizes()?);
                Ok(())
            })();
            if let Err(e) = r {
                fails.push(format!("error: {e}"));
            }
        }
        Ok(Inst::Sig(mut s)) => {
            let r = (|| -> Result<()> {
                let msg: Vec<u8> = (0..DEFAULT_MESSAGE_BYTES)
                    .map(|_| rng.next_u64() as u8)
                    .collect();
                let pk = s.keygen()?;
                let sig = s.sign(&msg)?;
                s.set_peer(&pk)?;
                ok(s.verify(&msg, &sig)?, "verify(sign(m)) accepts", &mut fails);
                ok(
                    !s.verify(&flip(&msg, rng.next_u64() as usize), &sig)?,
                    "a message with one bit flipped is rejected",
                    &mut fails,
                );
                ok(
                    !s.verify(&msg, &flip(&sig, rng.next_u64() as usize))?,
                    "a signature with one bit flipped is rejected",
                    &mut fails,
                );
                ok(
                    !s.verify(&msg, &sig[..sig.len() - 1])?,
                    "a truncated signature is rejected",
                    &mut fails,
                );
                let pk2 = s.keygen()?;
                s.set_peer(&pk2)?;
                ok(
                    !s.verify(&msg, &sig)?,
                    "another key pair's public key rejects it",
                    &mut fails,
                );
                sizes.push(SizeEntry::new(
                    "public_key",
                    s.public_key_encoding(),
                    pk.len(),
                ));
                sizes.push(SizeEntry::new(
                    "signature",
                    s.signature_encoding(),
                    sig.len(),
                ));
                sizes.extend(s.key_sizes()?);
                Ok(())
            })();
            if let Err(e) = r {
                fails.push(format!("error: {e}"));
            }
        }
    }
    (passed, fails, sizes)
}

/// The built-in Wycheproof files, parsed once.
fn wycheproof_files() -> &'static [ango_verify::wycheproof_pk::PkFile] {
    static FILES: std::sync::OnceLock<Vec<ango_verify::wycheproof_pk::PkFile>> =
        std::sync::OnceLock::new();
    FILES.get_or_init(|| {
        ango_verify::wycheproof_pk::BUILTIN
            .iter()
            .map(|(n, t)| ango_verify::wycheproof_pk::parse(n, t).expect("built-in files parse"))
            .collect()
    })
}

/// Wycheproof's vectors for `a` against `b`: (tests passed, failures,
/// a summary like "wycheproof 518/518 (x25519_test.json)").
pub fn wycheproof_checks(b: &dyn PkBackend, a: PkAlgorithm) -> (usize, Vec<String>, Vec<String>) {
    let mut passed = 0;
    let mut fails = Vec::new();
    let mut summary = Vec::new();
    for f in wycheproof_files() {
        if !f.cases.iter().any(|c| c.algorithm == a) {
            continue;
        }
        let o = ango_verify::wycheproof_pk::run(b, a, f);
        if o.passed + o.failed == 0 {
            if o.unsupported > 0 {
                summary.push(format!(
                    "{} not run ({} tests need an import this backend lacks)",
                    f.name, o.unsupported
                ));
            }
            continue;
        }
        passed += o.passed;
        summary.push(format!(
            "{} {}/{}{}",
            f.name,
            o.passed,
            o.passed + o.failed,
            if o.acceptable > 0 {
                format!(" (+{} acceptable)", o.acceptable)
            } else {
                String::new()
            }
        ));
        if o.failed > 0 {
            fails.push(format!(
                "Wycheproof {}: {} failed: {}",
                f.name,
                o.failed,
                o.failures
                    .iter()
                    .take(10)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    (passed, fails, summary)
}

/// Cross-library checks for `a`: for every ordered pair of backends, a
/// public key made by one is used by the other (KEM: the other
/// encapsulates, the first decapsulates to the same secret; signature: the
/// first signs, the other verifies). Returns (pairs passed, failures).
pub fn cross_checks(backends: &[&dyn PkBackend], a: PkAlgorithm) -> (usize, Vec<String>) {
    let mut passed = 0;
    let mut fails = Vec::new();
    let msg = b"ango cross-library check";
    for x in backends {
        for y in backends {
            if x.name() == y.name() {
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
                        let (mut sx, mut sy) = (x.signer(a)?, y.signer(a)?);
                        let pk = sx.keygen()?;
                        let sig = sx.sign(msg)?;
                        sy.set_peer(&pk)?;
                        sy.verify(msg, &sig)?
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

/// Time `call` once per iteration (plus one dropped first call), each call
/// on its own. Its output goes to `check` after the clock has stopped (so
/// neither the check nor freeing the output is timed); a `false` fails
/// the point with `failure`. Stops early at `max` or on Ctrl-C.
fn time_calls<T>(
    cc: &CycleCounter,
    iterations: usize,
    max: Duration,
    mut call: impl FnMut() -> Result<T>,
    mut check: impl FnMut(T) -> bool,
    failure: &str,
) -> Result<(Vec<f64>, Vec<u64>, bool)> {
    let mut ns = Vec::with_capacity(iterations + 1);
    let mut cy = Vec::with_capacity(iterations + 1);
    let start = Instant::now();
    let mut cut = false;
    for i in 0..=iterations {
        if stop_requested() {
            cut = true;
            break;
        }
        if i > 1 && start.elapsed() > max {
            cut = true;
            break;
        }
        let c0 = cc.read();
        let t0 = Instant::now();
        let out = call();
        let t = t0.elapsed();
        let c1 = cc.read();
        if !check(out?) {
            return Err(Error::Kat(failure.into()));
        }
        ns.push(t.as_nanos() as f64);
        cy.push(c1.wrapping_sub(c0));
    }
    Ok((ns, cy, cut))
}

pub struct PkOutcome {
    pub interrupted: bool,
}

/// Run the study, emitting events as results arrive.
pub fn run(spec: &PkSpec, sink: &mut dyn Sink) -> Result<PkOutcome> {
    let plan = spec.plan()?;
    for (backend, algorithm, reason) in &plan.skip {
        sink.event(Event::PkSkip {
            backend: backend.clone(),
            algorithm: *algorithm,
            reason: reason.clone(),
        })?;
    }
    let cc = CycleCounter::open();
    let overhead = timer_overhead_ns(&cc);
    // New each run: the clock and the process id seed the checks' tampering
    // positions and the signed message.
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
        ^ (u64::from(std::process::id()) << 32);
    let mut rng = Rng::new(seed);
    let max = Duration::from_secs_f64(spec.max_seconds);
    let mut msg = vec![0u8; spec.message_bytes];
    rng.fill(&mut msg);
    let mut crossed: Vec<PkAlgorithm> = Vec::new();
    for (_, a, _) in &plan.run {
        if crossed.contains(a) {
            continue;
        }
        crossed.push(*a);
        let bs: Vec<&dyn PkBackend> = plan
            .run
            .iter()
            .filter(|(_, x, _)| x == a)
            .map(|(b, _, _)| *b)
            .collect();
        if bs.len() < 2 {
            continue;
        }
        let (passed, failures) = cross_checks(&bs, *a);
        let names: Vec<&str> = bs.iter().map(|b| b.name()).collect();
        sink.event(Event::PkCheck {
            backend: format!("cross-library {}", names.join("/")),
            algorithm: *a,
            ok: failures.is_empty(),
            summary: if failures.is_empty() {
                format!("pass {passed}/{passed} ordered pairs")
            } else {
                format!(
                    "FAIL {}/{} ordered pairs",
                    failures.len(),
                    passed + failures.len()
                )
            },
            failures,
        })?;
    }
    for (b, a, ops) in &plan.run {
        if stop_requested() {
            return Ok(PkOutcome { interrupted: true });
        }
        let (passed, mut failures, sizes) = check(*b, *a, &mut rng);
        let (wp_passed, wp_fails, wp_summary) = wycheproof_checks(*b, *a);
        failures.extend(wp_fails);
        let ok = failures.is_empty();
        let mut summary = if ok {
            format!("pass {passed}/{passed}")
        } else {
            format!("FAIL {}/{}", failures.len(), passed + failures.len())
        };
        if wp_passed > 0 || !wp_summary.is_empty() {
            summary.push_str(&format!("; Wycheproof {}", wp_summary.join(", ")));
        }
        sink.event(Event::PkCheck {
            backend: b.name().to_string(),
            algorithm: *a,
            ok,
            summary: summary.clone(),
            failures: failures.clone(),
        })?;
        if !ok {
            continue;
        }
        let mut inst = instance(*b, *a)?;
        for &op in ops {
            if stop_requested() {
                return Ok(PkOutcome { interrupted: true });
            }
            let measured = measure_op(&mut inst, op, &msg, &cc, spec.iterations, max);
            let (ns, cy, cut) = match measured {
                Ok(x) => x,
                Err(e) => {
                    sink.event(Event::Error {
                        message: format!("{} {} {op}: {e}", b.name(), a),
                    })?;
                    continue;
                }
            };
            if ns.len() < 2 {
                // Interrupted before anything was kept.
                return Ok(PkOutcome { interrupted: true });
            }
            let kept_ns = ns[1..].to_vec();
            let kept_cy = cy[1..].to_vec();
            let s = Summary::of(&kept_ns).ok_or_else(|| Error::Kat("no samples".into()))?;
            let mut warnings = Vec::new();
            if cut && kept_ns.len() < spec.iterations {
                warnings.push(format!(
                    "stopped after {} of {} calls ({} s limit per point or Ctrl-C)",
                    kept_ns.len(),
                    spec.iterations,
                    spec.max_seconds
                ));
            }
            let mut cys: Vec<f64> = kept_cy.iter().map(|&c| c as f64).collect();
            cys.sort_by(|x, y| x.partial_cmp(y).expect("finite"));
            let cycles = (cc.source() != ango_harness::CycleSource::None)
                .then(|| ango_harness::stats::quantile_sorted(&cys, 0.5));
            let (_, now) = ango_core::results::utc_now();
            let record = PkRecord {
                schema: SCHEMA_VERSION,
                run_id: spec.run_id.clone(),
                suite: SUITE.into(),
                algorithm: a.name().into(),
                kind: match a.kind() {
                    PkKind::Kem => "kem".into(),
                    PkKind::Sig => "sig".into(),
                },
                operation: op.name().into(),
                backend: b.name().into(),
                implementation: b.implementation(*a),
                iterations: kept_ns.len() as u64,
                dropped: 1,
                message_bytes: matches!(op, PkOp::Sign | PkOp::Verify)
                    .then_some(spec.message_bytes as u64),
                median_ns: s.median,
                q1_ns: s.q1,
                q3_ns: s.q3,
                mean_ns: s.mean,
                sd_ns: s.sd,
                min_ns: s.min,
                max_ns: s.max,
                p95_ns: s.p95,
                p99_ns: s.p99,
                robust_cv: s.robust_cv,
                ci95_low_ns: s.ci95_low,
                ci95_high_ns: s.ci95_high,
                cycles_per_op: cycles,
                cycle_source: cc.source().name().into(),
                timer_overhead_ns: overhead,
                sizes: sizes.clone(),
                verify: summary.clone(),
                note: (*a == PkAlgorithm::X25519 && op != PkOp::Keygen)
                    .then(|| X25519_NOTE.to_string()),
                warnings,
                method: format!(
                    "each call timed on its own with the monotonic clock ({} calls, the first \
                     dropped); {}",
                    kept_ns.len() + 1,
                    if matches!(op, PkOp::Sign | PkOp::Verify) {
                        message_note(spec.message_bytes)
                    } else {
                        "inputs fixed before timing (one key pair, one ciphertext)".into()
                    }
                ),
                time: now,
            };
            let samples = PkSamples {
                run_id: spec.run_id.clone(),
                algorithm: a.name().into(),
                operation: op.name().into(),
                backend: b.name().into(),
                sample_ns: kept_ns,
                sample_cycles: (cc.source() != ango_harness::CycleSource::None).then_some(kept_cy),
            };
            sink.event(Event::PkPoint {
                record: Box::new(record),
                samples: Box::new(samples),
            })?;
            if cut && stop_requested() {
                return Ok(PkOutcome { interrupted: true });
            }
        }
    }
    Ok(PkOutcome { interrupted: false })
}

/// Set up the inputs of `op` (untimed) and time it.
/// The check of operations whose output needs none.
fn any<T>(_: T) -> bool {
    true
}

fn measure_op(
    inst: &mut Inst,
    op: PkOp,
    msg: &[u8],
    cc: &CycleCounter,
    iterations: usize,
    max: Duration,
) -> Result<(Vec<f64>, Vec<u64>, bool)> {
    match (inst, op) {
        (Inst::Kem(k), PkOp::Keygen) => {
            let r = time_calls(cc, iterations, max, || k.keygen(), any, "");
            k.keygen()?;
            r
        }
        (Inst::Kem(k), PkOp::Encaps) => {
            let pk = k.keygen()?;
            k.set_peer(&pk)?;
            time_calls(cc, iterations, max, || k.encaps(), any, "")
        }
        (Inst::Kem(k), PkOp::Decaps) => {
            let pk = k.keygen()?;
            k.set_peer(&pk)?;
            let (ct, ss) = k.encaps()?;
            time_calls(
                cc,
                iterations,
                max,
                || k.decaps(&ct),
                |got| got == ss,
                "decaps returned a wrong secret while timed",
            )
        }
        (Inst::Sig(s), PkOp::Keygen) => {
            let r = time_calls(cc, iterations, max, || s.keygen(), any, "");
            s.keygen()?;
            r
        }
        (Inst::Sig(s), PkOp::Sign) => {
            let pk = s.keygen()?;
            s.set_peer(&pk)?;
            time_calls(cc, iterations, max, || s.sign(msg), any, "")
        }
        (Inst::Sig(s), PkOp::Verify) => {
            let pk = s.keygen()?;
            let sig = s.sign(msg)?;
            s.set_peer(&pk)?;
            time_calls(
                cc,
                iterations,
                max,
                || s.verify(msg, &sig),
                |ok| ok,
                "verify rejected a valid signature while timed",
            )
        }
        (_, op) => Err(Error::usage(format!("operation {op} does not apply here"))),
    }
}
