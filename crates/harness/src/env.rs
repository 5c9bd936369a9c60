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
    let identity = identity(&ci, &all_flags);
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
        ..identity
    }
}

/// The testbed identity's fields that /proc and the CPU give (the rest of
/// [`capture`] fills the others), with its fingerprint left for the
/// caller to take once everything is in ([`ango_core::testbed`]).
fn identity(ci: &str, all_flags: &[String]) -> EnvInfo {
    let number = |key: &str| {
        cpuinfo_field(ci, key).and_then(|v| match v.strip_prefix("0x") {
            Some(h) => u32::from_str_radix(h, 16).ok(),
            None => v.parse().ok(),
        })
    };
    let arm = cpuinfo_field(ci, "CPU implementer").is_some();
    let (family, model, stepping) = if arm {
        (
            number("CPU implementer"),
            number("CPU part"),
            number("CPU revision"),
        )
    } else {
        (number("cpu family"), number("model"), number("stepping"))
    };
    let processors: Vec<&str> = ci
        .split("\n\n")
        .filter(|b| b.contains("processor"))
        .collect();
    let mut cores: Vec<(String, String)> = processors
        .iter()
        .filter_map(|b| {
            Some((
                cpuinfo_field(b, "physical id")?,
                cpuinfo_field(b, "core id")?,
            ))
        })
        .collect();
    cores.sort();
    cores.dedup();
    let memory_bytes = fs::read_to_string("/proc/meminfo").ok().and_then(|m| {
        let kib: u64 = cpuinfo_field(&m, "MemTotal")?
            .trim_end_matches("kB")
            .trim()
            .parse()
            .ok()?;
        Some(kib * 1024)
    });
    EnvInfo {
        arch: std::env::consts::ARCH.into(),
        cpu_family: family,
        cpu_model_number: model,
        cpu_stepping: stepping,
        microcode: cpuinfo_field(ci, "microcode"),
        cores: if cores.is_empty() {
            processors.len()
        } else {
            cores.len()
        },
        threads: processors.len(),
        memory_bytes,
        virtualization: virtualization(all_flags.iter().any(|f| f == "hypervisor")),
        ..Default::default()
    }
}

/// The hypervisor as the CPU names it in CPUID leaf 0x40000000, `none`
/// without the hypervisor flag, `unknown` where it cannot be read.
fn virtualization(hypervisor_flag: bool) -> String {
    if !hypervisor_flag {
        return if cfg!(target_arch = "x86_64") {
            "none".into()
        } else {
            "unknown".into()
        };
    }
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: CPUID is present on every x86_64 CPU; leaf 0x40000000 is
        // reserved for the hypervisor, which the flag says there is.
        // (Safe to call from Rust 1.94 on; unsafe before.)
        #[allow(unused_unsafe)]
        let r = unsafe { std::arch::x86_64::__cpuid(0x4000_0000) };
        let mut sig = Vec::with_capacity(12);
        for w in [r.ebx, r.ecx, r.edx] {
            sig.extend_from_slice(&w.to_le_bytes());
        }
        let sig = String::from_utf8_lossy(&sig);
        let sig = sig.trim_matches(|c: char| c == '\0' || c.is_whitespace());
        let name = match sig {
            "KVMKVMKVM" => "kvm",
            "Microsoft Hv" => "hyperv",
            "VMwareVMware" => "vmware",
            "XenVMMXenVMM" => "xen",
            "TCGTCGTCGTCG" => "qemu-tcg",
            "bhyve bhyve" => "bhyve",
            "ACRNACRNACRN" => "acrn",
            "QNXQVMBSQG" => "qnx",
            "lrpepyh  vr" | "prl hyperv" => "parallels",
            "VBoxVBoxVBox" => "virtualbox",
            "" => "unknown",
            other => return format!("other ({other})"),
        };
        name.into()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        "unknown".into()
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
            assert!(e.cpu_family.is_some() && e.cpu_model_number.is_some());
            assert!(!e.virtualization.is_empty());
        }
        assert_eq!(e.arch, std::env::consts::ARCH);
        assert!(e.threads >= e.logical_cpus && e.cores >= 1, "{e:?}");
        assert!(e.memory_bytes.unwrap() > 1 << 28);
    }
}
