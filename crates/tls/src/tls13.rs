//! Locates the handshake messages of a TLS 1.3 connection in its two TCP byte streams.
//!
//! The record layer (RFC 8446 §5) is walked in each direction from the first byte after the SYN.
//! Plaintext records (ClientHello, ServerHello, HelloRetryRequest) are read directly; protected
//! records are opened with the traffic keys (§7.3) derived from the secrets of an NSS key log
//! (the lines OpenSSL's key-log callback writes), using the per-record nonce of §5.3. A message's
//! stream offsets are those of its bytes on the wire: AEAD ciphertext has the length and position
//! of its plaintext, so inner byte `i` of a record starting at `s` sits at `s + 5 + i`.

use std::collections::HashMap;

use openssl::md::{Md, MdRef};
use openssl::pkey::Id;
use openssl::pkey_ctx::{HkdfMode, PkeyCtx};
use openssl::symm::{decrypt_aead, Cipher};

const CHANGE_CIPHER_SPEC: u8 = 20;
const HANDSHAKE: u8 = 22;
const APPLICATION_DATA: u8 = 23;
const FINISHED: u8 = 20;
const KEY_UPDATE: u8 = 24;
/// The largest TLSCiphertext fragment (RFC 8446 §5.2): 2^14 + 256 octets.
const MAX_FRAGMENT: usize = (1 << 14) + 256;
/// ServerHello.random of a HelloRetryRequest (RFC 8446 §4.1.3), SHA-256 of "HelloRetryRequest".
const HRR_RANDOM: [u8; 32] = [
    0xcf, 0x21, 0xad, 0x74, 0xe5, 0x9a, 0x61, 0x11, 0xbe, 0x1d, 0x8c, 0x02, 0x1e, 0x65, 0xb8, 0x91,
    0xc2, 0xa2, 0x11, 0x16, 0x7a, 0xbb, 0x8c, 0x5e, 0x07, 0x9e, 0x09, 0xe2, 0xc8, 0xa8, 0x33, 0x9c,
];

/// Secrets of one TLS 1.3 session from a key log.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Secrets {
    /// `CLIENT_HANDSHAKE_TRAFFIC_SECRET`.
    pub client_hs: Option<Vec<u8>>,
    /// `SERVER_HANDSHAKE_TRAFFIC_SECRET`.
    pub server_hs: Option<Vec<u8>>,
    /// `CLIENT_TRAFFIC_SECRET_0`.
    pub client_app: Option<Vec<u8>>,
    /// `SERVER_TRAFFIC_SECRET_0`.
    pub server_app: Option<Vec<u8>>,
}

/// NSS key-log lines indexed by client random.
#[derive(Clone, Debug, Default)]
pub struct KeyLog {
    sessions: HashMap<[u8; 32], Secrets>,
}

impl KeyLog {
    /// An empty key log.
    pub fn new() -> KeyLog {
        KeyLog::default()
    }

    /// Adds one line; ignores comments, blank lines and labels it does not use; returns false for
    /// a malformed line (not `LABEL <32-byte client random hex> <secret hex>`). A later line for
    /// the same label and client random replaces an earlier one.
    pub fn add_line(&mut self, line: &str) -> bool {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            return true;
        }
        let fields: Vec<&str> = line.split_ascii_whitespace().collect();
        let [label, random, secret] = fields[..] else {
            return false;
        };
        let (Ok(random), Ok(secret)) = (hex::decode(random), hex::decode(secret)) else {
            return false;
        };
        let label_ok = label
            .bytes()
            .all(|b| matches!(b, b'A'..=b'Z' | b'0'..=b'9' | b'_'));
        let Ok(random) = <[u8; 32]>::try_from(random) else {
            return false;
        };
        if secret.is_empty() || !label_ok {
            return false;
        }
        let slot: fn(&mut Secrets) -> &mut Option<Vec<u8>> = match label {
            "CLIENT_HANDSHAKE_TRAFFIC_SECRET" => |s| &mut s.client_hs,
            "SERVER_HANDSHAKE_TRAFFIC_SECRET" => |s| &mut s.server_hs,
            "CLIENT_TRAFFIC_SECRET_0" => |s| &mut s.client_app,
            "SERVER_TRAFFIC_SECRET_0" => |s| &mut s.server_app,
            _ => return true,
        };
        *slot(self.sessions.entry(random).or_default()) = Some(secret);
        true
    }

    /// Parses a whole key log, skipping malformed lines.
    pub fn parse(text: &str) -> KeyLog {
        let mut log = KeyLog::new();
        for line in text.lines() {
            log.add_line(line);
        }
        log
    }

    /// The secrets logged for a client random.
    pub fn get(&self, client_random: &[u8; 32]) -> Option<&Secrets> {
        self.sessions.get(client_random)
    }

    /// Number of sessions (client randoms) with at least one secret.
    pub fn len(&self) -> usize {
        self.sessions.len()
    }

    /// True if no session has a secret.
    pub fn is_empty(&self) -> bool {
        self.sessions.is_empty()
    }
}

/// A handshake message located in one direction's TCP byte stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HsMsg {
    /// HandshakeType (1 client_hello, 2 server_hello, 4 new_session_ticket, 8 encrypted_extensions,
    /// 11 certificate, 13 certificate_request, 15 certificate_verify, 20 finished, 24 key_update).
    pub typ: u8,
    /// Stream offset of the first byte of its 4-byte handshake header.
    pub start: u64,
    /// Stream offset one past its last byte.
    pub end: u64,
    /// Body length from its header.
    pub len: u32,
    /// Carried in protected records.
    pub encrypted: bool,
}

/// A TLS record in a byte stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// Stream offset of its 5-byte header.
    pub start: u64,
    /// Header plus fragment.
    pub len: u32,
    /// ContentType of the header.
    pub outer_type: u8,
    /// ContentType inside a protected record, once decrypted.
    pub inner_type: Option<u8>,
    /// Bytes of content inside a protected record, once decrypted (its
    /// content type and zero padding left out).
    pub content_len: Option<u32>,
}

