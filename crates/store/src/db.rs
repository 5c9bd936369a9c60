//! The two stores behind one small interface: SQLite (embedded, the
//! default) and PostgreSQL (behind the `postgres` feature). Statements are
//! written once, in the SQL both accept: `$1`, `$2`, … placeholders in
//! order, BIGINT, DOUBLE PRECISION and TEXT columns, `ON CONFLICT`.

use ango_core::{Error, Result};
use std::path::PathBuf;

/// A value bound to or read from a statement.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
}

impl Value {
    pub fn text(&self) -> String {
        match self {
            Value::Null => String::new(),
            Value::Int(i) => i.to_string(),
            Value::Real(f) => f.to_string(),
            Value::Text(s) => s.clone(),
        }
    }

    pub fn int(&self) -> Option<i64> {
        match self {
            Value::Int(i) => Some(*i),
            Value::Real(f) => Some(*f as i64),
            _ => None,
        }
    }

    pub fn real(&self) -> Option<f64> {
        match self {
            Value::Int(i) => Some(*i as f64),
            Value::Real(f) => Some(*f),
            _ => None,
        }
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::Text(s.to_string())
    }
}
impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::Text(s)
    }
}
impl From<&String> for Value {
    fn from(s: &String) -> Value {
        Value::Text(s.clone())
    }
}
impl From<i64> for Value {
    fn from(i: i64) -> Value {
        Value::Int(i)
    }
}
impl From<u64> for Value {
    fn from(i: u64) -> Value {
        Value::Int(i as i64)
    }
}
impl From<f64> for Value {
    fn from(f: f64) -> Value {
        if f.is_finite() {
            Value::Real(f)
        } else {
            Value::Null
        }
    }
}
impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Int(b as i64)
    }
}
impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(v: Option<T>) -> Value {
        v.map_or(Value::Null, Into::into)
    }
}

/// Where the store is: `sqlite:PATH` or `postgres://…`.
#[derive(Clone, Debug, PartialEq)]
pub enum Url {
    Sqlite(PathBuf),
    Postgres(String),
}

/// The forms `--db` takes, for errors.
pub const URL_FORMS: &str = "sqlite:PATH or postgres://USER@HOST/DB (postgresql:// too)";

impl Url {
    pub fn parse(s: &str) -> Result<Url> {
        if let Some(p) = s.strip_prefix("sqlite:") {
            let p = p.strip_prefix("//").unwrap_or(p);
            if p.is_empty() {
                return Err(Error::usage(format!(
                    "--db {s}: no path after sqlite:; valid: {URL_FORMS}"
                )));
            }
            return Ok(Url::Sqlite(PathBuf::from(p)));
        }
        if s.starts_with("postgres://") || s.starts_with("postgresql://") {
            return Ok(Url::Postgres(s.to_string()));
        }
        Err(Error::usage(format!(
            "--db {s}: not a store; valid: {URL_FORMS}"
        )))
    }

    /// `--db` when none is given: `$ANGO_DB`, else `results.sqlite` in
    /// the user's data directory (`$XDG_DATA_HOME/ango`, by default
    /// `~/.local/share/ango`).
    pub fn default_store() -> Result<Url> {
        if let Ok(s) = std::env::var("ANGO_DB") {
            if !s.is_empty() {
                return Url::parse(&s);
            }
        }
        let dir = dirs::data_dir().ok_or_else(|| {
            Error::usage("no data directory for the default store (HOME is not set); give --db")
        })?;
        Ok(Url::Sqlite(dir.join("ango").join("results.sqlite")))
    }

    /// As shown to the user (a PostgreSQL password left out).
    pub fn shown(&self) -> String {
        match self {
            Url::Sqlite(p) => format!("sqlite:{}", p.display()),
            Url::Postgres(s) => match (s.find("://"), s.rfind('@')) {
                (Some(a), Some(b)) if s[a + 3..b].contains(':') => {
                    let user = &s[a + 3..b].split(':').next().unwrap_or("");
                    format!("{}{user}:***{}", &s[..a + 3], &s[b..])
                }
                _ => s.clone(),
            },
        }
    }
}

