//! --multi: one point measured by one worker, then by one worker on every chosen CPU at once, and the record that keeps both.

use super::*;

/// Measure one point with one worker on `cpus[0]`, then with one worker on
/// every CPU of `cpus` at once; returns (the one, the many).
pub fn measure_multi(
    b: &dyn Backend,
    a: Algorithm,
    op: Operation,
    size: usize,
    aad_len: usize,
    plan: &Plan,
    cpus: &[usize],
) -> std::result::Result<(measure::Measured, Vec<measure::Measured>), MeasureError<Error>> {
    let make = |_| prepare_point(b, a, op, size, aad_len);
    let mut one = measure::measure_workers(plan, &cpus[..1], make)?;
    let many = measure::measure_workers(plan, cpus, make)?;
    Ok((one.remove(0), many))
}

/// A worker's figure from its measurement.
fn figure(cpu: usize, m: &measure::Measured, units: f64) -> ango_core::WorkerFigure {
    let s = &m.ns;
    ango_core::WorkerFigure {
        cpu,
        median_ns: s.median,
        ci95_low_ns: s.ci95_low,
        ci95_high_ns: s.ci95_high,
        robust_cv: s.robust_cv,
        samples: s.n as u64,
        per_second: if s.median > 0.0 {
            units * 1e9 / s.median
        } else {
            0.0
        },
    }
}

/// The record of a point measured by several workers: statistics over the
/// pooled samples, the aggregate rate, every worker's figure and the
/// scaling against `one` (one worker just before).
pub(super) fn multi_record(
    spec: &SpeedSpec,
    b: &dyn Backend,
    (a, op, hw, size): (Algorithm, Operation, Hw, usize),
    kat: &str,
    cpu_view: Option<String>,
    one: &measure::Measured,
    many: &[measure::Measured],
) -> (SpeedRecord, SampleSet) {
    let pooled_ns: Vec<f64> = many
        .iter()
        .flat_map(|m| m.sample_ns.iter().copied())
        .collect();
    let pooled_cycles: Vec<f64> = many
        .iter()
        .flat_map(|m| m.sample_cycles.iter().copied())
        .collect();
    let pooled = measure::Measured {
        ns: ango_harness::Summary::of(&pooled_ns).expect("every worker took samples"),
        cycles: ango_harness::Summary::of(&pooled_cycles),
        sample_ns: pooled_ns,
        sample_cycles: pooled_cycles,
        iterations_per_sample: many[0].iterations_per_sample,
        cycle_source: many[0].cycle_source,
        timer_overhead_ns: many[0].timer_overhead_ns,
    };
    let (mut record, mut samples) = to_record(spec, b, a, op, hw, size, kat, cpu_view, &pooled);
    let units = size as f64;
    let multi = ango_core::MultiCore::from(
        figure(spec.multi[0], one, units),
        many.iter()
            .zip(&spec.multi)
            .map(|(m, &c)| figure(c, m, units))
            .collect(),
        units,
    );
    record.workers = many.len() as u32;
    record.bytes_per_second = multi.aggregate_per_second;
    record.cycles_per_byte = None;
    record.method.push_str(&format!(
        "; {} workers at once, each pinned to its own CPU ({}), sampling over the same window, \
         after one worker alone on CPU {}",
        many.len(),
        spec.multi
            .iter()
            .map(|c| c.to_string())
            .collect::<Vec<_>>()
            .join(", "),
        spec.multi[0]
    ));
    if many
        .iter()
        .any(|m| m.iterations_per_sample != many[0].iterations_per_sample)
    {
        let per: Vec<String> = many
            .iter()
            .map(|m| m.iterations_per_sample.to_string())
            .collect();
        record.warnings.push(format!(
            "iterations per sample differ by worker: {}",
            per.join(", ")
        ));
    }
    record.multi = Some(multi);
    samples.workers = record.workers;
    (record, samples)
}
