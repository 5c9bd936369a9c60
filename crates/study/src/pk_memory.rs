//! `ango pk --memory`: the peak stack and peak heap of one call of every
//! (algorithm, library, variant, operation) of the public-key study, over
//! many calls (maximum and median), with `ango_harness::memory`; and, with
//! `--massif`, the same calls under valgrind massif in processes of their
//! own, as a cross-check.
//!
//! A pair is measured only after its checks passed: the pk suite of the
//! same run checked it (its records say so), or this suite checks it.

use crate::pk::{with_call, PkSpec};
use crate::suite::{Context, Suite};
use ango_core::pk::{PkAlgorithm, PkBackend, PkInstance as Inst, PkOp};
use ango_core::pk_memory::bytes;
use ango_core::{EntryBackend, Error, MassifCheck, PkMemoryRecord, Result, SuiteId};
use ango_harness::memory::{measure_calls, median_max, on_own_stack, CallMemory};
use ango_verify::pk::{all_checks, donor};
use std::path::{Path, PathBuf};

pub const SUITE: SuiteId = SuiteId::PkMemory;
pub const DEFAULT_CALLS: usize = 100;
pub const QUICK_CALLS: usize = 10;
pub const WARMUP: usize = 3;
/// Calls in the window of a massif probe.
pub const MASSIF_CALLS: usize = 20;
/// The measuring thread's stack: more than any library here needs.
pub const STACK_BYTES: usize = 64 << 20;

#[derive(Clone, Debug)]
pub struct PkMemorySpec {
    /// The algorithms, libraries, operations and message of the pk study.
    pub pk: PkSpec,
    /// Calls measured per point (after [`WARMUP`]).
    pub calls: usize,
    /// Also run every point under valgrind massif, with this executable as
    /// the probe (`ango __memory-probe`).
    pub massif: Option<PathBuf>,
}

impl Suite for PkMemorySpec {
    fn id(&self) -> SuiteId {
        SUITE
    }
    fn points(&self) -> Result<usize> {
        let plan = self.pk.plan()?;
        Ok(plan.run.iter().map(|(_, _, ops)| ops.len()).sum())
    }
    fn verifies(&self) -> &'static str {
        "that the pair passed the public-key checks, and every output while measured"
    }
    fn run(&self, cx: &mut Context) -> Result<bool> {
        run(self, cx)
    }
}

/// What the heap figures cannot see for a library.
pub fn unseen(provider: &str) -> String {
    let general = "direct mmap, static tables and other threads' allocations are not seen";
    let own = match provider {
        "libsodium" => {
            "libsodium's guarded allocations (sodium_malloc) are mmap'd and not seen; its \
             public-key calls make none"
        }
        "openssl" | "aws-lc" => {
            "every allocation goes through malloc (OPENSSL_malloc) and is seen; tables built at \
             first use fall in the warm-up calls"
        }
        "libtomcrypt" | "libgcrypt" => {
            "a shared library: its malloc calls bind to ango's through the dynamic symbol table \
             and are seen"
        }
        _ => "its allocations go through malloc (C) or Rust's system allocator and are seen",
    };
    format!("{own}; {general}")
}

/// Whether the dynamic linker bound every symbol at start (LD_BIND_NOW),
/// so that no lazy binding falls in a measured call.
pub fn eager_binding() -> bool {
    std::env::var_os("LD_BIND_NOW").is_some_and(|v| !v.is_empty())
}

