//! Packet capture for the handshake lab, a pcap writer, and TCP reassembly.
//!
//! [`Capture`] reads every IPv4 TCP packet an interface sends or receives
//! through an `AF_PACKET` socket (link headers stripped, kernel timestamps)
//! on a background thread. [`connections`] groups the packets of one or more
//! captures into [`Conn`]s, each with what the client and what the server
//! saw of it ([`View`]). A capture in each namespace gives both views; so
//! does a single capture on `lo`, which sees every packet twice (once
//! outgoing, once incoming).
//!
//! Taps see packets before GSO/TSO segmentation when the device offloads it
//! (veth, `lo`), so one captured packet may stand for several wire segments
//! ([`Seg::segments`]).

use std::collections::HashMap;
use std::ffi::CString;
use std::io::{self, BufWriter, Write};
use std::mem::{size_of, size_of_val, zeroed};
use std::net::{Ipv4Addr, SocketAddrV4, UdpSocket};
use std::ops::Range;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, UNIX_EPOCH};

/// Largest packet kept whole, and the snaplen of [`write_pcap`] files.
pub const SNAPLEN: u32 = 262_144;
/// Receive buffer asked for on the capture socket.
const RCVBUF: libc::c_int = 64 << 20;
/// [`Capture::take`] waits until no packet arrived for this long, but at
/// most [`TAKE_LIMIT`].
const QUIET: Duration = Duration::from_millis(20);
const TAKE_LIMIT: Duration = Duration::from_secs(2);
/// How often (ms) the reader thread looks at its stop flag.
const POLL_MS: libc::c_int = 20;

/// FIN bit of [`Tcp::flags`].
pub const FIN: u8 = 1;
/// SYN bit of [`Tcp::flags`].
pub const SYN: u8 = 2;
/// RST bit of [`Tcp::flags`].
pub const RST: u8 = 4;
/// PSH bit of [`Tcp::flags`].
pub const PSH: u8 = 8;
/// ACK bit of [`Tcp::flags`].
pub const ACK: u8 = 16;

/// One captured packet: kernel receive/transmit timestamp (`CLOCK_REALTIME`,
/// ns since the epoch, from `SO_TIMESTAMPNS`), whether this host sent it
/// (`sll_pkttype == PACKET_OUTGOING`), and the IP packet without link-layer
/// header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Packet {
    /// Kernel timestamp, ns since the Unix epoch.
    pub t_ns: u64,
    /// Sent by this host (rather than received).
    pub outgoing: bool,
    /// The IP packet.
    pub data: Vec<u8>,
}

/// What [`Capture::take`] returns.
#[derive(Clone, Debug, Default)]
pub struct CaptureBatch {
    /// Packets captured since the previous take, in capture order.
    pub packets: Vec<Packet>,
    /// Packets the kernel dropped since the last take (`PACKET_STATISTICS`
    /// `tp_drops`).
    pub kernel_drops: u64,
}

/// A running capture of the IPv4 TCP packets of one interface.
pub struct Capture {
    shared: Arc<Shared>,
    reader: Option<JoinHandle<()>>,
}

struct Shared {
    fd: OwnedFd,
    stop: AtomicBool,
    /// Whoever holds the lock reads the socket: the reader thread or `take`.
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    packets: Vec<Packet>,
    buf: Vec<u8>,
    last_rx: Option<Instant>,
    error: Option<io::Error>,
}

/// Keeps IPv4 TCP packets whole. A `SOCK_DGRAM` packet socket's filter sees
/// the packet from the network header, in both directions.
const FILTER: [libc::sock_filter; 7] = [
    bpf(0x30, 0, 0, 0),        // ldb [0]: version and IHL
    bpf(0x54, 0, 0, 0xf0),     // and #0xf0
    bpf(0x15, 0, 3, 0x40),     // jeq #0x40 (IPv4), else drop
    bpf(0x30, 0, 0, 9),        // ldb [9]: protocol
    bpf(0x15, 0, 1, 6),        // jeq #6 (TCP), else drop
    bpf(0x06, 0, 0, u32::MAX), // ret: all of it
    bpf(0x06, 0, 0, 0),        // ret: drop
];

/// [`FILTER`] for TCP packets whose source or destination port is `port`
/// (first fragments only: later ones carry no TCP header).
fn port_filter(port: u16) -> [libc::sock_filter; 14] {
    let p = u32::from(port);
    [
        bpf(0x30, 0, 0, 0),        // 0 ldb [0]: version and IHL
        bpf(0x54, 0, 0, 0xf0),     // 1 and #0xf0
        bpf(0x15, 0, 10, 0x40),    // 2 jeq #0x40 (IPv4), else drop
        bpf(0x30, 0, 0, 9),        // 3 ldb [9]: protocol
        bpf(0x15, 0, 8, 6),        // 4 jeq #6 (TCP), else drop
        bpf(0x28, 0, 0, 6),        // 5 ldh [6]: flags and fragment offset
        bpf(0x45, 6, 0, 0x1fff),   // 6 jset #0x1fff (a later fragment): drop
        bpf(0xb1, 0, 0, 0),        // 7 ldxb 4*([0]&0xf): IP header length
        bpf(0x48, 0, 0, 0),        // 8 ldh [x+0]: source port
        bpf(0x15, 2, 0, p),        // 9 jeq #port: keep
        bpf(0x48, 0, 0, 2),        // 10 ldh [x+2]: destination port
        bpf(0x15, 0, 1, p),        // 11 jeq #port: keep, else drop
        bpf(0x06, 0, 0, u32::MAX), // 12 ret: all of it
        bpf(0x06, 0, 0, 0),        // 13 ret: drop
    ]
}

const fn bpf(code: u16, jt: u8, jf: u8, k: u32) -> libc::sock_filter {
    libc::sock_filter { code, jt, jf, k }
}

impl Capture {
    /// Opens an `AF_PACKET` `SOCK_DGRAM` socket (`ETH_P_ALL`) in the calling
    /// thread's network namespace, bound to `ifname`, with `SO_TIMESTAMPNS`,
    /// a 64 MiB receive buffer and a filter keeping IPv4 TCP packets whole,
    /// and starts the "ango-capture" reader thread. The socket keeps reading
    /// that interface whatever namespace later threads are in. First waits
    /// (about 1 ms) until the kernel really timestamps packets on arrival.
    pub fn start(ifname: &str) -> io::Result<Capture> {
        Capture::start_with(Some(ifname), None)
    }

