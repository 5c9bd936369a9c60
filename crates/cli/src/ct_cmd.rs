//! `ango ct`: the constant-time suite ([`ango_study::ct_pass::CtPass`])
//! through the one driver.

use crate::args::CtArgs;
use crate::sink::ParentSink;
use ango_core::Result;
use ango_report::export::{Format, Style};
use ango_study::ct_pass::{CtPass, MEASUREMENTS};
use ango_study::Suite;

pub(crate) fn ct_cmd(a: &CtArgs) -> Result<i32> {
    let format = Format::parse(&a.format)?;
    let targets = ango_study::ct::select(ango_study::ct::targets(), a.impl_.as_deref())?;
    let run_id = crate::driver::new_run_id();
    let pass = CtPass {
        targets,
        measurements: MEASUREMENTS[usize::from(a.quick)],
        memcheck: true,
    };
    let (dir, env) = crate::driver::start_run(&a.out, &run_id)?;
    let mut sink = ParentSink::new(dir, pass.points()?);
    let suites: Vec<Box<dyn Suite>> = vec![Box::new(pass)];
    let outcome = crate::driver::run_suites(&suites, &mut sink, &run_id, false)?;
    let (code, _) =
        crate::driver::finish_run(env, &sink, outcome, format, &Style::default(), None)?;
    Ok(code)
}