/// A connection to one store.
pub trait Conn {
    /// Statements without parameters, `;`-separated.
    fn batch(&mut self, sql: &str) -> Result<()>;
    /// One statement; the rows it changed.
    fn exec(&mut self, sql: &str, params: &[Value]) -> Result<u64>;
    /// One query; its rows.
    fn query(&mut self, sql: &str, params: &[Value]) -> Result<Vec<Vec<Value>>>;
    /// `sqlite` or `postgres`.
    fn kind(&self) -> &'static str;
}

fn db_error(what: &str, e: impl std::fmt::Display) -> Error {
    Error::data("store", format!("{what}: {e}"))
}

pub struct Sqlite {
    conn: rusqlite::Connection,
}

impl Sqlite {
    pub fn open(path: &std::path::Path) -> Result<Sqlite> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| Error::io(format!("creating {}", dir.display()), e))?;
        }
        let conn = rusqlite::Connection::open(path)
            .map_err(|e| db_error(&format!("opening {}", path.display()), e))?;
        conn.execute_batch("PRAGMA foreign_keys = ON; PRAGMA journal_mode = WAL;")
            .map_err(|e| db_error("setting up SQLite", e))?;
        Ok(Sqlite { conn })
    }
}

impl rusqlite::ToSql for Value {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        use rusqlite::types::{ToSqlOutput, ValueRef};
        Ok(match self {
            Value::Null => ToSqlOutput::Borrowed(ValueRef::Null),
            Value::Int(i) => ToSqlOutput::Borrowed(ValueRef::Integer(*i)),
            Value::Real(f) => ToSqlOutput::Borrowed(ValueRef::Real(*f)),
            Value::Text(s) => ToSqlOutput::Borrowed(ValueRef::Text(s.as_bytes())),
        })
    }
}

impl Conn for Sqlite {
    fn batch(&mut self, sql: &str) -> Result<()> {
        self.conn.execute_batch(sql).map_err(|e| db_error(sql, e))
    }

    fn exec(&mut self, sql: &str, params: &[Value]) -> Result<u64> {
        let mut st = self
            .conn
            .prepare_cached(sql)
            .map_err(|e| db_error(sql, e))?;
        st.execute(rusqlite::params_from_iter(params.iter()))
            .map(|n| n as u64)
            .map_err(|e| db_error(sql, e))
    }

    fn query(&mut self, sql: &str, params: &[Value]) -> Result<Vec<Vec<Value>>> {
        use rusqlite::types::ValueRef;
        let mut st = self
            .conn
            .prepare_cached(sql)
            .map_err(|e| db_error(sql, e))?;
        let n = st.column_count();
        let mut rows = st
            .query(rusqlite::params_from_iter(params.iter()))
            .map_err(|e| db_error(sql, e))?;
        let mut out = Vec::new();
        while let Some(row) = rows.next().map_err(|e| db_error(sql, e))? {
            let mut r = Vec::with_capacity(n);
            for i in 0..n {
                r.push(match row.get_ref(i).map_err(|e| db_error(sql, e))? {
                    ValueRef::Null => Value::Null,
                    ValueRef::Integer(i) => Value::Int(i),
                    ValueRef::Real(f) => Value::Real(f),
                    ValueRef::Text(t) | ValueRef::Blob(t) => {
                        Value::Text(String::from_utf8_lossy(t).into_owned())
                    }
                });
            }
            out.push(r);
        }
        Ok(out)
    }

    fn kind(&self) -> &'static str {
        "sqlite"
    }
}

#[cfg(feature = "postgres")]
pub use pg::Postgres;

#[cfg(feature = "postgres")]
mod pg {
    use super::{db_error, Conn, Value};
    use ango_core::Result;
    use postgres::types::{to_sql_checked, IsNull, ToSql, Type};
    use std::collections::HashMap;

    pub struct Postgres {
        client: postgres::Client,
        statements: HashMap<String, postgres::Statement>,
    }