fn run(spec: &PkMemorySpec, cx: &mut Context) -> Result<bool> {
    let plan = spec.pk.plan()?;
    if !ango_harness::memory::interposed() {
        return Err(Error::usage(
            "this executable does not interpose malloc, so the heap cannot be measured",
        ));
    }
    let mut msg = vec![0u8; spec.pk.message_bytes];
    let mut rng = ango_verify::cross::Rng::new(0x5eed_3e30);
    rng.fill(&mut msg);
    let massif_dir = match &spec.massif {
        Some(_) => Some(massif_dir(cx.dir)?),
        None => None,
    };
    for (b, a, ops) in &plan.run {
        if cx.stopped() {
            return Ok(true);
        }
        // The pair's sizes, from the pk records of this run when it checked
        // it, else from checks made here.
        let earlier = cx.earlier().and_then(|r| {
            r.pk.iter()
                .find(|p| {
                    p.algorithm == a.name()
                        && p.backend == b.name()
                        && p.variant.as_deref()
                            == b.0.provider.has_variants.then_some(&*b.0.variant)
                })
                .map(|p| p.sizes.clone())
        });
        // A pair whose every failure is a known library defect (a
        // verifier that accepts what it must not) is still measured: its
        // outputs are checked while measured, and the record says so.
        let (sizes, caveat) = match earlier {
            Some(s) => (s, None),
            None => {
                let checked = all_checks(b, *a, &mut rng);
                let e = ango_verify::pk::explain(b, *a, &checked);
                if checked.failures.is_empty() || e.only_input_checks() {
                    (checked.sizes, None)
                } else if e.unexplained.is_empty() {
                    let ids: Vec<&str> = e.known.iter().map(|k| k.id.as_str()).collect();
                    (
                        checked.sizes.clone(),
                        Some(format!(
                            "measured although its checks fail ({}): every failure is a known \
                             library defect ({}), and each output is checked while measured",
                            ango_verify::pk::summary_line(&checked),
                            ids.join(", ")
                        )),
                    )
                } else {
                    cx.note(
                        SUITE,
                        format!(
                            "{} {a}: memory not measured: its checks failed ({})",
                            b.0.label(),
                            ango_verify::pk::summary_line(&checked)
                        ),
                    )?;
                    continue;
                }
            }
        };
        for &op in ops {
            if cx.stopped() {
                return Ok(true);
            }
            let max = std::time::Duration::from_secs_f64(spec.pk.max_seconds);
            let (calls, floor) = match measure(b, *a, op, &msg, spec.calls, max) {
                Ok(x) => x,
                Err(e) => {
                    cx.sink.event(crate::Event::Error {
                        message: format!("{} {a} {op} (memory): {e}", b.0.label()),
                    })?;
                    continue;
                }
            };
            let mut record = record(spec, b, *a, op, &calls, floor, sizes.clone());
            record.warnings.extend(caveat.clone());
            if record.calls < spec.calls as u64 {
                record.warnings.push(format!(
                    "stopped after {} of {} calls ({} s limit per point)",
                    record.calls, spec.calls, spec.pk.max_seconds
                ));
            }
            if let (Some(exe), Some(dir)) = (&spec.massif, &massif_dir) {
                let m = massif(exe, dir, b, *a, op, spec.pk.message_bytes);
                record.massif = Some(with_ratios(m, &record));
            }
            let line = progress(&record);
            cx.record(record, line)?;
        }
    }
    Ok(false)
}

/// One point's calls and the measuring frames' own stack (the median of
/// calls that do nothing), on a thread of its own.
fn measure(
    b: &EntryBackend<'static>,
    a: PkAlgorithm,
    op: PkOp,
    msg: &[u8],
    calls: usize,
    max: std::time::Duration,
) -> Result<(Vec<CallMemory>, u64)> {
    on_own_stack(STACK_BYTES, |probe| -> Result<(Vec<CallMemory>, u64)> {
        let nothing = measure_calls(probe, 1, 5, None, &mut || Ok::<(), Error>(()))?;
        let floor = median_max(&nothing.iter().map(|m| m.stack_bytes).collect::<Vec<_>>()).0;
        let mut inst = Inst::new(b, a)?;
        let mut maker = donor(b, a)?;
        let got = with_call(&mut inst, &mut maker, op, msg, |call| {
            let until = std::time::Instant::now() + max;
            measure_calls(probe, WARMUP, calls, Some(until), call)
        })?;
        Ok((got, floor))
    })
    .map_err(|e| Error::io("the memory thread", e))?
}

