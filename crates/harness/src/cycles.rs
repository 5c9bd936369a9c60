//! Cycle sources: the core's cycle counter through `perf_event_open` where
//! the kernel offers it, else the time-stamp counter (`rdtsc`), which on
//! modern x86 ticks at a fixed rate that need not equal the core clock.
//! Every cycles figure carries the name of the source that produced it.

use std::time::{Duration, Instant};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CycleSource {
    /// Hardware core cycles (PERF_COUNT_HW_CPU_CYCLES, user space only).
    Perf,
    /// Time-stamp counter ticks.
    Tsc,
    /// No cycle source: only nanoseconds are reported.
    None,
}

impl CycleSource {
    pub fn name(self) -> &'static str {
        match self {
            CycleSource::Perf => "perf",
            CycleSource::Tsc => "tsc",
            CycleSource::None => "none",
        }
    }

    /// How the unit is called in tables ("cycles" vs "TSC cycles").
    pub fn unit_label(self) -> &'static str {
        match self {
            CycleSource::Perf => "cycles",
            CycleSource::Tsc => "TSC cycles",
            CycleSource::None => "cycles (n/a)",
        }
    }
}

/// An open cycle counter.
pub struct CycleCounter {
    source: CycleSource,
    fd: i32,
    /// Why the preferred source was not used (shown in `ango env`).
    pub note: String,
}

impl CycleCounter {
    /// Open the best available counter: perf core cycles, else the TSC.
    /// `ANGO_CYCLES=tsc|none` forces a lesser one.
    pub fn open() -> CycleCounter {
        let forced = std::env::var("ANGO_CYCLES").unwrap_or_default();
        let mut note = String::new();
        if forced.is_empty() || forced == "perf" {
            match perf::open_cycles() {
                Ok(fd) => {
                    return CycleCounter {
                        source: CycleSource::Perf,
                        fd,
                        note: "perf_event_open(PERF_COUNT_HW_CPU_CYCLES), user space".into(),
                    }
                }
                Err(e) => note = format!("hardware cycle counter unavailable ({e}); "),
            }
        }
        if tsc::available() && forced != "none" {
            note.push_str("using the time-stamp counter: TSC ticks, not core cycles");
            return CycleCounter {
                source: CycleSource::Tsc,
                fd: -1,
                note,
            };
        }
        note.push_str("no cycle source");
        CycleCounter {
            source: CycleSource::None,
            fd: -1,
            note,
        }
    }

    pub fn source(&self) -> CycleSource {
        self.source
    }

    /// Current count (meaningful only as a difference).
    #[inline]
    pub fn read(&self) -> u64 {
        match self.source {
            CycleSource::Perf => perf::read(self.fd),
            CycleSource::Tsc => tsc::read(),
            CycleSource::None => 0,
        }
    }
}

impl Drop for CycleCounter {
    fn drop(&mut self) {
        if self.fd >= 0 {
            // SAFETY: fd was returned by perf_event_open and is owned by self.
            unsafe {
                libc::close(self.fd);
            }
        }
    }
}

/// Measure the TSC frequency against the monotonic clock (median of 5 runs
/// of 20 ms). `None` where there is no TSC.
pub fn measure_tsc_hz() -> Option<f64> {
    if !tsc::available() {
        return None;
    }
    let mut v: Vec<f64> = (0..5)
        .map(|_| {
            let t0 = Instant::now();
            let c0 = tsc::read();
            while t0.elapsed() < Duration::from_millis(20) {
                std::hint::spin_loop();
            }
            let c1 = tsc::read();
            let dt = t0.elapsed().as_secs_f64();
            (c1 - c0) as f64 / dt
        })
        .collect();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    Some(v[2])
}

/// The time-stamp counter now (x86_64), else monotonic nanoseconds: a
/// cheap tick for timing one short call (the constant-time checks).
#[inline]
pub fn tsc_now() -> u64 {
    if tsc::available() {
        tsc::read()
    } else {
        static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
        START
            .get_or_init(std::time::Instant::now)
            .elapsed()
            .as_nanos() as u64
    }
}

