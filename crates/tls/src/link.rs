//! The emulated link of the handshake lab: a relay between two TUN devices.
//!
//! This kernel has no `netem` qdisc, so one-way delay, jitter and loss are
//! emulated in user space. Each namespace of a [`Lab`](super::lab::Lab) gets
//! a TUN device (layer 3, no packet-information header); the relay owns both
//! file descriptors and runs one thread per direction. A thread reads every
//! packet the kernel sends out of one TUN device, stamps its arrival time,
//! decides whether it is lost (or too large for the MTU), computes when it
//! leaves the emulated wire and writes it into the other TUN device at that
//! moment (the other kernel then sees it as received).
//!
//! The link model per direction, for a packet of `len` bytes arriving at `t`:
//!
//! * larger than the MTU: dropped (`dropped_mtu`);
//! * lost with probability `loss_pct / 100` (`dropped_loss`);
//! * with a rate: it starts serialising when the wire is free,
//!   `start = max(t, wire_free)`, and `wire_free = start + len * 8 / rate`;
//!   without a rate it "leaves" at `t`;
//! * `release = departure + delay + U(-jitter, +jitter)` (never before the
//!   departure), then `release = max(release, previous release)`, so packets
//!   of one direction are never reordered;
//! * at most [`QUEUE_LIMIT`] packets wait in the emulated wire; more are
//!   dropped (`dropped_queue`), like netem's default `limit 1000`.
//!
//! Waiting for a release time sleeps in `ppoll` (nanosecond timeout, timer
//! slack set to 1 ns, so new packets still wake the thread) and spins the last
//! [`SPIN`] so packets leave within a few microseconds of their due time.

use std::collections::VecDeque;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The link between the two namespaces.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LinkOpts {
    /// One-way delay (each direction gets it, so the RTT grows by twice it).
    pub delay: Duration,
    /// Jitter: each packet's delay is `delay ± U(0, jitter)`; packets of one
    /// direction are never reordered.
    pub jitter: Duration,
    /// Packet loss in percent (0 to 100), in each direction.
    pub loss_pct: f64,
    /// Rate limit in bit/s, in each direction.
    pub rate_bps: Option<u64>,
    /// MTU of the link's interfaces (at least 68).
    pub mtu: Option<u32>,
    /// TCP congestion control of both namespaces (e.g. `cubic`, `bbr`).
    pub congestion_control: Option<String>,
    /// What emulates delay, jitter and loss.
    pub emulator: Emulator,
}

/// What emulates delay, jitter and loss.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Emulator {
    /// The kernel's `netem` where it exists, otherwise ango's relay.
    #[default]
    Auto,
    /// The kernel's `netem` (an error where it does not exist).
    Netem,
    /// ango's relay between TUN devices.
    Relay,
}

impl Emulator {
    /// Parses `auto`, `netem` or `relay`.
    pub fn parse(s: &str) -> Option<Emulator> {
        match s {
            "auto" => Some(Emulator::Auto),
            "netem" => Some(Emulator::Netem),
            "relay" => Some(Emulator::Relay),
            _ => None,
        }
    }
}

impl LinkOpts {
    /// Whether the link needs the user-space relay (delay, jitter or loss).
    pub fn needs_relay(&self) -> bool {
        !self.delay.is_zero() || !self.jitter.is_zero() || self.loss_pct > 0.0
    }

    pub(crate) fn validate(&self) -> io::Result<()> {
        if !(0.0..=100.0).contains(&self.loss_pct) {
            return Err(invalid_opts(format!(
                "loss must be between 0 and 100 %, not {}",
                self.loss_pct
            )));
        }
        if self.rate_bps == Some(0) {
            return Err(invalid_opts("rate must be above 0 bit/s".into()));
        }
        if let Some(mtu) = self.mtu {
            if !(68..=65_535).contains(&mtu) {
                return Err(invalid_opts(format!("MTU must be 68 to 65535, not {mtu}")));
            }
        }
        if let Some(cc) = &self.congestion_control {
            if cc.is_empty()
                || !cc
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
            {
                return Err(invalid_opts(format!("bad congestion control name {cc:?}")));
            }
        }
        Ok(())
    }
}

