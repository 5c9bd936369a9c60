//! The control connection between `ango tls --connect` and `ango
//! tls-server`: mutual authentication with a secret both sides hold (the
//! token the server prints at start, or a shared key file), then every
//! message encrypted and authenticated with ChaCha20-Poly1305 under keys
//! derived for this connection, so nothing the lab produces (the CA
//! certificate, captures, observations) reaches a peer that does not hold
//! the secret, and a peer in the middle can neither read nor alter it.
//!
//! Authentication (each frame a 4-byte big-endian length and its bytes):
//!
//! 1. client → server: `ango-tls-control/1` ‖ client nonce (32 random bytes)
//! 2. server → client: server nonce (32) ‖ HMAC-SHA256(secret, "server" ‖ cn ‖ sn)
//! 3. client → server: HMAC-SHA256(secret, "client" ‖ cn ‖ sn)
//! 4. server → client: `ok`, or `denied` and the server closes.
//!
//! Each side checks the other's MAC (constant-time comparison) before it
//! sends anything else, so the secret never crosses the wire and a replayed
//! exchange fails on the fresh nonce of the side being fooled. The
//! message keys are HKDF-SHA256(secret, salt = cn ‖ sn, info = "ango c2s" /
//! "ango s2c"); the nonce of a message is its sequence number in its
//! direction, and the frame length is authenticated data. OpenSSL (the
//! lab's vendored 3.5) does the cryptography.

use ango_core::{Error, Result};
use openssl::hash::MessageDigest;
use openssl::pkey::PKey;
use openssl::sign::Signer;
use openssl::symm::{decrypt_aead, encrypt_aead, Cipher};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::time::Duration;

/// The protocol's name and version, the first bytes a client sends.
pub const PROTOCOL: &[u8] = b"ango-tls-control/1";
/// Largest frame after authentication (a capture of a long combination).
const MAX_FRAME: usize = 1 << 30;
/// Largest frame before it.
const MAX_AUTH_FRAME: usize = 256;
const TAG: usize = 16;

fn err(what: &str, e: impl std::fmt::Display) -> Error {
    Error::io(
        format!("control connection: {what}"),
        std::io::Error::other(e.to_string()),
    )
}

/// The secret both sides hold.
#[derive(Clone)]
pub struct Secret(Vec<u8>);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(…)")
    }
}

impl Secret {
    /// A fresh token: 128 random bits, shown as 32 hex digits.
    pub fn new_token() -> Result<(Secret, String)> {
        let mut b = [0u8; 16];
        openssl::rand::rand_bytes(&mut b).map_err(|e| err("random token", e))?;
        let text = hex::encode(b);
        Ok((Secret(text.as_bytes().to_vec()), text))
    }

    /// The token as the server printed it.
    pub fn from_token(t: &str) -> Result<Secret> {
        let t = t.trim().to_ascii_lowercase();
        if t.len() != 32 || !t.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(Error::usage(
                "invalid --token; give the 32 hex digits `ango tls-server` printed at start \
                 (or use --key-file with the server's shared key file)",
            ));
        }
        Ok(Secret(t.into_bytes()))
    }

    /// A shared key file: its bytes without surrounding white space, at
    /// least 16 of them.
    pub fn from_file(path: &Path) -> Result<Secret> {
        let b = std::fs::read(path).map_err(|e| {
            Error::usage(format!(
                "cannot read --key-file {}: {e}; give a file of at least 16 secret bytes \
                 (e.g. `head -c 32 /dev/urandom | base64 > key`)",
                path.display()
            ))
        })?;
        let t = b.trim_ascii();
        if t.len() < 16 {
            return Err(Error::usage(format!(
                "--key-file {} holds {} bytes; a shared key needs at least 16 (e.g. `head -c 32 \
                 /dev/urandom | base64 > key`)",
                path.display(),
                t.len()
            )));
        }
        Ok(Secret(t.to_vec()))
    }
}

