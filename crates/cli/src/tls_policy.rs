//! `ango tls-policy`: seed 004 §6's negotiation matrix — which suite each
//! client profile and server policy settle on, and what it costs the
//! client per byte (from a bulk measurement in the same run, or another
//! run's).

use crate::args::{parse_num, TlsPolicyArgs};
use crate::driver::{execute, Job, Out};
use crate::tls_bulk::parse_byte_size;
use ango_core::results::ResultsDir;
use ango_core::{Error, Hw, Result, TlsBulkRecord};
use ango_study::{seed004, Suite};
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
                let bulk: Vec<TlsBulkRecord> = crate::driver::load_results(&d)?.records.tls_bulk;
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
                    first.head.run_id,
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
        ango_report::export::Format::parse(&self.format)?;
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
    let mut suites: Vec<Box<dyn Suite>> = Vec::new();
    let costs = match costs {
        // The costs first: the client's CPU per byte of each suite, over
        // 127.0.0.1, for every client profile's hardware setting.
        Costs::Measure { bytes, repeats } => {
            let mut hw: Vec<Hw> = Vec::new();
            for p in &spec.profiles {
                if !hw.contains(&p.hw) {
                    hw.push(p.hw);
                }
            }
            suites.push(Box::new(BulkSpec {
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
            }));
            seed004::Costs::Earlier(format!(
                "tls --bulk in this run ({} MiB × {repeats} over 127.0.0.1, server hw on)",
                bytes as f64 / 1048576.0
            ))
        }
        Costs::From(bulk, source) => seed004::Costs::Given(bulk, source),
        Costs::None => seed004::Costs::None,
    };
    suites.push(Box::new(seed004::PolicySuite { spec, costs }));
    // stdout shows the matrix; the bulk records behind its costs are in
    // the directory and its report.
    let job = Job {
        only: Some(policy::SUITE),
        ..Job::new(run_id, Out::given(&a.out), suites, format)
    };
    Ok(execute(job)?.code)
}
