//! RustCrypto: `aes-gcm`, `ccm`, `chacha20poly1305`, `aes`, `ctr`,
//! `chacha20`.
//!
//! These crates choose AES-NI / PCLMULQDQ / AVX2 at run time with no switch to
//! turn them off; their software paths are reachable only by rebuilding with
//! `--cfg aes_force_soft --cfg polyval_force_soft --cfg chacha20_force_soft
//! --cfg poly1305_force_soft`. `scripts/rustcrypto-soft` does that build
//! (with `--cfg ango_rustcrypto_soft`, so this backend knows): there it
//! measures `hw off` only, its software paths; in a normal build `hw on` only.

use aes::cipher::{
    consts::{U10, U11, U12, U13, U14, U16, U4, U6, U7, U8, U9},
    generic_array::GenericArray,
    BlockDecrypt, BlockEncrypt, InnerIvInit, KeyInit, KeyIvInit, StreamCipher, StreamCipherSeek,
};
use aes::{Aes128, Aes256};
use aes_gcm::aead::AeadInPlace;
use ango_core::{
    AeadLengths,
    Aead, Algorithm, Backend, Cipher, Entry, Error, Hw, Provider, Result, Unavailable,
};

const NAME: &str = "rustcrypto";

/// Built by scripts/rustcrypto-soft with the crates' software paths forced.
const SOFT: bool = cfg!(ango_rustcrypto_soft);

pub struct RustCrypto;

provider_errors!(NAME);

/// Any RustCrypto `AeadInPlace` with fixed nonce and tag sizes.
struct RcAead<A> {
    inner: A,
    lengths: AeadLengths,
}

impl<A: AeadInPlace> Aead for RcAead<A> {
    fn seal(&mut self, nonce: &[u8], aad: &[u8], buf: &mut [u8], tag: &mut [u8]) -> Result<()> {
        self.lengths.seal(NAME, nonce, tag)?;
        let t = self
            .inner
            .encrypt_in_place_detached(GenericArray::from_slice(nonce), aad, buf)
            .map_err(|_| err("encryption failed"))?;
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
        self.lengths.open(NAME, nonce, ct, tag, out)?;
        // The API decrypts in place: the copy into `out` is part of the cost.
        out.copy_from_slice(ct);
        self.inner
            .decrypt_in_place_detached(
                GenericArray::from_slice(nonce),
                aad,
                out,
                GenericArray::from_slice(tag),
            )
            .map_err(|_| Error::AuthFailed)
    }
}

fn boxed<A: AeadInPlace + 'static>(inner: A, nonce_len: usize, tag_len: usize) -> Box<dyn Aead> {
    Box::new(RcAead {
        inner,
        lengths: AeadLengths::new(nonce_len, tag_len),
    })
}

/// CCM is generic over (tag, nonce) sizes: every pair SP 800-38C allows
/// (nonces of 7–13 bytes, tags of 4–16 bytes in steps of 2) is
/// instantiated, so the adapter refuses only what the standard does.
fn ccm<C>(key: &[u8], nonce_len: usize, tag_len: usize) -> Result<Box<dyn Aead>>
where
    C: BlockEncrypt + BlockDecrypt + KeyInit + aes::cipher::BlockCipher<BlockSize = U16> + 'static,
{
    macro_rules! tags {
        ($N:ty, [$( ($t:literal, $T:ty) ),*]) => {
            match tag_len {
                $( $t => Ok(boxed(
                    ccm::Ccm::<C, $T, $N>::new_from_slice(key).map_err(|_| err("bad key length"))?,
                    nonce_len, tag_len)), )*
                _ => Err(err(format!(
                    "CCM tag length {tag_len} bytes; valid: 4, 6, 8, 10, 12, 14, 16"))),
            }
        };
    }
    macro_rules! nonces {
        ([$( ($n:literal, $N:ty) ),*], $tags:tt) => {
            match nonce_len {
                $( $n => tags!($N, $tags), )*
                _ => Err(err(format!(
                    "CCM nonce length {nonce_len} bytes; valid: 7 to 13"))),
            }
        };
    }
    nonces!(
        [
            (7, U7),
            (8, U8),
            (9, U9),
            (10, U10),
            (11, U11),
            (12, U12),
            (13, U13)
        ],
        [
            (4, U4),
            (6, U6),
            (8, U8),
            (10, U10),
            (12, U12),
            (14, U14),
            (16, U16)
        ]
    )
}

