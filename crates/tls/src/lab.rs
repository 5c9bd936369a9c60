//! Two "hosts" on one machine for the TLS handshake lab.
//!
//! A [`Lab`] is a pair of network namespaces, `ango-<pid>-<n>-c` (client) and
//! `ango-<pid>-<n>-s` (server), joined by a link:
//!
//! * **veth** when the link has no delay, jitter or loss: a veth pair with
//!   `10.<x>.<y>.1/30` (client) and `.2` (server), the MTU if asked, and a
//!   `tbf` qdisc on both ends if a rate is asked;
//! * **veth-netem** when the link has delay, jitter or loss and the kernel
//!   has the `netem` qdisc: the veth pair with `netem` (delay, jitter, loss
//!   and rate) on both ends;
//! * **tun-relay** otherwise (kernels without `netem`, like the one this lab
//!   was built on): a TUN device in each namespace, configured
//!   point-to-point, and the user-space [`Relay`](super::link::Relay)
//!   between them, which delays, drops and paces the packets (see `link.rs`
//!   for the link model) and is fitted to the asked RTT.
//!
//! The namespaces are always removed again: by `Drop` (which also runs on
//! errors and panics), by [`remove_all_of_this_process`] from the program's
//! Ctrl-C handler, and, for runs that crashed or were killed, by
//! [`cleanup_stale`] at the next [`Lab::create`]. Names carry the pid and a
//! per-process counter, so concurrent runs never collide.
//!
//! Everything here needs root (`CAP_SYS_ADMIN` + `CAP_NET_ADMIN`) and the
//! `ip`/`tc` commands of iproute2.

use std::fs::File;
use std::io::{self, Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::os::fd::{AsRawFd, OwnedFd};
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{mpsc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::link::{open_tun, Emulator, LinkOpts, Relay, RelayStats};

/// Where the named network namespaces of `ip netns` live.
const NETNS_DIR: &str = "/var/run/netns";

/// Prefix of every namespace a lab creates.
const PREFIX: &str = "ango-";

/// Namespaces this process created and has not removed yet.
static REGISTRY: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Per-process lab counter (the `<n>` in the names).
static COUNTER: AtomicU32 = AtomicU32::new(0);

/// One end of the lab.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    /// The client namespace (`...-c`, address `.1`).
    Client,
    /// The server namespace (`...-s`, address `.2`).
    Server,
}

/// Two network namespaces joined by an (emulated) link; removed on drop.
#[derive(Debug)]
pub struct Lab {
    client_ns: String,
    server_ns: String,
    client_addr: Ipv4Addr,
    server_addr: Ipv4Addr,
    kind: &'static str,
    opts: LinkOpts,
    relay: Option<Relay>,
    calibration: Option<Calibration>,
}

/// How the relay's delay was fitted to the asked RTT.
///
/// The path through two TUN devices and the relay threads has an RTT of its
/// own (tens to hundreds of µs on a busy machine). Adding the asked one-way
/// delay on top would overshoot a 1 ms RTT by that much, so the lab measures
/// the path with no added delay, subtracts half of it from each direction,
/// and corrects with the measured error until the achieved RTT (median of
/// TCP echoes between the namespaces) is within [`CALIBRATION_TOLERANCE`]
/// of the asked one, or [`CALIBRATION_ROUNDS`] corrections were made.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Calibration {
    /// Twice the asked one-way delay.
    pub asked_rtt: Duration,
    /// Median RTT of the relayed path with no added delay.
    pub base_rtt: Duration,
    /// One-way delay the relay applies after calibration.
    pub applied_delay: Duration,
    /// Median RTT measured with `applied_delay`.
    pub achieved_rtt: Duration,
    /// Corrections made after the first fit.
    pub rounds: u32,
}

/// Relative RTT error at which calibration stops.
pub const CALIBRATION_TOLERANCE: f64 = 0.01;
/// Most corrections calibration makes.
pub const CALIBRATION_ROUNDS: u32 = 4;