fn hmac(key: &[u8], parts: &[&[u8]]) -> Result<Vec<u8>> {
    let k = PKey::hmac(key).map_err(|e| err("HMAC", e))?;
    let mut s = Signer::new(MessageDigest::sha256(), &k).map_err(|e| err("HMAC", e))?;
    for p in parts {
        s.update(p).map_err(|e| err("HMAC", e))?;
    }
    s.sign_to_vec().map_err(|e| err("HMAC", e))
}

/// HKDF-SHA256 (RFC 5869): extract with `salt`, expand to 32 bytes.
fn hkdf(secret: &[u8], salt: &[u8], info: &[u8]) -> Result<[u8; 32]> {
    use openssl::pkey_ctx::{HkdfMode, PkeyCtx};
    let mut ctx = PkeyCtx::new_id(openssl::pkey::Id::HKDF).map_err(|e| err("HKDF", e))?;
    ctx.derive_init().map_err(|e| err("HKDF", e))?;
    ctx.set_hkdf_mode(HkdfMode::EXTRACT_THEN_EXPAND)
        .map_err(|e| err("HKDF", e))?;
    ctx.set_hkdf_md(openssl::md::Md::sha256())
        .map_err(|e| err("HKDF", e))?;
    ctx.set_hkdf_key(secret).map_err(|e| err("HKDF", e))?;
    ctx.set_hkdf_salt(salt).map_err(|e| err("HKDF", e))?;
    ctx.add_hkdf_info(info).map_err(|e| err("HKDF", e))?;
    let mut out = [0u8; 32];
    ctx.derive(Some(&mut out)).map_err(|e| err("HKDF", e))?;
    Ok(out)
}

fn write_frame(s: &mut TcpStream, data: &[u8]) -> std::io::Result<()> {
    let mut buf = Vec::with_capacity(4 + data.len());
    buf.extend_from_slice(&(data.len() as u32).to_be_bytes());
    buf.extend_from_slice(data);
    s.write_all(&buf)
}

fn read_frame(s: &mut TcpStream, max: usize) -> std::io::Result<(Vec<u8>, [u8; 4])> {
    let mut len = [0u8; 4];
    s.read_exact(&mut len)?;
    let n = u32::from_be_bytes(len) as usize;
    if n > max {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("a frame of {n} bytes (at most {max} here): not an ango control peer"),
        ));
    }
    let mut data = vec![0u8; n];
    s.read_exact(&mut data)?;
    Ok((data, len))
}

/// An authenticated control connection.
pub struct Channel {
    stream: TcpStream,
    tx_key: [u8; 32],
    rx_key: [u8; 32],
    tx_seq: u64,
    rx_seq: u64,
}

fn nonce(seq: u64) -> [u8; 12] {
    let mut n = [0u8; 12];
    n[4..].copy_from_slice(&seq.to_be_bytes());
    n
}

impl Channel {
    fn new(stream: TcpStream, secret: &Secret, cn: &[u8], sn: &[u8], client: bool) -> Result<Self> {
        let salt = [cn, sn].concat();
        let c2s = hkdf(&secret.0, &salt, b"ango c2s")?;
        let s2c = hkdf(&secret.0, &salt, b"ango s2c")?;
        let (tx_key, rx_key) = if client { (c2s, s2c) } else { (s2c, c2s) };
        Ok(Channel {
            stream,
            tx_key,
            rx_key,
            tx_seq: 0,
            rx_seq: 0,
        })
    }