// Both variants hold expanded keys; boxing would add an indirection to the
// timed path for no gain.
#[allow(clippy::large_enum_variant)]
enum BlockKey {
    A128(Aes128),
    A256(Aes256),
}

struct RcEcb(BlockKey);

fn ecb_blocks(buf: &mut [u8]) -> Result<aes::cipher::inout::InOutBuf<'_, '_, aes::Block>> {
    let (blocks, tail) = aes::cipher::inout::InOutBuf::from(buf).into_chunks::<U16>();
    if !tail.is_empty() {
        return Err(err("ECB input must be a multiple of 16 bytes"));
    }
    Ok(blocks)
}

impl Cipher for RcEcb {
    fn encrypt(&mut self, _iv: &[u8], buf: &mut [u8]) -> Result<()> {
        let blocks = ecb_blocks(buf)?;
        match &self.0 {
            BlockKey::A128(k) => k.encrypt_blocks_inout(blocks),
            BlockKey::A256(k) => k.encrypt_blocks_inout(blocks),
        }
        Ok(())
    }
    fn decrypt(&mut self, _iv: &[u8], buf: &mut [u8]) -> Result<()> {
        let blocks = ecb_blocks(buf)?;
        match &self.0 {
            BlockKey::A128(k) => k.decrypt_blocks_inout(blocks),
            BlockKey::A256(k) => k.decrypt_blocks_inout(blocks),
        }
        Ok(())
    }
}

struct RcCtr(BlockKey);

impl Cipher for RcCtr {
    fn encrypt(&mut self, iv: &[u8], buf: &mut [u8]) -> Result<()> {
        if iv.len() != 16 {
            return Err(err("CTR needs a 16-byte initial counter block"));
        }
        let iv = GenericArray::from_slice(iv);
        // The key schedule is kept; cloning the expanded key is a copy.
        match &self.0 {
            BlockKey::A128(k) => {
                ctr::Ctr128BE::<Aes128>::from_core(ctr::CtrCore::inner_iv_init(k.clone(), iv))
                    .apply_keystream(buf)
            }
            BlockKey::A256(k) => {
                ctr::Ctr128BE::<Aes256>::from_core(ctr::CtrCore::inner_iv_init(k.clone(), iv))
                    .apply_keystream(buf)
            }
        }
        Ok(())
    }
    fn decrypt(&mut self, iv: &[u8], buf: &mut [u8]) -> Result<()> {
        self.encrypt(iv, buf)
    }
}

/// RustCrypto's `camellia` 0.1 (portable Rust; its S-boxes as tables, so
/// not constant time).
enum CamelliaKey {
    C128(camellia::Camellia128),
    C192(camellia::Camellia192),
    C256(camellia::Camellia256),
}

struct RcCamellia {
    k: CamelliaKey,
    ctr: bool,
}

impl RcCamellia {
    fn new(key: &[u8], ctr: bool) -> Result<RcCamellia> {
        let k = match key.len() {
            16 => CamelliaKey::C128(camellia::Camellia128::new_from_slice(key).map_err(err)?),
            24 => CamelliaKey::C192(camellia::Camellia192::new_from_slice(key).map_err(err)?),
            _ => CamelliaKey::C256(camellia::Camellia256::new_from_slice(key).map_err(err)?),
        };
        Ok(RcCamellia { k, ctr })
    }