/// What [`dissect`] found in the two streams of one connection.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Dissected {
    /// From the ClientHello.
    pub client_random: Option<[u8; 32]>,
    /// From the ServerHello.
    pub cipher_suite: Option<u16>,
    /// From the ServerHello's key_share extension.
    pub key_share_group: Option<u16>,
    /// A HelloRetryRequest was seen (it is listed as a ServerHello, type 2).
    pub hello_retry: bool,
    /// Handshake messages client to server, in stream order.
    pub c2s: Vec<HsMsg>,
    /// Handshake messages server to client, in stream order.
    pub s2c: Vec<HsMsg>,
    /// Records client to server.
    pub c2s_records: Vec<Record>,
    /// Records server to client.
    pub s2c_records: Vec<Record>,
    /// Why dissection stopped early in a direction (missing secrets, a record that does not
    /// decrypt, a truncated stream), if it did; each starts with "c2s: " or "s2c: ".
    pub problems: Vec<String>,
}

/// Name of a handshake type as Wireshark/RFC 8446 spell it in prose, e.g. 2 -> "ServerHello",
/// 15 -> "CertificateVerify".
pub fn hs_name(typ: u8) -> &'static str {
    match typ {
        1 => "ClientHello",
        2 => "ServerHello",
        4 => "NewSessionTicket",
        5 => "EndOfEarlyData",
        8 => "EncryptedExtensions",
        11 => "Certificate",
        13 => "CertificateRequest",
        15 => "CertificateVerify",
        20 => "Finished",
        24 => "KeyUpdate",
        25 => "CompressedCertificate",
        254 => "MessageHash",
        _ => "Unknown",
    }
}

/// HKDF-Expand-Label(secret, label, context, len) of RFC 8446 §7.1 (the "tls13 " prefix is
/// added here); `None` if a length does not fit its field or OpenSSL fails.
pub fn hkdf_expand_label(
    md: &MdRef,
    secret: &[u8],
    label: &str,
    context: &[u8],
    len: usize,
) -> Option<Vec<u8>> {
    let mut info = u16::try_from(len).ok()?.to_be_bytes().to_vec();
    info.push(u8::try_from(label.len() + 6).ok()?);
    info.extend_from_slice(b"tls13 ");
    info.extend_from_slice(label.as_bytes());
    info.push(u8::try_from(context.len()).ok()?);
    info.extend_from_slice(context);
    let mut ctx = PkeyCtx::new_id(Id::HKDF).ok()?;
    ctx.derive_init().ok()?;
    ctx.set_hkdf_mode(HkdfMode::EXPAND_ONLY).ok()?;
    ctx.set_hkdf_md(md).ok()?;
    ctx.set_hkdf_key(secret).ok()?;
    ctx.add_hkdf_info(&info).ok()?;
    let mut out = vec![0; len];
    (ctx.derive(Some(&mut out)).ok()? == len).then_some(out)
}

/// The write key and IV of a traffic secret (RFC 8446 §7.3) for a TLS 1.3 cipher suite
/// (0x1301, 0x1302 or 0x1303); `None` for another suite or if derivation fails.
pub fn traffic_key_iv(suite: u16, secret: &[u8]) -> Option<(Vec<u8>, [u8; 12])> {
    let p = Protection::new(Suite::new(suite)?, secret.to_vec(), false)?;
    Some((p.key, p.iv))
}

/// Walks both byte streams of one connection (client->server, server->client), starting at
/// offset 0 of each (the first byte after the TCP SYN).
///
/// Plaintext handshake records are parsed directly (a message may span records and a record
/// may hold several messages); change_cipher_spec and alert records are listed and skipped.
/// application_data records are opened with the handshake traffic key of their direction,
/// derived from the secrets the key log holds for the ClientHello's random; after a direction's
/// Finished its later records use the application traffic secret `_0` (and a KeyUpdate moves to
/// the next generation, RFC 8446 §7.2). Without the `_0` secret a direction stops quietly after
/// its Finished. Once a direction stops (quietly or with a problem), its remaining whole records
/// are still listed, with `inner_type: None`. 0-RTT early data and TLS 1.2 are not handled.
/// Never panics, whatever the input: problems go into [`Dissected::problems`].
pub fn dissect(c2s: &[u8], s2c: &[u8], keys: &KeyLog) -> Dissected {
    dissect_full(c2s, s2c, keys).0
}

/// [`dissect`], also returning each direction's messages (header and body) in order.
fn dissect_full(c2s: &[u8], s2c: &[u8], keys: &KeyLog) -> (Dissected, [Vec<Vec<u8>>; 2]) {
    let mut dirs = [Dir::new("c2s", c2s), Dir::new("s2c", s2c)];
    // Each direction runs up to its first protected record; then both hellos are known.
    let need = dirs.each_mut().map(|d| d.run());
    let hello = Hello {
        random: dirs[0].hello.random,
        ..dirs[1].hello
    };
    for (i, dir) in dirs.iter_mut().enumerate().filter(|&(i, _)| need[i]) {
        match session_keys(&hello, keys, i == 0) {
            Ok((p, app)) => (dir.keys, dir.app_secret) = (Keys::Protected(p), app),
            Err(why) => dir.stop(why),
        }
        dir.run();
    }
    let [c, s] = dirs;
    let d = Dissected {
        client_random: c.hello.random,
        cipher_suite: s.hello.suite,
        key_share_group: s.hello.group,
        hello_retry: s.hello.hrr,
        problems: c.problems.into_iter().chain(s.problems).collect(),
        c2s: c.msgs,
        s2c: s.msgs,
        c2s_records: c.records,
        s2c_records: s.records,
    };
    (d, [c.bodies, s.bodies])
}

/// A direction's handshake read key and application secret.
type DirKeys = (Protection, Option<Vec<u8>>);

