//! `ango cycles`: seed 002's study — cycles per key schedule (its Table 4)
//! and per block, encryption and decryption (its Table 5), each call's
//! output the next call's input, beside the throughput per block of the
//! same implementation; the implementations' table bytes beside this CPU's
//! L1d; seed 002's findings checked here.

use crate::args::{list, parse_num, CyclesArgs};
use crate::driver::{execute, new_run_id, Job, Out};
use ango_core::algo::names;
use ango_core::{Algorithm, Error, Hw, Result};
use ango_report::export::Format;
use ango_study::cycles::{default_algorithms, CyclesSpec, Plan};

impl CyclesArgs {
    /// Check every option; nothing is written before this succeeds.
    pub fn spec(&self) -> Result<CyclesSpec> {
        let valid: Vec<&str> = Algorithm::ALL
            .iter()
            .filter(|a| a.cycles_capable())
            .map(|a| a.name())
            .collect();
        let algorithms = match &self.algo {
            None => default_algorithms(),
            Some(s) => {
                let mut v = Vec::new();
                for n in list(s, "--algo", &valid.join(", "))? {
                    let a = Algorithm::parse(n).map_err(|_| {
                        Error::usage(format!(
                            "unknown algorithm '{n}' for ango cycles; valid: {}",
                            valid.join(", ")
                        ))
                    })?;
                    if !a.cycles_capable() {
                        return Err(Error::usage(format!(
                            "ango cycles times one block of ECB or MUGI's keystream, not {a}; \
                             valid: {}",
                            valid.join(", ")
                        )));
                    }
                    if !v.contains(&a) {
                        v.push(a);
                    }
                }
                v
            }
        };
        let catalog = ango_backends::catalog();
        let providers = match &self.backend {
            None => catalog.providers.clone(),
            Some(s) => catalog.providers_named(s)?,
        };
        let impls: Vec<String> = list(
            self.impls.as_deref().unwrap_or("all"),
            "--impl",
            "all, auto, or variant names such as camellia/table64-nct (see `ango list`)",
        )?
        .into_iter()
        .map(String::from)
        .collect();
        let mut plan = if self.quick {
            Plan::quick()
        } else {
            Plan::full()
        };
        if let Some(n) = &self.iterations {
            plan.iterations = Some(parse_num("--iterations", n, 1u64, 1 << 32)?);
        }
        ango_report::export::Format::parse(&self.format)?;
        let (points, skipped) =
            ango_study::speed::resolve(catalog, &algorithms, &providers, &impls, &[Hw::On])?;
        let skips = skipped
            .iter()
            .map(|k| format!("{} {}: {}", k.backend, k.algorithm, k.reason))
            .collect();
        if points.is_empty() {
            return Err(Error::usage(format!(
                "nothing to measure for {}; see `ango list` for what runs here",
                names(algorithms.iter().map(|a| a.name()))
            )));
        }
        Ok(CyclesSpec {
            algorithms,
            entries: points.into_iter().map(|p| p.entry).collect(),
            skips,
            plan,
        })
    }
}

pub fn cycles_cmd(a: &CyclesArgs) -> Result<i32> {
    let spec = a.spec()?;
    let format = Format::parse(&a.format)?;
    let blocked = spec.not_measured();
    let job = Job::new(
        new_run_id(),
        Out::given(&a.out),
        vec![Box::new(spec)],
        format,
    );
    let code = execute(job)?.code;
    if let (Format::Table, Some(l)) = (format, blocked) {
        say!("  {l}");
    }
    Ok(code)
}
