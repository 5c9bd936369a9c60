//! The memory of one call: its peak stack and its peak heap.
//!
//! **Stack.** The call runs on a thread of its own whose stack is painted
//! with a pattern from the bottom of the thread's stack (just above its
//! guard page) to just below the painting function's own frame (past the
//! 128-byte red zone), then scanned after the call for the lowest word
//! that changed. Calls alternate between two patterns, so a word a call
//! writes with the pattern's own value hides in at most half of them. The
//! depth is exact for the path the call took; it is not a worst case over
//! every path.
//!
//! **Heap.** The executable interposes `malloc` and its kin (ango's binary
//! does, in its `memhook` module) and reports each block it hands out or
//! takes back through [`on_alloc`] and [`on_free`] with the allocator's
//! usable size. While a call is armed, the blocks the measured thread
//! allocates and frees are counted: the live bytes, their peak above the
//! level at the start of the call, and the number of allocations.
//! Allocations by other threads, direct `mmap` and static tables are not
//! seen.

use std::sync::atomic::{AtomicBool, AtomicIsize, AtomicU64, AtomicUsize, Ordering::Relaxed};

/// Set by an executable whose `malloc` reports to this module.
static INTERPOSED: AtomicBool = AtomicBool::new(false);
/// The `pthread_t` of the thread being measured; 0 when none is.
static ARMED: AtomicUsize = AtomicUsize::new(0);
static LIVE: AtomicIsize = AtomicIsize::new(0);
static PEAK: AtomicIsize = AtomicIsize::new(0);
static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

/// Said once by an executable whose allocator functions call [`on_alloc`]
/// and [`on_free`].
pub fn mark_interposed() {
    INTERPOSED.store(true, Relaxed);
}

/// Whether this executable's allocations are seen.
pub fn interposed() -> bool {
    INTERPOSED.load(Relaxed)
}

#[inline]
fn measured_thread() -> bool {
    let armed = ARMED.load(Relaxed);
    // SAFETY: pthread_self reads the calling thread's descriptor from a
    // register; it allocates nothing and cannot fail.
    armed != 0 && armed == unsafe { libc::pthread_self() } as usize
}

/// A block of `usable` bytes was handed out (or a `realloc` grew one by
/// `usable` - `old`). Allocates nothing, so it may be called from
/// `malloc`.
#[inline]
pub fn on_alloc(usable: usize, old: usize) {
    if !measured_thread() {
        return;
    }
    let now =
        LIVE.fetch_add(usable as isize - old as isize, Relaxed) + usable as isize - old as isize;
    PEAK.fetch_max(now, Relaxed);
    ALLOCATIONS.fetch_add(1, Relaxed);
}

/// A block of `usable` bytes was given back.
#[inline]
pub fn on_free(usable: usize) {
    if measured_thread() {
        LIVE.fetch_sub(usable as isize, Relaxed);
    }
}

/// The heap of one call: its peak above the start and its allocations.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Heap {
    pub peak_bytes: u64,
    pub allocations: u64,
}

fn arm() {
    LIVE.store(0, Relaxed);
    PEAK.store(0, Relaxed);
    ALLOCATIONS.store(0, Relaxed);
    // SAFETY: as in measured_thread.
    ARMED.store(unsafe { libc::pthread_self() } as usize, Relaxed);
}

fn disarm() -> Heap {
    ARMED.store(0, Relaxed);
    Heap {
        peak_bytes: PEAK.load(Relaxed).max(0) as u64,
        allocations: ALLOCATIONS.load(Relaxed),
    }
}

/// Held while calls are measured.
static MEASURING: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The two paint patterns: calls alternate between them.
pub const PATTERNS: [u64; 2] = [0xa5a5_a5a5_a5a5_a5a5, 0x3c5a_96e1_0f78_d2b4];
/// Bytes left unpainted below the painting function's frame: the x86-64
/// red zone (128 B) and a margin for the function's own spills.
const BELOW_FRAME: usize = 512;

/// What one call used.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CallMemory {
    /// From the measuring frame (just above the call) to the lowest stack
    /// word the call changed.
    pub stack_bytes: u64,
    pub heap: Heap,
    /// The call reached the bottom of the painted region: its depth is at
    /// least `stack_bytes`, so it is measured again with the whole stack
    /// painted.
    pub beyond_paint: bool,
}

