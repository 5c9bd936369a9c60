//! Two hosts: `ango tls-server --listen ADDR:PORT` and `ango tls --connect
//! ADDR:PORT` (the lab itself is ango_tls::remote).

use crate::args::{TlsArgs, TlsServerArgs};
use crate::driver::{interrupted_exit, new_run_id, start_run};
use ango_core::{Error, Result};
use ango_tls::control::Secret;
use ango_tls::remote::{self, ConnectSpec, ServeSpec};
use std::net::{SocketAddrV4, TcpListener};

/// An IPv4 ADDR:PORT of `flag`.
pub fn parse_addr(flag: &str, s: &str) -> Result<SocketAddrV4> {
    s.trim().parse::<SocketAddrV4>().map_err(|_| {
        let v6 = s.trim().parse::<std::net::SocketAddrV6>().is_ok();
        Error::usage(format!(
            "invalid {flag} '{s}'; give an IPv4 address and port like 192.0.2.10:4433{}",
            if v6 {
                " (IPv6 is not supported: the lab's captures read IPv4)"
            } else if flag == "--listen" {
                " (0.0.0.0:4433 for every interface)"
            } else {
                ""
            }
        ))
    })
}

/// The flags of `ango tls` that shape the one-host lab's emulated link or
/// belong to bulk mode, and so have no place beside `--connect`.
fn one_host_only(a: &TlsArgs) -> Vec<&'static str> {
    let mut v = Vec::new();
    for (set, flag) in [
        (a.loopback, "--loopback"),
        (a.rtt.is_some(), "--rtt"),
        (a.jitter.is_some(), "--jitter"),
        (a.loss.is_some(), "--loss"),
        (a.rate.is_some(), "--rate"),
        (a.mtu.is_some(), "--mtu"),
        (a.cc.is_some(), "--cc"),
        (a.emulator != "auto", "--emulator"),
        (a.bulk.is_some(), "--bulk"),
    ] {
        if set {
            v.push(flag);
        }
    }
    v
}

/// The secret of `--token` / `ANGO_TLS_TOKEN` / `--key-file`.
fn client_secret(a: &TlsArgs) -> Result<Secret> {
    match (&a.token, &a.key_file) {
        (Some(_), Some(_)) => Err(Error::usage("give either --token or --key-file, not both")),
        (Some(t), None) => Secret::from_token(t),
        (None, Some(p)) => Secret::from_file(p),
        (None, None) => match std::env::var("ANGO_TLS_TOKEN") {
            Ok(t) => Secret::from_token(&t),
            Err(_) => Err(Error::usage(
                "--connect needs the tls-server's secret: --token HEX (printed by `ango \
                 tls-server` at start, or ANGO_TLS_TOKEN) or --key-file PATH (its shared key)",
            )),
        },
    }
}

/// `--token` and `--key-file` without `--connect`.
pub fn check_connect_flags(a: &TlsArgs) -> Result<()> {
    if a.connect.is_none() && (a.token.is_some() || a.key_file.is_some()) {
        return Err(Error::usage(
            "--token and --key-file go with --connect ADDR:PORT (a two-host run against `ango \
             tls-server`)",
        ));
    }
    Ok(())
}

/// `ango tls --connect`: the options checked, the server reached.
pub fn connect_spec(a: &TlsArgs) -> Result<Option<ConnectSpec>> {
    let Some(c) = &a.connect else {
        return Ok(None);
    };
    let addr = parse_addr("--connect", c)?;
    let bad = one_host_only(a);
    if !bad.is_empty() {
        return Err(Error::usage(format!(
            "{} shape the one-host lab (its emulated link, loopback, bulk mode); --connect \
             measures the real network to the tls-server and takes --groups, --server-sig, \
             --ca-sig, --handshakes, --client-stack, --server-stack, --no-capture and \
             --pcap-handshakes",
            bad.join(", ")
        )));
    }
    Ok(Some(ConnectSpec {
        addr,
        secret: client_secret(a)?,
    }))
}

pub fn tls_server_cmd(a: &TlsServerArgs) -> Result<i32> {
    let listen = parse_addr("--listen", &a.listen)?;
    let pcap_handshakes = match a.pcap_handshakes.as_str() {
        "all" => None,
        s => Some(s.parse::<usize>().map_err(|_| {
            Error::usage(format!(
                "invalid --pcap-handshakes '{s}'; give a number of connections (0 keeps no pcap) \
                 or all"
            ))
        })?),
    };
    let clock_shift_ns = match &a.clock_shift_ns {
        Some(s) => s.trim().parse::<i64>().map_err(|_| {
            Error::usage(format!(
                "invalid --clock-shift-ns '{s}'; give a whole number of ns"
            ))
        })?,
        None => 0,
    };
    let (secret, token) = match &a.key_file {
        Some(p) => (Secret::from_file(p)?, None),
        None => {
            let (s, t) = Secret::new_token()?;
            (s, Some(t))
        }
    };
    let listener = TcpListener::bind(listen).map_err(|e| {
        Error::usage(format!(
            "cannot listen on {listen}: {e}; give an address of this host and a free port (or \
             0.0.0.0:PORT)"
        ))
    })?;
    let bound = listener
        .local_addr()
        .map_err(|e| Error::io("the control socket", e))?;
    let run_id = new_run_id();
    let out = a
        .out
        .clone()
        .unwrap_or_else(|| format!("tls-server-{run_id}").into());
    let (dir, _env) = start_run(&Some(out), &run_id)?;
    let dir = dir.expect("a results directory was asked for");
    // One write: whoever reads the token reads it whole.
    let mut intro = format!(
        "ango tls-server: listening on {bound}; results in {}\n",
        dir.path.display()
    );
    match &token {
        Some(t) => intro.push_str(&format!(
            "token: {t}\nconnect with: ango tls --connect {bound} --token {t}\n"
        )),
        None => intro.push_str(&format!(
            "connect with: ango tls --connect {bound} --key-file <the same key file>\n"
        )),
    }
    {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(intro.as_bytes());
        let _ = out.flush();
    }
    if a.no_capture {
        esay!("ango tls-server: --no-capture: no packets are captured");
    } else if !ango_tls::lab::is_root() {
        esay!(
            "ango tls-server: not running as root, so no packets are captured (no server-side \
             wire times); run as root for both views"
        );
    }
    let spec = ServeSpec {
        secret,
        run_id,
        capture: !a.no_capture,
        dir: Some(dir.path.clone()),
        once: a.once,
        clock_shift_ns,
        pcap_handshakes,
    };
    let stop = || ango_harness::measure::stop_requested();
    let summary = remote::serve(listener, &spec, &stop, &mut |l| {
        esay!("ango tls-server: {l}")
    })?;
    esay!(
        "ango tls-server: {} sessions, {} combinations, {} unauthenticated connections refused",
        summary.sessions,
        summary.combinations,
        summary.rejected
    );
    Ok(interrupted_exit(stop(), summary.combinations as usize, "combinations served").unwrap_or(0))
}