/// The keys of one direction, from what the hellos said and the key log.
fn session_keys(hello: &Hello, log: &KeyLog, client: bool) -> Result<DirKeys, String> {
    let random = hello.random.ok_or("no ClientHello random")?;
    let id = hello
        .suite
        .ok_or("no ServerHello before protected records")?;
    if !hello.tls13 {
        return Err("the ServerHello does not select TLS 1.3".into());
    }
    let suite = Suite::new(id).ok_or(format!("cipher suite 0x{id:04x} is not supported"))?;
    let Some(s) = log.get(&random) else {
        let random = hex::encode(random);
        return Err(format!("no key log entry for client random {random}"));
    };
    let (hs, app, who) = match client {
        true => (&s.client_hs, &s.client_app, "CLIENT"),
        false => (&s.server_hs, &s.server_app, "SERVER"),
    };
    let Some(hs) = hs.clone() else {
        return Err(format!("the key log has no {who}_HANDSHAKE_TRAFFIC_SECRET"));
    };
    let p = Protection::new(suite, hs, false).ok_or("cannot derive the handshake key")?;
    Ok((p, app.clone()))
}

/// What a TLS 1.3 cipher suite protects records with.
#[derive(Clone, Copy)]
struct Suite {
    aead: Cipher,
    md: &'static MdRef,
    key_len: usize,
    /// Bytes of the AEAD tag: 16, or 8 for TLS_AES_128_CCM_8_SHA256.
    tag_len: usize,
}

impl Suite {
    /// The five suites of RFC 8446 §B.4.
    fn new(id: u16) -> Option<Suite> {
        let (aead, md, key_len, tag_len) = match id {
            0x1301 => (Cipher::aes_128_gcm(), Md::sha256(), 16, 16),
            0x1302 => (Cipher::aes_256_gcm(), Md::sha384(), 32, 16),
            0x1303 => (Cipher::chacha20_poly1305(), Md::sha256(), 32, 16),
            0x1304 => (Cipher::aes_128_ccm(), Md::sha256(), 16, 16),
            0x1305 => (Cipher::aes_128_ccm(), Md::sha256(), 16, 8),
            _ => return None,
        };
        Some(Suite {
            aead,
            md,
            key_len,
            tag_len,
        })
    }
}

/// AES-128-CCM decryption with a 12-byte nonce and an 8- or 16-byte tag
/// (RFC 8446 §B.4 with RFC 6655's CCM): the nonce length and the expected
/// tag (which fixes CCM's tag length) go in before the key, as OpenSSL
/// requires (`symm::decrypt_aead` sets them after, which OpenSSL 3 refuses
/// for any tag length but its default 12). None if the tag does not match.
fn open_ccm(key: &[u8], nonce: &[u8; 12], aad: &[u8], data: &[u8], tag: &[u8]) -> Option<Vec<u8>> {
    use openssl::cipher_ctx::CipherCtx;
    let mut ctx = CipherCtx::new().ok()?;
    ctx.decrypt_init(Some(openssl::cipher::Cipher::aes_128_ccm()), None, None)
        .ok()?;
    ctx.set_iv_length(nonce.len()).ok()?;
    ctx.set_tag(tag).ok()?;
    ctx.decrypt_init(None, Some(key), Some(nonce)).ok()?;
    ctx.set_data_len(data.len()).ok()?;
    ctx.cipher_update(aad, None).ok()?;
    let mut out = vec![0u8; data.len() + 16];
    let n = ctx.cipher_update(data, Some(&mut out)).ok()?;
    out.truncate(n);
    Some(out)
}

/// The read state of one traffic secret.
struct Protection {
    suite: Suite,
    secret: Vec<u8>,
    key: Vec<u8>,
    iv: [u8; 12],
    seq: u64,
    app: bool,
}

impl Protection {
    fn new(suite: Suite, secret: Vec<u8>, app: bool) -> Option<Protection> {
        let key = hkdf_expand_label(suite.md, &secret, "key", &[], suite.key_len)?;
        let iv = hkdf_expand_label(suite.md, &secret, "iv", &[], 12)?
            .try_into()
            .ok()?;
        let seq = 0;
        Some(Protection {
            suite,
            secret,
            key,
            iv,
            seq,
            app,
        })
    }

    /// The next generation after a KeyUpdate (RFC 8446 §7.2).
    fn updated(&self) -> Option<Protection> {
        let md = self.suite.md;
        let next = hkdf_expand_label(md, &self.secret, "traffic upd", &[], md.size())?;
        Protection::new(self.suite, next, true)
    }

    /// Decrypts one whole record (header and fragment) into TLSInnerPlaintext.
    fn open(&mut self, record: &[u8]) -> Option<Vec<u8>> {
        let (header, fragment) = record.split_at_checked(5)?;
        let tag_len = self.suite.tag_len;
        let (data, tag) = fragment.split_at_checked(fragment.len().checked_sub(tag_len)?)?;
        let mut nonce = self.iv;
        for (n, s) in nonce[4..].iter_mut().zip(self.seq.to_be_bytes()) {
            *n ^= s;
        }
        let plain = if self.suite.aead == Cipher::aes_128_ccm() {
            open_ccm(&self.key, &nonce, header, data, tag)?
        } else {
            decrypt_aead(self.suite.aead, &self.key, Some(&nonce), header, data, tag).ok()?
        };
        self.seq = self.seq.wrapping_add(1);
        Some(plain)
    }
}

#[derive(Default)]
enum Keys {
    #[default]
    Plain,
    Protected(Protection),
    /// Records are only framed.
    Stopped,
}

/// What the hellos of a direction said.
#[derive(Clone, Copy, Default)]
struct Hello {
    random: Option<[u8; 32]>,
    suite: Option<u16>,
    group: Option<u16>,
    hrr: bool,
    tls13: bool,
}