#[allow(clippy::too_many_arguments)]
fn record(
    spec: &PkMemorySpec,
    b: &EntryBackend<'static>,
    a: PkAlgorithm,
    op: PkOp,
    calls: &[CallMemory],
    floor: u64,
    sizes: Vec<ango_core::SizeEntry>,
) -> PkMemoryRecord {
    let of = |f: fn(&CallMemory) -> u64| median_max(&calls.iter().map(f).collect::<Vec<_>>());
    let (stack_med, stack_max) = of(|m| m.stack_bytes);
    let (heap_med, heap_max) = of(|m| m.heap.peak_bytes);
    let (alloc_med, alloc_max) = of(|m| m.heap.allocations);
    let (now, _) = ango_core::results::utc_now();
    let mut warnings = Vec::new();
    if !eager_binding() {
        warnings.push(
            "lazy binding: LD_BIND_NOW was not set (ango sets it for --memory); the warm-up \
             calls bind what the calls use"
                .into(),
        );
    }
    PkMemoryRecord {
        head: ango_core::Header::new(SUITE, spec.pk.run_id.clone()),
        library_version: b.version(),
        algorithm: a.name().into(),
        kind: a.kind().name().into(),
        operation: op.name().into(),
        backend: b.name().into(),
        variant: b.0.provider.has_variants.then(|| b.0.variant.clone()),
        implementation: b.implementation(a),
        calls: calls.len() as u64,
        warmup: WARMUP as u64,
        peak_stack_bytes: stack_max,
        peak_stack_bytes_median: stack_med,
        peak_heap_bytes: heap_max,
        peak_heap_bytes_median: heap_med,
        allocations: alloc_max,
        allocations_median: alloc_med,
        stack_floor_bytes: floor,
        sizes,
        unseen: unseen(b.name()),
        massif: None,
        warnings,
        method: format!(
            "{} calls after {WARMUP} warm-up calls{}, each made as timing: operation makes it, on \
             a thread of its own ({} MiB stack); stack: painted from the guard page to 512 B \
             below the painting frame (past the red zone), alternately with two patterns, and \
             scanned after the call for the deepest changed word, measured from the frame that \
             makes the call (the measuring frames take {floor} B of it); exact for the paths \
             the calls took, not a worst case; heap: malloc, calloc, realloc, free, \
             posix_memalign, aligned_alloc, memalign and valloc interposed in the executable, \
             the peak of the measuring thread's live bytes above the start of the call \
             (usable sizes) and its allocations; maxima and medians over the calls",
            calls.len(),
            if eager_binding() {
                " and eager binding (LD_BIND_NOW=1)"
            } else {
                ""
            },
            STACK_BYTES >> 20
        ),
        time: now,
    }
}

/// The progress line of one point.
fn progress(r: &PkMemoryRecord) -> String {
    let mut line = format!(
        "{:<24} {:<18} {:<7} stack {:>9} heap {:>9} allocs {:>4}",
        r.algorithm,
        r.who(),
        r.operation,
        bytes(r.peak_stack_bytes),
        bytes(r.peak_heap_bytes),
        r.allocations
    );
    if let Some(m) = &r.massif {
        match (m.ran, m.peak_stack_bytes, m.peak_heap_bytes) {
            (true, Some(s), Some(h)) => {
                line.push_str(&format!("  massif stack {} heap {}", bytes(s), bytes(h)))
            }
            _ => line.push_str(&format!("  massif: {}", m.note)),
        }
    }
    line
}

/// Where the massif files of this run go: `massif/` in the results
/// directory, else a new temporary directory.
fn massif_dir(dir: Option<&Path>) -> Result<PathBuf> {
    let d = match dir {
        Some(d) => d.join("massif"),
        None => std::env::temp_dir().join(format!("ango-massif-{}", std::process::id())),
    };
    std::fs::create_dir_all(&d).map_err(|e| Error::io(format!("creating {}", d.display()), e))?;
    Ok(d)
}

