//! What the machine is: CPU, flags, frequency policy, kernel, clocks.

use crate::cycles::{measure_tsc_hz, CycleCounter, CycleSource};
use ango_core::EnvInfo;
use std::fs;

/// Flags that decide which code paths crypto libraries take.
pub const CRYPTO_FLAGS: &[&str] = &[
    "aes",
    "pclmulqdq",
    "sse2",
    "ssse3",
    "sse4_1",
    "avx",
    "avx2",
    "bmi1",
    "bmi2",
    "adx",
    "sha_ni",
    "vaes",
    "vpclmulqdq",
    "avx512f",
    "avx512bw",
    "avx512vl",
    "avx512ifma",
    "gfni",
];

fn read_trim(path: &str) -> Option<String> {
    fs::read_to_string(path).ok().map(|s| s.trim().to_string())
}

fn cpuinfo_field(cpuinfo: &str, key: &str) -> Option<String> {
    cpuinfo.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        (k.trim() == key).then(|| v.trim().to_string())
    })
}

pub fn hostname() -> String {
    read_trim("/proc/sys/kernel/hostname")
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "unknown-host".into())
}

/// The CPU's flags as /proc/cpuinfo lists them.
pub fn cpu_flags() -> Vec<String> {
    let ci = fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    cpuinfo_field(&ci, "flags")
        .unwrap_or_default()
        .split_whitespace()
        .map(String::from)
        .collect()
}

/// Resolution of CLOCK_MONOTONIC as the kernel reports it, in ns.
pub fn clock_resolution_ns() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: FFI call writing into a timespec we own.
    let rc = unsafe { libc::clock_getres(libc::CLOCK_MONOTONIC, &mut ts) };
    if rc == 0 {
        ts.tv_sec as f64 * 1e9 + ts.tv_nsec as f64
    } else {
        f64::NAN
    }
}

/// Median ns per iteration of the sampling loop around an operation that
/// does nothing.
pub fn loop_overhead_ns(cc: &CycleCounter) -> f64 {
    let plan = crate::measure::Plan {
        samples: Some(51),
        warmup: std::time::Duration::from_millis(5),
        ..crate::measure::Plan::with_time(0.05)
    };
    let mut x = 0u64;
    crate::measure::measure::<()>(&plan, cc, || {
        x = std::hint::black_box(x.wrapping_add(1));
        Ok(())
    })
    .map(|m| m.ns.median)
    .unwrap_or(f64::NAN)
}

/// Capture the environment. Library versions, run id and command are the
/// caller's to fill in.
pub fn capture(cc: &CycleCounter) -> EnvInfo {
    let ci = fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let all_flags = cpu_flags();
    let crypto_flags = CRYPTO_FLAGS
        .iter()
        .filter(|f| all_flags.iter().any(|g| g == *f))
        .map(|s| s.to_string())
        .collect();
    let os = fs::read_to_string("/etc/os-release")
        .ok()
        .and_then(|s| {
            s.lines().find_map(|l| {
                l.strip_prefix("PRETTY_NAME=")
                    .map(|v| v.trim_matches('"').to_string())
            })
        })
        .unwrap_or_else(|| std::env::consts::OS.to_string());
    let tsc_hz = measure_tsc_hz();
    let source = cc.source();
    EnvInfo {
        schema: ango_core::SCHEMA_VERSION,
        hostname: hostname(),
        cpu_model: cpuinfo_field(&ci, "model name").unwrap_or_else(|| "unknown".into()),
        cpu_vendor: cpuinfo_field(&ci, "vendor_id").unwrap_or_default(),
        logical_cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
        tsc_invariant: all_flags.iter().any(|f| f == "constant_tsc")
            && all_flags.iter().any(|f| f == "nonstop_tsc"),
        hypervisor: all_flags.iter().any(|f| f == "hypervisor"),
        crypto_flags,
        all_flags,
        frequency_governor: read_trim("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
        boost: read_trim("/sys/devices/system/cpu/cpufreq/boost").or_else(|| {
            read_trim("/sys/devices/system/cpu/intel_pstate/no_turbo").map(|v| {
                if v == "1" {
                    "0 (intel_pstate no_turbo)".into()
                } else {
                    "1 (intel_pstate)".into()
                }
            })
        }),
        scaling_max_khz: read_trim("/sys/devices/system/cpu/cpu0/cpufreq/scaling_max_freq")
            .and_then(|s| s.parse().ok()),
        kernel: read_trim("/proc/sys/kernel/osrelease").unwrap_or_default(),
        os,
        cycle_source: source.name().into(),
        cycle_source_note: match source {
            CycleSource::Tsc => format!(
                "{}; cycles figures are TSC cycles at {:.0} MHz, not core cycles",
                cc.note,
                tsc_hz.unwrap_or(0.0) / 1e6
            ),
            _ => cc.note.clone(),
        },
        tsc_hz_measured: tsc_hz,
        clock: "CLOCK_MONOTONIC (std::time::Instant)".into(),
        clock_resolution_ns: clock_resolution_ns(),
        timer_overhead_ns: crate::measure::timer_overhead_ns(cc),
        loop_overhead_ns: loop_overhead_ns(cc),
        ..Default::default()
    }
}

/// This process's own executable, for re-running itself (workers,
/// valgrind): on Linux `/proc/<pid>/exe`, which keeps naming the running
/// binary even after a rebuild has replaced or deleted the file on disk
/// (where `current_exe` would give "… (deleted)"); elsewhere `current_exe`.
pub fn own_exe() -> std::io::Result<std::path::PathBuf> {
    let p = std::path::PathBuf::from(format!("/proc/{}/exe", std::process::id()));
    if p.exists() {
        return Ok(p);
    }
    std::env::current_exe()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capture_fills_basics() {
        let cc = CycleCounter::open();
        let e = capture(&cc);
        assert!(!e.kernel.is_empty());
        assert!(e.logical_cpus >= 1);
        assert!(e.clock_resolution_ns > 0.0);
        assert!(
            e.loop_overhead_ns >= 0.0 && e.loop_overhead_ns < 100.0,
            "{}",
            e.loop_overhead_ns
        );
        if cfg!(target_arch = "x86_64") {
            assert!(e.tsc_hz_measured.unwrap() > 1e8);
        }
    }
}
