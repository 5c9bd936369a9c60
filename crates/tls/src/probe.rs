//! What the endpoints observe from inside: OpenSSL's message callback (the
//! moment each handshake message is written to or read from OpenSSL's
//! buffers), the key log (the session secrets Wireshark and ango need to
//! decrypt the captures), and the kernel's `TCP_INFO` and congestion
//! control of a socket.
//!
//! All times are `CLOCK_REALTIME` nanoseconds, the clock the kernel stamps
//! captured packets with (`SO_TIMESTAMPNS`), so in-process and wire times of
//! both namespaces share one time line.

use openssl::ssl::{Ssl, SslContextBuilder, SslRef};
use serde::{Deserialize, Serialize};
use std::io;
use std::os::fd::RawFd;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

/// `CLOCK_REALTIME` in ns since the epoch.
pub fn realtime_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec to a live local.
    unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &mut ts) };
    (ts.tv_sec as u64).wrapping_mul(1_000_000_000) + ts.tv_nsec as u64
}

/// One call of OpenSSL's message callback for a handshake message, a
/// change_cipher_spec or an alert.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MsgEvent {
    /// `CLOCK_REALTIME` ns of the call.
    pub t_ns: u64,
    /// True when OpenSSL wrote the message (into its write buffer, which
    /// is not yet the wire), false when it read it.
    pub sent: bool,
    /// TLS content type: 20 change_cipher_spec, 21 alert, 22 handshake.
    pub content_type: u8,
    /// Handshake type of a handshake message.
    pub hs_type: Option<u8>,
    /// Length of the message as OpenSSL passed it.
    pub len: usize,
}

/// The events of one connection, filled by the callback.
pub type EventLog = Arc<Mutex<Vec<MsgEvent>>>;

/// A stream that logs each write call made to it: (`CLOCK_REALTIME` ns at
/// the call, bytes written). Under an OpenSSL server it shows the
/// handshake's flushes of OpenSSL's 4096-byte write buffer (seed 003
/// §4-3): one write call each.
pub struct LoggedWrites<S> {
    pub inner: S,
    pub writes: Vec<(u64, usize)>,
}

impl<S> LoggedWrites<S> {
    pub fn new(inner: S) -> Self {
        LoggedWrites {
            inner,
            writes: Vec::new(),
        }
    }
}

impl<S: io::Read> io::Read for LoggedWrites<S> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf)
    }
}

impl<S: io::Write> io::Write for LoggedWrites<S> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let t = realtime_ns();
        let n = self.inner.write(buf)?;
        self.writes.push((t, n));
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

type MsgCallback = unsafe extern "C" fn(
    write_p: libc::c_int,
    version: libc::c_int,
    content_type: libc::c_int,
    buf: *const libc::c_void,
    len: libc::size_t,
    ssl: *mut openssl_sys::SSL,
    arg: *mut libc::c_void,
);

extern "C" {
    // In libssl (the vendored OpenSSL 3.5 the openssl crate links);
    // openssl-sys does not declare it.
    fn SSL_CTX_set_msg_callback(ctx: *mut openssl_sys::SSL_CTX, cb: Option<MsgCallback>);
}

fn log_index() -> Option<openssl::ex_data::Index<Ssl, EventLog>> {
    static IDX: OnceLock<Option<openssl::ex_data::Index<Ssl, EventLog>>> = OnceLock::new();
    *IDX.get_or_init(|| Ssl::new_ex_index().ok())
}

unsafe extern "C" fn on_message(
    write_p: libc::c_int,
    _version: libc::c_int,
    content_type: libc::c_int,
    buf: *const libc::c_void,
    len: libc::size_t,
    ssl: *mut openssl_sys::SSL,
    _arg: *mut libc::c_void,
) {
    let t_ns = realtime_ns();
    // Record headers (256) and inner content types (257) are not messages.
    if !(20..=22).contains(&content_type) || ssl.is_null() {
        return;
    }
    let hs_type = if content_type == 22 && len > 0 && !buf.is_null() {
        // SAFETY: OpenSSL passes `len` readable bytes at `buf`; only the
        // first is read.
        Some(unsafe { *buf.cast::<u8>() })
    } else {
        None
    };
    let _ = std::panic::catch_unwind(|| {
        use foreign_types::ForeignTypeRef;
        let Some(idx) = log_index() else { return };
        // SAFETY: OpenSSL passes the live SSL the message belongs to.
        let ssl = unsafe { SslRef::from_ptr(ssl) };
        if let Some(log) = ssl.ex_data(idx) {
            log.lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(MsgEvent {
                    t_ns,
                    sent: write_p != 0,
                    content_type: content_type as u8,
                    hs_type,
                    len,
                });
        }
    });
}