impl Hello {
    fn server_hello(&mut self, body: &[u8]) -> Option<()> {
        let mut r = Reader(body);
        r.take(2)?;
        let hrr = r.take(32)? == HRR_RANDOM;
        let session_id = r.u8()?;
        r.take(usize::from(session_id))?;
        (self.suite, self.hrr, self.tls13) = (Some(r.u16()?), self.hrr | hrr, false);
        r.u8()?;
        let len = r.u16()?;
        let mut exts = Reader(r.take(usize::from(len))?);
        while let (Some(typ), Some(len)) = (exts.u16(), exts.u16()) {
            let data = exts.take(usize::from(len))?;
            match typ {
                0x002b => self.tls13 = data == [3, 4],
                0x0033 if !hrr => self.group = Reader(data).u16(),
                _ => {}
            }
        }
        Some(())
    }
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, rest) = self.0.split_at_checked(n)?;
        self.0 = rest;
        Some(head)
    }
    fn u8(&mut self) -> Option<u8> {
        self.take(1).map(|b| b[0])
    }
    fn u16(&mut self) -> Option<u16> {
        self.take(2).map(|b| u16::from_be_bytes([b[0], b[1]]))
    }
}

/// The walk through one direction's byte stream.
#[derive(Default)]
struct Dir<'a> {
    tag: &'static str,
    data: &'a [u8],
    pos: usize,
    done: bool,
    keys: Keys,
    app_secret: Option<Vec<u8>>,
    /// Handshake bytes so far, and where each run of them lies: (index in `buf`, stream offset,
    /// from a protected record).
    buf: Vec<u8>,
    runs: Vec<(usize, u64, bool)>,
    /// Bytes of `buf` already cut into messages.
    parsed: usize,
    /// A Finished or KeyUpdate in the current record: the key changes after it.
    key_change: Option<u8>,
    hello: Hello,
    msgs: Vec<HsMsg>,
    bodies: Vec<Vec<u8>>,
    records: Vec<Record>,
    problems: Vec<String>,
}

impl<'a> Dir<'a> {
    fn new(tag: &'static str, data: &'a [u8]) -> Dir<'a> {
        Dir {
            tag,
            data,
            ..Dir::default()
        }
    }

    /// Reads records until the end, or until the first protected one while still in plaintext
    /// (then returns true: keys are needed).
    fn run(&mut self) -> bool {
        while !self.done {
            let rest = self.data.get(self.pos..).unwrap_or_default();
            if rest.first() == Some(&APPLICATION_DATA) && matches!(self.keys, Keys::Plain) {
                return true;
            }
            self.step(rest);
        }
        false
    }

    fn problem(&mut self, why: String) {
        self.problems.push(format!("{}: {why}", self.tag));
    }

    fn stop(&mut self, why: String) {
        self.problem(why);
        self.keys = Keys::Stopped;
    }

    /// Ends the walk, with a problem unless the direction had already stopped.
    fn end(&mut self, why: Option<String>) {
        if !matches!(self.keys, Keys::Stopped) {
            if let Some(why) = why {
                self.problem(why);
            } else if let Some(&typ) = self.buf.get(self.parsed) {
                self.problem(format!("stream ends inside a {} message", hs_name(typ)));
            }
        }
        self.done = true;
    }

    /// Reads the record at the start of `rest`, the stream from `pos` on.
    fn step(&mut self, rest: &[u8]) {
        let start = self.pos as u64;
        let Some(&[typ, major, _, len_hi, len_lo]) = rest.get(..5) else {
            let why = format!("stream ends inside the record header at offset {start}");
            return self.end((!rest.is_empty()).then_some(why));
        };
        let len = usize::from(u16::from_be_bytes([len_hi, len_lo]));
        if !(CHANGE_CIPHER_SPEC..=APPLICATION_DATA).contains(&typ)
            || major != 3
            || len > MAX_FRAGMENT
        {
            let header = hex::encode(&rest[..5]);
            return self.end(Some(format!("no TLS record at offset {start} ({header})")));
        }
        let Some(record) = rest.get(..5 + len) else {
            if typ == HANDSHAKE && matches!(self.keys, Keys::Plain) {
                self.feed(&rest[5..], start + 5, false);
            }
            let (got, total) = (rest.len(), 5 + len);
            return self.end(Some(format!(
                "stream ends inside the record at offset {start} ({got} of {total} bytes)"
            )));
        };
        self.pos += record.len();
        let (mut inner_type, mut content_len) = (None, None);
        match &mut self.keys {
            Keys::Plain if typ == HANDSHAKE => self.feed(&record[5..], start + 5, false),
            Keys::Protected(p) if typ == APPLICATION_DATA => {
                let seq = p.seq;
                let kind = ["the handshake", "an application"][usize::from(p.app)];
                // TLSInnerPlaintext: the content, its type, then zero padding.
                let plain = p.open(record);
                let at = plain.as_ref().and_then(|x| x.iter().rposition(|&b| b != 0));
                match (plain, at) {
                    (Some(plain), Some(at)) => {
                        inner_type = Some(plain[at]);
                        content_len = Some(at as u32);
                        if plain[at] == HANDSHAKE {
                            self.feed(&plain[..at], start + 5, true);
                        }
                    }
                    (Some(_), None) => self.stop(format!("the record at offset {start} is empty")),
                    (None, _) => self.stop(format!(
                        "the record at offset {start} (seq {seq}) does not decrypt with {kind} key"
                    )),
                }
            }
            _ => {}
        }
        let (len, outer_type) = (record.len() as u32, typ);
        self.records.push(Record {
            start,
            len,
            outer_type,
            inner_type,
            content_len,
        });
        self.change_keys();
    }

    /// Appends handshake bytes found at a stream offset and cuts out the whole messages.
    fn feed(&mut self, bytes: &[u8], offset: u64, encrypted: bool) {
        self.runs.push((self.buf.len(), offset, encrypted));
        self.buf.extend_from_slice(bytes);
        while let Some(&[typ, a, b, c]) = self.buf.get(self.parsed..self.parsed + 4) {
            let len = u32::from_be_bytes([0, a, b, c]);
            let end = self.parsed + 4 + len as usize;
            let Some(msg) = self.buf.get(self.parsed..end).map(<[u8]>::to_vec) else {
                break;
            };
            let (start, encrypted) = self.offset(self.parsed);
            let end_offset = self.offset(end - 1).0 + 1;
            self.msgs.push(HsMsg {
                typ,
                start,
                end: end_offset,
                len,
                encrypted,
            });
            match typ {
                1 if self.hello.random.is_none() => {
                    self.hello.random = msg.get(6..38).and_then(|r| r.try_into().ok());
                }
                2 => _ = self.hello.server_hello(&msg[4..]),
                FINISHED | KEY_UPDATE => self.key_change = Some(typ),
                _ => {}
            }
            self.bodies.push(msg);
            self.parsed = end;
        }
    }

    /// Stream offset of byte `i` of `buf`, and whether it came from a protected record.
    fn offset(&self, i: usize) -> (u64, bool) {
        let run = self.runs.iter().rev().find(|r| r.0 <= i);
        let &(at, offset, encrypted) = run.unwrap_or(&(0, 0, false));
        (offset + (i - at) as u64, encrypted)
    }

    /// After a record holding a Finished (to the application secret) or a KeyUpdate.
    fn change_keys(&mut self) {
        let (Some(typ), Keys::Protected(p)) = (self.key_change.take(), &self.keys) else {
            return;
        };
        let next = match typ {
            FINISHED if !p.app => match self.app_secret.take() {
                Some(secret) => Protection::new(p.suite, secret, true),
                None => {
                    self.keys = Keys::Stopped;
                    return;
                }
            },
            KEY_UPDATE if p.app => p.updated(),
            _ => return,
        };
        match next {
            Some(p) => self.keys = Keys::Protected(p),
            None => self.stop(format!("cannot derive the key after {}", hs_name(typ))),
        }
    }
}