    /// [`Capture::start`] on `ifname` (`None`: every interface of the
    /// namespace), keeping only TCP packets to or from `port` when given:
    /// the kernel filters them, so nothing else on a shared host (other
    /// connections, the control connection) is ever read.
    pub fn start_with(ifname: Option<&str>, port: Option<u16>) -> io::Result<Capture> {
        let ifindex = match ifname {
            Some(ifname) => {
                let name = CString::new(ifname)?;
                // SAFETY: `name` is a valid NUL-terminated string.
                let ifindex = unsafe { libc::if_nametoindex(name.as_ptr()) };
                if ifindex == 0 {
                    return Err(os_error(&format!("interface {ifname}")));
                }
                ifindex
            }
            None => 0,
        };
        let filter = match port {
            Some(p) => port_filter(p).to_vec(),
            None => FILTER.to_vec(),
        };
        // Protocol 0: nothing is queued before `bind`, after the filter is attached.
        let kind = libc::SOCK_DGRAM | libc::SOCK_CLOEXEC;
        // SAFETY: a plain system call.
        let raw = unsafe { libc::socket(libc::AF_PACKET, kind, 0) };
        let raw = check(raw, "AF_PACKET socket")?;
        // SAFETY: `raw` is a freshly opened descriptor owned by nobody else.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        let prog = libc::sock_fprog {
            len: filter.len() as u16,
            filter: filter.as_ptr().cast_mut(),
        };
        set_opt(&fd, libc::SO_ATTACH_FILTER, prog, "SO_ATTACH_FILTER")?;
        set_opt(&fd, libc::SO_TIMESTAMPNS, 1, "SO_TIMESTAMPNS")?;
        if set_opt(&fd, libc::SO_RCVBUFFORCE, RCVBUF, "").is_err() {
            set_opt(&fd, libc::SO_RCVBUF, RCVBUF, "SO_RCVBUF")?;
        }
        await_kernel_timestamps();
        // SAFETY: all-zero is a valid `sockaddr_ll`.
        let mut sll: libc::sockaddr_ll = unsafe { zeroed() };
        sll.sll_family = libc::AF_PACKET as u16;
        sll.sll_protocol = (libc::ETH_P_ALL as u16).to_be();
        sll.sll_ifindex = ifindex as i32;
        let addr = (&sll as *const libc::sockaddr_ll).cast();
        // SAFETY: `addr` points to a `sockaddr_ll` of the length given.
        let r = unsafe { libc::bind(fd.as_raw_fd(), addr, size_of_val(&sll) as u32) };
        check(r, "bind")?;
        let shared = Arc::new(Shared {
            fd,
            stop: AtomicBool::new(false),
            state: Mutex::default(),
        });
        shared.drops()?; // the counters reset on every read
        let s = Arc::clone(&shared);
        let reader = std::thread::Builder::new().name("ango-capture".into());
        let reader = Some(reader.spawn(move || s.read_loop())?);
        Ok(Capture { shared, reader })
    }

    /// Waits until everything already queued on the socket has been read and
    /// no packet arrived for 20 ms (at most 2 s), then returns the packets
    /// captured since the previous take and the kernel drops since then.
    /// A read error of the reader thread is returned once (its packets stay).
    pub fn take(&self) -> io::Result<CaptureBatch> {
        let start = Instant::now();
        loop {
            let mut st = self.shared.lock();
            if let Some(e) = st.error.take() {
                return Err(e);
            }
            self.shared.drain(&mut st)?;
            let quiet = st.last_rx.map_or(start, |t| t.max(start)).elapsed();
            if quiet >= QUIET || start.elapsed() >= TAKE_LIMIT {
                let kernel_drops = self.shared.drops()?;
                let packets = std::mem::take(&mut st.packets);
                return Ok(CaptureBatch {
                    packets,
                    kernel_drops,
                });
            }
            drop(st);
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// Stops the reader thread and closes the socket (as dropping does).
    pub fn stop(self) {}
}

impl Drop for Capture {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Release);
        if let Some(h) = self.reader.take() {
            let _ = h.join();
        }
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn read_loop(&self) {
        let mut pfd = libc::pollfd {
            fd: self.fd.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        while !self.stop.load(Ordering::Acquire) {
            // SAFETY: `pfd` is one valid `pollfd`.
            let polled = check(unsafe { libc::poll(&mut pfd, 1, POLL_MS) }, "poll");
            if let Err(e) = polled.and_then(|_| self.drain(&mut self.lock())) {
                if e.kind() != io::ErrorKind::Interrupted {
                    self.lock().error = Some(e);
                    return;
                }
            }
        }
    }

    /// Reads every queued packet into `st`.
    fn drain(&self, st: &mut State) -> io::Result<()> {
        st.buf.resize(SNAPLEN as usize, 0);
        loop {
            match recv_packet(self.fd.as_raw_fd(), &mut st.buf) {
                Ok(p) => {
                    st.packets.push(p);
                    st.last_rx = Some(Instant::now());
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(()),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                // Reported once when the interface goes down; the socket stays usable.
                Err(e) if e.raw_os_error() == Some(libc::ENETDOWN) => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// Kernel drops since the previous call.
    fn drops(&self) -> io::Result<u64> {
        // SAFETY: all-zero is a valid `tpacket_stats`.
        let mut stats: libc::tpacket_stats = unsafe { zeroed() };
        let mut len = size_of_val(&stats) as libc::socklen_t;
        let ptr = (&mut stats as *mut libc::tpacket_stats).cast();
        let (level, name) = (libc::SOL_PACKET, libc::PACKET_STATISTICS);
        let fd = self.fd.as_raw_fd();
        // SAFETY: `ptr` points to a writable `tpacket_stats` of `len` bytes.
        let r = unsafe { libc::getsockopt(fd, level, name, ptr, &mut len) };
        check(r, "PACKET_STATISTICS")?;
        Ok(u64::from(stats.tp_drops))
    }
}

/// One non-blocking `recvmsg`: the packet, its direction and its timestamp
/// (the time of reading if the kernel gave none).
fn recv_packet(fd: RawFd, buf: &mut [u8]) -> io::Result<Packet> {
    // SAFETY: all-zero is a valid `sockaddr_ll`.
    let mut sll: libc::sockaddr_ll = unsafe { zeroed() };
    let mut iov = libc::iovec {
        iov_base: buf.as_mut_ptr().cast(),
        iov_len: buf.len(),
    };
    // Made of u64s to be aligned for `cmsghdr`.
    let mut control = [0u64; 16];
    // SAFETY: all-zero is a valid `msghdr`.
    let mut msg: libc::msghdr = unsafe { zeroed() };
    msg.msg_name = (&mut sll as *mut libc::sockaddr_ll).cast();
    msg.msg_namelen = size_of::<libc::sockaddr_ll>() as u32;
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr().cast();
    msg.msg_controllen = size_of_val(&control) as _;
    // SAFETY: every pointer in `msg` refers to a live buffer of the stated size.
    let n = unsafe { libc::recvmsg(fd, &mut msg, libc::MSG_DONTWAIT | libc::MSG_TRUNC) };
    // With MSG_TRUNC, `len` is the packet's real length.
    let len = usize::try_from(n).map_err(|_| io::Error::last_os_error())?;
    let mut t_ns = None;
    // SAFETY: `msg` was filled in by `recvmsg`; the CMSG_* helpers stay
    // within `msg_controllen`, and the timestamp is read unaligned.
    unsafe {
        let mut c = libc::CMSG_FIRSTHDR(&msg);
        while !c.is_null() {
            if (*c).cmsg_level == libc::SOL_SOCKET && (*c).cmsg_type == libc::SCM_TIMESTAMPNS {
                let ts: libc::timespec = std::ptr::read_unaligned(libc::CMSG_DATA(c).cast());
                t_ns = Some(ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64);
            }
            c = libc::CMSG_NXTHDR(&msg, c);
        }
    }
    Ok(Packet {
        t_ns: t_ns.unwrap_or_else(now_ns),
        outgoing: sll.sll_pkttype == libc::PACKET_OUTGOING,
        data: buf[..len.min(buf.len())].to_vec(),
    })
}

/// Waits (at most 1 s) until the kernel timestamps packets as they arrive.
/// The first timestamping socket in the system switches that on through a
/// kernel work item, and packets before it are stamped when they are read
/// (a millisecond late, say). Probes with UDP datagrams to itself on
/// 127.0.0.1; gives up quietly where there is no such address.
fn await_kernel_timestamps() {
    let Ok(probe) = UdpSocket::bind("127.0.0.1:0") else {
        return;
    };
    let Ok(to) = probe.local_addr() else { return };
    if set_opt(&probe, libc::SO_TIMESTAMPNS, 1, "").is_err() {
        return;
    }
    let deadline = Instant::now() + Duration::from_secs(1);
    while Instant::now() < deadline && probe.send_to(&[], to).is_ok() {
        std::thread::sleep(Duration::from_millis(1));
        let before = now_ns();
        // Only the timestamp of this `Packet` means something.
        if recv_packet(probe.as_raw_fd(), &mut [0; 8]).is_ok_and(|p| p.t_ns < before) {
            return;
        }
    }
}

/// Sets a `SOL_SOCKET` option.
fn set_opt<T>(fd: &impl AsRawFd, name: libc::c_int, val: T, what: &str) -> io::Result<()> {
    let (fd, len) = (fd.as_raw_fd(), size_of::<T>() as libc::socklen_t);
    let ptr = (&val as *const T).cast();
    // SAFETY: `ptr` points to a live `T` of `len` bytes.
    let r = unsafe { libc::setsockopt(fd, libc::SOL_SOCKET, name, ptr, len) };
    check(r, what).map(drop)
}

/// The last OS error if a system call returned < 0.
fn check(r: libc::c_int, what: &str) -> io::Result<libc::c_int> {
    if r < 0 {
        return Err(os_error(what));
    }
    Ok(r)
}

/// The last OS error, prefixed with `what`.
fn os_error(what: &str) -> io::Error {
    let e = io::Error::last_os_error();
    io::Error::new(e.kind(), format!("{what}: {e}"))
}

fn now_ns() -> u64 {
    UNIX_EPOCH.elapsed().map_or(0, |d| d.as_nanos() as u64)
}

/// Writes a pcap file (nanosecond timestamps, magic `0xa1b23c4d`, version
/// 2.4, snaplen [`SNAPLEN`], `LINKTYPE_RAW`) of `packets`, in order.
pub fn write_pcap<W: Write>(w: W, packets: &[Packet]) -> io::Result<()> {
    let mut w = BufWriter::new(w);
    // Magic for ns timestamps, version 2.4, zone, sigfigs, snaplen, LINKTYPE_RAW.
    for word in [0xa1b2_3c4d, 2 | 4 << 16, 0, 0, SNAPLEN, 101] {
        w.write_all(&word.to_le_bytes())?;
    }
    for p in packets {
        let incl = p.data.len().min(SNAPLEN as usize);
        let (sec, nsec) = (p.t_ns / 1_000_000_000, p.t_ns % 1_000_000_000);
        let orig = u32::try_from(p.data.len()).unwrap_or(u32::MAX);
        for word in [sec as u32, nsec as u32, incl as u32, orig] {
            w.write_all(&word.to_le_bytes())?;
        }
        w.write_all(&p.data[..incl])?;
    }
    w.flush()
}

/// A parsed IPv4 TCP segment.
#[derive(Clone, Debug)]
pub struct Tcp {
    /// Sender.
    pub src: SocketAddrV4,
    /// Receiver.
    pub dst: SocketAddrV4,
    /// Sequence number.
    pub seq: u32,
    /// Acknowledgment number.
    pub ack: u32,
    /// [`FIN`], [`SYN`], [`RST`], [`PSH`] and [`ACK`] bits.
    pub flags: u8,
    /// Receive window (unscaled).
    pub window: u16,
    /// The MSS option, if present.
    pub mss: Option<u16>,
    /// Byte range of the TCP payload inside the IP packet.
    pub payload: Range<usize>,
}

/// Parses an IPv4 TCP segment; `None` for anything else (IPv6, other
/// protocols, fragments, truncated or malformed packets). An IP total length
/// of 0 (a TSO packet over 64 KiB) stands for the whole buffer.
pub fn parse_tcp(ip: &[u8]) -> Option<Tcp> {
    let b0 = *ip.first()?;
    let ihl = usize::from(b0 & 0x0f) * 4;
    let total = Some(usize::from(be16(ip, 2)?)).filter(|&t| t != 0);
    let total = total.unwrap_or(ip.len());
    if b0 >> 4 != 4 || ihl < 20 || total < ihl + 20 || total > ip.len() || *ip.get(9)? != 6 {
        return None;
    }
    if be16(ip, 6)? & 0x3fff != 0 {
        return None; // more fragments, or not the first one
    }
    let tcp = ip.get(ihl..total)?;
    let doff = usize::from(*tcp.get(12)? >> 4) * 4;
    if doff < 20 || doff > tcp.len() {
        return None;
    }
    Some(Tcp {
        src: SocketAddrV4::new(Ipv4Addr::from(be32(ip, 12)?), be16(tcp, 0)?),
        dst: SocketAddrV4::new(Ipv4Addr::from(be32(ip, 16)?), be16(tcp, 2)?),
        seq: be32(tcp, 4)?,
        ack: be32(tcp, 8)?,
        flags: *tcp.get(13)? & 0x1f,
        window: be16(tcp, 14)?,
        mss: mss_option(tcp.get(20..doff)?),
        payload: ihl + doff..total,
    })
}

/// The MSS option among TCP options; `None` if absent or malformed.
fn mss_option(mut opts: &[u8]) -> Option<u16> {
    loop {
        let (kind, len) = match *opts.first()? {
            0 => return None,
            1 => (1, 1),
            kind => (kind, usize::from(*opts.get(1)?).max(2)),
        };
        if kind == 2 && len == 4 {
            return be16(opts, 2);
        }
        opts = opts.get(len..)?;
    }
}

fn be16(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

fn be32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

/// Direction of a byte stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    /// Client to server.
    ClientToServer,
    /// Server to client.
    ServerToClient,
}

/// A data segment as seen at one endpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seg {
    /// Capture time, ns since the epoch.
    pub t_ns: u64,
    /// Stream offset of its first payload byte (0 = first byte after the SYN).
    pub offset: u64,
    /// Payload bytes.
    pub len: u32,
    /// Wire segments it stands for, at least 1: `ceil(len / mss)` (a GSO/TSO
    /// packet captured before segmentation counts as several), with `mss` the
    /// smaller of the SYN and SYN-ACK MSS options less this packet's TCP
    /// options, as Linux sizes segments (1 if neither MSS is known).
    pub segments: u32,
    /// All its bytes were already seen at this endpoint in this direction.
    pub retransmission: bool,
}

/// What one endpoint saw of a connection: packets it sent and received.
#[derive(Clone, Debug, Default)]
pub struct View {
    /// Time the (first) SYN was seen here.
    pub syn: Option<u64>,
    /// Time the (first) SYN-ACK was seen here.
    pub syn_ack: Option<u64>,
    /// Time the client's ACK completing the handshake was seen here: the
    /// first client-to-server segment with ACK set acknowledging the server
    /// ISN + 1 (it may carry no payload).
    pub ack: Option<u64>,
    /// Client-to-server data segments (payload > 0) in capture order.
    pub c2s: Vec<Seg>,
    /// Server-to-client data segments (payload > 0) in capture order.
    pub s2c: Vec<Seg>,
    /// First FIN or RST seen here, either direction.
    pub fin: Option<u64>,
}

impl View {
    /// The data segments of `dir`.
    pub fn segs(&self, dir: Dir) -> &[Seg] {
        match dir {
            Dir::ClientToServer => &self.c2s,
            Dir::ServerToClient => &self.s2c,
        }
    }

    /// First time a segment carrying stream byte `offset` of `dir` was seen here.
    pub fn time_of(&self, dir: Dir, offset: u64) -> Option<u64> {
        let carries = |s: &&Seg| s.offset <= offset && offset - s.offset < u64::from(s.len);
        self.segs(dir).iter().filter(carries).map(|s| s.t_ns).min()
    }

    /// Data segments (sum of [`Seg::segments`], retransmissions left out)
    /// carrying any byte of `[from, to)` of `dir`, and the payload bytes of
    /// those segments (all of them, also those outside the range).
    pub fn segments_in(&self, dir: Dir, from: u64, to: u64) -> (u32, u64) {
        let end = |s: &Seg| s.offset + u64::from(s.len);
        let hit = |s: &&Seg| !s.retransmission && s.offset < to && from < end(s);
        let sum = |(n, b): (u32, u64), s: &Seg| (n + s.segments, b + u64::from(s.len));
        self.segs(dir).iter().filter(hit).fold((0, 0), sum)
    }

    /// Wire segments (sum of [`Seg::segments`]) of `dir` that were retransmissions.
    pub fn retransmissions(&self, dir: Dir) -> u32 {
        let retransmitted = self.segs(dir).iter().filter(|s| s.retransmission);
        retransmitted.map(|s| s.segments).sum()
    }
}

/// One TCP connection to the server, as seen by both endpoints.
#[derive(Clone, Debug)]
pub struct Conn {
    /// The client's address.
    pub client: SocketAddrV4,
    /// The server's address.
    pub server: SocketAddrV4,
    /// What the client saw.
    pub client_view: View,
    /// What the server saw.
    pub server_view: View,
    /// Client-to-server payload, from whichever view holds more of it
    /// (normally the sender's), cut at the first hole.
    pub c2s: Vec<u8>,
    /// Server-to-client payload, likewise.
    pub s2c: Vec<u8>,
    /// MSS option of the client's SYN.
    pub syn_mss: Option<u16>,
    /// MSS option of the server's SYN-ACK.
    pub syn_ack_mss: Option<u16>,
}

/// A packet to or from the server.
struct Item<'a> {
    tcp: Tcp,
    p: &'a Packet,
    c2s: bool,
}

impl<'a> Item<'a> {
    /// Goes client to server (`c2s`) with exactly `want` of the SYN and ACK bits.
    fn is(&self, c2s: bool, want: u8) -> bool {
        self.c2s == c2s && self.tcp.flags & (SYN | ACK) == want
    }

    fn payload(&self) -> &'a [u8] {
        let range = self.tcp.payload.clone();
        self.p.data.get(range).unwrap_or_default()
    }

    /// Bytes of TCP options.
    fn options(&self) -> u64 {
        let ihl = self.p.data.first().map_or(0, |b| usize::from(b & 0x0f) * 4);
        self.tcp.payload.start.saturating_sub(ihl + 20) as u64
    }
}

/// The packets of one connection while grouping.
struct Group<'a> {
    client: SocketAddrV4,
    isn: u32,
    syn_t: u64,
    items: Vec<Item<'a>>,
}

/// One endpoint's view while building it, with its streams (server to
/// client, client to server).
#[derive(Default)]
struct Side<'a> {
    view: View,
    streams: [Stream<'a>; 2],
}

impl<'a> Side<'a> {
    /// Records the payload of `i`, if any, as a data segment. `isn`: the
    /// sender's; `mss`: the smaller of the SYN and SYN-ACK ones.
    fn data(&mut self, i: &Item<'a>, isn: Option<u32>, mss: Option<u16>) -> Option<()> {
        let payload = i.payload();
        let isn = isn.filter(|_| !payload.is_empty())?;
        let stream = &mut self.streams[usize::from(i.c2s)];
        // Relative to the first payload byte (a SYN's payload follows its own number)...
        let first = i.tcp.seq.wrapping_add(u32::from(i.tcp.flags & SYN != 0));
        let rel = first.wrapping_sub(isn).wrapping_sub(1);
        // ...then the offset nearest the highest seen so far; none before the stream start.
        let delta = rel.wrapping_sub(stream.high as u32) as i32;
        let offset = stream.high.checked_add_signed(delta.into())?;
        let len = payload.len() as u64;
        let per_segment = mss.map_or(len, |m| u64::from(m).saturating_sub(i.options()).max(1));
        let seg = Seg {
            t_ns: i.p.t_ns,
            offset,
            len: len as u32,
            segments: len.div_ceil(per_segment).clamp(1, u32::MAX.into()) as u32,
            retransmission: stream.add(offset, payload),
        };
        if i.c2s {
            self.view.c2s.push(seg);
        } else {
            self.view.s2c.push(seg);
        }
        Some(())
    }
}

/// One direction of one view while building it.
#[derive(Default)]
struct Stream<'a> {
    /// Byte ranges seen so far, merged and sorted.
    seen: Vec<Range<u64>>,
    /// End of the highest range seen, to unwrap sequence numbers near it.
    high: u64,
    chunks: Vec<(u64, &'a [u8])>,
}

impl<'a> Stream<'a> {
    /// Records `bytes` at `offset`; true if all of them were seen before.
    fn add(&mut self, offset: u64, bytes: &'a [u8]) -> bool {
        let mut new = offset..offset + bytes.len() as u64;
        let covers = |s: &Range<u64>| s.start <= new.start && new.end <= s.end;
        let old = self.seen.iter().any(covers);
        self.high = self.high.max(new.end);
        self.chunks.push((offset, bytes));
        self.seen.retain(|s| {
            let apart = s.end < new.start || new.end < s.start;
            if !apart {
                new = new.start.min(s.start)..new.end.max(s.end);
            }
            apart
        });
        let at = self.seen.partition_point(|s| s.start < new.start);
        self.seen.insert(at, new);
        old
    }

    /// The payload from offset 0 up to the first hole.
    fn assemble(mut self) -> Vec<u8> {
        self.chunks.sort_by_key(|c| c.0);
        let mut out = Vec::new();
        for (offset, bytes) in self.chunks {
            match usize::try_from(offset) {
                Ok(at) if at <= out.len() => out.extend(bytes.iter().skip(out.len() - at)),
                _ => break,
            }
        }
        out
    }
}

/// Groups the packets of `captures` into connections to `server`, one per
/// client SYN (a new ISN on the same 4-tuple starts a new one), in order of
/// their SYN time. A packet belongs to endpoint E's view when
/// `(outgoing && src == E) || (!outgoing && dst == E)`, so one capture per
/// namespace and a single capture on `lo` both work. Sequence numbers may
/// wrap. Connections whose SYN was not captured, and packets not to or from
/// `server`, are ignored.
pub fn connections(captures: &[&[Packet]], server: SocketAddrV4) -> Vec<Conn> {
    let items = captures.iter().flat_map(|c| c.iter()).filter_map(|p| {
        let tcp = parse_tcp(&p.data)?;
        let c2s = tcp.dst == server;
        (c2s != (tcp.src == server)).then_some(Item { tcp, p, c2s })
    });
    let items: Vec<Item> = items.collect();
    let mut groups: HashMap<SocketAddrV4, Vec<Group>> = HashMap::new();
    for i in items.iter().filter(|i| i.is(true, SYN)) {
        let (client, isn, syn_t) = (i.tcp.src, i.tcp.seq, i.p.t_ns);
        let mine = groups.entry(client).or_default();
        match mine.iter_mut().find(|g| g.isn == isn) {
            Some(g) => g.syn_t = g.syn_t.min(syn_t),
            None => mine.push(Group {
                client,
                isn,
                syn_t,
                items: Vec::new(),
            }),
        }
    }
    for i in items {
        let client = if i.c2s { i.tcp.src } else { i.tcp.dst };
        let Some(mine) = groups.get_mut(&client) else {
            continue;
        };
        let mine = mine.iter_mut();
        // A packet's seq (client to server) or ack (server to client) lies
        // just after its connection's client ISN.
        let g = match (i.c2s, i.tcp.flags & ACK != 0) {
            (true, _) => mine.min_by_key(|g| i.tcp.seq.wrapping_sub(g.isn)),
            (false, true) => mine.min_by_key(|g| i.tcp.ack.wrapping_sub(g.isn)),
            (false, false) => mine.filter(|g| g.syn_t <= i.p.t_ns).max_by_key(|g| g.syn_t),
        };
        if let Some(g) = g {
            g.items.push(i);
        }
    }
    let mut groups: Vec<Group> = groups.into_values().flatten().collect();
    groups.sort_by_key(|g| (g.syn_t, g.client, g.isn));
    groups.into_iter().map(|g| build_conn(g, server)).collect()
}

fn build_conn(g: Group, server: SocketAddrV4) -> Conn {
    let syn = g.items.iter().find(|i| i.is(true, SYN));
    let syn_ack = g.items.iter().find(|i| i.is(false, SYN | ACK));
    let (syn_mss, syn_ack_mss) = (syn.and_then(|i| i.tcp.mss), syn_ack.and_then(|i| i.tcp.mss));
    let mss = syn_mss.into_iter().chain(syn_ack_mss).min();
    let server_isn = syn_ack.map(|i| i.tcp.seq);
    let isns = [server_isn, Some(g.isn)]; // of the sender, by `c2s`
    let mut sides: [Side; 2] = Default::default();
    for i in &g.items {
        let side = &mut sides[usize::from(i.c2s != i.p.outgoing)];
        let (view, t) = (&mut side.view, i.p.t_ns);
        if i.is(true, SYN) {
            view.syn.get_or_insert(t);
        } else if i.is(false, SYN | ACK) {
            view.syn_ack.get_or_insert(t);
        } else if i.is(true, ACK) && server_isn == Some(i.tcp.ack.wrapping_sub(1)) {
            view.ack.get_or_insert(t);
        }
        if i.tcp.flags & (FIN | RST) != 0 {
            view.fin.get_or_insert(t);
        }
        side.data(i, isns[usize::from(i.c2s)], mss);
    }
    let [(client_view, [cs, cc]), (server_view, [ss, sc])] =
        sides.map(|s| (s.view, s.streams.map(Stream::assemble)));
    let longer = |a: Vec<u8>, b: Vec<u8>| if b.len() > a.len() { b } else { a };
    Conn {
        client: g.client,
        server,
        client_view,
        server_view,
        c2s: longer(cc, sc),
        s2c: longer(ss, cs),
        syn_mss,
        syn_ack_mss,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;
    use std::net::{SocketAddr, SocketAddrV4 as Addr, TcpListener, TcpStream, UdpSocket};

    /// NOP, NOP, timestamps: the options Linux puts on every segment.
    const TS: [u8; 12] = [1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2];
    /// Directions for [`Net::send`].
    const C: bool = true;
    const S: bool = false;

    fn addr(s: &str) -> Addr {
        s.parse().expect("test address")
    }

    fn pkt(t_ns: u64, outgoing: bool, data: Vec<u8>) -> Packet {
        Packet {
            t_ns,
            outgoing,
            data,
        }
    }

    fn bytes(n: usize, k: u8) -> Vec<u8> {
        (0..n).map(|i| (i as u8).wrapping_mul(31) ^ k).collect()
    }

    /// An IPv4 TCP packet from `ends[0]` to `ends[1]` (`opts` a multiple of 4 bytes long).
    fn tcp(ends: [Addr; 2], seq: u32, ack: u32, flags: u8, opts: &[u8], data: &[u8]) -> Vec<u8> {
        let [l0, l1] = ((40 + opts.len() + data.len()) as u16).to_be_bytes();
        let doff = ((20 + opts.len()) * 4) as u8; // header words, in the high nibble
        let mut p = vec![0x45, 0, l0, l1, 0, 1, 0x40, 0, 64, 6, 0, 0];
        p.extend(ends.map(|a| a.ip().octets()).concat());
        p.extend(ends.map(|a| a.port().to_be_bytes()).concat());
        p.extend([seq.to_be_bytes(), ack.to_be_bytes()].concat());
        p.extend([doff, flags, 0xff, 0xf0, 0, 0, 0, 0]);
        [&p[..], opts, data].concat()
    }

    /// Synthetic captures in the client's (0) and the server's (1)
    /// namespace, or one capture on `lo`; packets take 5 ns to arrive.
    struct Net {
        ends: [Addr; 2],
        caps: [Vec<Packet>; 2],
        lo: bool,
    }

    impl Net {
        fn new(client: &str, server: &str, lo: bool) -> Net {
            let (ends, caps) = ([addr(client), addr(server)], Default::default());
            Net { ends, caps, lo }
        }

        /// Sends a segment at `t`: a SYN with MSS 1460 (client) or 1400
        /// (server), others with timestamps.
        fn send(&mut self, t: u64, c2s: bool, seq: u32, ack: u32, flags: u8, data: &[u8]) {
            let from = usize::from(!c2s);
            let mss = [2, 4, 5, [0xb4, 0x78][from]];
            let opts = if flags & SYN != 0 { &mss[..] } else { &TS };
            let ends = [self.ends[from], self.ends[1 - from]];
            let p = tcp(ends, seq, ack, flags, opts, data);
            let (tx, rx) = if self.lo { (0, 0) } else { (from, 1 - from) };
            self.caps[tx].push(pkt(t, true, p.clone()));
            self.caps[rx].push(pkt(t + 5, false, p));
        }

        fn conns(&self) -> Vec<Conn> {
            connections(&[&self.caps[0], &self.caps[1]], self.ends[1])
        }
    }

    /// A view in short: SYN, SYN-ACK, ACK and FIN times, then the data
    /// segments of each direction as `time@offset+len*segments` (`R`:
    /// retransmission).
    fn summary(v: &View) -> String {
        let t = |t: Option<u64>| t.map_or("-".into(), |t| t.to_string());
        let seg = |s: &Seg| {
            let r = if s.retransmission { "R" } else { "" };
            format!(" {}@{}+{}*{}{r}", s.t_ns, s.offset, s.len, s.segments)
        };
        let segs = |v: &[Seg]| v.iter().map(seg).collect::<String>();
        let times = [v.syn, v.syn_ack, v.ack, v.fin].map(t).join(" ");
        format!("{times} |{} |{}", segs(&v.c2s), segs(&v.s2c))
    }

    #[test]
    fn parses_tcp() {
        let ends = [addr("10.0.0.1:40000"), addr("10.0.0.2:443")];
        let opts = [1, 2, 4, 5, 0xb4, 0, 0, 0]; // NOP, MSS 1460, end, padding
        let p = tcp(ends, 7, 9, SYN | ACK, &opts, b"hello");
        let t = parse_tcp(&p).expect("valid segment");
        assert_eq!(([t.src, t.dst], t.seq, t.ack), (ends, 7, 9));
        assert_eq!((t.flags, t.window, t.mss), (SYN | ACK, 0xfff0, Some(1460)));
        assert_eq!((t.payload.clone(), &p[t.payload]), (48..53, &b"hello"[..]));
        // Link-layer padding after the IP total length is not payload.
        let mut padded = tcp(ends, 1, 0, ACK, &TS, b"");
        padded.extend([0; 6]);
        let t = parse_tcp(&padded).expect("padded segment");
        assert_eq!((t.mss, t.payload), (None, 52..52));

        assert!((0..p.len()).all(|n| parse_tcp(&p[..n]).is_none()));
        // IPv6, IHL 4, UDP, more fragments, fragment offset, data offsets 16 and 60:
        let bad = [
            (0, 0x65),
            (0, 0x44),
            (9, 17),
            (6, 0x20),
            (7, 1),
            (32, 0x40),
            (32, 0xf0),
        ];
        for (at, v) in bad {
            let mut q = p.clone();
            q[at] = v;
            assert!(parse_tcp(&q).is_none(), "byte {at} = {v:#x}");
        }
        let mut q = p.clone();
        q[42] = 3; // MSS option length
        assert_eq!(parse_tcp(&q).map(|t| t.mss), Some(None));

        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut rand = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as usize
        };
        for _ in 0..200_000 {
            let mut q = p.clone();
            q.resize(rand() % 80, 0x45);
            for _ in 0..rand() % 4 {
                let at = rand() % q.len().max(1);
                if let Some(b) = q.get_mut(at) {
                    *b = rand() as u8;
                }
            }
            if let Some(t) = parse_tcp(&q) {
                assert!(t.payload.start <= t.payload.end && t.payload.end <= q.len());
            }
        }
    }

    /// Reads back what `write_pcap` wrote: (timestamp, packet) per record.
    fn read_pcap(b: &[u8]) -> Vec<(u64, Vec<u8>)> {
        let word = |at: usize| u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"));
        let header = [word(0), word(4), word(16), word(20)];
        assert_eq!(header, [0xa1b2_3c4d, 2 | 4 << 16, SNAPLEN, 101]);
        let (mut at, mut out) = (24, Vec::new());
        while at < b.len() {
            let (incl, orig) = (word(at + 8) as usize, word(at + 12) as usize);
            assert_eq!(incl, orig);
            let t = u64::from(word(at)) * 1_000_000_000 + u64::from(word(at + 4));
            out.push((t, b[at + 16..at + 16 + incl].to_vec()));
            at += 16 + incl;
        }
        out
    }

    #[test]
    fn writes_pcap() {
        let t = 1_700_000_000_123_456_789;
        let packets = [pkt(t, true, vec![0x45, 1, 2]), pkt(999, false, vec![])];
        let mut out = Vec::new();
        write_pcap(&mut out, &packets).expect("writing to a Vec");
        let mut want = vec![0x4d, 0x3c, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        want.extend([0, 0, 4, 0, 101, 0, 0, 0]); // snaplen 262144, LINKTYPE_RAW
        want.extend([0x00, 0xf1, 0x53, 0x65, 0x15, 0xcd, 0x5b, 0x07]); // 1700000000 s 123456789 ns
        want.extend([3, 0, 0, 0, 3, 0, 0, 0, 0x45, 1, 2]);
        want.extend([0, 0, 0, 0, 0xe7, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(out, want);
        assert_eq!(read_pcap(&out), packets.map(|p| (p.t_ns, p.data)));
    }

    #[test]
    fn reassembles_handshake_data_retransmission_and_gso() {
        let mut n = Net::new("10.0.0.1:40000", "10.0.0.2:443", false);
        let (c, s, req, resp) = (1000, 7_000_000, bytes(100, 1), bytes(4500, 2));
        n.send(100, C, c, 0, SYN, b"");
        n.send(200, S, s, c + 1, SYN | ACK, b"");
        n.send(300, C, c + 1, s + 1, ACK, b"");
        n.send(310, C, c + 1, s + 1, PSH | ACK, &req);
        // One GSO packet of 4000 bytes: MSS 1400 less 12 option bytes, 3 segments.
        n.send(400, S, s + 1, c + 101, ACK, &resp[..4000]);
        n.send(410, S, s + 4001, c + 101, PSH | ACK, &resp[4000..]);
        n.caps[0].pop(); // lost on the way
        n.send(500, S, s + 4001, c + 101, PSH | ACK, &resp[4000..]);
        n.send(600, C, c + 101, s + 4501, FIN | ACK, b"");
        // Noise: another server port, and a connection whose SYN was not captured.
        let other = tcp([n.ends[0], addr("10.0.0.2:80")], 0, 0, SYN, &[], b"");
        let unknown = tcp([addr("10.0.0.1:1"), n.ends[1]], 5, 0, ACK, &[], b"x");
        n.caps[0].extend([pkt(1, true, other), pkt(2, true, unknown)]);

        let conns = n.conns();
        assert_eq!(conns.len(), 1);
        let k = &conns[0];
        assert_eq!([k.client, k.server], n.ends);
        assert_eq!((k.syn_mss, k.syn_ack_mss), (Some(1460), Some(1400)));
        assert!(k.c2s == req && k.s2c == resp);
        let (cv, sv) = (&k.client_view, &k.server_view);
        let want = "100 205 300 600 | 310@0+100*1 | 405@0+4000*3 505@4000+500*1";
        assert_eq!(summary(cv), want);
        let want = "105 200 305 605 | 315@0+100*1 | 400@0+4000*3 410@4000+500*1 500@4000+500*1R";
        assert_eq!(summary(sv), want);
        let d = Dir::ServerToClient;
        assert_eq!((sv.retransmissions(d), cv.retransmissions(d)), (1, 0));
        let times = [4200, 4500].map(|o| (sv.time_of(d, o), cv.time_of(d, o)));
        assert_eq!(times, [(Some(410), Some(505)), (None, None)]);
        assert_eq!(sv.segments_in(d, 0, 4001), (4, 4500));
        assert_eq!(sv.segments_in(d, 100, 200), (3, 4000));
        assert_eq!(cv.segments_in(Dir::ClientToServer, 100, 200), (0, 0));
    }

    #[test]
    fn wraps_sequence_numbers_and_splits_reused_ports() {
        let mut n = Net::new("10.0.0.1:40000", "10.0.0.2:443", false);
        let (c, s, req, resp) = (u32::MAX - 50, u32::MAX, bytes(120, 3), bytes(100, 4));
        let (c1, s1) = (c.wrapping_add(1), s.wrapping_add(1));
        n.send(100, C, c, 0, SYN, b"");
        n.send(200, S, s, c1, SYN | ACK, b"");
        n.send(300, C, c1, s1, ACK, b"");
        for (i, part) in (0..).zip(req.chunks(40)) {
            let seq = c1.wrapping_add(40 * i);
            n.send(400 + u64::from(i), C, seq, s1, ACK, part);
        }
        n.send(500, S, s1, c1.wrapping_add(120), ACK, &resp);
        n.send(600, C, c1.wrapping_add(120), s1.wrapping_add(100), RST, b"");
        // The same 4-tuple again with another ISN: a second connection.
        let (c, s) = (123_456, 5);
        n.send(1000, C, c, 0, SYN, b"");
        n.send(1100, S, s, c + 1, SYN | ACK, b"");
        n.send(1200, C, c + 1, s + 1, PSH | ACK, b"again");
        n.send(1300, S, s + 1, c + 6, PSH | ACK, b"ok");

        let conns = n.conns();
        assert_eq!(conns.len(), 2);
        let (a, b) = (&conns[0], &conns[1]);
        assert!(a.c2s == req && a.s2c == resp);
        let want = "105 200 305 605 | 405@0+40*1 406@40+40*1 407@80+40*1 | 500@0+100*1";
        assert_eq!(summary(&a.server_view), want);
        assert!(b.c2s == b"again" && b.s2c == b"ok");
        let want = "1000 1105 1200 - | 1200@0+5*1 | 1305@0+2*1";
        assert_eq!(summary(&b.client_view), want);
    }

    #[test]
    fn one_loopback_capture_gives_both_views() {
        let mut n = Net::new("127.0.0.1:50000", "127.0.0.1:8443", true);
        n.send(10, C, 42, 0, SYN, b"");
        n.send(20, S, 4242, 43, SYN | ACK, b"");
        n.send(30, C, 43, 4243, ACK, b"");
        n.send(40, C, 43, 4243, PSH | ACK, b"0123456789");
        n.send(50, S, 4243, 53, PSH | ACK, b"abcdefghijklmnopqrst");
        assert!(n.caps[1].is_empty());

        let conns = n.conns();
        assert_eq!(conns.len(), 1);
        let k = &conns[0];
        let want = "10 25 30 - | 40@0+10*1 | 55@0+20*1";
        assert_eq!(summary(&k.client_view), want);
        let want = "15 20 35 - | 45@0+10*1 | 50@0+20*1";
        assert_eq!(summary(&k.server_view), want);
        assert!(k.c2s == b"0123456789" && k.s2c == b"abcdefghijklmnopqrst");
    }

    #[test]
    fn start_fails_on_unknown_interface() {
        assert!(Capture::start("no-such-if0").is_err());
        assert!(Capture::start("bad\0name").is_err());
    }

    #[test]
    #[ignore = "needs root (network namespaces, veth, TUN, AF_PACKET): scripts/test runs it as root"]
    fn captures_a_real_loopback_connection() {
        assert!(crate::lab::is_root(), "capturing needs root; run as root");
        if let Err(panic) = std::thread::spawn(capture_in_fresh_namespace).join() {
            std::panic::resume_unwind(panic);
        }
    }

    /// Moves this thread into a new network namespace (gone with the
    /// thread), captures a connection on `lo` and checks it.
    fn capture_in_fresh_namespace() {
        // SAFETY: unshare only changes the network namespace of this thread.
        let r = unsafe { libc::unshare(libc::CLONE_NEWNET) };
        // A root that cannot make a namespace has not tested the capture:
        // fail, never pass by skipping.
        assert_eq!(
            r,
            0,
            "unshare(CLONE_NEWNET): {}",
            io::Error::last_os_error()
        );
        let mut ip = std::process::Command::new("ip");
        let up = ip.args(["link", "set", "lo", "up"]).status();
        assert!(up.as_ref().is_ok_and(|s| s.success()), "{up:?}");

        let cap = Capture::start("lo").expect("capture on lo");
        let listener = TcpListener::bind("127.0.0.1:0").expect("listen");
        let Ok(SocketAddr::V4(server)) = listener.local_addr() else {
            panic!("no address")
        };
        let (request, response) = (bytes(100, 5), bytes(20_000, 6));
        let answer = response.clone();
        let srv = std::thread::spawn(move || -> io::Result<()> {
            let (mut s, _) = listener.accept()?;
            s.read_exact(&mut [0; 100])?;
            s.write_all(&answer)?;
            s.read_to_end(&mut Vec::new()).map(drop)
        });
        let before = now_ns();
        let mut c = TcpStream::connect(server).expect("connect");
        c.write_all(&request).expect("send");
        c.read_exact(&mut vec![0; response.len()]).expect("receive");
        drop(c);
        srv.join().expect("server thread").expect("server");
        // Noise for the filter to drop.
        let udp = UdpSocket::bind("127.0.0.1:0").expect("udp socket");
        let to = udp.local_addr().expect("address");
        udp.send_to(b"not tcp", to).expect("udp send");
        let batch = cap.take().expect("take");
        let after = now_ns();
        assert!(cap.take().expect("second take").packets.is_empty());
        cap.stop();

        let p = &batch.packets;
        assert_eq!(batch.kernel_drops, 0);
        assert!(p.iter().all(|p| parse_tcp(&p.data).is_some()));
        assert!(p.iter().all(|p| (before..after).contains(&p.t_ns)));
        let outgoing = p.iter().filter(|p| p.outgoing).count();
        assert_eq!(outgoing * 2, p.len(), "lo shows each packet twice");
        let conns = connections(&[p], server);
        assert_eq!(conns.len(), 1);
        let k = &conns[0];
        assert!(k.c2s == request && k.s2c == response);
        for v in [&k.client_view, &k.server_view] {
            let handshake = [v.syn, v.syn_ack, v.ack];
            assert!(handshake.iter().all(Option::is_some), "{v:?}");
            assert!(handshake.is_sorted(), "{v:?}");
            assert_eq!(v.segments_in(Dir::ClientToServer, 0, 100).1, 100);
            assert_eq!(v.retransmissions(Dir::ServerToClient), 0);
            let last = v.time_of(Dir::ServerToClient, 19_999);
            assert!(last > v.ack, "{v:?}");
        }
        let mut file = Vec::new();
        write_pcap(&mut file, p).expect("pcap");
        let records: Vec<_> = p.iter().map(|p| (p.t_ns, p.data.clone())).collect();
        assert_eq!(read_pcap(&file), records);
    }
}