fn invalid_opts(msg: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, msg)
}

/// Packets allowed to wait in one direction of the emulated wire.
pub const QUEUE_LIMIT: usize = 10_000;

/// The last part of a wait that is spun rather than slept.
pub const SPIN: Duration = Duration::from_micros(50);

/// Largest packet a TUN device hands out (IPv4/IPv6 length fields).
const MAX_PACKET: usize = 65_536;

/// Packets read in one go before due packets are looked at again.
const READ_BURST: usize = 64;

/// Counters of one direction (a snapshot).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DirStats {
    /// Packets read from the sending side (all of them, dropped or not).
    pub packets: u64,
    /// Bytes of those packets.
    pub bytes: u64,
    /// Packets written to the receiving side.
    pub delivered: u64,
    /// Packets dropped by the emulated loss.
    pub dropped_loss: u64,
    /// Packets dropped for being larger than the MTU.
    pub dropped_mtu: u64,
    /// Packets dropped because [`QUEUE_LIMIT`] packets were already waiting.
    pub dropped_queue: u64,
    /// Writes to the receiving TUN device that failed (packet lost).
    pub write_errors: u64,
}

/// Counters of both directions (a snapshot).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RelayStats {
    /// Packets the client sent towards the server.
    pub client_to_server: DirStats,
    /// Packets the server sent towards the client.
    pub server_to_client: DirStats,
}

#[derive(Default)]
struct Counters {
    packets: AtomicU64,
    bytes: AtomicU64,
    delivered: AtomicU64,
    dropped_loss: AtomicU64,
    dropped_mtu: AtomicU64,
    dropped_queue: AtomicU64,
    write_errors: AtomicU64,
}

impl Counters {
    fn snapshot(&self) -> DirStats {
        DirStats {
            packets: self.packets.load(Ordering::Relaxed),
            bytes: self.bytes.load(Ordering::Relaxed),
            delivered: self.delivered.load(Ordering::Relaxed),
            dropped_loss: self.dropped_loss.load(Ordering::Relaxed),
            dropped_mtu: self.dropped_mtu.load(Ordering::Relaxed),
            dropped_queue: self.dropped_queue.load(Ordering::Relaxed),
            write_errors: self.write_errors.load(Ordering::Relaxed),
        }
    }
}

fn bump(c: &AtomicU64, by: u64) {
    c.fetch_add(by, Ordering::Relaxed);
}

/// The link parameters one direction applies.
#[derive(Debug, Clone, Copy)]
struct Shape {
    jitter: Duration,
    /// Loss probability in [0, 1].
    loss: f64,
    rate_bps: Option<u64>,
    mtu: Option<usize>,
}

impl Shape {
    fn from_opts(opts: &LinkOpts) -> Shape {
        let loss = if opts.loss_pct.is_finite() {
            (opts.loss_pct / 100.0).clamp(0.0, 1.0)
        } else {
            0.0
        };
        Shape {
            jitter: opts.jitter,
            loss,
            rate_bps: opts.rate_bps.filter(|&r| r > 0),
            mtu: opts.mtu.map(|m| m as usize),
        }
    }
}

/// A small deterministic PRNG (splitmix64); the seed comes from the clock.
struct Rng(u64);