#[cfg(test)]
mod tests {

    use super::*;
    use std::io::{Read, Write};
    use std::os::unix::net::UnixStream;
    use std::sync::{Arc, Mutex};

    use openssl::asn1::Asn1Time;
    use openssl::bn::BigNum;
    use openssl::ec::{EcGroup, EcKey};
    use openssl::hash::{hash, MessageDigest};
    use openssl::nid::Nid;
    use openssl::pkey::PKey;
    use openssl::ssl::{Ssl, SslContext, SslContextBuilder, SslMethod, SslVerifyMode, SslVersion};
    use openssl::symm::encrypt_aead;
    use openssl::x509::{X509Builder, X509NameBuilder};

    const RFC8448: &str = include_str!("../data/rfc8448-simple-1rtt.txt");
    const SECRETS: [&str; 5] = [
        "CLIENT_HANDSHAKE_TRAFFIC_SECRET",
        "SERVER_HANDSHAKE_TRAFFIC_SECRET",
        "EXPORTER_SECRET",
        "CLIENT_TRAFFIC_SECRET_0",
        "SERVER_TRAFFIC_SECRET_0",
    ];

    /// The concatenated values of the RFC 8448 data file named in `names`.
    fn v(names: &str) -> Vec<u8> {
        let mut out = Vec::new();
        for name in names.split_whitespace() {
            let mut current = None;
            let at = out.len();
            for line in RFC8448
                .lines()
                .map(str::trim)
                .filter(|l| !l.starts_with('#'))
            {
                if let Some(n) = line.strip_suffix(':') {
                    current = Some(n);
                } else if line.is_empty() {
                    current = None;
                } else if current == Some(name) {
                    out.extend(hex::decode(line.replace(' ', "")).unwrap());
                }
            }
            assert!(out.len() > at, "no {name} in the data file");
        }
        out
    }

    fn sha256(data: &[u8]) -> Vec<u8> {
        hash(MessageDigest::sha256(), data).unwrap().to_vec()
    }

    /// The key log of the RFC 8448 session: the first `n` of `SECRETS`.
    fn rfc_keylog(n: usize) -> KeyLog {
        let random = hex::encode(&v("c_hello")[11..43]);
        let lines: Vec<String> = SECRETS[..n]
            .iter()
            .map(|l| format!("{l} {random} {}", hex::encode(v(l))))
            .collect();
        KeyLog::parse(&format!("# RFC 8448 section 3\n{}\n", lines.join("\n")))
    }

    fn rfc_streams() -> (Vec<u8>, Vec<u8>) {
        let c2s = v("c_hello c_finished c_app_data c_alert");
        (c2s, v("s_hello s_flight s_ticket s_app_data s_alert"))
    }

    type Msg = (u8, u64, u64, u32, bool);

    /// The messages as (type, start, end, length, encrypted).
    fn msgs(m: &[HsMsg]) -> Vec<Msg> {
        m.iter()
            .map(|m| (m.typ, m.start, m.end, m.len, m.encrypted))
            .collect()
    }

    /// The records as (start, length, outer type, inner type).
    fn recs(r: &[Record]) -> Vec<(u64, u32, u8, Option<u8>)> {
        r.iter()
            .map(|r| (r.start, r.len, r.outer_type, r.inner_type))
            .collect()
    }

    /// CCM with TLS 1.3's 12-byte nonce and both tag lengths: sealed
    /// with ango's own CCM (SP 800-38C), opened here; a flipped bit fails.
    #[test]
    fn ccm_opens_both_tag_lengths() {
        let key = [7u8; 16];
        let nonce = [9u8; 12];
        let aad = [23u8, 3, 3, 0, 18];
        for tag_len in [8usize, 16] {
            let mut ct = b"application data".to_vec();
            let ccm = ango_prims::ccm::Ccm::new(ango_prims::aes::Aes::auto(), &key).expect("key");
            let mut tag = vec![0u8; tag_len];
            assert!(ccm.seal(&nonce, &aad, &mut ct, &mut tag));
            let pt = open_ccm(&key, &nonce, &aad, &ct, &tag).expect("opens");
            assert_eq!(pt, b"application data");
            let mut bad = tag.clone();
            bad[0] ^= 1;
            assert!(open_ccm(&key, &nonce, &aad, &ct, &bad).is_none());
        }
    }

