//! Value parsers for the options: lists, sizes and ranges, numbers, --multi and --cpu; each refusal one line naming the valid choices.

use super::*;

pub(crate) fn list<'a>(s: &'a str, flag: &str, valid: &str) -> Result<Vec<&'a str>> {
    ango_core::algo::list_items(s, flag, valid)
}

/// Sizes: "16,64,256" or "START:END:STEP" (inclusive), each 1..=256 MiB.
pub fn parse_sizes(s: &str) -> Result<Vec<usize>> {
    parse_sizes_from(s, 1)
}

/// Sizes of at least `min` bytes (the latency study allows 0).
pub fn parse_sizes_from(s: &str, min: i128) -> Result<Vec<usize>> {
    const MAX: usize = 256 << 20;
    const MAX_SIZES: usize = 65_536;
    let what_ok = if min == 0 {
        "byte counts from 0"
    } else {
        "positive byte counts"
    };
    let bad = |what: &str| {
        Error::usage(format!(
            "invalid --sizes '{s}': {what}; give {what_ok} up to {MAX}, e.g. 16,64,1024 or 16:4096:16"
        ))
    };
    let one = |x: &str| -> Result<usize> {
        let v: i128 = x
            .trim()
            .parse()
            .map_err(|_| bad(&format!("'{x}' is not a number")))?;
        if v < min || v > MAX as i128 {
            return Err(bad(&format!("{v} is out of range")));
        }
        Ok(v as usize)
    };
    let mut v = Vec::new();
    if s.contains(':') {
        let p: Vec<&str> = s.split(':').collect();
        if p.len() != 3 {
            return Err(bad("a range is START:END:STEP"));
        }
        if p[2].trim().parse::<i128>() == Ok(0) {
            return Err(bad("STEP is 0"));
        }
        let (a, b, st) = (one(p[0])?, one(p[1])?, one(p[2])?);
        if a > b {
            return Err(bad("START is above END"));
        }
        if (b - a) / st >= MAX_SIZES {
            return Err(bad(&format!(
                "{} sizes; at most {MAX_SIZES} per run",
                (b - a) / st + 1
            )));
        }
        let mut x = a;
        while x <= b {
            v.push(x);
            x += st;
        }
    } else {
        let items = s.split(',').map(str::trim);
        for x in items {
            if x.is_empty() {
                return Err(bad("an empty item in the list"));
            }
            v.push(one(x)?);
        }
    }
    if v.is_empty() {
        return Err(bad("no sizes"));
    }
    v.sort();
    v.dedup();
    Ok(v)
}

pub(crate) fn parse_num<T: std::str::FromStr + PartialOrd + std::fmt::Display + Copy>(
    flag: &str,
    s: &str,
    lo: T,
    hi: T,
) -> Result<T> {
    let v: T = s.trim().parse().map_err(|_| {
        Error::usage(format!(
            "invalid {flag} '{s}'; give a number from {lo} to {hi}"
        ))
    })?;
    if !(v >= lo && v <= hi) {
        return Err(Error::usage(format!(
            "invalid {flag} '{s}'; give a number from {lo} to {hi}"
        )));
    }
    Ok(v)
}

/// `--cpu N`: one of the CPUs this process may run on.
/// `--multi [N]`: the first N CPUs this process may run on (all of them
/// without a number).
pub fn parse_multi(s: &str, cpu: Option<&str>) -> Result<Vec<usize>> {
    let allowed = ango_harness::affinity::allowed_cpus();
    if cpu.is_some() {
        return Err(Error::usage(
            "--multi and --cpu exclude each other: --multi pins each worker to its own CPU",
        ));
    }
    if allowed.is_empty() {
        return Err(Error::usage(
            "--multi needs the CPUs this process may run on, which this system does not tell",
        ));
    }
    let list = allowed
        .iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let n = match s.trim() {
        "all" => allowed.len(),
        t => t
            .parse::<usize>()
            .ok()
            .filter(|n| (1..=allowed.len()).contains(n))
            .ok_or_else(|| {
                Error::usage(format!(
                    "invalid --multi '{s}'; valid: 1 to {} (one worker per CPU this process may \
                     run on: {list}), or no number for all",
                    allowed.len()
                ))
            })?,
    };
    Ok(allowed[..n].to_vec())
}

pub fn parse_cpu(s: &str) -> Result<usize> {
    let allowed = ango_harness::affinity::allowed_cpus();
    let list = allowed
        .iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    s.trim()
        .parse::<usize>()
        .ok()
        .filter(|c| allowed.contains(c))
        .ok_or_else(|| Error::usage(format!("invalid --cpu '{s}'; valid: {list}")))
}