    /// The client's side of the authentication.
    pub fn connect(mut stream: TcpStream, secret: &Secret) -> Result<Channel> {
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .map_err(|e| err("socket", e))?;
        let mut cn = [0u8; 32];
        openssl::rand::rand_bytes(&mut cn).map_err(|e| err("random", e))?;
        write_frame(&mut stream, &[PROTOCOL, &cn].concat()).map_err(|e| err("sending", e))?;
        let (reply, _) = read_frame(&mut stream, MAX_AUTH_FRAME).map_err(|e| {
            err(
                "no answer to the authentication (is it an `ango tls-server` of this version?)",
                e,
            )
        })?;
        if reply.len() != 64 {
            return Err(err(
                "authenticating",
                "the peer's answer is not an ango tls-server's",
            ));
        }
        let (sn, mac) = reply.split_at(32);
        let want = hmac(&secret.0, &[b"server", &cn, sn])?;
        if !openssl::memcmp::eq(&want, mac) {
            return Err(Error::usage(
                "the server does not hold this token or key: check --token (the 32 hex digits \
                 `ango tls-server` printed) or --key-file",
            ));
        }
        let mine = hmac(&secret.0, &[b"client", &cn, sn])?;
        write_frame(&mut stream, &mine).map_err(|e| err("sending", e))?;
        let (verdict, _) =
            read_frame(&mut stream, MAX_AUTH_FRAME).map_err(|e| err("reading", e))?;
        if verdict != b"ok" {
            return Err(Error::usage(
                "the server refused this token or key: check --token or --key-file",
            ));
        }
        stream
            .set_read_timeout(None)
            .map_err(|e| err("socket", e))?;
        Channel::new(stream, secret, &cn, sn, true)
    }

    /// The server's side: `Ok(None)` when the peer failed to authenticate
    /// (it is told `denied` when it got as far as sending a MAC).
    pub fn accept(mut stream: TcpStream, secret: &Secret) -> Result<Option<Channel>> {
        stream
            .set_read_timeout(Some(Duration::from_secs(5)))
            .map_err(|e| err("socket", e))?;
        let Ok((hello, _)) = read_frame(&mut stream, MAX_AUTH_FRAME) else {
            return Ok(None);
        };
        if hello.len() != PROTOCOL.len() + 32 || !hello.starts_with(PROTOCOL) {
            return Ok(None);
        }
        let cn = &hello[PROTOCOL.len()..];
        let mut sn = [0u8; 32];
        openssl::rand::rand_bytes(&mut sn).map_err(|e| err("random", e))?;
        let mac = hmac(&secret.0, &[b"server", cn, &sn])?;
        if write_frame(&mut stream, &[&sn[..], &mac].concat()).is_err() {
            return Ok(None);
        }
        let Ok((theirs, _)) = read_frame(&mut stream, MAX_AUTH_FRAME) else {
            return Ok(None);
        };
        let want = hmac(&secret.0, &[b"client", cn, &sn])?;
        if theirs.len() != want.len() || !openssl::memcmp::eq(&want, &theirs) {
            let _ = write_frame(&mut stream, b"denied");
            return Ok(None);
        }
        if write_frame(&mut stream, b"ok").is_err() {
            return Ok(None);
        }
        stream
            .set_read_timeout(None)
            .map_err(|e| err("socket", e))?;
        Channel::new(stream, secret, cn, &sn, false).map(Some)
    }

    pub fn stream(&self) -> &TcpStream {
        &self.stream
    }

    /// Sends one message.
    pub fn send<T: Serialize>(&mut self, msg: &T) -> Result<()> {
        let plain = serde_json::to_vec(msg).map_err(|e| err("encoding", e))?;
        let len = ((plain.len() + TAG) as u32).to_be_bytes();
        let mut tag = [0u8; TAG];
        let mut ct = encrypt_aead(
            Cipher::chacha20_poly1305(),
            &self.tx_key,
            Some(&nonce(self.tx_seq)),
            &len,
            &plain,
            &mut tag,
        )
        .map_err(|e| err("encrypting", e))?;
        self.tx_seq += 1;
        ct.extend_from_slice(&tag);
        write_frame(&mut self.stream, &ct).map_err(|e| err("sending", e))
    }