impl Lab {
    /// Creates the two namespaces and the link between them.
    ///
    /// Removes stale namespaces of dead earlier runs first. On error
    /// everything made so far is removed again.
    pub fn create(opts: &LinkOpts) -> io::Result<Lab> {
        require_root(is_root())?;
        opts.validate()?;
        cleanup_stale();

        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let pid = std::process::id();
        let client_ns = format!("{PREFIX}{pid}-{n}-c");
        let server_ns = format!("{PREFIX}{pid}-{n}-s");
        // Unique /30 per lab of this process (and, mostly, across processes;
        // the namespaces are isolated, so overlaps would not matter anyway).
        let key = ((pid & 0xff) << 8).wrapping_add(n) & 0xffff;
        let (x, y) = ((key >> 8) as u8, (key & 0xff) as u8);
        // Registered before they exist, so a Ctrl-C during creation and a
        // concurrent cleanup_stale see them.
        {
            let mut reg = REGISTRY.lock().unwrap_or_else(PoisonError::into_inner);
            reg.push(client_ns.clone());
            reg.push(server_ns.clone());
        }
        let mut lab = Lab {
            client_ns,
            server_ns,
            client_addr: Ipv4Addr::new(10, x, y, 1),
            server_addr: Ipv4Addr::new(10, x, y, 2),
            kind: if opts.needs_relay() {
                "tun-relay"
            } else {
                "veth"
            },
            opts: opts.clone(),
            relay: None,
            calibration: None,
        };
        // On error `lab` is dropped here, which removes what exists.
        lab.build()?;
        if !opts.delay.is_zero() {
            lab.calibrate()?;
        }
        Ok(lab)
    }

    fn build(&mut self) -> io::Result<()> {
        let (c, s) = (self.client_ns.clone(), self.server_ns.clone());
        ip(&["netns", "add", &c])?;
        ip(&["netns", "add", &s])?;
        for ns in [&c, &s] {
            ip(&["-n", ns, "link", "set", "lo", "up"])?;
        }
        let mtu = self.opts.mtu.map(|m| m.to_string());
        let ends = [
            (&c, self.client_addr, self.server_addr),
            (&s, self.server_addr, self.client_addr),
        ];
        if self.kind == "tun-relay" && self.opts.emulator != Emulator::Relay {
            if self.try_netem()? {
                self.kind = "veth-netem";
            } else if self.opts.emulator == Emulator::Netem {
                return Err(invalid(
                    "this kernel has no netem qdisc; use the emulator relay (ango's own link) or auto"
                        .into(),
                ));
            }
        }
        if self.kind != "tun-relay" {
            if self.kind == "veth" {
                self.add_veth()?;
            }
            for ((ns, local, _), dev) in ends.iter().zip(["veth-c", "veth-s"]) {
                ip(&["-n", ns, "addr", "add", &format!("{local}/30"), "dev", dev])?;
                if let Some(m) = &mtu {
                    ip(&["-n", ns, "link", "set", "dev", dev, "mtu", m])?;
                }
                if let (Some(rate), "veth") = (self.opts.rate_bps, self.kind) {
                    let burst = tbf_burst(rate, self.opts.mtu.unwrap_or(1500));
                    tc(&[
                        "-n",
                        ns,
                        "qdisc",
                        "add",
                        "dev",
                        dev,
                        "root",
                        "tbf",
                        "rate",
                        &format!("{rate}bit"),
                        "burst",
                        &burst.to_string(),
                        "latency",
                        "100ms",
                    ])?;
                }
                ip(&["-n", ns, "link", "set", "dev", dev, "up"])?;
            }
        } else {
            let cfd = self.try_in_ns(Side::Client, || open_tun("tun-c"))??;
            let sfd = self.try_in_ns(Side::Server, || open_tun("tun-s"))??;
            for ((ns, local, peer), dev) in ends.iter().zip(["tun-c", "tun-s"]) {
                ip(&[
                    "-n",
                    ns,
                    "addr",
                    "add",
                    &local.to_string(),
                    "peer",
                    &format!("{peer}/32"),
                    "dev",
                    dev,
                ])?;
                if let Some(m) = &mtu {
                    ip(&["-n", ns, "link", "set", "dev", dev, "mtu", m])?;
                }
                ip(&["-n", ns, "link", "set", "dev", dev, "up"])?;
            }
            self.relay = Some(start_relay(cfd, sfd, &self.opts)?);
        }
        if let Some(cc) = &self.opts.congestion_control {
            set_congestion_control(&[&c, &s], cc)?;
        }
        Ok(())
    }

    /// The client's address on the link (`10.x.y.1`).
    pub fn client_addr(&self) -> Ipv4Addr {
        self.client_addr
    }

    /// The server's address on the link (`10.x.y.2`).
    pub fn server_addr(&self) -> Ipv4Addr {
        self.server_addr
    }

    /// The namespace names, `(client, server)`.
    pub fn names(&self) -> (String, String) {
        (self.client_ns.clone(), self.server_ns.clone())
    }

    /// The namespace name of one side.
    pub fn ns_name(&self, side: Side) -> &str {
        match side {
            Side::Client => &self.client_ns,
            Side::Server => &self.server_ns,
        }
    }

    /// A veth pair between the namespaces, made directly inside them: the
    /// root namespace never sees the devices, so names cannot collide there.
    fn add_veth(&self) -> io::Result<()> {
        ip(&[
            "-n",
            &self.client_ns,
            "link",
            "add",
            "veth-c",
            "type",
            "veth",
            "peer",
            "name",
            "veth-s",
            "netns",
            &self.server_ns,
        ])
        .map(drop)
    }