    fn crypt(&mut self, decrypt: bool, iv: &[u8], buf: &mut [u8]) -> Result<()> {
        if self.ctr {
            if iv.len() != 16 {
                return Err(err("CTR needs a 16-byte initial counter block"));
            }
            let iv = GenericArray::from_slice(iv);
            match &self.k {
                CamelliaKey::C128(k) => ctr::Ctr128BE::<camellia::Camellia128>::from_core(
                    ctr::CtrCore::inner_iv_init(k.clone(), iv),
                )
                .apply_keystream(buf),
                CamelliaKey::C192(k) => ctr::Ctr128BE::<camellia::Camellia192>::from_core(
                    ctr::CtrCore::inner_iv_init(k.clone(), iv),
                )
                .apply_keystream(buf),
                CamelliaKey::C256(k) => ctr::Ctr128BE::<camellia::Camellia256>::from_core(
                    ctr::CtrCore::inner_iv_init(k.clone(), iv),
                )
                .apply_keystream(buf),
            }
            return Ok(());
        }
        let blocks = ecb_blocks(buf)?;
        match (&self.k, decrypt) {
            (CamelliaKey::C128(k), false) => k.encrypt_blocks_inout(blocks),
            (CamelliaKey::C128(k), true) => k.decrypt_blocks_inout(blocks),
            (CamelliaKey::C192(k), false) => k.encrypt_blocks_inout(blocks),
            (CamelliaKey::C192(k), true) => k.decrypt_blocks_inout(blocks),
            (CamelliaKey::C256(k), false) => k.encrypt_blocks_inout(blocks),
            (CamelliaKey::C256(k), true) => k.decrypt_blocks_inout(blocks),
        }
        Ok(())
    }
}

impl Cipher for RcCamellia {
    fn encrypt(&mut self, iv: &[u8], buf: &mut [u8]) -> Result<()> {
        self.crypt(false, iv, buf)
    }
    fn decrypt(&mut self, iv: &[u8], buf: &mut [u8]) -> Result<()> {
        self.crypt(true, iv, buf)
    }
    fn block_ops(&mut self) -> Option<&mut dyn ango_core::BlockOps> {
        Some(self)
    }
}

impl ango_core::BlockOps for RcCamellia {
    fn set_key(&mut self, key: &[u8]) -> Result<()> {
        self.k = RcCamellia::new(key, self.ctr)?.k;
        Ok(())
    }
    fn encrypt_block(&mut self, block: &mut [u8; 16]) {
        let b = GenericArray::from_mut_slice(block);
        match &self.k {
            CamelliaKey::C128(k) => k.encrypt_block(b),
            CamelliaKey::C192(k) => k.encrypt_block(b),
            CamelliaKey::C256(k) => k.encrypt_block(b),
        }
    }
    fn decrypt_block(&mut self, block: &mut [u8; 16]) {
        let b = GenericArray::from_mut_slice(block);
        match &self.k {
            CamelliaKey::C128(k) => k.decrypt_block(b),
            CamelliaKey::C192(k) => k.decrypt_block(b),
            CamelliaKey::C256(k) => k.decrypt_block(b),
        }
    }
    /// The crate keeps its subkeys private.
    fn schedule_bytes(&self, _out: &mut [u8]) -> bool {
        false
    }
    fn path(&self) -> String {
        "camellia 0.1 encrypt_block (portable Rust, tables-nct)".into()
    }
}

struct RcChaCha20([u8; 32]);

impl Cipher for RcChaCha20 {
    fn encrypt(&mut self, iv: &[u8], buf: &mut [u8]) -> Result<()> {
        if iv.len() != 16 {
            return Err(err("ChaCha20 IV is 4-byte LE counter + 12-byte nonce"));
        }
        let counter = u32::from_le_bytes(iv[..4].try_into().expect("4 bytes"));
        let mut c = chacha20::ChaCha20::new(
            GenericArray::from_slice(&self.0),
            GenericArray::from_slice(&iv[4..]),
        );
        c.seek(u64::from(counter) * 64);
        c.apply_keystream(buf);
        Ok(())
    }
    fn decrypt(&mut self, iv: &[u8], buf: &mut [u8]) -> Result<()> {
        self.encrypt(iv, buf)
    }
}

