//! `ango ct`: the constant-time suite ([`ango_study::ct_pass::CtPass`])
//! through the one driver.

use crate::args::CtArgs;
use crate::driver::{execute, new_run_id, Job, Out};
use ango_core::Result;
use ango_report::export::Format;
use ango_study::ct_pass::{CtPass, MEASUREMENTS};

pub(crate) fn ct_cmd(a: &CtArgs) -> Result<i32> {
    let format = Format::parse(&a.format)?;
    let targets = ango_study::ct::select(ango_study::ct::targets(), a.impl_.as_deref())?;
    let pass = CtPass {
        targets,
        measurements: MEASUREMENTS[usize::from(a.quick)],
        memcheck: true,
    };
    Ok(execute(Job::new(
        new_run_id(),
        Out::given(&a.out),
        vec![Box::new(pass)],
        format,
    ))?
    .code)
}
