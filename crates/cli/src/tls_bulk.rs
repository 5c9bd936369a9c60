//! `ango tls --bulk SIZE`: seed 004's bulk throughput per cipher suite, with
//! each endpoint in its own process under its own hardware setting.

use crate::args::{parse_num, TlsArgs};
use crate::driver::{execute, Job, Out};
use ango_core::{Error, Hw, Result};
use ango_tls::bulk::{self, BulkSpec};
use std::time::Duration;

/// Parse a byte count with an optional unit: 4096, 64KiB, 64MiB, 1GiB, 100MB.
pub fn parse_byte_size(flag: &str, s: &str, max: u64) -> Result<u64> {
    let bad = || {
        Error::usage(format!(
            "invalid {flag} '{s}'; give a byte count like 4096, 16MiB, 64MiB or 1GiB (B, KB, MB, \
             GB, KiB, MiB, GiB; 1 byte to {} GiB)",
            max >> 30
        ))
    };
    let t = s.trim();
    let i = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let v: f64 = t[..i].parse().map_err(|_| bad())?;
    let mult: f64 = match t[i..].trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kb" => 1e3,
        "m" | "mb" => 1e6,
        "g" | "gb" => 1e9,
        "kib" => 1024.0,
        "mib" => 1024.0 * 1024.0,
        "gib" => 1024.0 * 1024.0 * 1024.0,
        _ => return Err(bad()),
    };
    let n = v * mult;
    if !n.is_finite() || n < 1.0 || n > max as f64 || n.fract() != 0.0 {
        return Err(bad());
    }
    Ok(n as u64)
}

fn stacks(flag: &str, v: &Option<String>) -> Result<Vec<ango_tls::rustls_stack::Stack>> {
    match v {
        Some(s) => ango_tls::rustls_stack::Stack::parse_list(flag, s),
        None => Ok(vec![ango_tls::rustls_stack::Stack::OpenSsl]),
    }
}

fn parse_hw(flag: &str, s: &str) -> Result<Vec<Hw>> {
    Hw::parse_list(s).map_err(|e| Error::usage(format!("{flag}: {e}")))
}

impl TlsArgs {
    /// The flags of the handshake matrix, which bulk mode does not use.
    fn handshake_only(&self) -> Vec<&'static str> {
        let mut v = Vec::new();
        for (set, flag) in [
            (self.groups.is_some(), "--groups"),
            (self.server_sig.is_some(), "--server-sig"),
            (self.ca_sig.is_some(), "--ca-sig"),
            (self.handshakes.is_some(), "--handshakes"),
            (self.quick, "--quick"),
            (self.pcap_handshakes != "20", "--pcap-handshakes"),
        ] {
            if set {
                v.push(flag);
            }
        }
        v
    }

    /// The flags of bulk mode, which the handshake matrix does not use.
    pub fn bulk_only(&self) -> Vec<&'static str> {
        let mut v = Vec::new();
        for (set, flag) in [
            (self.suite.is_some(), "--suite"),
            (self.client_hw.is_some(), "--client-hw"),
            (self.server_hw.is_some(), "--server-hw"),
            (self.repeats.is_some(), "--repeats"),
            (self.timeout.is_some(), "--timeout"),
        ] {
            if set {
                v.push(flag);
            }
        }
        v
    }

    /// Check every bulk option; nothing is written before this succeeds.
    pub fn bulk_spec(&self, run_id: &str) -> Result<BulkSpec> {
        let size = self.bulk.as_deref().unwrap_or_default();
        let bytes = parse_byte_size("--bulk", size, bulk::MAX_BYTES)?;
        let other = self.handshake_only();
        if !other.is_empty() {
            return Err(Error::usage(format!(
                "{} belong to the handshake matrix, not to --bulk; bulk mode takes --suite, \
                 --client-hw, --server-hw, --repeats, --timeout and the link flags",
                other.join(", ")
            )));
        }
        let suites = ango_tls::records::select(self.suite.as_deref())?;
        let client_hw = parse_hw("--client-hw", self.client_hw.as_deref().unwrap_or("on,off"))?;
        let server_hw = parse_hw("--server-hw", self.server_hw.as_deref().unwrap_or("on"))?;
        if (client_hw.iter().chain(&server_hw)).any(|h| *h != Hw::On)
            && !cfg!(target_arch = "x86_64")
        {
            return Err(Error::usage(
                "--client-hw / --server-hw off and seed000 are OPENSSL_ia32cap masks, which exist \
                 on x86_64 only; valid here: on",
            ));
        }
        let repeats = match &self.repeats {
            Some(s) => parse_num("--repeats", s, 1u32, 1000)?,
            None => bulk::DEFAULT_REPEATS,
        };
        let timeout = match &self.timeout {
            Some(s) => {
                let t = s.trim().trim_end_matches('s');
                let v = parse_num("--timeout", t, 0.1f64, 3600.0).map_err(|_| {
                    Error::usage(format!(
                        "invalid --timeout '{s}'; give seconds from 0.1 to 3600, e.g. 30s"
                    ))
                })?;
                Duration::from_secs_f64(v)
            }
            None => bulk::DEFAULT_TIMEOUT,
        };
        match self.format.as_str() {
            "table" | "json" | "csv" | "md" => {}
            f => {
                return Err(Error::usage(format!(
                    "unknown format '{f}' for --bulk; valid: table, json, csv, md (the report is \
                     written with --out)"
                )))
            }
        }
        Ok(BulkSpec {
            run_id: run_id.into(),
            suites,
            bytes,
            repeats,
            client_hw,
            server_hw,
            link: self.link("0")?,
            loopback: self.loopback,
            timeout,
            client_stacks: stacks("--client-stack", &self.client_stack)?,
            server_stacks: stacks("--server-stack", &self.server_stack)?,
        })
    }
}

pub fn tls_bulk_cmd(a: &TlsArgs) -> Result<i32> {
    let run_id = crate::driver::new_run_id();
    let spec = a.bulk_spec(&run_id)?;
    let format = ango_report::export::Format::parse(&a.format)?;
    crate::driver::lab_needs_root(spec.loopback)?;
    let job = Job::new(run_id, Out::given(&a.out), vec![Box::new(spec)], format);
    Ok(execute(job)?.code)
}