    #[test]
    fn key_schedule_matches_rfc8448() {
        let md = Md::sha256();
        let hellos = [&v("c_hello")[5..], &v("s_hello")[5..]].concat();
        assert_eq!(v("empty_hash"), sha256(b""));
        assert_eq!(v("hello_hash"), sha256(&hellos));
        assert_eq!(&HRR_RANDOM[..], sha256(b"HelloRetryRequest"));
        let derived = hkdf_expand_label(md, &v("early_secret"), "derived", &v("empty_hash"), 32);
        assert_eq!(derived, Some(v("derived_early")));
        let s_hs = v("SERVER_HANDSHAKE_TRAFFIC_SECRET");
        let finished = hkdf_expand_label(md, &s_hs, "finished", &[], 32);
        assert_eq!(finished, Some(v("s_finished_key")));
        for (secret, which) in [(0, "c_hs"), (1, "s_hs"), (3, "c_ap"), (4, "s_ap")] {
            let (key, iv) = traffic_key_iv(0x1301, &v(SECRETS[secret])).unwrap();
            assert_eq!(key, v(&format!("{which}_key")), "{which}");
            assert_eq!(iv.to_vec(), v(&format!("{which}_iv")), "{which}");
        }
        assert_eq!(traffic_key_iv(0x1302, &[7; 48]).unwrap().0.len(), 32);
        assert_eq!(traffic_key_iv(0x1303, &[7; 32]).unwrap().0.len(), 32);
        assert_eq!(traffic_key_iv(0x1304, &[7; 32]).unwrap().0.len(), 16);
        assert_eq!(traffic_key_iv(0x1305, &[7; 32]).unwrap().0.len(), 16);
        assert!(traffic_key_iv(0x1306, &[7; 32]).is_none());
        assert!(hkdf_expand_label(md, &[7; 32], "x", &[0; 256], 32).is_none());
    }

    #[test]
    fn key_log_lines() {
        let (r, mut log) = ("ab".repeat(32), KeyLog::new());
        let (s2, s3) = ("02".repeat(32), "03".repeat(48));
        let lines = [
            (true, String::new()),
            (true, "# SSL/TLS secrets log file".into()),
            (true, format!("EXPORTER_SECRET {r} 01")),
            (true, format!("CLIENT_HANDSHAKE_TRAFFIC_SECRET {r} {s2}")),
            (true, format!("  SERVER_TRAFFIC_SECRET_0\t{r} {s3}\r")),
            (false, "CLIENT_HANDSHAKE_TRAFFIC_SECRET".into()),
            (false, format!("CLIENT_HANDSHAKE_TRAFFIC_SECRET {r}")),
            (false, format!("CLIENT_HANDSHAKE_TRAFFIC_SECRET {r} 0g")),
            (
                false,
                format!("CLIENT_HANDSHAKE_TRAFFIC_SECRET {} 02", &r[2..]),
            ),
            (false, format!("CLIENT_HANDSHAKE_TRAFFIC_SECRET {r} 02 03")),
            (false, format!("lower_case {r} 02")),
        ];
        for (ok, line) in lines {
            assert_eq!(log.add_line(&line), ok, "{line}");
        }
        let (client_hs, server_app) = (Some(vec![2; 32]), Some(vec![3; 48]));
        let want = Secrets {
            client_hs,
            server_app,
            ..Secrets::default()
        };
        assert_eq!(
            (log.len(), log.get(&[0xab; 32]), log.get(&[0xac; 32])),
            (1, Some(&want), None)
        );
        assert!(KeyLog::parse("junk\nCLIENT_TRAFFIC_SECRET_0 00 00\n").is_empty());
        let names = [2, 15, 99].map(hs_name);
        assert_eq!(names, ["ServerHello", "CertificateVerify", "Unknown"]);
    }

    const RFC_S2C: [Msg; 5] = [
        (2, 5, 95, 86, false),
        (8, 100, 140, 36, true),
        (11, 140, 585, 441, true),
        (15, 585, 721, 132, true),
        (20, 721, 757, 32, true),
    ];

    #[test]
    fn dissects_rfc8448() {
        let d = dissect(
            &v("c_hello c_finished"),
            &v("s_hello s_flight"),
            &rfc_keylog(5),
        );
        assert_eq!(d.problems, Vec::<String>::new());
        assert_eq!(d.client_random.unwrap()[..], v("c_hello")[11..43]);
        let hello = (d.cipher_suite, d.key_share_group, d.hello_retry);
        assert_eq!(hello, (Some(0x1301), Some(0x001d), false));
        assert_eq!(
            msgs(&d.c2s),
            [(1, 5, 201, 192, false), (20, 206, 242, 32, true)]
        );
        assert_eq!(msgs(&d.s2c), RFC_S2C);
        assert_eq!(
            recs(&d.c2s_records),
            [(0, 201, 22, None), (201, 58, 23, Some(22))]
        );
        assert_eq!(
            recs(&d.s2c_records),
            [(0, 95, 22, None), (95, 679, 23, Some(22))]
        );

        // Then the ticket under the server's application key, data and close_notify both ways.
        let (c2s, s2c) = rfc_streams();
        let d = dissect(&c2s, &s2c, &rfc_keylog(5));
        assert_eq!(d.problems, Vec::<String>::new());
        assert_eq!(
            msgs(&d.s2c),
            [&RFC_S2C[..], &[(4, 779, 984, 201, true)]].concat()
        );
        let inner = |r: &[Record]| r.iter().map(|r| r.inner_type).collect::<Vec<_>>();
        assert_eq!(inner(&d.c2s_records), [None, Some(22), Some(23), Some(21)]);
        let s2c_inner = [None, Some(22), Some(22), Some(23), Some(21)];
        assert_eq!(inner(&d.s2c_records), s2c_inner);

        // Without the application secrets each direction stops quietly after its Finished.
        let d = dissect(&c2s, &s2c, &rfc_keylog(3));
        assert_eq!((d.problems.len(), d.c2s.len(), d.s2c.len()), (0, 2, 5));
        assert_eq!(inner(&d.s2c_records), [None, Some(22), None, None, None]);
    }

