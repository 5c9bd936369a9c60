//! The `ango` binary: parse options, run, print errors on one line.
//! Exit status: 0 success, 1 failure (e.g. a known-answer test failed),
//! 2 bad input, 130 interrupted.

/// `println!` for text meant for a terminal (never JSON, CSV or HTML): a
/// line longer than 100 columns wraps, its continuation indented.
macro_rules! say {
    ($($t:tt)*) => {
        print!("{}", ango_report::formats::fit(&format!("{}\n", format_args!($($t)*))))
    };
}

/// [`say!`] on stderr.
macro_rules! esay {
    ($($t:tt)*) => {
        eprint!("{}", ango_report::formats::fit(&format!("{}\n", format_args!($($t)*))))
    };
}

mod args;
mod commands;
mod ct_cmd;
mod cycles;
mod driver;
mod list_cmd;
mod memhook;
mod run_cmd;
mod sink;
mod store_cmd;
mod tls_bulk;
mod tls_policy;
mod tls_records;
mod tls_remote;
mod verify_cmd;

use clap::Parser;

fn main() {
    memhook::install();
    // Behave like a Unix tool when output is piped into `head`: end quietly.
    #[cfg(unix)]
    // SAFETY: FFI; restoring the default disposition of SIGPIPE before any
    // thread is started has no memory-safety preconditions.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = match args::Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(
                e.kind(),
                ErrorKind::DisplayHelp
                    | ErrorKind::DisplayVersion
                    | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            ) {
                let _ = e.print();
                std::process::exit(
                    if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                        2
                    } else {
                        0
                    },
                );
            }
            // One line: clap's message with the items it lists below it
            // (e.g. the missing arguments), up to its blank line.
            let text = e.render().to_string();
            let line: Vec<&str> = text
                .lines()
                .map(str::trim)
                .take_while(|l| !l.is_empty())
                .collect();
            let line = if line.is_empty() {
                "error: bad arguments".to_string()
            } else {
                line.join(" ")
            };
            eprintln!("{line} (see `ango --help`)");
            std::process::exit(2);
        }
    };
    match commands::dispatch(cli) {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(if e.is_usage() { 2 } else { 1 });
        }
    }
}