/// The stack of the current thread, for painting.
pub struct StackProbe {
    /// The lowest usable address (just above the guard page).
    lo: usize,
    /// Its usable size.
    size: usize,
}

impl StackProbe {
    /// The current thread's stack, as the C library describes it.
    pub fn current() -> std::io::Result<StackProbe> {
        // SAFETY: an attribute object is filled by pthread_getattr_np for
        // the calling thread, read, and destroyed; every pointer is to a
        // local that outlives the calls.
        unsafe {
            let mut attr: libc::pthread_attr_t = std::mem::zeroed();
            let rc = libc::pthread_getattr_np(libc::pthread_self(), &mut attr);
            if rc != 0 {
                return Err(std::io::Error::from_raw_os_error(rc));
            }
            let mut addr: *mut libc::c_void = std::ptr::null_mut();
            let mut size: libc::size_t = 0;
            let rc = libc::pthread_attr_getstack(&attr, &mut addr, &mut size);
            libc::pthread_attr_destroy(&mut attr);
            if rc != 0 {
                return Err(std::io::Error::from_raw_os_error(rc));
            }
            Ok(StackProbe {
                lo: addr as usize,
                size,
            })
        }
    }

    /// The usable size of the thread's stack.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Run `call` with the stack painted `depth` bytes deep (or to the
    /// bottom, whichever is nearer) with `PATTERNS[pattern % 2]`, and the
    /// heap armed: what it used.
    #[inline(never)]
    pub fn measure<T>(
        &self,
        depth: usize,
        pattern: usize,
        call: &mut dyn FnMut() -> T,
    ) -> (T, CallMemory) {
        let word = PATTERNS[pattern % 2];
        let here = 0u8;
        let top = std::hint::black_box(&here as *const u8 as usize);
        let floor = top.saturating_sub(depth).max(self.lo);
        let painted_from = paint(floor, word);
        arm();
        let out = run(call);
        let heap = disarm();
        let lowest = scan(painted_from, top, word);
        (
            out,
            CallMemory {
                stack_bytes: top.saturating_sub(lowest) as u64,
                heap,
                beyond_paint: lowest <= painted_from && painted_from > self.lo,
            },
        )
    }

    /// The whole usable stack, for [`StackProbe::measure`]'s `depth`.
    pub fn whole(&self) -> usize {
        usize::MAX
    }
}

/// The call, from a frame of its own below the measuring one.
#[inline(never)]
fn run<T>(call: &mut dyn FnMut() -> T) -> T {
    std::hint::black_box(call())
}

/// Paint from `floor` (rounded up to a word) to `BELOW_FRAME` bytes below
/// this function's frame; the first painted address.
#[inline(never)]
fn paint(floor: usize, word: u64) -> usize {
    let here = 0u8;
    let top = std::hint::black_box(&here as *const u8 as usize);
    let from = (floor + 7) & !7;
    let to = top.saturating_sub(BELOW_FRAME) & !7;
    let mut a = from;
    while a < to {
        // SAFETY: [from, to) lies in this thread's own stack, between the
        // bottom of its usable region and BELOW_FRAME bytes below this
        // frame, where no live frame or red zone is: nothing there is read
        // before it is written again. Each address is 8-byte aligned.
        unsafe { std::ptr::write_volatile(a as *mut u64, word) };
        a += 8;
    }
    from
}

/// The lowest address in `[from, top)` whose word is no longer `word`
/// (`top` when none changed below the painted region's top).
#[inline(never)]
fn scan(from: usize, top: usize, word: u64) -> usize {
    let mut a = from;
    while a + 8 <= top {
        // SAFETY: as in paint: an aligned word of this thread's stack below
        // the live frames.
        if unsafe { std::ptr::read_volatile(a as *const u64) } != word {
            return a;
        }
        a += 8;
    }
    top
}

