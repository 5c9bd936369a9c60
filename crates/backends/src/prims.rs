//! ango's own primitives (crate `ango-prims`) as a backend: every algorithm
//! of the speed study — ChaCha20, ChaCha20-Poly1305, AES-ECB/CTR/GCM/CCM —
//! each with every variant selectable and the best this CPU runs as
//! "auto".

use ango_core::catalog::{AlgorithmId, Make};
use ango_core::{Aead, Algorithm, Cipher, Entry, Error, Hw, Provider, Result};
use ango_prims::aead::{AuthError, ChaCha20Poly1305, XChaCha20Poly1305};
use ango_prims::aes::{Aes, AesKey};
use ango_prims::ccm::Ccm;
use ango_prims::chacha20::ChaCha20;
use ango_prims::gcm::Gcm;
use ango_prims::ghash::Ghash;
use ango_prims::poly1305::Poly1305;
use std::sync::Arc;

mod cryptrec;

const NAME: &str = "ango";

fn err(msg: impl std::fmt::Display) -> Error {
    Error::Backend {
        backend: NAME,
        message: msg.to_string(),
    }
}

fn key32(key: &[u8]) -> Result<[u8; 32]> {
    key.try_into().map_err(|_| err("key must be 32 bytes"))
}

/// ChaCha20-Poly1305 (12-byte nonce) or XChaCha20-Poly1305 (24-byte).
enum PrimsAead {
    Ietf(ChaCha20Poly1305),
    X(XChaCha20Poly1305),
}

impl Aead for PrimsAead {
    fn seal(&mut self, nonce: &[u8], aad: &[u8], buf: &mut [u8], tag: &mut [u8]) -> Result<()> {
        if tag.len() != 16 {
            return Err(err("tag must be 16 bytes"));
        }
        let t = match self {
            PrimsAead::Ietf(a) => a.seal(
                nonce
                    .try_into()
                    .map_err(|_| err("nonce must be 12 bytes"))?,
                aad,
                buf,
            ),
            PrimsAead::X(a) => a.seal(
                nonce
                    .try_into()
                    .map_err(|_| err("nonce must be 24 bytes"))?,
                aad,
                buf,
            ),
        };
        tag.copy_from_slice(&t);
        Ok(())
    }

    fn open(
        &mut self,
        nonce: &[u8],
        aad: &[u8],
        ct: &[u8],
        tag: &[u8],
        out: &mut [u8],
    ) -> Result<()> {
        let t: &[u8; 16] = tag.try_into().map_err(|_| Error::AuthFailed)?;
        if ct.len() != out.len() {
            return Err(err("ciphertext and output lengths differ"));
        }
        // Decrypted from the ciphertext into the output: no copy first.
        match self {
            PrimsAead::Ietf(a) => a.open_into(
                nonce
                    .try_into()
                    .map_err(|_| err("nonce must be 12 bytes"))?,
                aad,
                ct,
                t,
                out,
            ),
            PrimsAead::X(a) => a.open_into(
                nonce
                    .try_into()
                    .map_err(|_| err("nonce must be 24 bytes"))?,
                aad,
                ct,
                t,
                out,
            ),
        }
        .map_err(|AuthError| Error::AuthFailed)
    }
}

struct PrimsChaCha20 {
    key: [u8; 32],
    v: ChaCha20,
}

impl Cipher for PrimsChaCha20 {
    fn encrypt(&mut self, iv: &[u8], buf: &mut [u8]) -> Result<()> {
        if iv.len() != 16 {
            return Err(err("ChaCha20 IV is 4-byte LE counter + 12-byte nonce"));
        }
        let counter = u32::from_le_bytes(iv[..4].try_into().expect("4 bytes"));
        let nonce: &[u8; 12] = iv[4..].try_into().expect("12 bytes");
        self.v.xor_keystream(&self.key, counter, nonce, buf);
        Ok(())
    }

    fn decrypt(&mut self, iv: &[u8], buf: &mut [u8]) -> Result<()> {
        self.encrypt(iv, buf)
    }
}

/// AES-GCM and AES-CCM of ango's own code, any nonce and tag length the
/// standards allow.
struct AesAead {
    gcm: Option<Gcm>,
    ccm: Option<Ccm>,
    nonce_len: usize,
    tag_len: usize,
}

impl Aead for AesAead {
    fn seal(&mut self, nonce: &[u8], aad: &[u8], buf: &mut [u8], tag: &mut [u8]) -> Result<()> {
        if nonce.len() != self.nonce_len || tag.len() != self.tag_len {
            return Err(err("nonce or tag length does not match the instance"));
        }
        match (&self.gcm, &self.ccm) {
            (Some(g), _) => g.seal(nonce, aad, buf, tag),
            (_, Some(c)) => {
                if !c.seal(nonce, aad, buf, tag) {
                    return Err(err("unsupported CCM nonce or tag length"));
                }
            }
            _ => unreachable!("one mode is set"),
        }
        Ok(())
    }

