//! `ango tls-records`: seed 004's record overhead — the wire bytes of one
//! application record per TLS 1.2 and TLS 1.3 cipher suite and plaintext
//! length, read from the captured connection.

use crate::args::{parse_sizes, TlsRecordsArgs};
use crate::driver::{execute, Job, Out};
use ango_core::{Error, Result};
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
    let spec = a.spec(&run_id)?;
    let format = ango_report::export::Format::parse(&a.format)?;
    let job = Job::new(run_id, Out::given(&a.out), vec![Box::new(spec)], format);
    Ok(execute(job)?.code)
}