impl Rng {
    fn seeded(stream: u64) -> Rng {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0);
        Rng(nanos
            ^ u64::from(std::process::id()).rotate_left(32)
            ^ stream.wrapping_mul(0xA076_1D64_78BD_642F))
    }

    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn duration_ns(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// Serialisation time of `len` bytes at `rate` bit/s.
fn tx_time(len: usize, rate: u64) -> Duration {
    let nanos = (len as u128 * 8 * 1_000_000_000) / u128::from(rate);
    Duration::from_nanos(u64::try_from(nanos).unwrap_or(u64::MAX))
}

/// The release-time bookkeeping of one direction (pure, so it is testable).
struct Schedule {
    shape: Shape,
    /// One-way delay in ns, shared with the [`Relay`] so calibration can
    /// change it while packets flow.
    delay_ns: Arc<AtomicU64>,
    rng: Rng,
    wire_free: Option<Instant>,
    last_release: Option<Instant>,
}

/// What happens to an arriving packet.
#[derive(Debug, PartialEq, Eq)]
enum Verdict {
    DropMtu,
    DropLoss,
    Release(Instant),
}

impl Schedule {
    fn new(shape: Shape, delay_ns: Arc<AtomicU64>, stream: u64) -> Schedule {
        Schedule {
            shape,
            delay_ns,
            rng: Rng::seeded(stream),
            wire_free: None,
            last_release: None,
        }
    }

    fn admit(&mut self, len: usize, arrival: Instant) -> Verdict {
        if self.shape.mtu.is_some_and(|mtu| len > mtu) {
            return Verdict::DropMtu;
        }
        if self.shape.loss > 0.0 && self.rng.next_f64() < self.shape.loss {
            return Verdict::DropLoss;
        }
        let departure = match self.shape.rate_bps {
            Some(rate) => {
                let start = self.wire_free.map_or(arrival, |f| f.max(arrival));
                let done = start + tx_time(len, rate);
                self.wire_free = Some(done);
                done
            }
            None => arrival,
        };
        let mut release = departure + Duration::from_nanos(self.delay_ns.load(Ordering::Relaxed));
        if !self.shape.jitter.is_zero() {
            let j = self.shape.jitter.as_secs_f64() * (2.0 * self.rng.next_f64() - 1.0);
            release = if j >= 0.0 {
                release + Duration::from_secs_f64(j)
            } else {
                release
                    .checked_sub(Duration::from_secs_f64(-j))
                    .unwrap_or(departure)
                    .max(departure)
            };
        }
        if let Some(last) = self.last_release {
            release = release.max(last);
        }
        self.last_release = Some(release);
        Verdict::Release(release)
    }
}

/// The running relay between the client's and the server's TUN device.
///
/// Dropping it stops both threads and closes both descriptors (which removes
/// the non-persistent TUN devices).
pub struct Relay {
    stop: Arc<AtomicBool>,
    wake: Arc<OwnedFd>,
    threads: Vec<JoinHandle<()>>,
    c2s: Arc<Counters>,
    s2c: Arc<Counters>,
    delay_ns: Arc<AtomicU64>,
}

impl Relay {
    /// Starts relaying between the TUN descriptor of the client namespace
    /// and that of the server namespace, shaping both directions with `opts`.
    pub fn start(client: OwnedFd, server: OwnedFd, opts: &LinkOpts) -> io::Result<Relay> {
        set_nonblocking(client.as_raw_fd())?;
        set_nonblocking(server.as_raw_fd())?;
        // SAFETY: eventfd has no memory-safety preconditions.
        let efd = unsafe { libc::eventfd(0, libc::EFD_NONBLOCK | libc::EFD_CLOEXEC) };
        if efd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `efd` was just returned by eventfd and is owned by nobody else.
        let wake = Arc::new(unsafe { OwnedFd::from_raw_fd(efd) });
        let client = Arc::new(client);
        let server = Arc::new(server);
        let stop = Arc::new(AtomicBool::new(false));
        let c2s = Arc::new(Counters::default());
        let s2c = Arc::new(Counters::default());
        let shape = Shape::from_opts(opts);
        let delay_ns = Arc::new(AtomicU64::new(duration_ns(opts.delay)));

        let mut relay = Relay {
            stop: Arc::clone(&stop),
            wake: Arc::clone(&wake),
            threads: Vec::with_capacity(2),
            c2s: Arc::clone(&c2s),
            s2c: Arc::clone(&s2c),
            delay_ns: Arc::clone(&delay_ns),
        };
        let dirs = [
            ("ango-relay-c2s", &client, &server, c2s, 1u64),
            ("ango-relay-s2c", &server, &client, s2c, 2u64),
        ];
        for (name, from, to, counters, stream) in dirs {
            let dir = Direction {
                from: Arc::clone(from),
                to: Arc::clone(to),
                wake: Arc::clone(&wake),
                stop: Arc::clone(&stop),
                counters,
                schedule: Schedule::new(shape, Arc::clone(&delay_ns), stream),
            };
            // On failure `relay` is dropped, which stops the started thread.
            let handle = std::thread::Builder::new()
                .name(name.into())
                .spawn(move || dir.run())?;
            relay.threads.push(handle);
        }
        Ok(relay)
    }

    /// The one-way delay each direction adds now (before jitter).
    pub fn delay(&self) -> Duration {
        Duration::from_nanos(self.delay_ns.load(Ordering::Relaxed))
    }

    /// Changes the one-way delay of both directions; packets already on
    /// the emulated wire keep their release times.
    pub fn set_delay(&self, delay: Duration) {
        self.delay_ns.store(duration_ns(delay), Ordering::Relaxed);
    }

    /// Counters of both directions so far.
    pub fn stats(&self) -> RelayStats {
        RelayStats {
            client_to_server: self.c2s.snapshot(),
            server_to_client: self.s2c.snapshot(),
        }
    }

    /// Stops both threads and waits for them (idempotent). Packets still on
    /// the emulated wire are discarded.
    pub fn stop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let one: u64 = 1;
        // SAFETY: writes 8 bytes from a live u64 to an eventfd we own.
        let _ = unsafe {
            libc::write(
                self.wake.as_raw_fd(),
                (&one as *const u64).cast::<libc::c_void>(),
                std::mem::size_of::<u64>(),
            )
        };
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.stop();
    }
}