/// massif ÷ ango, for the record.
fn with_ratios(mut m: MassifCheck, r: &PkMemoryRecord) -> MassifCheck {
    let ratio = |x: Option<u64>, y: u64| match x {
        Some(x) if x > 0 && y > 0 => Some(x as f64 / y as f64),
        _ => None,
    };
    m.stack_ratio = ratio(m.peak_stack_bytes, r.peak_stack_bytes);
    m.heap_ratio = ratio(m.peak_heap_bytes, r.peak_heap_bytes);
    m
}

/// One point under `valgrind --tool=massif --stacks=yes`: `exe
/// __memory-probe` makes the pair's inputs and warm-up calls, then one call
/// between two massif snapshots it asks for (client requests); the window's
/// peaks above its first snapshot are read from massif's file.
fn massif(
    exe: &Path,
    dir: &Path,
    b: &EntryBackend<'static>,
    a: PkAlgorithm,
    op: PkOp,
    message_bytes: usize,
) -> MassifCheck {
    let failed = |note: String| MassifCheck {
        ran: false,
        peak_stack_bytes: None,
        peak_heap_bytes: None,
        stack_ratio: None,
        heap_ratio: None,
        note,
    };
    // The stack from a run whose time is instructions (snapshots between
    // heap events too), the heap from one whose time is bytes allocated
    // (a snapshot at each large allocation, so short-lived peaks are not
    // skipped).
    let mut peaks = [0u64; 2];
    let mut files = Vec::new();
    for (i, (what, unit, stacks)) in [("stack", "i", "yes"), ("heap", "B", "no")]
        .into_iter()
        .enumerate()
    {
        let stem = dir.join(format!("{a}-{}-{op}-{what}", b.0.label()));
        let out = stem.with_extension("massif");
        if let Err(why) = massif_run(exe, &stem, &out, unit, stacks, b, a, op, message_bytes) {
            return failed(why);
        }
        match window_peaks(&stem, &out) {
            Ok((stack, heap)) => peaks[i] = if i == 0 { stack } else { heap },
            Err(e) => return failed(format!("massif's files could not be read: {e}")),
        }
        files.push(
            out.file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_default(),
        );
    }
    MassifCheck {
        ran: true,
        peak_stack_bytes: Some(peaks[0]),
        peak_heap_bytes: Some(peaks[1]),
        stack_ratio: None,
        heap_ratio: None,
        note: format!(
            "valgrind --tool=massif, {MASSIF_CALLS} calls after {WARMUP} warm-up calls in a \
             process of its own, twice: --stacks=yes --time-unit=i for the stack, --time-unit=B \
             for the heap; the peaks of massif's snapshots between two it took before and after \
             the calls, above the first ({}); valgrind's CPU has no AVX-512, so a library that \
             picks its code by CPUID runs its AVX2 or generic path there",
            files.join(", ")
        ),
    }
}