    #[test]
    fn truncated_streams_keep_what_came_before() {
        let (c2s, s2c) = rfc_streams();
        let keys = rfc_keylog(5);
        let full = dissect(&c2s, &s2c, &keys);
        let all = [
            (&c2s, &full.c2s, &full.c2s_records),
            (&s2c, &full.s2c, &full.s2c_records),
        ];
        let rec_end = |r: &Record| r.start + u64::from(r.len);
        for (dir, (stream, msgs, records)) in all.into_iter().enumerate() {
            for cut in 0..=stream.len() {
                let d = match dir {
                    0 => dissect(&c2s[..cut], &s2c, &keys),
                    _ => dissect(&c2s, &s2c[..cut], &keys),
                };
                let (got, got_records) =
                    [(d.c2s, d.c2s_records), (d.s2c, d.s2c_records)][dir].clone();
                // A plaintext message is there once its last byte is, a protected one once its
                // record is.
                let cut = cut as u64;
                let holds = |m: &HsMsg, r: &Record| r.start < m.end && m.end <= rec_end(r);
                let there = |m: &&HsMsg| match m.encrypted {
                    false => m.end <= cut,
                    true => records.iter().any(|r| holds(m, r) && rec_end(r) <= cut),
                };
                let want: Vec<HsMsg> = msgs.iter().filter(there).cloned().collect();
                assert_eq!(got, want, "{dir} {cut}");
                assert!(got_records.iter().all(|r| rec_end(r) <= cut));
                let tag = ["c2s: ", "s2c: "][dir];
                let own = d.problems.iter().filter(|p| p.starts_with(tag)).count();
                let complete = cut == stream.len() as u64 || records.iter().any(|r| r.start == cut);
                assert_eq!(own == 0, complete, "dir {dir} cut {cut}: {:?}", d.problems);
            }
        }
    }

    #[test]
    fn wrong_or_missing_secrets_are_problems() {
        let (c2s, s2c) = (v("c_hello c_finished"), v("s_hello s_flight"));
        let mut keys = rfc_keylog(5);
        let mut bad = v("SERVER_HANDSHAKE_TRAFFIC_SECRET");
        bad[0] ^= 1;
        let random = hex::encode(&c2s[11..43]);
        assert!(keys.add_line(&format!("{} {random} {}", SECRETS[1], hex::encode(bad))));
        let d = dissect(&c2s, &s2c, &keys);
        assert_eq!((d.c2s.len(), d.s2c.len(), d.s2c_records.len()), (2, 1, 2));
        let why = "s2c: the record at offset 95 (seq 0) does not decrypt with the handshake key";
        assert_eq!(d.problems, [why]);

        let d = dissect(&c2s, &s2c, &KeyLog::new());
        assert_eq!((d.c2s.len(), d.s2c.len(), d.problems.len()), (1, 1, 2));
        assert!(d.problems[0].starts_with("c2s: no key log entry for client random cb34ecb1"));
        let why = dissect(&c2s, &[], &keys).problems;
        assert_eq!(why, ["c2s: no ServerHello before protected records"]);
        let why = dissect(&[], &s2c, &keys).problems;
        assert_eq!(why, ["s2c: no ClientHello random"]);
    }

    #[test]
    fn garbage_never_panics() {
        let (c2s, s2c) = rfc_streams();
        let keys = rfc_keylog(5);
        let mut x = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..2000 {
            let mut junk: Vec<u8> = (0..next() % 700).map(|_| next() as u8).collect();
            if next() % 2 == 0 && junk.len() > 5 {
                junk[..3].copy_from_slice(&[22 + (next() % 2) as u8, 3, 3]);
            }
            dissect(&junk, &s2c, &keys);
            dissect(&c2s, &junk, &keys);
            let mut flipped = [&c2s, &s2c][(next() % 2) as usize].clone();
            let at = (next() as usize) % flipped.len();
            flipped[at] ^= 1 << (next() % 8);
            dissect(&flipped, &flipped, &keys);
        }
        assert!(!dissect(&s2c, &c2s, &keys).problems.is_empty());
    }

    /// A protected record of `inner` (TLSInnerPlaintext) at sequence number `seq`.
    fn seal(p: &Protection, seq: u64, inner: &[u8]) -> Vec<u8> {
        let mut nonce = p.iv;
        for (n, s) in nonce[4..].iter_mut().zip(seq.to_be_bytes()) {
            *n ^= s;
        }
        let (header, mut tag) = ([23, 3, 3, 0, inner.len() as u8 + 16], [0; 16]);
        let data = encrypt_aead(p.suite.aead, &p.key, Some(&nonce), &header, inner, &mut tag);
        [&header[..], &data.unwrap(), &tag].concat()
    }

    #[test]
    fn follows_a_key_update() {
        let mut c2s = v("c_hello c_finished c_app_data");
        let app = Protection::new(Suite::new(0x1301).unwrap(), v(SECRETS[3]), true).unwrap();
        c2s.extend(seal(&app, 1, &[KEY_UPDATE, 0, 0, 1, 0, HANDSHAKE]));
        let updated = app.updated().unwrap();
        c2s.extend(seal(&updated, 0, b"after the update\x17\0\0"));
        let d = dissect(&c2s, &v("s_hello s_flight"), &rfc_keylog(5));
        assert_eq!(d.problems, Vec::<String>::new());
        assert_eq!(msgs(&d.c2s)[2..], [(KEY_UPDATE, 336, 341, 1, true)]);
        let inner: Vec<_> = d.c2s_records.iter().map(|r| r.inner_type).collect();
        assert_eq!(inner, [None, Some(22), Some(23), Some(22), Some(23)]);
    }

    /// Copies every byte written through it.
    #[derive(Debug)]
    struct Tap(UnixStream, Arc<Mutex<Vec<u8>>>);