/// Installs the message callback on a context; connections made from it
/// record into the log given by [`attach_log`].
pub fn install_msg_callback(b: &mut SslContextBuilder) {
    // SAFETY: a valid context under construction and a callback with the
    // signature OpenSSL expects; the callback only reads what it is given.
    unsafe { SSL_CTX_set_msg_callback(b.as_ptr(), Some(on_message)) };
}

/// Gives a connection a fresh event log and returns it.
pub fn attach_log(ssl: &mut Ssl) -> EventLog {
    let log: EventLog = Arc::default();
    if let Some(idx) = log_index() {
        ssl.set_ex_data(idx, Arc::clone(&log));
    }
    log
}

/// Takes the events out of a log.
pub fn drain(log: &EventLog) -> Vec<MsgEvent> {
    std::mem::take(&mut *log.lock().unwrap_or_else(PoisonError::into_inner))
}

/// The key-log lines a context produced (NSS key log format).
#[derive(Clone, Default, Debug)]
pub struct KeyLines(Arc<Mutex<Vec<String>>>);

impl KeyLines {
    /// Makes the context report every session's secrets here.
    pub fn install(&self, b: &mut SslContextBuilder) {
        let sink = Arc::clone(&self.0);
        b.set_keylog_callback(move |_, line| {
            sink.lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(line.to_owned());
        });
    }

    /// Adds one line (a stack without OpenSSL's callback writes here).
    pub fn push(&self, line: String) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(line);
    }

    /// Takes the lines collected so far.
    pub fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

/// The parts of the kernel's `TCP_INFO` the lab reports, and the
/// congestion control of the socket.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TcpInfo {
    pub snd_mss: u32,
    pub rcv_mss: u32,
    /// Congestion window in segments.
    pub snd_cwnd: u32,
    pub snd_ssthresh: u32,
    /// Retransmitted segments over the connection's life.
    pub total_retrans: u32,
    /// Smoothed RTT, µs.
    pub rtt_us: u32,
    pub congestion_control: String,
}

/// `TCP_INFO` and `TCP_CONGESTION` of a TCP socket.
pub fn tcp_info(fd: RawFd) -> io::Result<TcpInfo> {
    // SAFETY: tcp_info is plain old data; all zeroes is a valid value.
    let mut ti: libc::tcp_info = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of::<libc::tcp_info>() as libc::socklen_t;
    // SAFETY: getsockopt writes at most `len` bytes into the live `ti`.
    let r = unsafe {
        libc::getsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_INFO,
            (&mut ti as *mut libc::tcp_info).cast(),
            &mut len,
        )
    };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    let mut name = [0u8; 32];
    let mut nlen = name.len() as libc::socklen_t;
    // SAFETY: getsockopt writes at most `nlen` bytes into the live buffer.
    let r = unsafe {
        libc::getsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_CONGESTION,
            name.as_mut_ptr().cast(),
            &mut nlen,
        )
    };
    let congestion_control = if r == 0 {
        let n = &name[..(nlen as usize).min(name.len())];
        let end = n.iter().position(|&b| b == 0).unwrap_or(n.len());
        String::from_utf8_lossy(&n[..end]).into_owned()
    } else {
        String::new()
    };
    Ok(TcpInfo {
        snd_mss: ti.tcpi_snd_mss,
        rcv_mss: ti.tcpi_rcv_mss,
        snd_cwnd: ti.tcpi_snd_cwnd,
        snd_ssthresh: ti.tcpi_snd_ssthresh,
        total_retrans: ti.tcpi_total_retrans,
        rtt_us: ti.tcpi_rtt,
        congestion_control,
    })
}
