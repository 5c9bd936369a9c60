//! `ango tls-records`: seed 004's record overhead — the wire bytes of one
//! application record per TLS 1.2 and TLS 1.3 cipher suite and plaintext
//! length, read from the captured connection.

use crate::args::{parse_sizes, TlsRecordsArgs};
use ango_core::results::RESULTS;
use ango_core::{Error, Result, TlsRecordsRecord};
use ango_tls::records::{self, RecordsSpec};

/// The largest plaintext one TLS record carries (RFC 8446 §5.1, RFC 5246
/// §6.2.1).
const MAX_RECORD: usize = 1 << 14;

impl TlsRecordsArgs {
    /// Check every option; nothing is written before this succeeds.
    pub fn spec(&self, run_id: &str) -> Result<RecordsSpec> {
        let suites = records::select(self.suite.as_deref())?;
        let sizes: Vec<u64> = match &self.sizes {
            None => records::SIZES.to_vec(),
            Some(s) => {
                let v = parse_sizes(s)?;
                if let Some(big) = v.iter().find(|&&n| n > MAX_RECORD) {
                    return Err(Error::usage(format!(
                        "invalid --sizes '{s}': {big} bytes do not fit one record; give 1 to \
                         {MAX_RECORD} bytes, e.g. 1,16,256,1024,16384"
                    )));
                }
                v.into_iter().map(|n| n as u64).collect()
            }
        };
        ango_report::export::Format::parse(&self.format)?;
        Ok(RecordsSpec {
            run_id: run_id.into(),
            suites,
            sizes,
            capture_dir: None,
        })
    }
}

pub fn tls_records_cmd(a: &TlsRecordsArgs) -> Result<i32> {
    let run_id = crate::driver::new_run_id();
    let mut spec = a.spec(&run_id)?;
    use ango_report::export::Format;
    let format = Format::parse(&a.format)?;
    let json = format == Format::Json;
    let (dir, env) = crate::driver::start_run(&a.out, &run_id)?;
    if let Some(d) = &dir {
        spec.capture_dir = Some(d.path.join(records::CAPTURE_DIR));
    }
    let mut out: Vec<TlsRecordsRecord> = Vec::new();
    let interrupted = records::run(
        &spec,
        &|| ango_harness::measure::stop_requested(),
        &mut |r| {
            if let Some(d) = &dir {
                d.append(RESULTS, &r)?;
            }
            if !json {
                esay!(
                    "ango: TLS {} {}: {} bytes → {} on the wire",
                    r.tls_version,
                    r.cipher_suite,
                    r.plaintext_bytes,
                    r.wire_bytes
                );
            }
            out.push(r);
            Ok(())
        },
    )?;
    let offers = records::chacha_offers();
    let data = ango_report::data::ReportData {
        env: Some(env),
        records: ango_core::Records {
            tls_records: out.clone(),
            ..Default::default()
        },
        suite_offers: offers.clone(),
        notes: crate::driver::interrupted_notes(interrupted),
        ..Default::default()
    };
    if let Some(d) = &dir {
        crate::driver::write_presentation(d, &data)?;
    }
    if !json && format != Format::Table {
        crate::driver::print_exported(&data, format);
    } else if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&out).expect("records serialise")
        );
    } else {
        print!("{}", ango_report::tls_records::text(&out, &offers));
    }
    Ok(crate::driver::interrupted_exit(interrupted, out.len(), "points measured").unwrap_or(0))
}