    /// The `netem` arguments of the link: one-way delay, jitter, loss and
    /// rate, and netem's queue made as long as the relay's.
    fn netem_args(&self) -> Vec<String> {
        let o = &self.opts;
        let mut a = vec![
            "netem".to_string(),
            "limit".into(),
            crate::link::QUEUE_LIMIT.to_string(),
            "delay".into(),
            format!("{}us", o.delay.as_micros()),
        ];
        if !o.jitter.is_zero() {
            a.push(format!("{}us", o.jitter.as_micros()));
        }
        if o.loss_pct > 0.0 {
            a.push("loss".into());
            a.push(format!("{}%", o.loss_pct));
        }
        if let Some(r) = o.rate_bps {
            a.push("rate".into());
            a.push(format!("{r}bit"));
        }
        a
    }

    /// Makes the veth pair with `netem` on both ends if this kernel has
    /// `netem`; otherwise removes the pair again and returns false.
    fn try_netem(&self) -> io::Result<bool> {
        self.add_veth()?;
        let args = self.netem_args();
        for (ns, dev) in [(&self.client_ns, "veth-c"), (&self.server_ns, "veth-s")] {
            let mut cmd: Vec<&str> = vec!["-n", ns, "qdisc", "add", "dev", dev, "root"];
            cmd.extend(args.iter().map(String::as_str));
            if tc(&cmd).is_err() {
                // Deleting one end deletes the pair.
                ip(&["-n", &self.client_ns, "link", "del", "veth-c"])?;
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The link's network device in the namespace of `side`.
    pub fn device(&self, side: Side) -> &'static str {
        match (self.kind != "tun-relay", side) {
            (true, Side::Client) => "veth-c",
            (true, Side::Server) => "veth-s",
            (false, Side::Client) => "tun-c",
            (false, Side::Server) => "tun-s",
        }
    }

    /// `"veth"`, `"veth-netem"` or `"tun-relay"`.
    pub fn link_kind(&self) -> &'static str {
        self.kind
    }

    /// The link options the lab was made with.
    pub fn opts(&self) -> &LinkOpts {
        &self.opts
    }

    /// How the relay's delay was fitted to the asked RTT (`None` without
    /// an added delay).
    pub fn calibration(&self) -> Option<Calibration> {
        self.calibration
    }

    /// Fits the relay's one-way delay so the achieved RTT is the asked one
    /// (see [`Calibration`]).
    fn calibrate(&mut self) -> io::Result<()> {
        let Some(relay) = &self.relay else {
            return Ok(());
        };
        let asked = 2 * self.opts.delay;
        relay.set_delay(Duration::ZERO);
        let base = median_of(self.measure_rtt(60)?);
        let mut applied = self.opts.delay.saturating_sub(base / 2);
        let samples = if asked < Duration::from_millis(5) {
            100
        } else {
            40
        };
        let mut rounds = 0;
        let achieved = loop {
            relay.set_delay(applied);
            let got = median_of(self.measure_rtt(samples)?);
            let err = got.as_secs_f64() - asked.as_secs_f64();
            if err.abs() <= CALIBRATION_TOLERANCE * asked.as_secs_f64()
                || rounds == CALIBRATION_ROUNDS
            {
                break got;
            }
            rounds += 1;
            let next = applied.as_secs_f64() - err / 2.0;
            applied = Duration::from_secs_f64(next.max(0.0));
        };
        self.calibration = Some(Calibration {
            asked_rtt: asked,
            base_rtt: base,
            applied_delay: applied,
            achieved_rtt: achieved,
            rounds,
        });
        Ok(())
    }

    /// Counters of the relay (`None` for a veth link).
    pub fn relay_stats(&self) -> Option<RelayStats> {
        self.relay.as_ref().map(Relay::stats)
    }

    /// Runs `f` on a new thread inside the namespace of `side` and returns
    /// its result; sockets made in `f` live in that namespace.
    ///
    /// Panics if the namespace cannot be entered (see [`Lab::try_in_ns`]);
    /// a panic in `f` is passed on.
    pub fn in_ns<R: Send>(&self, side: Side, f: impl FnOnce() -> R + Send) -> R {
        match self.try_in_ns(side, f) {
            Ok(r) => r,
            Err(e) => panic!("entering namespace {}: {e}", self.ns_name(side)),
        }
    }

    /// Like [`Lab::in_ns`], but entering the namespace may fail.
    pub fn try_in_ns<R: Send>(&self, side: Side, f: impl FnOnce() -> R + Send) -> io::Result<R> {
        let ns = self.ns_name(side);
        std::thread::scope(|s| {
            let h = s.spawn(move || {
                enter_netns(ns)?;
                Ok(f())
            });
            match h.join() {
                Ok(r) => r,
                Err(panic) => std::panic::resume_unwind(panic),
            }
        })
    }

    /// Starts `f` on a new thread inside the namespace of `side` (for
    /// long-running servers). If the namespace cannot be entered the thread
    /// panics before running `f`, so `join` returns the error.
    pub fn spawn_in<R: Send + 'static>(
        &self,
        side: Side,
        f: impl FnOnce() -> R + Send + 'static,
    ) -> JoinHandle<R> {
        let ns = self.ns_name(side).to_owned();
        let netns = open_netns(&ns);
        std::thread::Builder::new()
            .name(format!("in-{ns}"))
            .spawn(move || {
                if let Err(e) = netns.and_then(|f| setns_net(&f)) {
                    panic!("entering namespace {ns}: {e}");
                }
                f()
            })
            .expect("spawning a thread")
    }

