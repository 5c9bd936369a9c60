//! The store's schema, one portable text for SQLite and PostgreSQL, in
//! numbered migrations: a store records each one it has applied in
//! `migrations`, and opening a store applies the ones it lacks, in order,
//! each in its own transaction. A store written by a newer ango (a
//! migration this version does not know) is refused rather than misread.

use crate::db::{Conn, Value};
use ango_core::{Error, Result};

/// `(version, description, statements)`, in order; never edited once
/// released, only added to.
pub const MIGRATIONS: &[(i64, &str, &str)] = &[(
    1,
    "runs, testbeds, libraries, points, samples, findings",
    "
CREATE TABLE testbeds (
    testbed TEXT PRIMARY KEY,
    arch TEXT NOT NULL,
    cpu_vendor TEXT NOT NULL,
    cpu_family BIGINT,
    cpu_model_number BIGINT,
    cpu_stepping BIGINT,
    cpu_model TEXT NOT NULL,
    microcode TEXT,
    dispatch_flags TEXT NOT NULL,
    cores BIGINT NOT NULL,
    threads BIGINT NOT NULL,
    memory_bytes BIGINT,
    virtualization TEXT NOT NULL,
    frequency_governor TEXT,
    boost TEXT,
    description TEXT NOT NULL
);
CREATE TABLE runs (
    run_id TEXT PRIMARY KEY,
    content_hash TEXT NOT NULL,
    testbed TEXT NOT NULL REFERENCES testbeds (testbed),
    host TEXT NOT NULL,
    label TEXT NOT NULL,
    started TEXT NOT NULL,
    ended TEXT,
    interrupted BIGINT NOT NULL,
    kernel TEXT NOT NULL,
    os TEXT NOT NULL,
    ango_version TEXT NOT NULL,
    command TEXT NOT NULL,
    cycle_source TEXT NOT NULL,
    tsc_hz DOUBLE PRECISION,
    source TEXT NOT NULL,
    imported TEXT NOT NULL,
    points BIGINT NOT NULL,
    env TEXT NOT NULL
);
CREATE INDEX runs_by_testbed ON runs (testbed, started);
CREATE TABLE libraries (
    run_id TEXT NOT NULL REFERENCES runs (run_id),
    name TEXT NOT NULL,
    version TEXT NOT NULL,
    PRIMARY KEY (run_id, name)
);
CREATE TABLE points (
    run_id TEXT NOT NULL REFERENCES runs (run_id),
    key TEXT NOT NULL,
    metric TEXT NOT NULL,
    suite TEXT NOT NULL,
    algorithm TEXT NOT NULL,
    operation TEXT NOT NULL,
    backend TEXT NOT NULL,
    implementation TEXT NOT NULL,
    hw TEXT NOT NULL,
    size_bytes BIGINT,
    workers BIGINT NOT NULL,
    library_version TEXT NOT NULL,
    unit TEXT NOT NULL,
    better TEXT NOT NULL,
    median DOUBLE PRECISION,
    q1 DOUBLE PRECISION,
    q3 DOUBLE PRECISION,
    ci95_low DOUBLE PRECISION,
    ci95_high DOUBLE PRECISION,
    samples BIGINT,
    cycles_per_op DOUBLE PRECISION,
    cycles_per_byte DOUBLE PRECISION,
    record TEXT NOT NULL,
    PRIMARY KEY (run_id, key, metric)
);
CREATE INDEX points_by_algorithm ON points (algorithm, size_bytes);
CREATE INDEX points_by_suite ON points (suite, metric, algorithm);
CREATE TABLE samples (
    run_id TEXT NOT NULL,
    key TEXT NOT NULL,
    metric TEXT NOT NULL,
    sample_values TEXT NOT NULL,
    PRIMARY KEY (run_id, key, metric),
    FOREIGN KEY (run_id, key, metric) REFERENCES points (run_id, key, metric)
);
CREATE TABLE findings (
    run_id TEXT NOT NULL REFERENCES runs (run_id),
    seq BIGINT NOT NULL,
    id TEXT NOT NULL,
    seed TEXT NOT NULL,
    section TEXT NOT NULL,
    claim TEXT NOT NULL,
    verdict TEXT NOT NULL,
    measured DOUBLE PRECISION,
    ci95_low DOUBLE PRECISION,
    ci95_high DOUBLE PRECISION,
    unit TEXT NOT NULL,
    record TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
);
",
)];

/// The newest migration this version knows.
pub fn version() -> i64 {
    MIGRATIONS.last().map_or(0, |m| m.0)
}

/// Applies what the store lacks.
pub fn migrate(c: &mut dyn Conn) -> Result<()> {
    c.batch(
        "CREATE TABLE IF NOT EXISTS migrations (
            version BIGINT PRIMARY KEY,
            description TEXT NOT NULL,
            applied TEXT NOT NULL
        )",
    )?;
    let have: Vec<i64> = c
        .query("SELECT version FROM migrations ORDER BY version", &[])?
        .into_iter()
        .filter_map(|r| r[0].int())
        .collect();
    if let Some(newer) = have.iter().find(|v| **v > version()) {
        return Err(Error::usage(format!(
            "the store has schema migration {newer}, newer than this ango knows ({}); use the \
             ango that wrote it, or a newer one",
            version()
        )));
    }
    for (v, description, sql) in MIGRATIONS {
        if have.contains(v) {
            continue;
        }
        c.batch("BEGIN")?;
        let applied = (|| {
            c.batch(sql)?;
            c.exec(
                "INSERT INTO migrations (version, description, applied) VALUES ($1, $2, $3)",
                &[
                    Value::Int(*v),
                    Value::from(*description),
                    Value::from(ango_core::results::utc_now().0),
                ],
            )
        })();
        match applied {
            Ok(_) => c.batch("COMMIT")?,
            Err(e) => {
                let _ = c.batch("ROLLBACK");
                return Err(e);
            }
        }
    }
    Ok(())
}
