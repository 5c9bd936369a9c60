//! The results directory: `results.jsonl` (one record per line, appended the
//! moment a point is measured), `samples.jsonl`, `kat.jsonl`, `env.json`,
//! `report.html`.
//!
//! Each line is written with a single `write` on a file opened for append, so
//! an interrupted run leaves only whole lines; a reader still ignores a last
//! line without its newline, should a crash ever cut one.

use crate::error::{Error, Result};
use serde::{de::DeserializeOwned, Serialize};
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

pub const RESULTS: &str = "results.jsonl";
pub const SAMPLES: &str = "samples.jsonl";
pub const KAT: &str = "kat.jsonl";
pub const ENV: &str = "env.json";
pub const REPORT: &str = "report.html";
/// One [`crate::Finding`] per line, rewritten with the report.
pub const FINDINGS: &str = "findings.jsonl";
pub const EVENTS: &str = "events.jsonl";
/// Every kept per-call time of the public-key study, one line per point.
pub const PK_SAMPLES: &str = "pk-samples.jsonl";
/// Per-handshake times of the TLS lab, one line per combination.
pub const TLS_HANDSHAKES: &str = "tls-handshakes.jsonl";
/// Every handshake's full timeline, one line per handshake.
pub const TLS_TIMELINES: &str = "tls-timelines.jsonl";
/// Every file a run writes at the top of its directory: one of them
/// present means the directory holds a run.
pub const RUN_FILES: &[&str] = &[
    RESULTS,
    SAMPLES,
    KAT,
    ENV,
    REPORT,
    FINDINGS,
    EVENTS,
    PK_SAMPLES,
    TLS_HANDSHAKES,
    TLS_TIMELINES,
];

pub struct ResultsDir {
    pub path: PathBuf,
}

impl ResultsDir {
    /// Create `base/<date>-<host>/` (or `-2`, `-3`, ... if taken).
    pub fn create_default(base: &Path, date: &str, host: &str) -> Result<ResultsDir> {
        let stem = format!("{date}-{host}");
        for i in 1..1000 {
            let name = if i == 1 {
                stem.clone()
            } else {
                format!("{stem}-{i}")
            };
            let p = base.join(&name);
            if !p.exists() {
                return ResultsDir::create_at(&p);
            }
        }
        Err(Error::usage(format!(
            "too many result directories named {stem}-N in {}",
            base.display()
        )))
    }

    /// A new results directory at `path` (`--out`): created if missing; an
    /// existing empty directory, or one without any of ango's files, is
    /// used. A directory that already holds a run's files is refused — a
    /// run never writes into another run's files.
    pub fn create_new(path: &Path) -> Result<ResultsDir> {
        if path.exists() && !path.is_dir() {
            return Err(Error::usage(format!(
                "--out {}: exists and is not a directory; give a new directory",
                path.display()
            )));
        }
        let theirs: Vec<&str> = RUN_FILES
            .iter()
            .copied()
            .filter(|f| path.join(f).exists())
            .collect();
        if !theirs.is_empty() {
            return Err(Error::usage(format!(
                "--out {}: already holds another run's results ({}); a run never writes into \
                 another run's files: give a new directory, or leave out --out for \
                 ango-results/<date>-<host>[-N]",
                path.display(),
                theirs.join(", ")
            )));
        }
        ResultsDir::create_at(path)
    }

    /// Use `path` (created if missing). An existing `results.jsonl` there is
    /// appended to, never truncated.
    pub fn create_at(path: &Path) -> Result<ResultsDir> {
        fs::create_dir_all(path)
            .map_err(|e| Error::io(format!("cannot create {}", path.display()), e))?;
        Ok(ResultsDir {
            path: path.to_path_buf(),
        })
    }

    /// Open an existing directory for reading.
    pub fn open(path: &Path) -> Result<ResultsDir> {
        if !path.join(RESULTS).is_file() {
            return Err(Error::data(
                path.display(),
                format!("not a results directory (no readable {RESULTS}); give a directory made by `ango run` or `ango speed --out`"),
            ));
        }
        Ok(ResultsDir {
            path: path.to_path_buf(),
        })
    }