    /// Round trips over the link, measured with TCP: an echo server in the
    /// server namespace, a client in the client namespace that sends
    /// `samples` 1-byte messages on one connection (`TCP_NODELAY`) and times
    /// each echo. Returns every sample; take the median.
    pub fn measure_rtt(&self, samples: usize) -> io::Result<Vec<Duration>> {
        let server_ip = self.server_addr;
        let timeout = Duration::from_secs(30) + 20 * (self.opts.delay + self.opts.jitter);
        let (tx, rx) = mpsc::channel::<io::Result<u16>>();
        let done = AtomicBool::new(false);
        let done = &done;
        let (c, s) = (self.client_ns.as_str(), self.server_ns.as_str());
        std::thread::scope(|scope| {
            let server = scope.spawn(move || -> io::Result<()> {
                let listener = match enter_netns(s)
                    .and_then(|()| TcpListener::bind((server_ip, 0)))
                    .and_then(|l| l.set_nonblocking(true).map(|()| l))
                {
                    Ok(l) => l,
                    Err(e) => {
                        let _ = tx.send(Err(e));
                        return Ok(());
                    }
                };
                let _ = tx.send(listener.local_addr().map(|a| a.port()));
                let deadline = Instant::now() + timeout;
                let mut conn = loop {
                    match listener.accept() {
                        Ok((conn, _)) => break conn,
                        Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                            if done.load(Ordering::Relaxed) || Instant::now() > deadline {
                                return Ok(());
                            }
                            std::thread::sleep(Duration::from_millis(1));
                        }
                        Err(e) => return Err(e),
                    }
                };
                conn.set_nonblocking(false)?;
                conn.set_nodelay(true)?;
                conn.set_read_timeout(Some(timeout))?;
                conn.set_write_timeout(Some(timeout))?;
                let mut b = [0u8; 64];
                loop {
                    match conn.read(&mut b)? {
                        0 => return Ok(()),
                        k => conn.write_all(&b[..k])?,
                    }
                }
            });
            let client = scope.spawn(move || -> io::Result<Vec<Duration>> {
                let r = (|| {
                    enter_netns(c)?;
                    let port = rx
                        .recv_timeout(timeout)
                        .map_err(|_| io::Error::other("RTT echo server did not start"))??;
                    let addr = SocketAddr::from((server_ip, port));
                    let mut conn = TcpStream::connect_timeout(&addr, timeout)?;
                    conn.set_nodelay(true)?;
                    conn.set_read_timeout(Some(timeout))?;
                    conn.set_write_timeout(Some(timeout))?;
                    let mut out = Vec::with_capacity(samples);
                    let mut b = [0u8; 1];
                    for i in 0..samples {
                        let msg = [i as u8];
                        let t0 = Instant::now();
                        conn.write_all(&msg)?;
                        conn.read_exact(&mut b)?;
                        out.push(t0.elapsed());
                        if b != msg {
                            return Err(io::Error::other("RTT echo returned the wrong byte"));
                        }
                    }
                    Ok(out)
                })();
                done.store(true, Ordering::Relaxed);
                r
            });
            let c = client
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p));
            let s = server
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p));
            let samples = c?;
            s?;
            Ok(samples)
        })
    }
}

impl Drop for Lab {
    fn drop(&mut self) {
        // Stop the relay first: its TUN descriptors keep the namespaces alive.
        if let Some(mut relay) = self.relay.take() {
            relay.stop();
        }
        for ns in [&self.client_ns, &self.server_ns] {
            let _ = delete_ns(ns);
        }
        let mut reg = REGISTRY.lock().unwrap_or_else(PoisonError::into_inner);
        reg.retain(|n| n != &self.client_ns && n != &self.server_ns);
    }
}

