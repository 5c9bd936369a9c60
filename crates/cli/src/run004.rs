//! `ango run`'s seed 004 pass: the record overhead (`tls-records`), the
//! bulk throughput with and without AES instructions (`tls --bulk`) and the
//! negotiation matrix (`tls-policy`) priced by that bulk measurement, each
//! record appended to the run's directory as it is made.

use ango_core::results::{ResultsDir, RESULTS};
use ango_core::{Result, SuiteOffer, TlsBulkRecord, TlsPolicyRecord, TlsRecordsRecord};
use ango_tls::{bulk, policy, records};
use std::time::Instant;

#[derive(Default)]
pub struct Seed004 {
    pub records: Vec<TlsRecordsRecord>,
    pub bulk: Vec<TlsBulkRecord>,
    pub policy: Vec<TlsPolicyRecord>,
    pub offers: Vec<SuiteOffer>,
    pub notes: Vec<String>,
    pub interrupted: bool,
    /// (suite, seconds) of each part that ran.
    pub seconds: Vec<(String, f64)>,
}

/// Which parts to run.
pub struct Parts {
    pub records: bool,
    pub bulk: bool,
    pub policy: bool,
}

/// Bytes and repeats of the run's bulk measurement (`--quick`: fewer).
fn bulk_size(quick: bool) -> (&'static str, &'static str) {
    if quick {
        ("4MiB", "1")
    } else {
        ("16MiB", "3")
    }
}

pub fn run(run_id: &str, dir: Option<&ResultsDir>, quick: bool, parts: &Parts) -> Result<Seed004> {
    let stop = || ango_harness::measure::stop_requested();
    let root = ango_tls::lab::is_root();
    let mut out = Seed004::default();
    if parts.records && !stop() {
        let since = Instant::now();
        let mut spec = crate::args::TlsRecordsArgs {
            format: "table".into(),
            ..Default::default()
        }
        .spec(run_id)?;
        spec.capture_dir = dir.map(|d| d.path.join(records::CAPTURE_DIR));
        esay!(
            "ango: seed 004's record overhead, {} suites × {} sizes ({})",
            spec.suites.len(),
            spec.sizes.len(),
            if root {
                "captured on lo"
            } else {
                "through a recording relay: not root"
            }
        );
        out.interrupted = records::run(&spec, &stop, &mut |r| {
            append(dir, &r)?;
            out.records.push(r);
            Ok(())
        })?;
        out.offers = records::chacha_offers();
        out.seconds
            .push(("tls-records".into(), since.elapsed().as_secs_f64()));
    }
    if (parts.bulk || parts.policy) && !out.interrupted && !stop() {
        let since = Instant::now();
        let (bytes, repeats) = bulk_size(quick);
        let spec = crate::args::TlsArgs {
            bulk: Some(bytes.into()),
            repeats: Some(repeats.into()),
            loopback: !root,
            format: "table".into(),
            pcap_handshakes: "20".into(),
            emulator: "auto".into(),
            ..Default::default()
        }
        .bulk_spec(run_id)?;
        esay!(
            "ango: seed 004's bulk throughput, {} suites × client hw on, off; {bytes} × {repeats} \
             per point ({})",
            spec.suites.len(),
            if root {
                "two namespaces on a veth pair"
            } else {
                "127.0.0.1: not root"
            }
        );
        let mut notes = Vec::new();
        let r = bulk::run(
            &spec,
            &stop,
            &mut |r| {
                append(dir, &r)?;
                esay!(
                    "ango: TLS {} {} client hw {}: {:.0} MB/s, client {:.3} ns/B",
                    r.tls_version,
                    r.cipher_suite,
                    r.client_hw,
                    r.bytes_per_second / 1e6,
                    r.client_cpu_ns_per_byte
                );
                out.bulk.push(r);
                Ok(())
            },
            &mut |n| notes.push(n),
        );
        out.notes.extend(notes);
        match r {
            Ok(i) => out.interrupted = i,
            // The rest of the run goes on; the report says what stopped.
            Err(e) => out
                .notes
                .push(format!("seed 004's bulk measurement stopped: {e}")),
        }
        out.seconds
            .push(("tls-bulk".into(), since.elapsed().as_secs_f64()));
    }
    if parts.policy && !out.interrupted && !stop() {
        let since = Instant::now();
        let spec = policy::PolicySpec {
            run_id: run_id.into(),
            versions: vec!["1.2", "1.3"],
            profiles: policy::PROFILES.to_vec(),
            policies: policy::POLICIES.to_vec(),
        };
        esay!(
            "ango: seed 004's negotiation matrix, {} clients × {} servers × TLS 1.2, 1.3",
            spec.profiles.len(),
            spec.policies.len()
        );
        let (mut rs, interrupted) = policy::run(&spec, &stop)?;
        if !out.bulk.is_empty() {
            let (bytes, repeats) = bulk_size(quick);
            let source = format!("the tls-bulk records of this run ({bytes} × {repeats})");
            policy::with_costs(&mut rs, &out.bulk, &source);
        }
        for r in &rs {
            append(dir, r)?;
        }
        out.policy = rs;
        out.interrupted = interrupted;
        out.seconds
            .push(("tls-policy".into(), since.elapsed().as_secs_f64()));
    }
    Ok(out)
}

/// Append one record to the run's `results.jsonl`, if it has a directory.
fn append<T: serde::Serialize>(dir: Option<&ResultsDir>, r: &T) -> Result<()> {
    match dir {
        Some(d) => d.append(RESULTS, r),
        None => Ok(()),
    }
}
