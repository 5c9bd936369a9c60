//! The error type shared by every ango crate.

use std::fmt;

/// Everything that can go wrong in ango. `Usage` errors are the user's bad
/// input: the CLI prints them on one line and exits with status 2.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Bad input from the user; the message names the valid choices.
    #[error("{0}")]
    Usage(String),
    /// A backend refused or failed an operation.
    #[error("{backend}: {message}")]
    Backend {
        backend: &'static str,
        message: String,
    },
    /// An AEAD open found a wrong tag.
    #[error("authentication failed")]
    AuthFailed,
    /// A backend does not offer an optional operation (e.g. importing a
    /// secret key for a known-answer test).
    #[error("not supported: {0}")]
    Unsupported(String),
    /// A known-answer test did not reproduce its vector.
    #[error("known-answer test failed: {0}")]
    Kat(String),
    /// A results directory or vector file could not be read or parsed.
    #[error("{path}: {message}")]
    Data { path: String, message: String },
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },
}

impl Error {
    pub fn usage(msg: impl fmt::Display) -> Self {
        Error::Usage(msg.to_string())
    }

    pub fn io(context: impl fmt::Display, source: std::io::Error) -> Self {
        Error::Io {
            context: context.to_string(),
            source,
        }
    }

    pub fn data(path: impl fmt::Display, message: impl fmt::Display) -> Self {
        Error::Data {
            path: path.to_string(),
            message: message.to_string(),
        }
    }

    /// True for errors caused by the user's input (exit status 2).
    pub fn is_usage(&self) -> bool {
        matches!(self, Error::Usage(_) | Error::Data { .. })
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