    impl Read for Tap {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            self.0.read(buf)
        }
    }

    impl Write for Tap {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            let n = self.0.write(buf)?;
            self.1.lock().unwrap().extend_from_slice(&buf[..n]);
            Ok(n)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            self.0.flush()
        }
    }

    /// A TLS 1.3 handshake and a ping-pong over a socket pair, the server with a self-signed
    /// P-256 certificate: (c2s, s2c, key log, certificate DER). With `hrr`, the client's key
    /// share (X25519) is not one the server takes (P-256 only).
    fn live_handshake(suite: &str, hrr: bool) -> (Vec<u8>, Vec<u8>, KeyLog, Vec<u8>) {
        let group = EcGroup::from_curve_name(Nid::X9_62_PRIME256V1).unwrap();
        let key = PKey::from_ec_key(EcKey::generate(&group).unwrap()).unwrap();
        let mut name = X509NameBuilder::new().unwrap();
        name.append_entry_by_text("CN", "localhost").unwrap();
        let (name, mut cert) = (name.build(), X509Builder::new().unwrap());
        let serial = BigNum::from_u32(1).unwrap().to_asn1_integer().unwrap();
        let (from, to) = (
            Asn1Time::days_from_now(0).unwrap(),
            Asn1Time::days_from_now(1).unwrap(),
        );
        cert.set_version(2).unwrap();
        cert.set_serial_number(&serial).unwrap();
        cert.set_subject_name(&name).unwrap();
        cert.set_issuer_name(&name).unwrap();
        cert.set_pubkey(&key).unwrap();
        cert.set_not_before(&from).unwrap();
        cert.set_not_after(&to).unwrap();
        cert.sign(&key, MessageDigest::sha256()).unwrap();
        let cert = cert.build();

        let context = |groups: &str| -> SslContextBuilder {
            let mut b = SslContext::builder(SslMethod::tls()).unwrap();
            b.set_min_proto_version(Some(SslVersion::TLS1_3)).unwrap();
            b.set_max_proto_version(Some(SslVersion::TLS1_3)).unwrap();
            b.set_ciphersuites(suite).unwrap();
            if hrr {
                b.set_groups_list(groups).unwrap();
            }
            b
        };
        let mut server = context("P-256");
        server.set_certificate(&cert).unwrap();
        server.set_private_key(&key).unwrap();
        let server = server.build();
        let mut client = context("X25519:P-256");
        client.set_verify(SslVerifyMode::NONE);
        let lines = Arc::new(Mutex::new(Vec::new()));
        let log = lines.clone();
        client.set_keylog_callback(move |_, line| log.lock().unwrap().push(line.to_string()));

        let (a, b) = UnixStream::pair().unwrap();
        let c2s: Arc<Mutex<Vec<u8>>> = Arc::default();
        let s2c: Arc<Mutex<Vec<u8>>> = Arc::default();
        let tap = Tap(b, s2c.clone());
        let server = std::thread::spawn(move || {
            let mut s = Ssl::new(&server).unwrap().accept(tap).unwrap();
            s.read_exact(&mut [0; 4]).unwrap();
            s.write_all(b"pong").unwrap();
        });
        let ssl = Ssl::new(&client.build()).unwrap();
        let mut c = ssl.connect(Tap(a, c2s.clone())).unwrap();
        c.write_all(b"ping").unwrap();
        let mut pong = [0; 4];
        c.read_exact(&mut pong).unwrap();
        assert_eq!((&pong, server.join().is_ok()), (b"pong", true));
        let keys = KeyLog::parse(&lines.lock().unwrap().join("\n"));
        let (c2s, s2c) = (c2s.lock().unwrap().clone(), s2c.lock().unwrap().clone());
        (c2s, s2c, keys, cert.to_der().unwrap())
    }

    #[test]
    fn dissects_live_openssl_handshakes() {
        let cases = [
            ("TLS_AES_128_GCM_SHA256", 0x1301, false),
            ("TLS_AES_256_GCM_SHA384", 0x1302, false),
            ("TLS_CHACHA20_POLY1305_SHA256", 0x1303, false),
            ("TLS_AES_128_GCM_SHA256", 0x1301, true),
        ];
        for (name, id, hrr) in cases {
            let (c2s, s2c, keys, der) = live_handshake(name, hrr);
            let (d, [_, s2c_bodies]) = dissect_full(&c2s, &s2c, &keys);
            assert_eq!(d.problems, Vec::<String>::new(), "{name}");
            assert_eq!((d.cipher_suite, d.hello_retry), (Some(id), hrr));
            let types = |m: &[HsMsg]| m.iter().map(|m| m.typ).collect::<Vec<u8>>();
            let (c2s_types, s2c_types, h) = (types(&d.c2s), types(&d.s2c), usize::from(hrr));
            assert_eq!(c2s_types, [&[1][..h], &[1, 20]].concat(), "{name}");
            let s2c_start = [&[2][..h], &[2, 8, 11, 15, 20]].concat();
            assert_eq!(s2c_types[..h + 5], s2c_start, "{name}");
            let tickets = s2c_types[h + 5..].iter().all(|&t| t == 4);
            assert!(tickets, "{name}: {s2c_types:?}");
            assert!(!hrr || d.key_share_group == Some(0x0017));
            for (msgs, records, stream) in
                [(d.c2s, d.c2s_records, c2s), (d.s2c, d.s2c_records, s2c)]
            {
                let mut at = 0;
                for m in msgs {
                    let ok = at <= m.start && m.end == m.start + 4 + u64::from(m.len);
                    assert!(ok, "{name}: {m:?} after {at}");
                    at = m.end;
                }
                let mut at = 0;
                for r in records {
                    assert_eq!(r.start, at, "{name}: the records tile the stream");
                    at += u64::from(r.len);
                }
                assert_eq!(at, stream.len() as u64, "{name}");
            }
            let certificate = &s2c_bodies[h + 2];
            assert!(certificate.windows(der.len()).any(|w| w == der), "{name}");
        }
    }
}