#[cfg(target_arch = "x86_64")]
mod tsc {
    pub fn available() -> bool {
        true
    }

    #[inline]
    #[allow(unused_unsafe)]
    pub fn read() -> u64 {
        // SAFETY: rdtsc exists on every x86_64 CPU and has no preconditions.
        unsafe { core::arch::x86_64::_rdtsc() }
    }
}

#[cfg(not(target_arch = "x86_64"))]
mod tsc {
    pub fn available() -> bool {
        false
    }
    pub fn read() -> u64 {
        0
    }
}

#[cfg(target_os = "linux")]
mod perf {
    /// `struct perf_event_attr` up to PERF_ATTR_SIZE_VER0 (64 bytes).
    #[repr(C)]
    #[derive(Default)]
    struct PerfEventAttr {
        type_: u32,
        size: u32,
        config: u64,
        sample_period: u64,
        sample_type: u64,
        read_format: u64,
        flags: u64,
        wakeup_events: u32,
        bp_type: u32,
        config1: u64,
    }

    const PERF_TYPE_HARDWARE: u32 = 0;
    const PERF_COUNT_HW_CPU_CYCLES: u64 = 0;
    const EXCLUDE_KERNEL: u64 = 1 << 5;
    const EXCLUDE_HV: u64 = 1 << 6;
    const PERF_FLAG_FD_CLOEXEC: libc::c_ulong = 8;

    pub fn open_cycles() -> Result<i32, String> {
        let attr = PerfEventAttr {
            type_: PERF_TYPE_HARDWARE,
            size: std::mem::size_of::<PerfEventAttr>() as u32,
            config: PERF_COUNT_HW_CPU_CYCLES,
            flags: EXCLUDE_KERNEL | EXCLUDE_HV,
            ..Default::default()
        };
        // SAFETY: FFI syscall; attr is a valid, initialised perf_event_attr of
        // the size it declares and outlives the call.
        let fd = unsafe {
            libc::syscall(
                libc::SYS_perf_event_open,
                &attr as *const PerfEventAttr,
                0 as libc::pid_t,
                -1 as libc::c_int,
                -1 as libc::c_int,
                PERF_FLAG_FD_CLOEXEC,
            )
        };
        if fd < 0 {
            return Err(std::io::Error::last_os_error().to_string());
        }
        let fd = fd as i32;
        // Some hypervisors hand out a counter that never moves.
        let a = read(fd);
        let mut x = 0u64;
        for i in 0..100_000u64 {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(i));
        }
        let b = read(fd);
        if b <= a {
            // SAFETY: fd was just opened by us.
            unsafe { libc::close(fd) };
            return Err("counter does not advance".into());
        }
        Ok(fd)
    }

    #[inline]
    pub fn read(fd: i32) -> u64 {
        let mut v = 0u64;
        // SAFETY: FFI read of 8 bytes into a u64 we own; fd is a perf event fd.
        let n = unsafe { libc::read(fd, (&mut v as *mut u64).cast(), 8) };
        if n == 8 {
            v
        } else {
            0
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod perf {
    pub fn open_cycles() -> Result<i32, String> {
        Err("perf_event_open is Linux only".into())
    }
    pub fn read(_fd: i32) -> u64 {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counter_advances_or_is_none() {
        let c = CycleCounter::open();
        let a = c.read();
        let mut x = 1u64;
        for i in 0..1_000_000u64 {
            x = std::hint::black_box(x ^ i);
        }
        let b = c.read();
        match c.source() {
            CycleSource::None => assert_eq!((a, b), (0, 0)),
            _ => assert!(b > a, "{} did not advance", c.source().name()),
        }
    }

    #[test]
    fn forced_none_reports_none() {
        // Only meaningful as a smoke test of the labels.
        assert_eq!(CycleSource::Tsc.unit_label(), "TSC cycles");
        assert_eq!(CycleSource::Perf.unit_label(), "cycles");
    }
}