impl std::fmt::Debug for Relay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Relay")
            .field("running", &!self.stop.load(Ordering::Relaxed))
            .field("stats", &self.stats())
            .finish()
    }
}

/// One direction: reads `from`, writes `to`.
struct Direction {
    from: Arc<OwnedFd>,
    to: Arc<OwnedFd>,
    wake: Arc<OwnedFd>,
    stop: Arc<AtomicBool>,
    counters: Arc<Counters>,
    schedule: Schedule,
}

impl Direction {
    fn run(mut self) {
        // Precise sleeps: the default timer slack of 50 µs would be added to
        // every ppoll timeout.
        // SAFETY: PR_SET_TIMERSLACK takes a plain integer and affects only
        // this thread.
        let _ = unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0) };
        let mut buf = vec![0u8; MAX_PACKET];
        let mut queue: VecDeque<(Instant, Vec<u8>)> = VecDeque::new();
        while !self.stop.load(Ordering::Relaxed) {
            let now = Instant::now();
            while queue.front().is_some_and(|(due, _)| *due <= now) {
                if let Some((_, pkt)) = queue.pop_front() {
                    self.deliver(&pkt);
                }
            }
            let wait = queue
                .front()
                .map(|(due, _)| due.saturating_duration_since(now));
            match wait {
                Some(w) if w <= SPIN => {
                    // Take in what has arrived meanwhile, then spin to the due time.
                    if self.read_some(&mut buf, &mut queue).is_err() {
                        return;
                    }
                    if let Some(&(due, _)) = queue.front() {
                        while Instant::now() < due {
                            std::hint::spin_loop();
                        }
                    }
                }
                _ => {
                    let timeout = wait.map(|w| w - SPIN);
                    match self.poll(timeout) {
                        Ok(true) => {
                            if self.read_some(&mut buf, &mut queue).is_err() {
                                return;
                            }
                        }
                        Ok(false) => {}
                        Err(_) => return,
                    }
                }
            }
        }
    }

    /// Waits until the source is readable, the stop event fires or
    /// `timeout` passes. Returns whether the source is readable.
    fn poll(&self, timeout: Option<Duration>) -> io::Result<bool> {
        let mut fds = [
            libc::pollfd {
                fd: self.from.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            },
            libc::pollfd {
                fd: self.wake.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            },
        ];
        let ts = timeout.map(|t| libc::timespec {
            tv_sec: t.as_secs().min(i32::MAX as u64) as libc::time_t,
            tv_nsec: t.subsec_nanos() as libc::c_long,
        });
        let ts_ptr = ts
            .as_ref()
            .map_or(std::ptr::null(), |t| t as *const libc::timespec);
        // SAFETY: `fds` is a live array of two pollfd, `ts_ptr` is null or
        // points to a live timespec, and a null sigmask leaves it unchanged.
        let n = unsafe { libc::ppoll(fds.as_mut_ptr(), 2, ts_ptr, std::ptr::null()) };
        if n < 0 {
            let e = io::Error::last_os_error();
            return if e.kind() == io::ErrorKind::Interrupted {
                Ok(false)
            } else {
                Err(e)
            };
        }
        if fds[0].revents & (libc::POLLERR | libc::POLLNVAL) != 0 {
            return Err(io::Error::other("TUN device failed"));
        }
        Ok(fds[0].revents & libc::POLLIN != 0)
    }

    /// Reads up to [`READ_BURST`] packets without blocking and queues them.
    fn read_some(
        &mut self,
        buf: &mut [u8],
        queue: &mut VecDeque<(Instant, Vec<u8>)>,
    ) -> io::Result<()> {
        for _ in 0..READ_BURST {
            // SAFETY: `buf` is a live, writable buffer of `buf.len()` bytes.
            let n = unsafe {
                libc::read(
                    self.from.as_raw_fd(),
                    buf.as_mut_ptr().cast::<libc::c_void>(),
                    buf.len(),
                )
            };
            if n < 0 {
                let e = io::Error::last_os_error();
                return match e.kind() {
                    io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted => Ok(()),
                    _ => Err(e),
                };
            }
            if n == 0 {
                return Ok(());
            }
            let len = n as usize;
            let arrival = Instant::now();
            bump(&self.counters.packets, 1);
            bump(&self.counters.bytes, len as u64);
            // A full queue drops before the schedule admits the packet, so
            // a dropped packet never occupies the emulated wire.
            if queue.len() >= QUEUE_LIMIT {
                bump(&self.counters.dropped_queue, 1);
                continue;
            }
            match self.schedule.admit(len, arrival) {
                Verdict::DropMtu => bump(&self.counters.dropped_mtu, 1),
                Verdict::DropLoss => bump(&self.counters.dropped_loss, 1),
                Verdict::Release(due) => queue.push_back((due, buf[..len].to_vec())),
            }
        }
        Ok(())
    }

    fn deliver(&self, pkt: &[u8]) {
        // SAFETY: `pkt` is a live slice of `pkt.len()` bytes.
        let n = unsafe {
            libc::write(
                self.to.as_raw_fd(),
                pkt.as_ptr().cast::<libc::c_void>(),
                pkt.len(),
            )
        };
        if n < 0 {
            bump(&self.counters.write_errors, 1);
        } else {
            bump(&self.counters.delivered, 1);
        }
    }
}