    impl Postgres {
        pub fn connect(url: &str) -> Result<Postgres> {
            let client = postgres::Client::connect(url, postgres::NoTls)
                .map_err(|e| db_error("connecting to PostgreSQL", e))?;
            Ok(Postgres {
                client,
                statements: HashMap::new(),
            })
        }

        fn statement(&mut self, sql: &str) -> Result<postgres::Statement> {
            if let Some(s) = self.statements.get(sql) {
                return Ok(s.clone());
            }
            let s = self.client.prepare(sql).map_err(|e| db_error(sql, e))?;
            self.statements.insert(sql.to_string(), s.clone());
            Ok(s)
        }
    }

    impl ToSql for Value {
        fn to_sql(
            &self,
            ty: &Type,
            out: &mut bytes::BytesMut,
        ) -> std::result::Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
            match self {
                Value::Null => Ok(IsNull::Yes),
                Value::Int(i) => match *ty {
                    Type::FLOAT8 => (*i as f64).to_sql(ty, out),
                    Type::TEXT | Type::VARCHAR => i.to_string().to_sql(ty, out),
                    _ => i.to_sql(ty, out),
                },
                Value::Real(f) => f.to_sql(ty, out),
                Value::Text(s) => s.to_sql(ty, out),
            }
        }

        fn accepts(_: &Type) -> bool {
            true
        }

        to_sql_checked!();
    }

    impl Conn for Postgres {
        fn batch(&mut self, sql: &str) -> Result<()> {
            self.client.batch_execute(sql).map_err(|e| db_error(sql, e))
        }

        fn exec(&mut self, sql: &str, params: &[Value]) -> Result<u64> {
            let st = self.statement(sql)?;
            let p: Vec<&(dyn ToSql + Sync)> = params.iter().map(|v| v as _).collect();
            self.client.execute(&st, &p).map_err(|e| db_error(sql, e))
        }

        fn query(&mut self, sql: &str, params: &[Value]) -> Result<Vec<Vec<Value>>> {
            let st = self.statement(sql)?;
            let p: Vec<&(dyn ToSql + Sync)> = params.iter().map(|v| v as _).collect();
            let rows = self.client.query(&st, &p).map_err(|e| db_error(sql, e))?;
            let mut out = Vec::with_capacity(rows.len());
            for row in rows {
                let mut r = Vec::with_capacity(row.len());
                for (i, c) in row.columns().iter().enumerate() {
                    let v = match *c.type_() {
                        Type::INT8 => row.get::<_, Option<i64>>(i).map(Value::Int),
                        Type::INT4 => row.get::<_, Option<i32>>(i).map(|x| Value::Int(x as i64)),
                        Type::INT2 => row.get::<_, Option<i16>>(i).map(|x| Value::Int(x as i64)),
                        Type::FLOAT8 => row.get::<_, Option<f64>>(i).map(Value::Real),
                        Type::FLOAT4 => row.get::<_, Option<f32>>(i).map(|x| Value::Real(x as f64)),
                        Type::BOOL => row.get::<_, Option<bool>>(i).map(|b| Value::Int(b as i64)),
                        _ => row.get::<_, Option<String>>(i).map(Value::Text),
                    };
                    r.push(v.unwrap_or(Value::Null));
                }
                out.push(r);
            }
            Ok(out)
        }

        fn kind(&self) -> &'static str {
            "postgres"
        }
    }
}

/// Opens the store `url` names, creating it (SQLite) and bringing its
/// schema to this version's.
pub fn open(url: &Url) -> Result<Box<dyn Conn>> {
    let mut c: Box<dyn Conn> = match url {
        Url::Sqlite(p) => Box::new(Sqlite::open(p)?),
        #[cfg(feature = "postgres")]
        Url::Postgres(u) => Box::new(Postgres::connect(u)?),
        #[cfg(not(feature = "postgres"))]
        Url::Postgres(_) => {
            return Err(Error::usage(
                "--db postgres://…: this ango was built without PostgreSQL; build it with \
                 `cargo build --release --features postgres` (scripts/ango does), or use sqlite:PATH",
            ))
        }
    };
    crate::schema::migrate(c.as_mut())?;
    Ok(c)
}