/// The memory of `calls` calls of `call` on the current thread, after
/// `warmup` calls that are not kept (lazy binding and one-time set-up are
/// not counted). The first calls paint the whole stack; later ones paint
/// twice the deepest call so far and 64 KiB more, and a call that reaches
/// the bottom of that is made again with the whole stack painted. Past
/// `until`, no new call is started once one has been kept.
pub fn measure_calls<E>(
    probe: &StackProbe,
    warmup: usize,
    calls: usize,
    until: Option<std::time::Instant>,
    call: &mut dyn FnMut() -> Result<(), E>,
) -> Result<Vec<CallMemory>, E> {
    // One measured thread at a time: the heap counters are the process's.
    let _one = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let mut deepest = 0usize;
    for i in 0..warmup {
        let (r, m) = probe.measure(probe.whole(), i, call);
        r?;
        deepest = deepest.max(m.stack_bytes as usize);
    }
    let mut out = Vec::with_capacity(calls);
    for i in 0..calls {
        if i > 0 && until.is_some_and(|t| std::time::Instant::now() > t) {
            break;
        }
        let depth = deepest.saturating_mul(2).saturating_add(64 << 10);
        let (r, mut m) = probe.measure(depth, i, call);
        r?;
        if m.beyond_paint {
            let (r, again) = probe.measure(probe.whole(), i, call);
            r?;
            m = again;
        }
        deepest = deepest.max(m.stack_bytes as usize);
        out.push(m);
    }
    Ok(out)
}

/// Run `f` on a new thread with a stack of `stack_bytes` and its
/// [`StackProbe`]; its result.
pub fn on_own_stack<T: Send>(
    stack_bytes: usize,
    f: impl FnOnce(&StackProbe) -> T + Send,
) -> std::io::Result<T> {
    std::thread::scope(|s| {
        let h = std::thread::Builder::new()
            .name("ango-memory".into())
            .stack_size(stack_bytes)
            .spawn_scoped(s, move || StackProbe::current().map(|p| f(&p)))?;
        h.join()
            .map_err(|_| std::io::Error::other("the memory thread panicked"))?
    })
}

/// Median and maximum of per-call figures (the median of an even count is
/// the mean of the two middle ones, rounded down).
pub fn median_max(v: &[u64]) -> (u64, u64) {
    if v.is_empty() {
        return (0, 0);
    }
    let mut s = v.to_vec();
    s.sort_unstable();
    let n = s.len();
    let med = if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2
    };
    (med, s[n - 1])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Touches an N-byte array end to end through volatile writes.
    #[inline(never)]
    fn touch<const N: usize>() -> u8 {
        let mut a = [0u8; N];
        for i in (0..N).step_by(64) {
            // SAFETY: i is inside the array.
            unsafe { std::ptr::write_volatile(a.as_mut_ptr().add(i), i as u8) };
        }
        // SAFETY: the last byte is inside the array.
        unsafe { std::ptr::write_volatile(a.as_mut_ptr().add(N - 1), 1) };
        std::hint::black_box(&a)[N - 1]
    }

    /// 64 KiB of stack, touched end to end.
    fn deep() -> u8 {
        touch::<{ 64 << 10 }>()
    }

    #[test]
    fn a_64_kib_array_reads_within_a_page_and_nothing_reads_little() {
        let (deep_calls, none_calls) = on_own_stack(8 << 20, |p| {
            let d = measure_calls::<()>(p, 2, 6, None, &mut || {
                deep();
                Ok(())
            })
            .unwrap();
            let n = measure_calls::<()>(p, 2, 6, None, &mut || Ok(())).unwrap();
            (d, n)
        })
        .unwrap();
        for m in &deep_calls {
            assert!(
                (64 << 10..(64 << 10) + 4096).contains(&m.stack_bytes),
                "{m:?}"
            );
        }
        for m in &none_calls {
            assert!(m.stack_bytes < 4096, "{m:?}");
        }
    }

    #[test]
    fn a_call_deeper_than_the_painted_region_is_measured_again_whole() {
        let got = on_own_stack(8 << 20, |p| {
            let mut first = true;
            measure_calls::<()>(p, 1, 3, None, &mut || {
                // Shallow while warming up, then 256 KiB deep: past the
                // region painted after the warm-up (twice its depth and 64
                // KiB), so only a call measured again with the whole stack
                // painted reads all of it.
                if !std::mem::take(&mut first) {
                    touch::<{ 256 << 10 }>();
                }
                Ok(())
            })
            .unwrap()
        })
        .unwrap();
        assert!(got.iter().all(|m| m.stack_bytes >= 256 << 10), "{got:?}");
    }

    #[test]
    fn medians_and_maxima() {
        assert_eq!(median_max(&[3, 1, 2]), (2, 3));
        assert_eq!(median_max(&[4, 1, 2, 3]), (2, 4));
        assert_eq!(median_max(&[]), (0, 0));
    }
}