#[cfg(target_arch = "x86_64")]
fn feats() -> (bool, bool, bool) {
    (
        std::arch::is_x86_feature_detected!("aes"),
        std::arch::is_x86_feature_detected!("pclmulqdq"),
        std::arch::is_x86_feature_detected!("avx2"),
    )
}

#[cfg(not(target_arch = "x86_64"))]
fn feats() -> (bool, bool, bool) {
    (false, false, false)
}

impl Backend for RustCrypto {
    fn name(&self) -> &'static str {
        NAME
    }

    fn version(&self) -> String {
        "RustCrypto aes 0.8, aes-gcm 0.10, ccm 0.5, chacha20poly1305 0.10, ctr 0.9, chacha20 0.9, \
         camellia 0.1"
            .into()
    }

    fn availability(&self, algo: Algorithm, hw: Hw) -> Result<(), Unavailable> {
        if let Some(n) = algo.library_note() {
            return Err(Unavailable(n));
        }
        if algo.cipher_name() == "camellia" {
            // One portable code path: every setting runs it.
            return Ok(());
        }
        match (hw, SOFT) {
            (Hw::On, false) | (Hw::Off, true) => Ok(()),
            (_, false) => Err(Unavailable(
                "RustCrypto picks AES-NI/PCLMULQDQ/AVX2 at run time with no switch; its software \
                 paths need the build of scripts/rustcrypto-soft"
                    .into(),
            )),
            (_, true) => Err(Unavailable(
                "this build forces RustCrypto's software paths (scripts/rustcrypto-soft): hw off only"
                    .into(),
            )),
        }
    }

    fn implementation(&self, algo: Algorithm, _hw: Hw) -> String {
        let (aes, clmul, avx2) = if SOFT { (false, false, false) } else { feats() };
        let chacha_path = if SOFT {
            "soft"
        } else if avx2 {
            "avx2"
        } else {
            "sse2"
        };
        let aes_path = if aes { "aes-ni" } else { "fixslice soft" };
        match algo {
            Algorithm::Aes128Gcm | Algorithm::Aes256Gcm => format!(
                "aes-gcm 0.10 ({aes_path}, {})",
                if clmul { "pclmulqdq" } else { "soft polyval" }
            ),
            Algorithm::Aes128Ccm | Algorithm::Aes256Ccm => format!("ccm 0.5 ({aes_path})"),
            Algorithm::ChaCha20Poly1305 => {
                format!("chacha20poly1305 0.10 ({chacha_path}, poly1305 {chacha_path})")
            }
            Algorithm::XChaCha20Poly1305 => format!(
                "chacha20poly1305 0.10 XChaCha20Poly1305 ({chacha_path}, poly1305 {chacha_path})"
            ),
            Algorithm::Aes128Ecb | Algorithm::Aes256Ecb => format!("aes 0.8 ({aes_path})"),
            Algorithm::Aes128Ctr | Algorithm::Aes256Ctr => format!("ctr 0.9 ({aes_path})"),
            Algorithm::ChaCha20 => format!("chacha20 0.9 ({chacha_path})"),
            a if a.cipher_name() == "camellia" && a.name().ends_with("-ctr") => {
                "ctr 0.9 + camellia 0.1 (portable Rust, tables-nct)".into()
            }
            a if a.cipher_name() == "camellia" => "camellia 0.1 (portable Rust, tables-nct)".into(),
            _ => "none".into(),
        }
    }

    fn aead(
        &self,
        algo: Algorithm,
        key: &[u8],
        nonce_len: usize,
        tag_len: usize,
    ) -> Result<Box<dyn Aead>> {
        if key.len() != algo.key_len() {
            return Err(err(format!("{algo}: key must be {} bytes", algo.key_len())));
        }
        let fixed = |n: usize, t: usize| -> Result<()> {
            if (nonce_len, tag_len) == (n, t) {
                Ok(())
            } else {
                Err(err(format!(
                    "{algo} supports only a {n}-byte nonce and {t}-byte tag here"
                )))
            }
        };
        match algo {
            Algorithm::Aes128Gcm => {
                fixed(12, 16)?;
                Ok(boxed(
                    aes_gcm::Aes128Gcm::new_from_slice(key).map_err(err)?,
                    12,
                    16,
                ))
            }
            Algorithm::Aes256Gcm => {
                fixed(12, 16)?;
                Ok(boxed(
                    aes_gcm::Aes256Gcm::new_from_slice(key).map_err(err)?,
                    12,
                    16,
                ))
            }
            Algorithm::ChaCha20Poly1305 => {
                fixed(12, 16)?;
                Ok(boxed(
                    chacha20poly1305::ChaCha20Poly1305::new_from_slice(key).map_err(err)?,
                    12,
                    16,
                ))
            }
            Algorithm::XChaCha20Poly1305 => {
                fixed(24, 16)?;
                Ok(boxed(
                    chacha20poly1305::XChaCha20Poly1305::new_from_slice(key).map_err(err)?,
                    24,
                    16,
                ))
            }
            Algorithm::Aes128Ccm => ccm::<Aes128>(key, nonce_len, tag_len),
            Algorithm::Aes256Ccm => ccm::<Aes256>(key, nonce_len, tag_len),
            _ => Err(err(format!("{algo} is not an AEAD"))),
        }
    }

    fn cipher(&self, algo: Algorithm, key: &[u8]) -> Result<Box<dyn Cipher>> {
        if key.len() != algo.key_len() {
            return Err(err(format!("{algo}: key must be {} bytes", algo.key_len())));
        }
        let bk = || -> Result<BlockKey> {
            Ok(if key.len() == 16 {
                BlockKey::A128(Aes128::new_from_slice(key).map_err(err)?)
            } else {
                BlockKey::A256(Aes256::new_from_slice(key).map_err(err)?)
            })
        };
        match algo {
            Algorithm::Aes128Ecb | Algorithm::Aes256Ecb => Ok(Box::new(RcEcb(bk()?))),
            Algorithm::Aes128Ctr | Algorithm::Aes256Ctr => Ok(Box::new(RcCtr(bk()?))),
            Algorithm::ChaCha20 => Ok(Box::new(RcChaCha20(
                key.try_into().expect("checked length"),
            ))),
            a if a.cipher_name() == "camellia" => Ok(Box::new(RcCamellia::new(
                key,
                a.name().ends_with("-ctr"),
            )?)),
            _ => Err(err(format!("{algo} is not a plain cipher"))),
        }
    }
}

