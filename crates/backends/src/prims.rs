//! ango's own primitives (crate `ango-prims`) as a backend: every algorithm
//! of the speed study — ChaCha20, ChaCha20-Poly1305, AES-ECB/CTR/GCM/CCM —
//! each with every variant selectable and the best this CPU runs as
//! "auto".

use ango_core::catalog::{AlgorithmId, Make};
use ango_core::{Aead, AeadLengths, Algorithm, Cipher, Entry, Error, Hw, Provider, Result};
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

provider_errors!(NAME);

fn key32(key: &[u8]) -> Result<[u8; 32]> {
    key.try_into().map_err(|_| err("key must be 32 bytes"))
}

/// One instance per distinct variant an implementation runs, and which one
/// each (operation, size class) takes: a single variant's own instance has
/// one (every class picks it); `auto` after a tuning has one per variant
/// it chose. Concrete types, so choosing costs one index, not a second
/// virtual call (a boxed `Aead` inside `auto` cost ChaCha20-Poly1305
/// opening 16 bytes 12 ns of its 108, Zen 4).
struct Tuned<T> {
    v: Vec<T>,
    /// [operation: 0 encrypt, 1 decrypt][class] -> index into `v`.
    pick: [[u8; 6]; 2],
}

impl<T> Tuned<T> {
    fn one(x: T) -> Tuned<T> {
        Tuned {
            v: vec![x],
            pick: [[0; 6]; 2],
        }
    }

    #[inline]
    fn get(&self, op: usize, len: usize) -> &T {
        &self.v[self.pick[op][class_index(len)] as usize]
    }
}

/// ChaCha20-Poly1305 (12-byte nonce) or XChaCha20-Poly1305 (24-byte).
enum PrimsAead {
    Ietf(Tuned<ChaCha20Poly1305>),
    X(Tuned<XChaCha20Poly1305>),
}

impl PrimsAead {
    fn lengths(&self) -> AeadLengths {
        match self {
            PrimsAead::Ietf(_) => AeadLengths::new(12, 16),
            PrimsAead::X(_) => AeadLengths::new(24, 16),
        }
    }
}

impl Aead for PrimsAead {
    fn seal(&mut self, nonce: &[u8], aad: &[u8], buf: &mut [u8], tag: &mut [u8]) -> Result<()> {
        self.lengths().seal(NAME, nonce, tag)?;
        let length = |_| err("nonce length");
        let t = match self {
            PrimsAead::Ietf(a) => a
                .get(0, buf.len())
                .seal(nonce.try_into().map_err(length)?, aad, buf),
            PrimsAead::X(a) => a
                .get(0, buf.len())
                .seal(nonce.try_into().map_err(length)?, aad, buf),
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
        self.lengths().open(NAME, nonce, ct, tag, out)?;
        let t: &[u8; 16] = tag.try_into().map_err(|_| Error::AuthFailed)?;
        let length = |_| err("nonce length");
        // Decrypted from the ciphertext into the output: no copy first.
        match self {
            PrimsAead::Ietf(a) => {
                a.get(1, ct.len())
                    .open_into(nonce.try_into().map_err(length)?, aad, ct, t, out)
            }
            PrimsAead::X(a) => {
                a.get(1, ct.len())
                    .open_into(nonce.try_into().map_err(length)?, aad, ct, t, out)
            }
        }
        .map_err(|AuthError| Error::AuthFailed)
    }
}

struct PrimsChaCha20 {
    key: [u8; 32],
    v: Tuned<ChaCha20>,
}

impl Cipher for PrimsChaCha20 {
    fn encrypt(&mut self, iv: &[u8], buf: &mut [u8]) -> Result<()> {
        if iv.len() != 16 {
            return Err(err("ChaCha20 IV is 4-byte LE counter + 12-byte nonce"));
        }
        let counter = u32::from_le_bytes(iv[..4].try_into().expect("4 bytes"));
        let nonce: &[u8; 12] = iv[4..].try_into().expect("12 bytes");
        self.v
            .get(0, buf.len())
            .xor_keystream(&self.key, counter, nonce, buf);
        Ok(())
    }