/// One massif run of the probe; why it failed, if it did.
#[allow(clippy::too_many_arguments)]
fn massif_run(
    exe: &Path,
    stem: &Path,
    out: &Path,
    unit: &str,
    stacks: &str,
    b: &EntryBackend<'static>,
    a: PkAlgorithm,
    op: PkOp,
    message_bytes: usize,
) -> std::result::Result<(), String> {
    let o = std::process::Command::new("valgrind")
        .args([
            "--tool=massif",
            "--soname-synonyms=somalloc=NONE",
            "--max-snapshots=1000",
            "--detailed-freq=1000000",
        ])
        .arg(format!("--stacks={stacks}"))
        .arg(format!("--time-unit={unit}"))
        .arg(format!("--massif-out-file={}", out.display()))
        .arg(exe)
        .args(["__memory-probe", "--algo", a.name(), "--backend"])
        .arg(b.0.label())
        .args(["--op", op.name(), "--message-bytes"])
        .arg(message_bytes.to_string())
        .arg("--window")
        .arg(stem)
        .args(["--calls", &MASSIF_CALLS.to_string()])
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("valgrind could not be started: {e}"))?;
    if o.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&o.stderr);
    let unknown = stderr.lines().any(|l| {
        l.contains("unhandled instruction")
            || l.contains("Unrecognised instruction")
            || l.contains("SIGILL")
    });
    Err(if unknown {
        "valgrind cannot run this library's code here (an instruction it does not know, e.g. \
         AVX-512)"
            .to_string()
    } else {
        format!(
            "the probe failed under valgrind ({}): {}",
            o.status,
            stderr
                .lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("")
        )
    })
}

/// One massif snapshot: (time, useful heap bytes, stack bytes).
type Snapshot = (u64, u64, u64);

/// The snapshots of a massif file, in order.
pub fn snapshots(text: &str) -> Vec<Snapshot> {
    let mut out = Vec::new();
    let mut cur: Option<(Option<u64>, Option<u64>, Option<u64>)> = None;
    let num = |l: &str, k: &str| l.strip_prefix(k).and_then(|v| v.trim().parse::<u64>().ok());
    for line in text.lines() {
        if line.starts_with("snapshot=") {
            if let Some((Some(t), Some(h), Some(s))) = cur.take() {
                out.push((t, h, s));
            }
            cur = Some((None, None, None));
        } else if let Some(c) = cur.as_mut() {
            if let Some(v) = num(line, "time=") {
                c.0 = Some(v);
            } else if let Some(v) = num(line, "mem_heap_B=") {
                c.1 = Some(v);
            } else if let Some(v) = num(line, "mem_stacks_B=") {
                c.2 = Some(v);
            }
        }
    }
    if let Some((Some(t), Some(h), Some(s))) = cur {
        out.push((t, h, s));
    }
    out
}

/// (stack, heap) peaks of the window `stem.start` … `stem.end` in massif's
/// file `out`, above the window's start.
fn window_peaks(stem: &Path, out: &Path) -> std::result::Result<(u64, u64), String> {
    let read =
        |p: PathBuf| std::fs::read_to_string(&p).map_err(|e| format!("{}: {e}", p.display()));
    let one = |ext: &str| -> std::result::Result<Snapshot, String> {
        snapshots(&read(stem.with_extension(ext))?)
            .first()
            .copied()
            .ok_or_else(|| format!("no snapshot in the {ext} file"))
    };
    let (mut start, end) = (one("start")?, one("end")?);
    let below: u64 = read(stem.with_extension("below"))?
        .trim()
        .parse()
        .map_err(|e| format!("the below file: {e}"))?;
    // The stack in use at the frame that makes the calls, not at the
    // snapshot's deeper one.
    start.2 = start.2.saturating_sub(below);
    let all = snapshots(&read(out.to_path_buf())?);
    Ok(window(start, end, &all))
}

/// The window's (stack, heap) peaks above `start`, from `start`, `end` and
/// every snapshot between their times.
pub fn window(start: Snapshot, end: Snapshot, all: &[Snapshot]) -> (u64, u64) {
    let inside = all
        .iter()
        .filter(|s| s.0 >= start.0 && s.0 <= end.0)
        .chain([&start, &end]);
    let (mut heap, mut stack) = (start.1, start.2);
    for s in inside {
        heap = heap.max(s.1);
        stack = stack.max(s.2);
    }
    (stack - start.2, heap - start.1)
}