    fn open(
        &mut self,
        nonce: &[u8],
        aad: &[u8],
        ct: &[u8],
        tag: &[u8],
        out: &mut [u8],
    ) -> Result<()> {
        if nonce.len() != self.nonce_len {
            return Err(err("nonce length does not match the instance"));
        }
        let r = match (&self.gcm, &self.ccm) {
            // Straight from the ciphertext into the output, as the
            // libraries' own separate-buffer calls do.
            (Some(g), _) => g.open_into(nonce, aad, ct, tag, out),
            (_, Some(c)) => {
                out.copy_from_slice(ct);
                c.open(nonce, aad, out, tag)
            }
            _ => unreachable!("one mode is set"),
        };
        r.map_err(|AuthError| Error::AuthFailed)
    }
}

#[derive(Clone, Copy)]
enum AesMode {
    Ecb,
    Ctr,
}

fn aes_mode(algo: Algorithm) -> Option<AesMode> {
    match algo {
        Algorithm::Aes128Ecb | Algorithm::Aes256Ecb => Some(AesMode::Ecb),
        Algorithm::Aes128Ctr | Algorithm::Aes256Ctr => Some(AesMode::Ctr),
        _ => None,
    }
}

struct PrimsAes {
    key: AesKey,
    mode: AesMode,
}

impl Cipher for PrimsAes {
    fn encrypt(&mut self, iv: &[u8], buf: &mut [u8]) -> Result<()> {
        match self.mode {
            AesMode::Ecb if !buf.len().is_multiple_of(16) => {
                Err(err("ECB input must be whole blocks"))
            }
            AesMode::Ecb => {
                self.key.encrypt_blocks(buf);
                Ok(())
            }
            AesMode::Ctr => {
                let iv: &[u8; 16] = iv
                    .try_into()
                    .map_err(|_| err("CTR needs a 16-byte counter block"))?;
                self.key.ctr_xor(iv, buf);
                Ok(())
            }
        }
    }

    fn decrypt(&mut self, iv: &[u8], buf: &mut [u8]) -> Result<()> {
        match self.mode {
            AesMode::Ecb if !buf.len().is_multiple_of(16) => {
                Err(err("ECB input must be whole blocks"))
            }
            AesMode::Ecb => {
                self.key.decrypt_blocks(buf);
                Ok(())
            }
            AesMode::Ctr => self.encrypt(iv, buf),
        }
    }

    fn block_ops(&mut self) -> Option<&mut dyn ango_core::BlockOps> {
        Some(self)
    }
}

/// AES's raw block function (the reference rows of `ango cycles`).
impl ango_core::BlockOps for PrimsAes {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        self.key = self
            .key
            .variant
            .key(key)
            .ok_or_else(|| err("bad AES key length"))?;
        Ok(())
    }

    fn encrypt_block(&mut self, block: &mut [u8; 16]) {
        self.key.encrypt_block(block)
    }

    fn decrypt_block(&mut self, block: &mut [u8; 16]) {
        self.key.decrypt_blocks(block)
    }

    /// Each variant stores its round keys its own way: the chain goes
    /// through one block instead.
    fn schedule_bytes(&self, _out: &mut [u8]) -> bool {
        false
    }

    fn path(&self) -> String {
        format!("aes/{} (ango)", self.key.variant.name())
    }
}

/// AES-GCM (with `ghash`) or AES-CCM (without) of ango's own code, with
/// any nonce and tag length the standards allow.
fn aes_aead(
    algo: Algorithm,
    aes: Aes,
    ghash: Option<Ghash>,
    key: &[u8],
    nonce_len: usize,
    tag_len: usize,
) -> Result<Box<dyn Aead>> {
    if key.len() != algo.key_len() {
        return Err(err(format!("{algo}: key must be {} bytes", algo.key_len())));
    }
    let (g, c) = match ghash {
        Some(gh) => {
            if nonce_len == 0 || !(4..=16).contains(&tag_len) {
                return Err(err(format!(
                    "GCM with a {nonce_len}-byte nonce and {tag_len}-byte tag"
                )));
            }
            (Gcm::new(aes, gh, key), None)
        }
        None => {
            if !(7..=13).contains(&nonce_len)
                || !(4..=16).contains(&tag_len)
                || !tag_len.is_multiple_of(2)
            {
                return Err(err(format!(
                    "CCM with a {nonce_len}-byte nonce and {tag_len}-byte tag"
                )));
            }
            (None, Ccm::new(aes, key))
        }
    };
    if g.is_none() && c.is_none() {
        return Err(err("bad AES key length"));
    }
    Ok(Box::new(AesAead {
        gcm: g,
        ccm: c,
        nonce_len,
        tag_len,
    }))
}

