//! `ango tls-policy`: seed 004 §6's negotiation matrix — which suite each
//! client profile and server policy settle on, and what it costs the
//! client per byte (from a bulk measurement in the same run, or another
//! run's).

use crate::args::{parse_num, TlsPolicyArgs};
use crate::tls_bulk::parse_byte_size;
use ango_core::results::{ResultsDir, RESULTS};
use ango_core::{Error, Hw, Result, TlsBulkRecord};
use ango_tls::bulk::{self, BulkSpec};
use ango_tls::policy::{self, PolicySpec, POLICIES, PROFILES};

/// Where the costs come from.
enum Costs {
    Measure { bytes: u64, repeats: u32 },
    From(Vec<TlsBulkRecord>, String),
    None,
}

impl TlsPolicyArgs {
    /// Check every option; nothing is written before this succeeds.
    fn spec(&self, run_id: &str) -> Result<(PolicySpec, Costs)> {
        let profiles = policy::select("--client", self.client.as_deref(), PROFILES, |p| p.name)?;
        let policies = policy::select("--server", self.server.as_deref(), POLICIES, |p| p.name)?;
        let versions: Vec<&'static str> = match self.tls_version.as_deref() {
            None => vec!["1.2", "1.3"],
            Some(s) => {
                let mut v = Vec::new();
                for i in ango_core::algo::list_items(s, "--tls-version", "1.2, 1.3")? {
                    let x = match i.trim() {
                        "1.2" => "1.2",
                        "1.3" => "1.3",
                        other => {
                            return Err(Error::usage(format!(
                                "unknown --tls-version '{other}'; valid: 1.2, 1.3"
                            )))
                        }
                    };
                    if !v.contains(&x) {
                        v.push(x);
                    }
                }
                v
            }
        };
        let measure_flags = self.bulk.is_some() || self.repeats.is_some();
        let costs = match (&self.costs_from, self.no_cost) {
            (Some(_), true) => {
                return Err(Error::usage(
                    "--costs-from and --no-cost contradict each other; give one",
                ))
            }
            (Some(_), false) | (None, true) if measure_flags => {
                return Err(Error::usage(
                    "--bulk and --repeats size the cost measurement; they do not go with \
                     --costs-from or --no-cost",
                ))
            }
            (Some(dir), false) => {
                let d = ResultsDir::open(dir)?;
                let lines = d.read_lines::<serde_json::Value>(RESULTS)?;
                let bulk: Vec<TlsBulkRecord> = lines
                    .items
                    .into_iter()
                    .filter(|v| v["suite"] == bulk::SUITE.as_str())
                    .filter_map(|v| serde_json::from_value(v).ok())
                    .collect();
                let Some(first) = bulk.first() else {
                    return Err(Error::usage(format!(
                        "--costs-from {}: no tls-bulk records there; give a directory written by \
                         `ango tls --bulk SIZE --out DIR` or `ango tls-policy --out DIR`",
                        dir.display()
                    )));
                };
                let source = format!(
                    "the tls-bulk records of {} (run {}, {} bytes per transfer)",
                    dir.display(),
                    first.run_id,
                    first.bytes
                );
                Costs::From(bulk, source)
            }
            (None, true) => Costs::None,
            (None, false) => Costs::Measure {
                bytes: parse_byte_size(
                    "--bulk",
                    self.bulk.as_deref().unwrap_or("16MiB"),
                    bulk::MAX_BYTES,
                )?,
                repeats: match &self.repeats {
                    Some(s) => parse_num("--repeats", s, 1u32, 1000)?,
                    None => 3,
                },
            },
        };
        match self.format.as_str() {
            "table" | "json" | "csv" | "md" => {}
            f => {
                return Err(Error::usage(format!(
                    "unknown format '{f}'; valid: table, json, csv, md (the report is written \
                     with --out)"
                )))
            }
        }
        Ok((
            PolicySpec {
                run_id: run_id.into(),
                versions,
                profiles,
                policies,
            },
            costs,
        ))
    }
}

pub fn tls_policy_cmd(a: &TlsPolicyArgs) -> Result<i32> {
    let run_id = crate::driver::new_run_id();
    let (spec, costs) = a.spec(&run_id)?;
    let format = ango_report::export::Format::parse(&a.format)?;
    let (dir, env) = crate::driver::start_run(&a.out, &run_id)?;
    let stop = || ango_harness::measure::stop_requested();
    let (mut rs, mut interrupted) = policy::run(&spec, &stop)?;
    let mut bulk_records: Vec<TlsBulkRecord> = Vec::new();
    match costs {
        Costs::Measure { bytes, repeats } if !interrupted => {
            let mut hw: Vec<Hw> = Vec::new();
            for p in &spec.profiles {
                if !hw.contains(&p.hw) {
                    hw.push(p.hw);
                }
            }
            let bspec = BulkSpec {
                run_id: run_id.clone(),
                suites: policy::cost_suites(&spec.versions),
                bytes,
                repeats,
                client_hw: hw,
                server_hw: vec![Hw::On],
                link: ango_tls::link::LinkOpts::default(),
                loopback: true,
                timeout: bulk::DEFAULT_TIMEOUT,
                client_stacks: vec![ango_tls::rustls_stack::Stack::OpenSsl],
                server_stacks: vec![ango_tls::rustls_stack::Stack::OpenSsl],
            };
            esay!(
                "ango: the costs: {} suites × client hw {} over 127.0.0.1, {} bytes × {repeats}",
                bspec.suites.len(),
                bspec
                    .client_hw
                    .iter()
                    .map(|h| h.name())
                    .collect::<Vec<_>>()
                    .join(", "),
                bytes
            );
            interrupted = bulk::run(
                &bspec,
                &stop,
                &mut |r| {
                    if let Some(d) = &dir {
                        d.append(RESULTS, &r)?;
                    }
                    bulk_records.push(r);
                    Ok(())
                },
                &mut |n| esay!("note: {n}"),
            )?;
            let source = format!(
                "tls --bulk in this run ({} MiB × {repeats} over 127.0.0.1, server hw on)",
                bytes as f64 / 1048576.0
            );
            policy::with_costs(&mut rs, &bulk_records, &source);
        }
        Costs::From(bulk, source) => policy::with_costs(&mut rs, &bulk, &source),
        _ => {}
    }
    if let Some(d) = &dir {
        for r in &rs {
            d.append(RESULTS, r)?;
        }
    }
    let data = ango_report::data::ReportData {
        env: Some(env),
        records: ango_core::Records {
            tls_policy: rs.clone(),
            tls_bulk: bulk_records,
            ..Default::default()
        },
        notes: crate::driver::interrupted_notes(interrupted),
        ..Default::default()
    };
    if let Some(d) = &dir {
        crate::driver::write_presentation(d, &data)?;
    }
    let only_policy = ango_report::data::ReportData {
        records: ango_core::Records {
            tls_policy: rs.clone(),
            ..Default::default()
        },
        ..Default::default()
    };
    print!(
        "{}",
        ango_report::suites::render(&only_policy, format, &ango_report::export::Style::default())
    );
    Ok(crate::driver::interrupted_exit(interrupted, rs.len(), "handshakes made").unwrap_or(0))
}