    fn decrypt(&mut self, iv: &[u8], buf: &mut [u8]) -> Result<()> {
        if iv.len() != 16 {
            return Err(err("ChaCha20 IV is 4-byte LE counter + 12-byte nonce"));
        }
        let counter = u32::from_le_bytes(iv[..4].try_into().expect("4 bytes"));
        let nonce: &[u8; 12] = iv[4..].try_into().expect("12 bytes");
        self.v
            .get(1, buf.len())
            .xor_keystream(&self.key, counter, nonce, buf);
        Ok(())
    }
}

/// AES-GCM and AES-CCM of ango's own code, any nonce and tag length the
/// standards allow.
struct AesAead {
    gcm: Option<Tuned<Gcm>>,
    ccm: Option<Tuned<Ccm>>,
    lengths: AeadLengths,
}

impl Aead for AesAead {
    fn seal(&mut self, nonce: &[u8], aad: &[u8], buf: &mut [u8], tag: &mut [u8]) -> Result<()> {
        self.lengths.seal(NAME, nonce, tag)?;
        match (&self.gcm, &self.ccm) {
            (Some(g), _) => g.get(0, buf.len()).seal(nonce, aad, buf, tag),
            (_, Some(c)) => {
                if !c.get(0, buf.len()).seal(nonce, aad, buf, tag) {
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
        self.lengths.open(NAME, nonce, ct, tag, out)?;
        let r = match (&self.gcm, &self.ccm) {
            // Straight from the ciphertext into the output, as the
            // libraries' own separate-buffer calls do.
            (Some(g), _) => g.get(1, ct.len()).open_into(nonce, aad, ct, tag, out),
            (_, Some(c)) => c.get(1, ct.len()).open_into(nonce, aad, ct, tag, out),
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
    key: Tuned<AesKey>,
    mode: AesMode,
}

impl Cipher for PrimsAes {
    fn encrypt(&mut self, iv: &[u8], buf: &mut [u8]) -> Result<()> {
        match self.mode {
            AesMode::Ecb if !buf.len().is_multiple_of(16) => {
                Err(err("ECB input must be whole blocks"))
            }
            AesMode::Ecb => {
                self.key.get(0, buf.len()).encrypt_blocks(buf);
                Ok(())
            }
            AesMode::Ctr => self.ctr(0, iv, buf),
        }
    }

    fn decrypt(&mut self, iv: &[u8], buf: &mut [u8]) -> Result<()> {
        match self.mode {
            AesMode::Ecb if !buf.len().is_multiple_of(16) => {
                Err(err("ECB input must be whole blocks"))
            }
            AesMode::Ecb => {
                self.key.get(1, buf.len()).decrypt_blocks(buf);
                Ok(())
            }
            AesMode::Ctr => self.ctr(1, iv, buf),
        }
    }

    fn block_ops(&mut self) -> Option<&mut dyn ango_core::BlockOps> {
        Some(self)
    }
}

impl PrimsAes {
    fn ctr(&self, op: usize, iv: &[u8], buf: &mut [u8]) -> Result<()> {
        let iv: &[u8; 16] = iv
            .try_into()
            .map_err(|_| err("CTR needs a 16-byte counter block"))?;
        self.key.get(op, buf.len()).ctr_xor(iv, buf);
        Ok(())
    }
}

/// AES's raw block function (the reference rows of `ango cycles`): the
/// variant of one block's class.
impl ango_core::BlockOps for PrimsAes {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        for k in &mut self.key.v {
            *k = k.variant.key(key).ok_or_else(|| err("bad AES key length"))?;
        }
        Ok(())
    }

    fn encrypt_block(&mut self, block: &mut [u8; 16]) {
        self.key.get(0, 16).encrypt_block(block)
    }

    fn decrypt_block(&mut self, block: &mut [u8; 16]) {
        self.key.get(1, 16).decrypt_blocks(block)
    }

    /// Each variant stores its round keys its own way: the chain goes
    /// through one block instead.
    fn schedule_bytes(&self, _out: &mut [u8]) -> bool {
        false
    }

    fn path(&self) -> String {
        format!("aes/{} (ango)", self.key.get(0, 16).variant.name())
    }
}

/// The typed variants one instance runs: (distinct variants, their picks
/// per operation and class), as [`Tuned`] holds them.
type Plan<T> = (Vec<T>, [[u8; 6]; 2]);

fn single<T>(x: T) -> Plan<T> {
    (vec![x], [[0; 6]; 2])
}

/// AES-GCM (with a GHASH variant in each pair) or AES-CCM (without) of
/// ango's own code, with any nonce and tag length the standards allow.
fn aes_aead(
    algo: Algorithm,
    (vs, pick): Plan<(Aes, Option<Ghash>)>,
    key: &[u8],
    nonce_len: usize,
    tag_len: usize,
) -> Result<Box<dyn Aead>> {
    if key.len() != algo.key_len() {
        return Err(err(format!("{algo}: key must be {} bytes", algo.key_len())));
    }
    let gcm = vs.iter().all(|(_, g)| g.is_some());
    if gcm {
        if nonce_len == 0 || !(4..=16).contains(&tag_len) {
            return Err(err(format!(
                "GCM with a {nonce_len}-byte nonce and {tag_len}-byte tag"
            )));
        }
    } else if !(7..=13).contains(&nonce_len)
        || !(4..=16).contains(&tag_len)
        || !tag_len.is_multiple_of(2)
    {
        return Err(err(format!(
            "CCM with a {nonce_len}-byte nonce and {tag_len}-byte tag"
        )));
    }
    let bad = || err("bad AES key length");
    let (g, c) = if gcm {
        let v = vs
            .iter()
            .map(|&(a, g)| Gcm::new(a, g.expect("GCM pairs"), key).ok_or_else(bad))
            .collect::<Result<_>>()?;
        (Some(Tuned { v, pick }), None)
    } else {
        let v = vs
            .iter()
            .map(|&(a, _)| Ccm::new(a, key).ok_or_else(bad))
            .collect::<Result<_>>()?;
        (None, Some(Tuned { v, pick }))
    };
    Ok(Box::new(AesAead {
        gcm: g,
        ccm: c,
        lengths: AeadLengths::new(nonce_len, tag_len),
    }))
}

/// ChaCha20-Poly1305 or XChaCha20-Poly1305 from typed variants.
fn chacha_aead(
    algo: Algorithm,
    (vs, pick): Plan<(ChaCha20, Poly1305)>,
    key: &[u8],
    nonce_len: usize,
    tag_len: usize,
) -> Result<Box<dyn Aead>> {
    let key = key32(key)?;
    match (algo, nonce_len, tag_len) {
        (Algorithm::ChaCha20Poly1305, 12, 16) => Ok(Box::new(PrimsAead::Ietf(Tuned {
            v: vs
                .iter()
                .map(|&(c, p)| ChaCha20Poly1305::new(&key, c, p))
                .collect(),
            pick,
        }))),
        (Algorithm::XChaCha20Poly1305, 24, 16) => Ok(Box::new(PrimsAead::X(Tuned {
            v: vs
                .iter()
                .map(|&(c, p)| XChaCha20Poly1305::new(&key, c, p))
                .collect(),
            pick,
        }))),
        _ => Err(err(format!(
            "{algo} with a {nonce_len}-byte nonce and {tag_len}-byte tag is not implemented by ango"
        ))),
    }
}

/// The AES ECB or CTR cipher of the AES variants of `plan`.
fn aes_cipher(algo: Algorithm, (vs, pick): Plan<Aes>, key: &[u8]) -> Result<Box<dyn Cipher>> {
    if key.len() != algo.key_len() {
        return Err(err(format!(
            "{algo}: key must be {} bytes",
            algo.key_len()
        )));
    }
    let mode = aes_mode(algo).expect("a block mode");
    let v = vs
        .iter()
        .map(|a| a.key(key).ok_or_else(|| err("bad AES key length")))
        .collect::<Result<_>>()?;
    Ok(Box::new(PrimsAes {
        key: Tuned { v, pick },
        mode,
    }))
}

/// The parts of a combined variant name (`aes/vaes+ghash/pclmul` ->
/// `vaes`, `pclmul`; `aes/aesni` -> `aesni`, None).
fn parts(name: &str) -> (&str, Option<&str>) {
    let mut it = name.split('+');
    let first = it.next().unwrap_or("");
    let a = first.split_once('/').map_or(first, |p| p.1);
    let b = it.next().map(|x| x.split_once('/').map_or(x, |p| p.1));
    (a, b)
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
    // The variant the CPU's feature flags make the default of each
    // algorithm: what `auto` runs without a tuning.
    let mut defaults: Vec<(Algorithm, String, Vec<&'static str>, bool)> = Vec::new();
    let mut push = |algo: Algorithm,
                    variant: String,
                    default: bool,
                    needs: Vec<&'static str>,
                    make: std::result::Result<Make, String>| {
        let available = make.as_ref().map(|_| ()).map_err(Clone::clone);
        if default {
            defaults.push((algo, variant.clone(), needs.clone(), available.is_ok()));
        }
        out.push(Entry {
            algorithm: AlgorithmId::Sym(algo),
            provider: &PROVIDER,
            implementation: variant.clone(),
            variant,
            auto: false,
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
                                v: Tuned::one(v),
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
                                chacha_aead(algo, single((cv, pv)), key, n, t)
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
                                aes_aead(algo, single((av, Some(gv))), key, n, t)
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
                            aes_aead(algo, single((av, None)), key, n, t)
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
                for a in &aes {
                    let make = a.1.clone().map(|av| {
                        Make::Cipher(Arc::new(move |key: &[u8]| aes_cipher(algo, single(av), key)))
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
    let _ = DEFAULTS.set(defaults.iter().map(|d| (d.0, d.1.clone())).collect());
    for (algo, default, needs, available) in defaults {
        out.push(auto_entry(algo, default, needs, available));
    }
    out
}

/// Each algorithm's default variant (see [`default_variant`]).
static DEFAULTS: std::sync::OnceLock<Vec<(Algorithm, String)>> = std::sync::OnceLock::new();

/// The size classes of the tuned `auto`: the message lengths its choice is
/// measured at. A message uses the class nearest its length on a log scale
/// (the bounds are the classes' geometric means: 32, 128, 512, 2048, 8192).
pub const CLASSES: [usize; 6] = [16, 64, 256, 1024, 4096, 16384];

/// The class of a message of `len` bytes (an index into [`CLASSES`]).
pub fn class_index(len: usize) -> usize {
    match len {
        0..=32 => 0,
        33..=128 => 1,
        129..=512 => 2,
        513..=2048 => 3,
        2049..=8192 => 4,
        _ => 5,
    }
}

/// The variants `auto` runs, per algorithm and operation, one per size
/// class: set by a tuning before anything is measured.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AutoTable {
    pub rows: Vec<AutoRow>,
}

/// One algorithm and operation's variants, by size class.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AutoRow {
    pub algorithm: Algorithm,
    pub operation: ango_core::Operation,
    /// One variant name per class of [`CLASSES`].
    pub variants: Vec<String>,
    /// `measured` or `cache`: as records' `auto.chosen_by` say it.
    pub source: String,
}

static AUTO_TABLE: std::sync::RwLock<Option<Arc<AutoTable>>> = std::sync::RwLock::new(None);

/// Set (or clear) the table `auto` instances made from now on follow.
pub fn set_auto_table(t: Option<AutoTable>) {
    *AUTO_TABLE.write().expect("not poisoned") = t.map(Arc::new);
}

pub fn auto_table() -> Option<Arc<AutoTable>> {
    AUTO_TABLE.read().expect("not poisoned").clone()
}

/// The variant `auto` runs for `algo`'s `op` on a message of `len` bytes,
/// the class it fell in, and how it was chosen.
pub fn auto_pick(algo: Algorithm, op: ango_core::Operation, len: usize) -> ango_core::AutoPick {
    let class = class_index(len);
    let from_table = auto_table().and_then(|t| {
        let row = t
            .rows
            .iter()
            .find(|r| r.algorithm == algo && r.operation == op)?;
        Some((row.variants.get(class)?.clone(), row.source.clone()))
    });
    let (variant, chosen_by) = from_table.unwrap_or_else(|| {
        (
            default_variant(algo).unwrap_or_default(),
            "features".to_string(),
        )
    });
    ango_core::AutoPick {
        variant,
        class_bytes: CLASSES[class] as u64,
        chosen_by,
    }
}

/// The variant the CPU's feature flags make `auto` of `algo` without a
/// tuning (None where no variant of it runs here).
pub fn default_variant(algo: Algorithm) -> Option<String> {
    if DEFAULTS.get().is_none() {
        crate::catalog();
    }
    DEFAULTS
        .get()?
        .iter()
        .find(|(a, _)| *a == algo)
        .map(|(_, v)| v.clone())
}

/// The candidates a tuning of `algo` measures: every variant that runs here
/// and is meant to be constant time (none whose name says `nct`), the
/// default always among them; every variant that runs where none is
/// constant time.
pub fn auto_candidates(algo: Algorithm) -> Vec<String> {
    let c = crate::catalog();
    let runs: Vec<&Entry> = c
        .of_provider(AlgorithmId::Sym(algo), &PROVIDER)
        .filter(|e| e.variant != "auto" && e.available.is_ok())
        .collect();
    let ct: Vec<String> = runs
        .iter()
        .filter(|e| !e.variant.contains("nct"))
        .map(|e| e.variant.clone())
        .collect();
    let mut v = if ct.is_empty() {
        runs.iter().map(|e| e.variant.clone()).collect()
    } else {
        ct
    };
    if let Some(d) = default_variant(algo) {
        if !v.contains(&d) {
            v.insert(0, d);
        }
    }
    v
}

/// The entries of the variants `auto` of `algo` runs now (the table's for
/// every operation and class, or the default), each once: what must pass
/// its known answers before `auto` is timed.
pub fn auto_constituents(algo: Algorithm) -> Vec<&'static Entry> {
    let Some(d) = default_variant(algo) else {
        return Vec::new();
    };
    let (names, _) = distinct(&auto_variants(algo, &d));
    names
        .iter()
        .filter_map(|v| variant_entry(algo, v).ok())
        .collect()
}

/// The instance of one named variant of `algo`.
fn variant_entry(algo: Algorithm, variant: &str) -> Result<&'static Entry> {
    crate::catalog().entry(&format!("{NAME}/{}/{variant}", algo.name()))
}

/// The variant of each (operation, class) `auto` of `algo` runs: the
/// table's, else the default everywhere.
fn auto_variants(algo: Algorithm, default: &str) -> [[String; 6]; 2] {
    use ango_core::Operation;
    let table = auto_table();
    [Operation::Encrypt, Operation::Decrypt].map(|op| {
        let row = table.as_ref().and_then(|t| {
            t.rows
                .iter()
                .find(|r| r.algorithm == algo && r.operation == op && r.variants.len() == 6)
        });
        core::array::from_fn(|i| match row {
            Some(r) => r.variants[i].clone(),
            None => default.to_string(),
        })
    })
}

/// `auto` of seed 002's ciphers over several variants: each operation's
/// message goes to the variant its size class chose.
struct TunedCipher {
    insts: Vec<Box<dyn Cipher>>,
    pick: [[u8; 6]; 2],
}

impl Cipher for TunedCipher {
    fn encrypt(&mut self, iv: &[u8], buf: &mut [u8]) -> Result<()> {
        let i = self.pick[0][class_index(buf.len())] as usize;
        self.insts[i].encrypt(iv, buf)
    }

    fn decrypt(&mut self, iv: &[u8], buf: &mut [u8]) -> Result<()> {
        let i = self.pick[1][class_index(buf.len())] as usize;
        self.insts[i].decrypt(iv, buf)
    }

    /// The raw block function of the variant chosen for one block.
    fn block_ops(&mut self) -> Option<&mut dyn ango_core::BlockOps> {
        let i = self.pick[0][0] as usize;
        self.insts[i].block_ops()
    }
}

/// A plan of variant names as typed values.
fn typed<T>(
    (names, pick): (Vec<String>, [[u8; 6]; 2]),
    f: impl Fn(&str) -> Result<T>,
) -> Result<Plan<T>> {
    Ok((names.iter().map(|n| f(n)).collect::<Result<_>>()?, pick))
}

fn aes_of(name: &str) -> Result<Aes> {
    Aes::by_name(parts(name).0).map_err(err)
}

fn gcm_pair(name: &str) -> Result<(Aes, Option<Ghash>)> {
    let (a, g) = parts(name);
    let g = g.ok_or_else(|| err(format!("{name}: not an AES-GCM variant")))?;
    Ok((
        Aes::by_name(a).map_err(err)?,
        Some(Ghash::by_name(g).map_err(err)?),
    ))
}

fn chacha_pair(name: &str) -> Result<(ChaCha20, Poly1305)> {
    let (c, p) = parts(name);
    let p = p.ok_or_else(|| err(format!("{name}: not a ChaCha20-Poly1305 variant")))?;
    Ok((
        ChaCha20::by_name(c).map_err(err)?,
        Poly1305::by_name(p).map_err(err)?,
    ))
}

/// The distinct variants of a choice and, per (operation, class), which.
fn distinct(v: &[[String; 6]; 2]) -> (Vec<String>, [[u8; 6]; 2]) {
    let mut names: Vec<String> = Vec::new();
    let mut pick = [[0u8; 6]; 2];
    for (o, row) in v.iter().enumerate() {
        for (c, name) in row.iter().enumerate() {
            let i = match names.iter().position(|n| n == name) {
                Some(i) => i,
                None => {
                    names.push(name.clone());
                    names.len() - 1
                }
            };
            pick[o][c] = i as u8;
        }
    }
    (names, pick)
}

/// `auto` of one algorithm: the variant of each (operation, size class)
/// the tuning chose (its constructor reads the table then), or the default
/// everywhere without one. One variant in all is that variant's own
/// instance, with nothing in between.
fn auto_entry(algo: Algorithm, default: String, needs: Vec<&'static str>, available: bool) -> Entry {
    let d = default.clone();
    let plan = move || distinct(&auto_variants(algo, &d));
    let make = match algo {
        Algorithm::ChaCha20Poly1305 | Algorithm::XChaCha20Poly1305 => {
            Make::Aead(Arc::new(move |key: &[u8], n: usize, t: usize| {
                chacha_aead(algo, typed(plan(), chacha_pair)?, key, n, t)
            }))
        }
        Algorithm::Aes128Gcm | Algorithm::Aes256Gcm => {
            Make::Aead(Arc::new(move |key: &[u8], n: usize, t: usize| {
                aes_aead(algo, typed(plan(), gcm_pair)?, key, n, t)
            }))
        }
        Algorithm::Aes128Ccm | Algorithm::Aes256Ccm => {
            Make::Aead(Arc::new(move |key: &[u8], n: usize, t: usize| {
                aes_aead(algo, typed(plan(), |v| Ok((aes_of(v)?, None)))?, key, n, t)
            }))
        }
        Algorithm::Aes128Ecb | Algorithm::Aes256Ecb | Algorithm::Aes128Ctr | Algorithm::Aes256Ctr => {
            Make::Cipher(Arc::new(move |key: &[u8]| {
                aes_cipher(algo, typed(plan(), aes_of)?, key)
            }))
        }
        Algorithm::ChaCha20 => Make::Cipher(Arc::new(move |key: &[u8]| -> Result<Box<dyn Cipher>> {
            let (vs, pick) = typed(plan(), |v| ChaCha20::by_name(parts(v).0).map_err(err))?;
            Ok(Box::new(PrimsChaCha20 {
                key: key32(key)?,
                v: Tuned { v: vs, pick },
            }))
        })),
        // Seed 002's ciphers: each variant's own instance behind one more
        // call (their blocks take far longer than the call).
        _ => Make::Cipher(Arc::new(move |key: &[u8]| {
            let (names, pick) = plan();
            let mut insts = names
                .iter()
                .map(|v| variant_entry(algo, v)?.cipher(key))
                .collect::<Result<Vec<_>>>()?;
            if insts.len() == 1 {
                return Ok(insts.remove(0));
            }
            Ok(Box::new(TunedCipher { insts, pick }))
        })),
    };
    Entry {
        algorithm: AlgorithmId::Sym(algo),
        provider: &PROVIDER,
        variant: "auto".into(),
        auto: true,
        implementation: "auto".into(),
        needs,
        hw: vec![Hw::On],
        hw_note: "ango's variants are chosen by name, not by OPENSSL_ia32cap".into(),
        available: if available {
            Ok(())
        } else {
            Err(format!("its default variant {default} does not run here"))
        },
        untimed: Vec::new(),
        make,
    }
}