/// ChaCha20-Poly1305 or XChaCha20-Poly1305 from typed variants.
fn chacha_aead(
    algo: Algorithm,
    c: ChaCha20,
    p: Poly1305,
    key: &[u8],
    nonce_len: usize,
    tag_len: usize,
) -> Result<Box<dyn Aead>> {
    let key = key32(key)?;
    match (algo, nonce_len, tag_len) {
        (Algorithm::ChaCha20Poly1305, 12, 16) => {
            Ok(Box::new(PrimsAead::Ietf(ChaCha20Poly1305::new(&key, c, p))))
        }
        (Algorithm::XChaCha20Poly1305, 24, 16) => {
            Ok(Box::new(PrimsAead::X(XChaCha20Poly1305::new(&key, c, p))))
        }
        _ => Err(err(format!(
            "{algo} with a {nonce_len}-byte nonce and {tag_len}-byte tag is not implemented by ango"
        ))),
    }
}

/// ango's own primitives as a provider: every variant of every algorithm
/// of the speed study is an entry of its own, made from typed variant
/// values (an AES variant × a GHASH variant, a ChaCha20 × a Poly1305
/// variant); the best this CPU runs is the `auto` one.
pub static PROVIDER: Provider = Provider {
    name: NAME,
    version: provider_version,
    worker_env: ango_core::catalog::no_worker_env,
    cpu_view: ango_core::catalog::no_cpu_view,
    has_variants: true,
    entries: provider_entries,
};

fn provider_version() -> String {
    format!("ango-prims {}", env!("CARGO_PKG_VERSION"))
}

/// A variant's typed value, or why this CPU cannot run it.
type Pick<T> = (&'static str, std::result::Result<T, String>);

fn picks<T>(
    names: &'static [&'static str],
    by_name: fn(&str) -> std::result::Result<T, String>,
) -> Vec<Pick<T>> {
    names.iter().map(|&n| (n, by_name(n))).collect()
}

/// Both parts of a combined variant, or the first reason one cannot run.
fn both<A: Copy, B: Copy>(a: &Pick<A>, b: &Pick<B>) -> std::result::Result<(A, B), String> {
    Ok((a.1.clone()?, b.1.clone()?))
}

/// The constructor of a variant this CPU cannot run: it says why.
fn unavailable(algo: Algorithm, why: String) -> Make {
    match algo.kind() {
        ango_core::Kind::Aead => Make::Aead(Arc::new(move |_: &[u8], _: usize, _: usize| {
            Err(err(why.clone()))
        })),
        ango_core::Kind::Cipher => Make::Cipher(Arc::new(move |_: &[u8]| Err(err(why.clone())))),
    }
}

/// Both parts' CPU features, each once.
fn union(a: &[&'static str], b: &[&'static str]) -> Vec<&'static str> {
    let mut v = a.to_vec();
    v.extend(b.iter().filter(|x| !a.contains(x)));
    v
}