/// Deletes namespaces `ango-<pid>-<n>-{c,s}` left by runs that are gone
/// (no `/proc/<pid>`), and ones carrying this process's pid that this
/// process did not make (pid reuse). Returns how many were removed.
pub fn cleanup_stale() -> usize {
    let Ok(dir) = std::fs::read_dir(NETNS_DIR) else {
        return 0;
    };
    let me = std::process::id();
    // Held throughout: Lab::create registers names before making them, so
    // an unregistered name with our pid is not one being created right now.
    let reg = REGISTRY.lock().unwrap_or_else(PoisonError::into_inner);
    let mut removed = 0;
    for entry in dir.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = parse_lab_pid(&name) else {
            continue;
        };
        let stale = if pid == me {
            !reg.contains(&name)
        } else {
            !std::path::Path::new(&format!("/proc/{pid}")).exists()
        };
        if stale && delete_ns(&name).is_ok() {
            removed += 1;
        }
    }
    removed
}

/// Deletes every namespace this process made and has not removed yet;
/// returns how many. For the program's Ctrl-C handler: call it from a normal
/// thread (as handler crates do), not from inside a raw signal handler. Labs
/// still alive afterwards are unusable; their `Drop` ignores the missing
/// namespaces.
pub fn remove_all_of_this_process() -> usize {
    let names: Vec<String> = {
        let mut reg = REGISTRY.lock().unwrap_or_else(PoisonError::into_inner);
        std::mem::take(&mut *reg)
    };
    names.iter().filter(|n| delete_ns(n).is_ok()).count()
}

/// The pid in `ango-<pid>-<n>-<c|s>`, if `name` is such a name.
fn parse_lab_pid(name: &str) -> Option<u32> {
    let mut parts = name.strip_prefix(PREFIX)?.split('-');
    let pid = parts.next()?.parse::<u32>().ok()?;
    parts.next()?.parse::<u32>().ok()?;
    match (parts.next()?, parts.next()) {
        ("c" | "s", None) => Some(pid),
        _ => None,
    }
}

/// The lab's error when the process is not root.
fn require_root(root: bool) -> io::Result<()> {
    if root {
        return Ok(());
    }
    Err(io::Error::new(
        io::ErrorKind::PermissionDenied,
        "the TLS handshake lab needs root to create network namespaces \
         (run as root, or use --loopback to measure over 127.0.0.1 without \
         link emulation)",
    ))
}

pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

fn invalid(msg: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, msg)
}

fn open_netns(name: &str) -> io::Result<File> {
    File::open(format!("{NETNS_DIR}/{name}"))
        .map_err(|e| io::Error::new(e.kind(), format!("opening {NETNS_DIR}/{name}: {e}")))
}