/// RustCrypto as a provider: its symmetric crates (hw on in a normal build,
/// hw off in the build of scripts/rustcrypto-soft) and, with the
/// `pk-rustcrypto` feature, its public-key crates.
pub static PROVIDER: Provider = Provider {
    name: NAME,
    version: provider_version,
    worker_env: ango_core::catalog::no_worker_env,
    cpu_view: ango_core::catalog::no_cpu_view,
    has_variants: false,
    entries: provider_entries,
};

fn provider_version() -> String {
    #[allow(unused_mut)]
    let mut v = RustCrypto.version();
    #[cfg(feature = "pk-rustcrypto")]
    {
        use ango_core::PkBackend;
        v.push_str(", ");
        v.push_str(&crate::pk::rustcrypto::RustCryptoPk.version());
    }
    v
}

fn provider_entries() -> Vec<Entry> {
    #[allow(unused_mut)]
    let mut v = ango_core::catalog::entries_of_backend(&PROVIDER, &RustCrypto);
    #[cfg(feature = "pk-rustcrypto")]
    v.extend(ango_core::catalog::entries_of_pk_backend(
        &PROVIDER,
        &crate::pk::rustcrypto::RustCryptoPk,
    ));
    #[cfg(not(feature = "pk-rustcrypto"))]
    v.extend(ango_core::catalog::unbuilt_pk_entries(
        &PROVIDER,
        "built without the `pk-rustcrypto` feature",
    ));
    v
}