fn set_nonblocking(fd: RawFd) -> io::Result<()> {
    // SAFETY: F_GETFL on a descriptor we own; no pointers involved.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: F_SETFL with an integer flag set; no pointers involved.
    if unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// The `struct ifreq` prefix TUNSETIFF reads: name and flags, padded to the
/// kernel's 40 bytes.
#[repr(C)]
struct IfReqFlags {
    name: [libc::c_char; libc::IFNAMSIZ],
    flags: libc::c_short,
    _pad: [u8; 22],
}

/// Creates the TUN device `name` (layer 3, `IFF_TUN | IFF_NO_PI`) in the
/// network namespace of the calling *thread* and returns its descriptor.
///
/// Call it on a thread that has entered the target namespace (see
/// `Lab::in_ns`): the device belongs to the namespace that was current when
/// `/dev/net/tun` was opened. The device disappears when the descriptor is
/// closed.
pub fn open_tun(name: &str) -> io::Result<OwnedFd> {
    if name.is_empty() || name.len() >= libc::IFNAMSIZ || name.bytes().any(|b| b == 0 || b == b'/')
    {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("bad interface name {name:?} (1 to 15 bytes)"),
        ));
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/net/tun")
        .map_err(|e| io::Error::new(e.kind(), format!("opening /dev/net/tun: {e}")))?;
    let fd = OwnedFd::from(file);
    let mut req = IfReqFlags {
        name: [0; libc::IFNAMSIZ],
        flags: (libc::IFF_TUN | libc::IFF_NO_PI) as libc::c_short,
        _pad: [0; 22],
    };
    for (dst, &src) in req.name.iter_mut().zip(name.as_bytes()) {
        *dst = src as libc::c_char;
    }
    // SAFETY: TUNSETIFF reads (and may write back) a struct ifreq; `req` is
    // a live, correctly sized and aligned ifreq-compatible struct.
    let rc = unsafe { libc::ioctl(fd.as_raw_fd(), libc::TUNSETIFF, &mut req as *mut IfReqFlags) };
    if rc < 0 {
        let e = io::Error::last_os_error();
        return Err(io::Error::new(e.kind(), format!("TUNSETIFF {name}: {e}")));
    }
    Ok(fd)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape() -> Shape {
        Shape {
            jitter: Duration::ZERO,
            loss: 0.0,
            rate_bps: None,
            mtu: None,
        }
    }

    fn delay(ms: u64) -> Arc<AtomicU64> {
        Arc::new(AtomicU64::new(ms * 1_000_000))
    }

    #[test]
    fn delay_is_added_and_order_kept() {
        let mut s = Schedule::new(
            Shape {
                jitter: Duration::from_millis(5),
                ..shape()
            },
            delay(10),
            7,
        );
        let t0 = Instant::now();
        let mut last = t0;
        for i in 0..1000u64 {
            let at = t0 + Duration::from_micros(i * 10);
            match s.admit(100, at) {
                Verdict::Release(r) => {
                    assert!(r >= last, "reordered");
                    assert!(r >= at + Duration::from_millis(5));
                    assert!(r <= at + Duration::from_millis(15) || r == last);
                    last = r;
                }
                v => panic!("unexpected {v:?}"),
            }
        }
    }

    #[test]
    fn rate_paces_back_to_back_packets() {
        // 1500 bytes at 12 Mbit/s = 1 ms each.
        let mut s = Schedule::new(
            Shape {
                rate_bps: Some(12_000_000),
                ..shape()
            },
            delay(2),
            1,
        );
        let t0 = Instant::now();
        let rel: Vec<Instant> = (0..5)
            .map(|_| match s.admit(1500, t0) {
                Verdict::Release(r) => r,
                v => panic!("unexpected {v:?}"),
            })
            .collect();
        for (i, r) in rel.iter().enumerate() {
            assert_eq!(*r - t0, Duration::from_millis(3 + i as u64));
        }
    }

    #[test]
    fn mtu_and_loss() {
        let mut s = Schedule::new(
            Shape {
                mtu: Some(1000),
                loss: 0.5,
                ..shape()
            },
            delay(0),
            3,
        );
        let t0 = Instant::now();
        assert_eq!(s.admit(1001, t0), Verdict::DropMtu);
        let lost = (0..10_000)
            .filter(|_| s.admit(100, t0) == Verdict::DropLoss)
            .count();
        assert!((4_000..6_000).contains(&lost), "lost {lost} of 10000");
    }

    #[test]
    fn a_changed_delay_applies_to_later_packets() {
        let d = delay(2);
        let mut s = Schedule::new(shape(), Arc::clone(&d), 4);
        let t0 = Instant::now();
        assert_eq!(
            s.admit(100, t0),
            Verdict::Release(t0 + Duration::from_millis(2))
        );
        d.store(5_000_000, Ordering::Relaxed);
        let t1 = t0 + Duration::from_millis(1);
        assert_eq!(
            s.admit(100, t1),
            Verdict::Release(t1 + Duration::from_millis(5))
        );
    }
}