fn provider_entries() -> Vec<Entry> {
    let chacha = picks(ango_prims::chacha20::VARIANTS, ChaCha20::by_name);
    let poly = picks(ango_prims::poly1305::VARIANTS, Poly1305::by_name);
    let aes = picks(ango_prims::aes::VARIANTS, Aes::by_name);
    let ghash = picks(ango_prims::ghash::VARIANTS, Ghash::by_name);
    let (c_auto, p_auto, a_auto, g_auto) = (
        ChaCha20::auto().name(),
        Poly1305::auto().name(),
        Aes::auto().name(),
        Ghash::auto().name(),
    );
    let mut out = Vec::new();
    let mut push = |algo: Algorithm,
                    variant: String,
                    auto: bool,
                    needs: Vec<&'static str>,
                    make: std::result::Result<Make, String>| {
        let available = make.as_ref().map(|_| ()).map_err(Clone::clone);
        out.push(Entry {
            algorithm: AlgorithmId::Sym(algo),
            provider: &PROVIDER,
            implementation: variant.clone(),
            variant,
            auto,
            needs,
            hw: vec![Hw::On],
            hw_note: "ango's variants are chosen by name, not by OPENSSL_ia32cap".into(),
            available,
            untimed: Vec::new(),
            make: make.unwrap_or_else(|why| unavailable(algo, why)),
        });
    };
    for &algo in Algorithm::ALL {
        match algo {
            Algorithm::ChaCha20 => {
                for c in &chacha {
                    let make = c.1.clone().map(|v| {
                        Make::Cipher(Arc::new(move |key: &[u8]| -> Result<Box<dyn Cipher>> {
                            Ok(Box::new(PrimsChaCha20 {
                                key: key32(key)?,
                                v,
                            }))
                        }))
                    });
                    let needs = ChaCha20::needs(c.0).to_vec();
                    push(
                        algo,
                        format!("chacha20/{}", c.0),
                        c.0 == c_auto,
                        needs,
                        make,
                    );
                }
            }
            Algorithm::ChaCha20Poly1305 | Algorithm::XChaCha20Poly1305 => {
                for c in &chacha {
                    for p in &poly {
                        let make = both(c, p).map(|(cv, pv)| {
                            Make::Aead(Arc::new(move |key: &[u8], n: usize, t: usize| {
                                chacha_aead(algo, cv, pv, key, n, t)
                            }))
                        });
                        let auto = c.0 == c_auto && p.0 == p_auto;
                        let needs = union(ChaCha20::needs(c.0), Poly1305::needs(p.0));
                        let name = format!("chacha20/{}+poly1305/{}", c.0, p.0);
                        push(algo, name, auto, needs, make);
                    }
                }
            }
            Algorithm::Aes128Gcm | Algorithm::Aes256Gcm => {
                for a in &aes {
                    for g in &ghash {
                        let make = both(a, g).map(|(av, gv)| {
                            Make::Aead(Arc::new(move |key: &[u8], n: usize, t: usize| {
                                aes_aead(algo, av, Some(gv), key, n, t)
                            }))
                        });
                        let auto = a.0 == a_auto && g.0 == g_auto;
                        let needs = union(Aes::needs(a.0), Ghash::needs(g.0));
                        push(
                            algo,
                            format!("aes/{}+ghash/{}", a.0, g.0),
                            auto,
                            needs,
                            make,
                        );
                    }
                }
            }
            Algorithm::Aes128Ccm | Algorithm::Aes256Ccm => {
                for a in &aes {
                    let make = a.1.clone().map(|av| {
                        Make::Aead(Arc::new(move |key: &[u8], n: usize, t: usize| {
                            aes_aead(algo, av, None, key, n, t)
                        }))
                    });
                    let needs = Aes::needs(a.0).to_vec();
                    push(algo, format!("aes/{}", a.0), a.0 == a_auto, needs, make);
                }
            }
            Algorithm::Aes128Ecb
            | Algorithm::Aes256Ecb
            | Algorithm::Aes128Ctr
            | Algorithm::Aes256Ctr => {
                let mode = aes_mode(algo).expect("a block mode");
                for a in &aes {
                    let make = a.1.clone().map(|av| {
                        Make::Cipher(Arc::new(move |key: &[u8]| -> Result<Box<dyn Cipher>> {
                            if key.len() != algo.key_len() {
                                return Err(err(format!(
                                    "{algo}: key must be {} bytes",
                                    algo.key_len()
                                )));
                            }
                            let key = av.key(key).ok_or_else(|| err("bad AES key length"))?;
                            Ok(Box::new(PrimsAes { key, mode }))
                        }))
                    });
                    let needs = Aes::needs(a.0).to_vec();
                    push(algo, format!("aes/{}", a.0), a.0 == a_auto, needs, make);
                }
            }
            Algorithm::Mugi => {
                let rows = ango_prims::cryptrec::MUGI;
                let auto = rows.iter().rposition(|v| (v.available)().is_ok());
                for (i, v) in rows.iter().enumerate() {
                    let make = (v.available)().map_err(String::from).map(|()| {
                        Make::Cipher(Arc::new(move |key: &[u8]| cryptrec::Stream::boxed(v, key)))
                    });
                    let name = format!("mugi/{}", v.name);
                    push(algo, name, auto == Some(i), v.needs.to_vec(), make);
                }
                if let Some(why) = ango_prims::cryptrec::blocked("mugi") {
                    push(algo, "mugi".into(), false, Vec::new(), Err(why.into()));
                }
            }
            _ => {
                // Seed 002's block ciphers, in ECB or CTR: one entry per row
                // of the cipher's variant table; the last row this CPU runs
                // is the automatic choice.
                let cipher = algo.cipher_name();
                let rows = ango_prims::cryptrec::block_variants(cipher).unwrap_or(&[]);
                let auto = rows.iter().rposition(|v| (v.available)().is_ok());
                for (i, v) in rows.iter().enumerate() {
                    let make = (v.available)().map_err(String::from).map(|()| {
                        Make::Cipher(Arc::new(move |key: &[u8]| {
                            cryptrec::Block::boxed(algo, v, key)
                        }))
                    });
                    let name = format!("{cipher}/{}", v.name);
                    push(algo, name, auto == Some(i), v.needs.to_vec(), make);
                }
                if rows.is_empty() {
                    let why = ango_prims::cryptrec::blocked(cipher)
                        .unwrap_or("no implementation in ango");
                    push(algo, cipher.into(), false, Vec::new(), Err(why.into()));
                }
            }
        }
    }
    out
}
