//! Seed 004's suites behind the one [`Suite`] interface: the record
//! overhead (`tls-records`), the bulk throughput with and without AES
//! instructions (`tls-bulk`) and the negotiation matrix (`tls-policy`),
//! priced by a bulk measurement of the same run or of another.

use crate::{Context, Suite};
use ango_core::{Result, SuiteId, TlsBulkRecord};
use ango_tls::bulk::{self, BulkSpec};
use ango_tls::policy::{self, PolicySpec};
use ango_tls::records::{self, RecordsSpec};
use ango_tls::rustls_stack::{self, Stack};

impl Suite for RecordsSpec {
    fn id(&self) -> SuiteId {
        records::SUITE
    }
    fn points(&self) -> Result<usize> {
        Ok(self.suites.len() * self.sizes.len())
    }
    fn verifies(&self) -> &'static str {
        "that each record decrypts to what was sent, with the suite asked for"
    }
    fn run(&self, cx: &mut Context) -> Result<bool> {
        let mut spec = self.clone();
        // The captures go with the run's other files.
        spec.capture_dir = cx.dir.map(|d| d.join(records::CAPTURE_DIR));
        cx.say(format!(
            "ango: seed 004's record overhead, {} suites × {} sizes ({})",
            spec.suites.len(),
            spec.sizes.len(),
            if ango_tls::lab::is_root() {
                "captured on lo"
            } else {
                "through a recording relay: not root"
            }
        ))?;
        let stop = cx.stop;
        records::run(
            &spec,
            &|| stop.load(std::sync::atomic::Ordering::SeqCst),
            &mut |r| {
                let line = format!(
                    "TLS {} {}: {} bytes → {} on the wire",
                    r.tls_version, r.cipher_suite, r.plaintext_bytes, r.wire_bytes
                );
                cx.record(r, line)
            },
        )
    }
}

/// Whether rustls is on either side of a pairing (it has no CCM suites).
fn with_rustls(c: Stack, s: Stack) -> bool {
    c == Stack::Rustls || s == Stack::Rustls
}

impl Suite for BulkSpec {
    fn id(&self) -> SuiteId {
        bulk::SUITE
    }
    fn points(&self) -> Result<usize> {
        let mut n = 0;
        for &s in &self.server_stacks {
            for &c in &self.client_stacks {
                let suites = self
                    .suites
                    .iter()
                    .filter(|x| !with_rustls(c, s) || rustls_stack::suite(x.code).is_some())
                    .count();
                n += suites * self.server_hw.len() * self.client_hw.len();
            }
        }
        Ok(n)
    }
    fn verifies(&self) -> &'static str {
        "that the suite asked for was negotiated and every byte arrived intact"
    }
    fn run(&self, cx: &mut Context) -> Result<bool> {
        let hw = |v: &[ango_core::Hw]| v.iter().map(|h| h.name()).collect::<Vec<_>>().join(", ");
        cx.say(format!(
            "ango: TLS bulk throughput, {} suites × client hw {} × server hw {}; {} bytes × {} \
             per point ({})",
            self.suites.len(),
            hw(&self.client_hw),
            hw(&self.server_hw),
            self.bytes,
            self.repeats,
            if self.loopback {
                "127.0.0.1"
            } else {
                "two namespaces on a veth pair"
            }
        ))?;
        let stop = cx.stop;
        let mut notes = Vec::new();
        let out = bulk::run(
            self,
            &|| stop.load(std::sync::atomic::Ordering::SeqCst),
            &mut |r| {
                let line = format!(
                    "TLS {} {} client hw {} / server hw {}: {:.0} MB/s, client {:.3} ns/B, \
                     server {:.3} ns/B",
                    r.tls_version,
                    r.cipher_suite,
                    r.client_hw,
                    r.server_hw,
                    r.bytes_per_second / 1e6,
                    r.client_cpu_ns_per_byte,
                    r.server_cpu_ns_per_byte
                );
                cx.record(r, line)
            },
            &mut |n| notes.push(n),
        );
        for n in notes {
            cx.note(bulk::SUITE, n)?;
        }
        out
    }
}

/// Where tls-policy's costs per byte come from.
pub enum Costs {
    /// The tls-bulk records an earlier suite of this run made, described.
    Earlier(String),
    /// Another run's tls-bulk records, described.
    Given(Vec<TlsBulkRecord>, String),
    /// None: the matrix alone.
    None,
}

/// The negotiation matrix and where its costs come from.
pub struct PolicySuite {
    pub spec: PolicySpec,
    pub costs: Costs,
}

impl Suite for PolicySuite {
    fn id(&self) -> SuiteId {
        policy::SUITE
    }
    fn points(&self) -> Result<usize> {
        Ok(self.spec.versions.len() * self.spec.profiles.len() * self.spec.policies.len())
    }
    fn verifies(&self) -> &'static str {
        "that each handshake settles on a suite both sides offer"
    }
    fn run(&self, cx: &mut Context) -> Result<bool> {
        cx.say(format!(
            "ango: seed 004's negotiation matrix, {} clients × {} servers × TLS {}",
            self.spec.profiles.len(),
            self.spec.policies.len(),
            self.spec.versions.join(", ")
        ))?;
        let stop = cx.stop;
        let (mut rs, interrupted) = policy::run(&self.spec, &|| {
            stop.load(std::sync::atomic::Ordering::SeqCst)
        })?;
        match &self.costs {
            Costs::Earlier(source) => {
                let bulk = cx.earlier().map(|e| e.tls_bulk.clone()).unwrap_or_default();
                if !bulk.is_empty() {
                    policy::with_costs(&mut rs, &bulk, source);
                }
            }
            Costs::Given(bulk, source) => policy::with_costs(&mut rs, bulk, source),
            Costs::None => {}
        }
        // The records are made whole (priced) before any is kept.
        for r in rs {
            cx.record(r, String::new())?;
        }
        Ok(interrupted)
    }
}