    /// Append one JSON line to `file` with a single write.
    pub fn append<T: Serialize>(&self, file: &str, value: &T) -> Result<()> {
        let mut line = serde_json::to_string(value).map_err(|e| Error::data(file, e))?;
        line.push('\n');
        let p = self.path.join(file);
        let mut f: File = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&p)
            .map_err(|e| Error::io(format!("cannot open {}", p.display()), e))?;
        f.write_all(line.as_bytes())
            .map_err(|e| Error::io(format!("cannot write {}", p.display()), e))
    }

    pub fn write_json<T: Serialize>(&self, file: &str, value: &T) -> Result<()> {
        let text = serde_json::to_string_pretty(value).map_err(|e| Error::data(file, e))?;
        self.write_text(file, &text)
    }

    /// Write a whole file atomically (temp file + rename).
    pub fn write_text(&self, file: &str, text: &str) -> Result<()> {
        let p = self.path.join(file);
        let tmp = self.path.join(format!(".{file}.tmp"));
        fs::write(&tmp, text)
            .map_err(|e| Error::io(format!("cannot write {}", tmp.display()), e))?;
        fs::rename(&tmp, &p).map_err(|e| Error::io(format!("cannot write {}", p.display()), e))
    }

    /// Read every complete line of `file` as `T`.
    pub fn read_lines<T: DeserializeOwned>(&self, file: &str) -> Result<JsonLines<T>> {
        read_jsonl(&self.path.join(file))
    }

    pub fn read_json<T: DeserializeOwned>(&self, file: &str) -> Result<Option<T>> {
        let p = self.path.join(file);
        match fs::read_to_string(&p) {
            Ok(s) => serde_json::from_str(&s)
                .map(Some)
                .map_err(|e| Error::data(p.display(), e)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(Error::io(format!("cannot read {}", p.display()), e)),
        }
    }
}

/// Parsed lines, with what had to be left out.
#[derive(Debug)]
pub struct JsonLines<T> {
    pub items: Vec<T>,
    /// A trailing line without a newline (a write cut short).
    pub partial_tail: bool,
    /// Complete lines that did not parse, by line number.
    pub bad_lines: Vec<usize>,
}

pub fn read_jsonl<T: DeserializeOwned>(path: &Path) -> Result<JsonLines<T>> {
    let text = match fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(Error::io(format!("cannot read {}", path.display()), e)),
    };
    let partial_tail = !text.is_empty() && !text.ends_with('\n');
    let mut items = Vec::new();
    let mut bad_lines = Vec::new();
    let complete: Vec<&str> = text
        .split_inclusive('\n')
        .filter(|l| l.ends_with('\n'))
        .collect();
    for (i, l) in complete.iter().enumerate() {
        let l = l.trim();
        if l.is_empty() {
            continue;
        }
        match serde_json::from_str(l) {
            Ok(v) => items.push(v),
            Err(_) => bad_lines.push(i + 1),
        }
    }
    Ok(JsonLines {
        items,
        partial_tail,
        bad_lines,
    })
}

/// Seconds since the epoch as RFC 3339 UTC, and the date alone.
pub fn utc_now() -> (String, String) {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    utc(secs)
}

/// Format epoch seconds as ("YYYY-MM-DDTHH:MM:SSZ", "YYYY-MM-DD").
pub fn utc(secs: u64) -> (String, String) {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    let date = format!("{y:04}-{m:02}-{d:02}");
    let ts = format!(
        "{date}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    );
    (ts, date)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_known_dates() {
        assert_eq!(utc(0).0, "1970-01-01T00:00:00Z");
        assert_eq!(utc(951_782_400).1, "2000-02-29");
        assert_eq!(utc(1_795_312_496).0, "2026-11-22T01:54:56Z");
    }

    #[test]
    fn partial_tail_and_bad_lines_are_left_out() {
        let dir = std::env::temp_dir().join(format!("ango-jsonl-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let p = dir.join("x.jsonl");
        fs::write(&p, "{\"a\":1}\nnot json\n{\"a\":2}\n{\"a\":").unwrap();
        let r: JsonLines<serde_json::Value> = read_jsonl(&p).unwrap();
        assert_eq!(r.items.len(), 2);
        assert!(r.partial_tail);
        assert_eq!(r.bad_lines, vec![2]);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn default_dir_gets_a_suffix_when_taken() {
        let base = std::env::temp_dir().join(format!("ango-rd-{}", std::process::id()));
        let a = ResultsDir::create_default(&base, "2026-01-01", "h").unwrap();
        let b = ResultsDir::create_default(&base, "2026-01-01", "h").unwrap();
        assert!(a.path.ends_with("2026-01-01-h"));
        assert!(b.path.ends_with("2026-01-01-h-2"));
        fs::remove_dir_all(&base).unwrap();
    }
}
