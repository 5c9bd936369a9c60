//! ango's own primitives (crate `ango-prims`) as a backend: every algorithm
//! of the speed study — ChaCha20, ChaCha20-Poly1305, AES-ECB/CTR/GCM/CCM —
//! each with every variant selectable and the best this CPU runs as
//! "auto".

use ango_core::{Aead, Algorithm, Backend, Cipher, Error, Hw, Result, Unavailable, Variant};
use ango_prims::aead::{AuthError, ChaCha20Poly1305, XChaCha20Poly1305};
use ango_prims::aes::{Aes, AesKey};
use ango_prims::ccm::Ccm;
use ango_prims::chacha20::ChaCha20;
use ango_prims::gcm::Gcm;
use ango_prims::ghash::Ghash;
use ango_prims::poly1305::Poly1305;

const NAME: &str = "ango";

pub struct Prims;

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
        out.copy_from_slice(ct);
        match self {
            PrimsAead::Ietf(a) => a.open(
                nonce
                    .try_into()
                    .map_err(|_| err("nonce must be 12 bytes"))?,
                aad,
                out,
                t,
            ),
            PrimsAead::X(a) => a.open(
                nonce
                    .try_into()
                    .map_err(|_| err("nonce must be 24 bytes"))?,
                aad,
                out,
                t,
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

/// Parse "chacha20/X+poly1305/Y" or "chacha20/X".
fn parse_variant(algo: Algorithm, name: &str) -> Result<(ChaCha20, Option<Poly1305>)> {
    let bad = |why: String| Error::usage(format!("{algo} variant '{name}': {why}"));
    let mut parts = name.split('+');
    let c = parts
        .next()
        .and_then(|p| p.strip_prefix("chacha20/"))
        .ok_or_else(|| bad("expected chacha20/<variant>".into()))?;
    let c = ChaCha20::by_name(c).map_err(bad)?;
    let p = match (algo, parts.next()) {
        (Algorithm::ChaCha20Poly1305 | Algorithm::XChaCha20Poly1305, Some(p)) => Some(
            Poly1305::by_name(
                p.strip_prefix("poly1305/")
                    .ok_or_else(|| bad("expected +poly1305/<variant>".into()))?,
            )
            .map_err(bad)?,
        ),
        (Algorithm::ChaCha20, None) => None,
        _ => return Err(bad("wrong shape for this algorithm".into())),
    };
    Ok((c, p))
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
        out.copy_from_slice(ct);
        let r = match (&self.gcm, &self.ccm) {
            (Some(g), _) => g.open(nonce, aad, out, tag),
            (_, Some(c)) => c.open(nonce, aad, out, tag),
            _ => unreachable!("one mode is set"),
        };
        r.map_err(|AuthError| Error::AuthFailed)
    }
}

fn aes_aead(
    algo: Algorithm,
    variant: &str,
    key: &[u8],
    nonce_len: usize,
    tag_len: usize,
) -> Result<Box<dyn Aead>> {
    let bad = |why: String| Error::usage(format!("{algo} variant '{variant}': {why}"));
    if key.len() != algo.key_len() {
        return Err(err(format!("{algo}: key must be {} bytes", algo.key_len())));
    }
    let mut parts = variant.split('+');
    let aes = parts
        .next()
        .and_then(|p| p.strip_prefix("aes/"))
        .ok_or_else(|| bad("expected aes/<variant>".into()))?;
    let aes = Aes::by_name(aes).map_err(bad)?;
    let gcm = matches!(algo, Algorithm::Aes128Gcm | Algorithm::Aes256Gcm);
    let (g, c) = if gcm {
        let gh = parts
            .next()
            .and_then(|p| p.strip_prefix("ghash/"))
            .ok_or_else(|| bad("expected +ghash/<variant>".into()))?;
        let gh = Ghash::by_name(gh).map_err(bad)?;
        if nonce_len == 0 || !(4..=16).contains(&tag_len) {
            return Err(err(format!(
                "GCM with a {nonce_len}-byte nonce and {tag_len}-byte tag"
            )));
        }
        (Gcm::new(aes, gh, key), None)
    } else {
        if !(7..=13).contains(&nonce_len)
            || !(4..=16).contains(&tag_len)
            || !tag_len.is_multiple_of(2)
        {
            return Err(err(format!(
                "CCM with a {nonce_len}-byte nonce and {tag_len}-byte tag"
            )));
        }
        (None, Ccm::new(aes, key))
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
}

fn auto_variant(algo: Algorithm) -> Option<String> {
    match algo {
        Algorithm::ChaCha20Poly1305 | Algorithm::XChaCha20Poly1305 => Some(format!(
            "chacha20/{}+poly1305/{}",
            ChaCha20::auto().name(),
            Poly1305::auto().name()
        )),
        Algorithm::ChaCha20 => Some(format!("chacha20/{}", ChaCha20::auto().name())),
        a if aes_mode(a).is_some() => Some(format!("aes/{}", Aes::auto().name())),
        Algorithm::Aes128Ccm | Algorithm::Aes256Ccm => Some(format!("aes/{}", Aes::auto().name())),
        Algorithm::Aes128Gcm | Algorithm::Aes256Gcm => Some(format!(
            "aes/{}+ghash/{}",
            Aes::auto().name(),
            Ghash::auto().name()
        )),
        _ => None,
    }
}

impl Backend for Prims {
    fn variants(&self, algo: Algorithm) -> Vec<Variant> {
        if matches!(algo, Algorithm::Aes128Gcm | Algorithm::Aes256Gcm) {
            return ango_prims::aes::VARIANTS
                .iter()
                .flat_map(|a| {
                    ango_prims::ghash::VARIANTS.iter().map(move |g| Variant {
                        name: format!("aes/{a}+ghash/{g}"),
                        available: Aes::by_name(a).and_then(|_| Ghash::by_name(g)).map(|_| ()),
                    })
                })
                .collect();
        }
        if aes_mode(algo).is_some() || matches!(algo, Algorithm::Aes128Ccm | Algorithm::Aes256Ccm) {
            return ango_prims::aes::VARIANTS
                .iter()
                .map(|a| Variant {
                    name: format!("aes/{a}"),
                    available: Aes::by_name(a).map(|_| ()),
                })
                .collect();
        }
        let chacha = |c: &str| match ChaCha20::by_name(c) {
            Ok(_) => Ok(()),
            Err(why) => Err(why),
        };
        match algo {
            Algorithm::ChaCha20 => ango_prims::chacha20::VARIANTS
                .iter()
                .map(|c| Variant {
                    name: format!("chacha20/{c}"),
                    available: chacha(c),
                })
                .collect(),
            Algorithm::ChaCha20Poly1305 | Algorithm::XChaCha20Poly1305 => {
                ango_prims::chacha20::VARIANTS
                    .iter()
                    .flat_map(|c| {
                        ango_prims::poly1305::VARIANTS.iter().map(move |p| Variant {
                            name: format!("chacha20/{c}+poly1305/{p}"),
                            available: chacha(c),
                        })
                    })
                    .collect()
            }
            _ => Vec::new(),
        }
    }

    fn aead_variant(
        &self,
        algo: Algorithm,
        variant: &str,
        key: &[u8],
        nonce_len: usize,
        tag_len: usize,
    ) -> Result<Box<dyn Aead>> {
        if matches!(
            algo,
            Algorithm::Aes128Gcm
                | Algorithm::Aes256Gcm
                | Algorithm::Aes128Ccm
                | Algorithm::Aes256Ccm
        ) {
            return aes_aead(algo, variant, key, nonce_len, tag_len);
        }
        let (c, p) = parse_variant(algo, variant)?;
        let (key, p) = (key32(key)?, p.expect("aead shape"));
        match (algo, nonce_len, tag_len) {
            (Algorithm::ChaCha20Poly1305, 12, 16) => Ok(Box::new(PrimsAead::Ietf(
                ChaCha20Poly1305::new(&key, c, p),
            ))),
            (Algorithm::XChaCha20Poly1305, 24, 16) => Ok(Box::new(PrimsAead::X(
                XChaCha20Poly1305::new(&key, c, p),
            ))),
            _ => Err(err(format!(
                "{algo} with a {nonce_len}-byte nonce and {tag_len}-byte tag is not implemented by ango"
            ))),
        }
    }

    fn cipher_variant(
        &self,
        algo: Algorithm,
        variant: &str,
        key: &[u8],
    ) -> Result<Box<dyn Cipher>> {
        if let Some(mode) = aes_mode(algo) {
            let name = variant.strip_prefix("aes/").ok_or_else(|| {
                Error::usage(format!(
                    "{algo} variant '{variant}': expected aes/<variant>"
                ))
            })?;
            let aes = Aes::by_name(name).map_err(|e| Error::usage(format!("{algo}: {e}")))?;
            if key.len() != algo.key_len() {
                return Err(err(format!("{algo}: key must be {} bytes", algo.key_len())));
            }
            let key = aes.key(key).ok_or_else(|| err("bad AES key length"))?;
            return Ok(Box::new(PrimsAes { key, mode }));
        }
        if algo != Algorithm::ChaCha20 {
            return Err(err(format!("{algo} is not implemented by ango")));
        }
        let (v, _) = parse_variant(algo, variant)?;
        Ok(Box::new(PrimsChaCha20 {
            key: key32(key)?,
            v,
        }))
    }

    fn name(&self) -> &'static str {
        NAME
    }

    fn version(&self) -> String {
        format!("ango-prims {}", env!("CARGO_PKG_VERSION"))
    }

    fn availability(&self, algo: Algorithm, hw: Hw) -> Result<(), Unavailable> {
        if auto_variant(algo).is_none() {
            return Err(Unavailable(
                "not implemented in ango's own primitives yet".into(),
            ));
        }
        match hw {
            Hw::On => Ok(()),
            _ => Err(Unavailable(
                "ango's variants are chosen by name, not by OPENSSL_ia32cap".into(),
            )),
        }
    }

    fn implementation(&self, algo: Algorithm, _hw: Hw) -> String {
        auto_variant(algo).unwrap_or_else(|| "-".into())
    }

    fn aead(
        &self,
        algo: Algorithm,
        key: &[u8],
        nonce_len: usize,
        tag_len: usize,
    ) -> Result<Box<dyn Aead>> {
        let v =
            auto_variant(algo).ok_or_else(|| err(format!("{algo} is not implemented by ango")))?;
        self.aead_variant(algo, &v, key, nonce_len, tag_len)
    }

    fn cipher(&self, algo: Algorithm, key: &[u8]) -> Result<Box<dyn Cipher>> {
        let v =
            auto_variant(algo).ok_or_else(|| err(format!("{algo} is not implemented by ango")))?;
        self.cipher_variant(algo, &v, key)
    }
}
