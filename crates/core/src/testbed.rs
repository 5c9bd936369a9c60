//! A testbed: the machine and configuration a run measured on, and the
//! stable fingerprint that tells runs of one testbed from another's.
//!
//! The fingerprint covers what changes a measurement: the architecture,
//! the CPU (vendor, family, model, stepping, model name and microcode),
//! the feature flags ango's dispatch reads, the cores and memory, the
//! hypervisor, the frequency governor and the turbo state. It leaves out
//! the host name (CI runners of one type are one testbed) and the kernel
//! release (a runner's kernel updates every few weeks, and a fingerprint
//! that followed it would cut its history there); `ango check` says when
//! the two sides of a comparison ran on different kernels.

use crate::record::EnvInfo;
use serde::Serialize;
use sha2::{Digest, Sha256};

/// The fields of env.json a testbed's fingerprint is taken over, in the
/// order they are hashed (as this struct's JSON).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Identity {
    pub arch: String,
    pub cpu_vendor: String,
    pub cpu_family: Option<u32>,
    pub cpu_model_number: Option<u32>,
    pub cpu_stepping: Option<u32>,
    pub cpu_model: String,
    pub microcode: Option<String>,
    pub dispatch_flags: Vec<String>,
    pub cores: usize,
    pub threads: usize,
    /// MemTotal rounded to the nearest GiB: the kernel's reservations
    /// move MemTotal by a few MiB from boot to boot.
    pub memory_gib: Option<u64>,
    pub virtualization: String,
    pub frequency_governor: Option<String>,
    pub boost: Option<String>,
}

impl Identity {
    pub fn of(e: &EnvInfo) -> Identity {
        let mut dispatch_flags = e.crypto_flags.clone();
        dispatch_flags.sort();
        Identity {
            arch: e.arch.clone(),
            cpu_vendor: e.cpu_vendor.clone(),
            cpu_family: e.cpu_family,
            cpu_model_number: e.cpu_model_number,
            cpu_stepping: e.cpu_stepping,
            cpu_model: e.cpu_model.clone(),
            microcode: e.microcode.clone(),
            dispatch_flags,
            cores: e.cores,
            threads: e.threads,
            memory_gib: e.memory_bytes.map(|b| (b + (1 << 29)) >> 30),
            virtualization: e.virtualization.clone(),
            frequency_governor: e.frequency_governor.clone(),
            boost: e.boost.clone(),
        }
    }

    /// 16 hex digits of the SHA-256 of this identity's JSON.
    pub fn fingerprint(&self) -> String {
        let json = serde_json::to_string(self).expect("an identity serialises");
        let digest = Sha256::digest(json.as_bytes());
        hex::encode(&digest[..8])
    }
}

/// The run's testbed: its env.json's `testbed`, or for a run written
/// before the field, the fingerprint of what its env.json has.
pub fn testbed_of(e: &EnvInfo) -> String {
    if e.testbed.is_empty() {
        Identity::of(e).fingerprint()
    } else {
        e.testbed.clone()
    }
}

/// A short description for tables: the CPU model name, its
/// family/model/stepping, cores and hypervisor.
pub fn describe(e: &EnvInfo) -> String {
    let mut s = e.cpu_model.clone();
    if let (Some(f), Some(m), Some(st)) = (e.cpu_family, e.cpu_model_number, e.cpu_stepping) {
        s.push_str(&format!(" ({f}/{m}/{st})"));
    }
    if e.cores > 0 {
        s.push_str(&format!(", {} cores", e.cores));
    }
    if !e.virtualization.is_empty() && e.virtualization != "none" {
        s.push_str(&format!(", {}", e.virtualization));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env() -> EnvInfo {
        EnvInfo {
            arch: "x86_64".into(),
            cpu_vendor: "AuthenticAMD".into(),
            cpu_family: Some(25),
            cpu_model_number: Some(17),
            cpu_stepping: Some(1),
            cpu_model: "AMD EPYC".into(),
            microcode: Some("0x1000065".into()),
            crypto_flags: vec!["aes".into(), "avx2".into()],
            cores: 2,
            threads: 2,
            memory_bytes: Some(24 * (1 << 30) - 300 * (1 << 20)),
            virtualization: "kvm".into(),
            kernel: "6.1.0".into(),
            hostname: "a".into(),
            ..Default::default()
        }
    }

    #[test]
    fn the_fingerprint_follows_the_hardware_and_not_the_host_or_kernel() {
        let a = env();
        let fp = Identity::of(&a).fingerprint();
        assert_eq!(fp.len(), 16);
        assert!(fp.chars().all(|c| c.is_ascii_hexdigit()));
        // Another host name, kernel, or a few MiB of MemTotal: the same testbed.
        let mut b = a.clone();
        b.hostname = "b".into();
        b.kernel = "6.12.0".into();
        b.memory_bytes = Some(24 * (1 << 30) - 310 * (1 << 20));
        b.crypto_flags = vec!["avx2".into(), "aes".into()];
        assert_eq!(Identity::of(&b).fingerprint(), fp);
        // Another microcode, stepping, flag set or hypervisor: another one.
        for change in [
            |e: &mut EnvInfo| e.microcode = Some("0x1000066".into()),
            |e: &mut EnvInfo| e.cpu_stepping = Some(2),
            |e: &mut EnvInfo| e.crypto_flags.push("vaes".into()),
            |e: &mut EnvInfo| e.virtualization = "none".into(),
            |e: &mut EnvInfo| e.boost = Some("0".into()),
        ] {
            let mut c = a.clone();
            change(&mut c);
            assert_ne!(Identity::of(&c).fingerprint(), fp, "{c:?}");
        }
        // A recorded fingerprint is taken as written.
        let mut d = a.clone();
        d.testbed = "0123456789abcdef".into();
        assert_eq!(testbed_of(&d), "0123456789abcdef");
        assert_eq!(testbed_of(&a), fp);
        assert_eq!(describe(&a), "AMD EPYC (25/17/1), 2 cores, kvm");
    }
}