    /// Receives one message; an error when the connection closed, timed
    /// out, or a frame fails authentication.
    pub fn recv<T: DeserializeOwned>(&mut self) -> Result<T> {
        let (ct, len) = read_frame(&mut self.stream, MAX_FRAME).map_err(|e| err("reading", e))?;
        if ct.len() < TAG {
            return Err(err("reading", "a frame shorter than its tag"));
        }
        let (body, tag) = ct.split_at(ct.len() - TAG);
        let plain = decrypt_aead(
            Cipher::chacha20_poly1305(),
            &self.rx_key,
            Some(&nonce(self.rx_seq)),
            &len,
            body,
            tag,
        )
        .map_err(|_| err("reading", "a frame failed authentication"))?;
        self.rx_seq += 1;
        serde_json::from_slice(&plain).map_err(|e| err("decoding", e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    fn pair(server_secret: Secret, client_secret: Secret) -> (Result<Channel>, Option<Channel>) {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        let srv = std::thread::spawn(move || {
            let (s, _) = l.accept().unwrap();
            Channel::accept(s, &server_secret).unwrap()
        });
        let c = Channel::connect(TcpStream::connect(addr).unwrap(), &client_secret);
        (c, srv.join().unwrap())
    }

    #[test]
    fn same_secret_talks_both_ways() {
        let (s, token) = Secret::new_token().unwrap();
        let (c, srv) = pair(s, Secret::from_token(&token.to_uppercase()).unwrap());
        let (mut c, mut srv) = (c.unwrap(), srv.unwrap());
        c.send(&vec![1u32, 2, 3]).unwrap();
        assert_eq!(srv.recv::<Vec<u32>>().unwrap(), vec![1, 2, 3]);
        srv.send(&"back").unwrap();
        srv.send(&"twice").unwrap();
        assert_eq!(c.recv::<String>().unwrap(), "back");
        assert_eq!(c.recv::<String>().unwrap(), "twice");
    }

    #[test]
    fn a_wrong_secret_is_refused_by_both_sides() {
        let (s, _) = Secret::new_token().unwrap();
        let (other, _) = Secret::new_token().unwrap();
        let (c, srv) = pair(s, other);
        assert!(srv.is_none());
        let e = c.err().unwrap();
        assert!(e.is_usage() && e.to_string().contains("--token"), "{e}");
    }

    #[test]
    fn garbage_and_silence_are_not_peers() {
        let (s, _) = Secret::new_token().unwrap();
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        let srv = std::thread::spawn(move || {
            let mut out = Vec::new();
            for _ in 0..3 {
                let (st, _) = l.accept().unwrap();
                out.push(Channel::accept(st, &s).unwrap().is_none());
            }
            out
        });
        // A huge length, then garbage of the right length, then a client
        // that sends half a hello and leaves.
        let mut a = TcpStream::connect(addr).unwrap();
        a.write_all(&[0xff; 64]).unwrap();
        let mut b = TcpStream::connect(addr).unwrap();
        write_frame(&mut b, &[7u8; 50]).unwrap();
        let mut c = TcpStream::connect(addr).unwrap();
        c.write_all(&[0, 0, 0, 50, b'a']).unwrap();
        drop(c);
        assert_eq!(srv.join().unwrap(), vec![true; 3]);
    }

    #[test]
    fn an_altered_frame_fails_authentication() {
        let (s, token) = Secret::new_token().unwrap();
        let (c, srv) = pair(s, Secret::from_token(&token).unwrap());
        let (c, mut srv) = (c.unwrap(), srv.unwrap());
        // Re-send a frame with one bit flipped, on the raw socket.
        let mut raw = c.stream.try_clone().unwrap();
        write_frame(&mut raw, &[0u8; 40]).unwrap();
        let e = srv.recv::<String>().unwrap_err().to_string();
        assert!(e.contains("authentication"), "{e}");
    }

    #[test]
    fn tokens_and_key_files_are_checked() {
        assert!(Secret::from_token("abc").unwrap_err().is_usage());
        let d = std::env::temp_dir().join(format!("ango-key-{}", std::process::id()));
        std::fs::write(&d, b"short\n").unwrap();
        let e = Secret::from_file(&d).unwrap_err();
        assert!(e.is_usage() && e.to_string().contains("16"), "{e}");
        std::fs::write(&d, b"  0123456789abcdef0123\n").unwrap();
        assert_eq!(Secret::from_file(&d).unwrap().0, b"0123456789abcdef0123");
        std::fs::remove_file(&d).unwrap();
        assert!(Secret::from_file(&d).unwrap_err().is_usage());
    }
}