/// `ango __memory-probe`, run by [`massif`] under valgrind: the pair's
/// instance and inputs, [`WARMUP`] calls, then massif snapshots to
/// `window.start` and `window.end` around `calls` calls (massif samples
/// the stack at its snapshots, so more calls give it more chances to see
/// the deepest point).
pub fn probe(
    label: &str,
    a: PkAlgorithm,
    op: PkOp,
    message_bytes: usize,
    window: &Path,
    calls: usize,
) -> Result<()> {
    let catalog = ango_backends::catalog();
    let entry = catalog
        .entries
        .iter()
        .find(|e| e.algorithm == ango_core::AlgorithmId::Pk(a) && e.label() == label)
        .ok_or_else(|| Error::usage(format!("__memory-probe: no {a} entry labelled '{label}'")))?;
    let b = EntryBackend(entry);
    let mut msg = vec![0u8; message_bytes];
    ango_verify::cross::Rng::new(0x5eed_3e30).fill(&mut msg);
    let command = |ext: &str| {
        let cmd = format!("snapshot {}", window.with_extension(ext).display());
        std::ffi::CString::new(cmd).map_err(|_| Error::usage("a NUL in the path"))
    };
    let (start, end) = (command("start")?, command("end")?);
    let refused = || {
        Error::usage(
            "__memory-probe: valgrind (massif) did not take the snapshot request; run it under \
             valgrind --tool=massif",
        )
    };
    let below = on_own_stack(STACK_BYTES, |_| -> Result<usize> {
        let mut inst = Inst::new(&b, a)?;
        let mut maker = donor(&b, a)?;
        with_call(&mut inst, &mut maker, op, &msg, |call| {
            for _ in 0..WARMUP {
                call()?;
            }
            // The calls are made from this frame; the snapshot is taken a
            // few frames below it, which massif counts as stack already in
            // use: how far below is written beside the window.
            let mark = 0u8;
            let site = std::hint::black_box(&mark as *const u8 as usize);
            let (taken, at) = snapshot_from_here(&start);
            if !taken {
                return Err(refused());
            }
            for _ in 0..calls {
                call()?;
            }
            if !snapshot_from_here(&end).0 {
                return Err(refused());
            }
            Ok(site.saturating_sub(at))
        })
    })
    .map_err(|e| Error::io("the memory thread", e))??;
    let p = window.with_extension("below");
    std::fs::write(&p, format!("{below}\n"))
        .map_err(|e| Error::io(format!("writing {}", p.display()), e))
}

/// Ask massif for a snapshot; whether it took it, and the address of a
/// local of this frame (the stack pointer when it was taken, within a few
/// bytes).
#[inline(never)]
fn snapshot_from_here(command: &std::ffi::CStr) -> (bool, usize) {
    let here = 0u8;
    let at = std::hint::black_box(&here as *const u8 as usize);
    (ango_harness::valgrind::monitor(command), at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn massif_snapshots_are_read_and_the_window_is_its_peaks_above_its_start() {
        let text = "desc: x\ncmd: y\ntime_unit: i\n#-----------\nsnapshot=0\n#-----------\n\
                    time=0\nmem_heap_B=0\nmem_heap_extra_B=0\nmem_stacks_B=0\nheap_tree=empty\n\
                    #-----------\nsnapshot=1\n#-----------\ntime=100\nmem_heap_B=5000\n\
                    mem_heap_extra_B=8\nmem_stacks_B=900\nheap_tree=peak\n\
                    #-----------\nsnapshot=2\n#-----------\ntime=150\nmem_heap_B=7000\n\
                    mem_heap_extra_B=8\nmem_stacks_B=4000\nheap_tree=empty\n\
                    #-----------\nsnapshot=3\n#-----------\ntime=300\nmem_heap_B=90000\n\
                    mem_heap_extra_B=8\nmem_stacks_B=100\nheap_tree=empty\n";
        let s = snapshots(text);
        assert_eq!(s.len(), 4);
        assert_eq!(s[1], (100, 5000, 900));
        // The window is 100…200: snapshot 3 (after it) does not count.
        assert_eq!(window(s[1], (200, 5000, 900), &s), (3100, 2000));
    }
}