fn setns_net(ns: &File) -> io::Result<()> {
    // SAFETY: `ns` is an open namespace file; setns only changes the network
    // namespace of the calling thread.
    if unsafe { libc::setns(ns.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
        let e = io::Error::last_os_error();
        return Err(io::Error::new(e.kind(), format!("setns: {e}")));
    }
    Ok(())
}

/// Moves the calling thread into the network namespace `name`.
pub fn enter_netns(name: &str) -> io::Result<()> {
    setns_net(&open_netns(name)?)
}

/// `ip netns del`, treating "already gone" as success only if it is gone.
fn delete_ns(name: &str) -> io::Result<()> {
    let r = ip(&["netns", "del", name]);
    if r.is_err() && !std::path::Path::new(&format!("{NETNS_DIR}/{name}")).exists() {
        return Err(io::Error::new(io::ErrorKind::NotFound, "already gone"));
    }
    r
}

fn ip(args: &[&str]) -> io::Result<()> {
    run("ip", args).map(drop)
}

fn tc(args: &[&str]) -> io::Result<()> {
    run("tc", args).map(drop)
}

fn run(cmd: &str, args: &[&str]) -> io::Result<String> {
    let out = Command::new(cmd).args(args).output().map_err(|e| {
        if e.kind() == io::ErrorKind::NotFound {
            io::Error::new(e.kind(), format!("`{cmd}` not found (install iproute2)"))
        } else {
            io::Error::new(e.kind(), format!("running `{cmd}`: {e}"))
        }
    })?;
    if !out.status.success() {
        return Err(io::Error::other(format!(
            "`{cmd} {}` failed ({}): {}",
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Median of a non-empty set of durations (zero for an empty one).
fn median_of(mut v: Vec<Duration>) -> Duration {
    if v.is_empty() {
        return Duration::ZERO;
    }
    v.sort_unstable();
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2
    }
}

fn start_relay(client: OwnedFd, server: OwnedFd, opts: &LinkOpts) -> io::Result<Relay> {
    Relay::start(client, server, opts)
}

/// tbf bucket size: 5 ms at the rate, but at least two full frames.
fn tbf_burst(rate_bps: u64, mtu: u32) -> u64 {
    (rate_bps / 8 / 200)
        .max(2 * (u64::from(mtu) + 18))
        .max(3200)
}

fn set_congestion_control(namespaces: &[&str], cc: &str) -> io::Result<()> {
    let avail_path = "/proc/sys/net/ipv4/tcp_available_congestion_control";
    let avail = std::fs::read_to_string(avail_path)
        .map_err(|e| io::Error::new(e.kind(), format!("reading {avail_path}: {e}")))?;
    if !avail.split_whitespace().any(|a| a == cc) {
        return Err(invalid(format!(
            "TCP congestion control {cc:?} is not available on this kernel \
             (available: {}; try `modprobe tcp_{cc}`)",
            avail.trim()
        )));
    }
    for ns in namespaces {
        run(
            "ip",
            &[
                "netns",
                "exec",
                ns,
                "sysctl",
                "-w",
                &format!("net.ipv4.tcp_congestion_control={cc}"),
            ],
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lab tests run one at a time: the timing tests want quiet cores, and
    /// the stale-cleanup test must not race another test's cleanup.
    static SERIAL: Mutex<()> = Mutex::new(());

    /// Root tests are `#[ignore]`d: run them as root with
    /// `--include-ignored` (scripts/test does). Not root here is a failure.
    fn guard() -> std::sync::MutexGuard<'static, ()> {
        assert!(
            is_root(),
            "the lab tests need root (network namespaces); run as root"
        );
        SERIAL.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn netns_list() -> String {
        run("ip", &["netns", "list"]).unwrap_or_default()
    }

    fn listed(list: &str, name: &str) -> bool {
        list.lines()
            .any(|l| l.split_whitespace().next() == Some(name))
    }

    #[test]
    fn parses_names() {
        assert_eq!(parse_lab_pid("ango-123-4-c"), Some(123));
        assert_eq!(parse_lab_pid("ango-123-4-s"), Some(123));
        assert_eq!(parse_lab_pid("ango-123-4-x"), None);
        assert_eq!(parse_lab_pid("ango-123-c"), None);
        assert_eq!(parse_lab_pid("ango-123-4-c-d"), None);
        assert_eq!(parse_lab_pid("other-1-2-c"), None);
    }

    #[test]
    fn needs_root_message() {
        let e = require_root(false).unwrap_err();
        assert!(e.to_string().contains("root") && e.to_string().contains("--loopback"));
        assert_eq!(e.kind(), io::ErrorKind::PermissionDenied);
        assert!(require_root(true).is_ok());
    }

    #[test]
    #[ignore = "needs root (network namespaces, veth, TUN, AF_PACKET): scripts/test runs it as root"]
    fn veth_lab_rtt_and_cleanup() {
        let _g = guard();
        let lab = Lab::create(&LinkOpts::default()).expect("create");
        assert_eq!(lab.link_kind(), "veth");
        let (c, s) = lab.names();
        let list = netns_list();
        assert!(listed(&list, &c) && listed(&list, &s), "{list}");
        let rtt = median_of(lab.measure_rtt(200).expect("rtt"));
        eprintln!("veth RTT median {rtt:?}");
        assert!(rtt < Duration::from_millis(1), "veth RTT {rtt:?}");
        // Sockets made in in_ns live in the namespace: the client address
        // is local there, not in the test's namespace.
        let ca = lab.client_addr();
        assert!(
            lab.in_ns(Side::Client, move || std::net::UdpSocket::bind((ca, 0))
                .is_ok())
        );
        assert!(std::net::UdpSocket::bind((ca, 0)).is_err());
        drop(lab);
        let list = netns_list();
        assert!(!listed(&list, &c) && !listed(&list, &s), "{list}");
    }

    fn relay_rtt(delay_ms: f64) -> Duration {
        let opts = LinkOpts {
            delay: Duration::from_secs_f64(delay_ms / 1000.0),
            emulator: Emulator::Relay,
            ..LinkOpts::default()
        };
        let lab = Lab::create(&opts).expect("create");
        assert_eq!(lab.link_kind(), "tun-relay");
        let rtt = median_of(
            lab.measure_rtt(if delay_ms < 5.0 { 300 } else { 60 })
                .expect("rtt"),
        );
        let cal = lab.calibration().expect("a delayed link is calibrated");
        eprintln!("tun-relay delay {delay_ms} ms: RTT median {rtt:?}; {cal:?}");
        assert!(cal.applied_delay <= opts.delay);
        rtt
    }

    #[test]
    #[ignore = "needs root (network namespaces, veth, TUN, AF_PACKET): scripts/test runs it as root"]
    fn tun_relay_delay() {
        let _g = guard();
        for (delay, want) in [(0.5, 1.0), (10.0, 20.0)] {
            let rtt = relay_rtt(delay).as_secs_f64() * 1000.0;
            assert!(
                (rtt - want).abs() <= want * 0.1,
                "delay {delay} ms: RTT {rtt:.3} ms, want {want} ms ± 10%"
            );
        }
    }

    #[test]
    #[ignore = "needs root (network namespaces, veth, TUN, AF_PACKET): scripts/test runs it as root"]
    fn tun_relay_loss() {
        let _g = guard();
        let opts = LinkOpts {
            loss_pct: 50.0,
            emulator: Emulator::Relay,
            ..LinkOpts::default()
        };
        let lab = Lab::create(&opts).expect("create");
        let (sa, ca) = (lab.server_addr(), lab.client_addr());
        let rx = lab
            .in_ns(Side::Server, move || std::net::UdpSocket::bind((sa, 0)))
            .expect("bind");
        // The socket stays in the server namespace after the thread exits.
        let port = rx.local_addr().unwrap().port();
        rx.set_read_timeout(Some(Duration::from_millis(300)))
            .unwrap();
        lab.in_ns(Side::Client, move || {
            let tx = std::net::UdpSocket::bind((ca, 0)).unwrap();
            for i in 0..200u32 {
                tx.send_to(&i.to_be_bytes(), (sa, port)).unwrap();
            }
        });
        let mut got = 0;
        let mut b = [0u8; 16];
        while rx.recv(&mut b).is_ok() {
            got += 1;
        }
        let st = lab.relay_stats().unwrap().client_to_server;
        eprintln!("loss 50%: {got}/200 arrived, {st:?}");
        assert!(st.dropped_loss > 0);
        assert!((40..=160).contains(&got), "{got} of 200 arrived");
    }

    #[test]
    #[ignore = "needs root (network namespaces, veth, TUN, AF_PACKET): scripts/test runs it as root"]
    fn cleanup_stale_removes_dead_pid() {
        let _g = guard();
        // A pid no process can have: the kernel hands out pids below
        // pid_max.
        let pid_max: u64 = std::fs::read_to_string("/proc/sys/kernel/pid_max")
            .expect("pid_max")
            .trim()
            .parse()
            .expect("a number");
        let name = format!("ango-{pid_max}-0-c");
        let name = name.as_str();
        assert!(!std::path::Path::new(&format!("/proc/{pid_max}")).exists());
        ip(&["netns", "add", name]).expect("ip netns add");
        let removed = cleanup_stale();
        let gone = !listed(&netns_list(), name);
        if !gone {
            let _ = delete_ns(name);
        }
        assert!(gone, "{name} still there");
        assert!(removed >= 1);
    }

    #[test]
    #[ignore = "needs root (network namespaces, veth, TUN, AF_PACKET): scripts/test runs it as root"]
    fn netem_where_it_exists_else_the_relay() {
        let _g = guard();
        let opts = LinkOpts {
            delay: Duration::from_millis(1),
            ..LinkOpts::default()
        };
        let auto = Lab::create(&opts).expect("create");
        let kind = auto.link_kind();
        let (c, _) = auto.names();
        let devices = run("ip", &["-n", &c, "-o", "link", "show"]).unwrap();
        drop(auto);
        let forced = Lab::create(&LinkOpts {
            emulator: Emulator::Netem,
            ..opts
        });
        if kind == "veth-netem" {
            assert!(devices.contains("veth-c"), "{devices}");
            assert_eq!(forced.expect("netem").link_kind(), "veth-netem");
        } else {
            // No netem here: the probe's veth pair is gone again, the
            // relay's TUN device is there, and asking for netem says why.
            assert_eq!(kind, "tun-relay");
            assert!(
                !devices.contains("veth-c") && devices.contains("tun-c"),
                "{devices}"
            );
            let e = forced.unwrap_err().to_string();
            assert!(e.contains("netem") && e.contains("relay"), "{e}");
        }
    }

    #[test]
    #[ignore = "needs root (network namespaces, veth, TUN, AF_PACKET): scripts/test runs it as root"]
    fn two_labs_at_once() {
        let _g = guard();
        let a = Lab::create(&LinkOpts::default()).expect("create a");
        let b = Lab::create(&LinkOpts {
            delay: Duration::from_millis(1),
            ..LinkOpts::default()
        })
        .expect("create b");
        assert_ne!(a.names(), b.names());
        assert_ne!(a.server_addr(), b.server_addr());
        std::thread::scope(|s| {
            let ha = s.spawn(|| a.measure_rtt(20));
            let hb = s.spawn(|| b.measure_rtt(20));
            let ra = median_of(ha.join().unwrap().expect("rtt a"));
            let rb = median_of(hb.join().unwrap().expect("rtt b"));
            eprintln!("concurrent: veth {ra:?}, tun-relay 1 ms {rb:?}");
            // Both labs measured at once: the point is that each has its own
            // link (the fitted RTT is checked alone in tun_relay_delay);
            // concurrent load shifts the relay's wake-ups, so a wide bound.
            assert!(
                rb >= Duration::from_micros(1500) && ra < Duration::from_micros(1000),
                "asked 2 ms: {rb:?}"
            );
        });
    }

    #[test]
    #[ignore = "needs root (network namespaces, veth, TUN, AF_PACKET): scripts/test runs it as root"]
    fn rate_and_mtu_on_veth_and_congestion_control() {
        let _g = guard();
        let opts = LinkOpts {
            rate_bps: Some(50_000_000),
            mtu: Some(1400),
            congestion_control: Some("reno".into()),
            ..LinkOpts::default()
        };
        let lab = Lab::create(&opts).expect("create");
        assert_eq!(lab.link_kind(), "veth");
        let cc = lab.in_ns(Side::Server, || {
            std::fs::read_to_string("/proc/sys/net/ipv4/tcp_congestion_control")
        });
        assert_eq!(cc.unwrap().trim(), "reno");
        lab.measure_rtt(5).expect("rtt");
        drop(lab);
        let bad = LinkOpts {
            congestion_control: Some("no_such_cc".into()),
            ..LinkOpts::default()
        };
        let e = Lab::create(&bad).unwrap_err();
        assert!(e.to_string().contains("not available"), "{e}");
    }

    #[test]
    #[ignore = "needs root (network namespaces, veth, TUN, AF_PACKET): scripts/test runs it as root"]
    fn tun_relay_rate_paces() {
        let _g = guard();
        // 100 datagrams of 1000 bytes payload (1028 on the wire) at 8 Mbit/s
        // take 102.8 ms to serialise.
        let opts = LinkOpts {
            delay: Duration::from_millis(1),
            rate_bps: Some(8_000_000),
            emulator: Emulator::Relay,
            ..LinkOpts::default()
        };
        let lab = Lab::create(&opts).expect("create");
        assert_eq!(lab.link_kind(), "tun-relay");
        let (sa, ca) = (lab.server_addr(), lab.client_addr());
        let rx = lab
            .in_ns(Side::Server, move || std::net::UdpSocket::bind((sa, 0)))
            .expect("bind");
        let port = rx.local_addr().unwrap().port();
        rx.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
        let t0 = Instant::now();
        lab.in_ns(Side::Client, move || {
            let tx = std::net::UdpSocket::bind((ca, 0)).unwrap();
            for _ in 0..100 {
                tx.send_to(&[0u8; 1000], (sa, port)).unwrap();
            }
        });
        let mut b = [0u8; 2000];
        for i in 0..100 {
            rx.recv(&mut b)
                .unwrap_or_else(|e| panic!("datagram {i}: {e}"));
        }
        let took = t0.elapsed();
        eprintln!("100 x 1028 B at 8 Mbit/s: {took:?}");
        assert!(took >= Duration::from_millis(100) && took < Duration::from_millis(150));
    }

    #[test]
    #[ignore = "needs root (network namespaces, veth, TUN, AF_PACKET): scripts/test runs it as root"]
    fn errors_and_ctrl_c_leave_nothing_behind() {
        let _g = guard();
        let mine = format!("{PREFIX}{}-", std::process::id());
        let ours = || {
            netns_list()
                .lines()
                .filter(|l| l.starts_with(&mine))
                .count()
        };
        // Fails after the namespaces exist (the algorithm is checked last).
        let bad = LinkOpts {
            delay: Duration::from_millis(1),
            congestion_control: Some("no_such_cc".into()),
            ..LinkOpts::default()
        };
        assert!(Lab::create(&bad).is_err());
        assert_eq!(ours(), 0);
        let lab = Lab::create(&LinkOpts::default()).expect("create");
        assert_eq!(ours(), 2);
        assert_eq!(remove_all_of_this_process(), 2);
        assert_eq!(ours(), 0);
        drop(lab); // finds them gone; must not panic
        assert!(REGISTRY.lock().unwrap().is_empty());
    }

    #[test]
    #[ignore = "needs root (network namespaces, veth, TUN, AF_PACKET): scripts/test runs it as root"]
    fn spawn_in_runs_in_namespace() {
        let _g = guard();
        let lab = Lab::create(&LinkOpts::default()).expect("create");
        let sa = lab.server_addr();
        let h = lab.spawn_in(Side::Server, move || {
            std::net::TcpListener::bind((sa, 0)).is_ok()
        });
        assert!(h.join().unwrap());
    }
}
