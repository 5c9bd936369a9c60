//! Differential checks over every provider of each algorithm: ango's SIMD
//! variants against its portable ones, and every implementation in the
//! catalog (the libraries and ango's variants) against one another —
//! ChaCha20, AES-ECB/CTR, and the AEADs, whose wrong tags must be refused
//! and right ones accepted. The fuzz targets in `fuzz/` call these on raw
//! fuzzer input; inputs that ever failed are kept in
//! `fuzz/regressions/<target>/` and replayed by the test suite.

use ango_core::{Algorithm, AlgorithmId, Entry};
use ango_prims::aes::Aes;
use ango_prims::chacha20::ChaCha20;
use ango_prims::poly1305::Poly1305;

/// The fuzz targets, by name.
pub const TARGETS: &[&str] = &[
    "chacha20",
    "poly1305",
    "aes",
    "cryptrec",
    "chacha20-poly1305",
    "aes-gcm",
    "aes-ccm",
    "vector-file",
    "wycheproof",
];

fn take<'a>(data: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
    if data.len() < n {
        return None;
    }
    let (a, b) = data.split_at(n);
    *data = b;
    Some(a)
}

/// MUGI under the "cryptrec" target: key, IV, two split points, then the
/// message. Every variant's keystream equals the reference's however the
/// message is split into calls, XORing it twice gives the message back,
/// and every catalog entry of `mugi` agrees.
fn mugi_agrees(mut data: &[u8]) -> Result<(), String> {
    use ango_prims::mugi::{Bytes, VARIANTS};
    let (Some(key), Some(iv), Some(cuts)) =
        (take(&mut data, 16), take(&mut data, 16), take(&mut data, 2))
    else {
        return Ok(());
    };
    let key: &[u8; 16] = key.try_into().expect("16");
    let iv: &[u8; 16] = iv.try_into().expect("16");
    let mut want = data.to_vec();
    Bytes::new((VARIANTS[0].make)(key, iv)).apply(&mut want);
    let a = cuts[0] as usize % (data.len() + 1);
    let b = a + cuts[1] as usize % (data.len() - a + 1);
    for v in VARIANTS.iter().filter(|v| (v.available)().is_ok()) {
        let mut got = data.to_vec();
        let mut g = Bytes::new((v.make)(key, iv));
        g.apply(&mut got[..a]);
        g.apply(&mut got[a..b]);
        g.apply(&mut got[b..]);
        if got != want {
            return Err(format!(
                "mugi/{} split at {a} and {b} differs from {} ({} bytes)",
                v.name,
                VARIANTS[0].name,
                data.len()
            ));
        }
        (v.make)(key, iv).apply(&mut got);
        if got != data {
            return Err(format!(
                "mugi/{}: the keystream twice is not the identity",
                v.name
            ));
        }
    }
    ciphers_agree(Algorithm::Mugi, key, iv, data, &want)
}

/// Run one target on one input. `Ok` for inputs too short to use.
pub fn check(target: &str, mut data: &[u8]) -> Result<(), String> {
    match target {
        "chacha20" => {
            let (Some(key), Some(ctr), Some(nonce)) =
                (take(&mut data, 32), take(&mut data, 4), take(&mut data, 12))
            else {
                return Ok(());
            };
            let key: &[u8; 32] = key.try_into().expect("32");
            let nonce: &[u8; 12] = nonce.try_into().expect("12");
            // Keep the block counter from wrapping inside the message.
            let ctr = u32::from_le_bytes(ctr.try_into().expect("4")) & 0x7fff_ffff;
            let mut want = data.to_vec();
            ChaCha20::Portable.xor_keystream(key, ctr, nonce, &mut want);
            for v in ChaCha20::available() {
                let mut got = data.to_vec();
                v.xor_keystream(key, ctr, nonce, &mut got);
                if got != want {
                    return Err(format!(
                        "chacha20/{} differs from portable ({} bytes)",
                        v.name(),
                        data.len()
                    ));
                }
            }
            // Every provider's ChaCha20: the IV is the block counter
            // (little-endian) followed by the nonce.
            let mut iv = ctr.to_le_bytes().to_vec();
            iv.extend_from_slice(nonce);
            ciphers_agree(Algorithm::ChaCha20, key, &iv, data, &want)
        }
        "poly1305" => {
            let Some(key) = take(&mut data, 32) else {
                return Ok(());
            };
            let key: &[u8; 32] = key.try_into().expect("32");
            let split = data.first().map_or(0, |b| *b as usize % (data.len() + 1));
            let want = Poly1305::Radix26.mac(key, data);
            for v in Poly1305::available() {
                let mut m = v.start(key);
                m.update(&data[..split]);
                m.update(&data[split..]);
                if m.finalize() != want {
                    return Err(format!(
                        "poly1305/{} differs from radix26 ({} bytes)",
                        v.name(),
                        data.len()
                    ));
                }
            }
            Ok(())
        }
        "aes" => {
            let Some(sel) = take(&mut data, 1) else {
                return Ok(());
            };
            let klen = [16, 24, 32][sel[0] as usize % 3];
            let (Some(key), Some(iv)) = (take(&mut data, klen), take(&mut data, 16)) else {
                return Ok(());
            };
            let iv: &[u8; 16] = iv.try_into().expect("16");
            let reference = Aes::FipsSbox.key(key).expect("key length");
            let whole = data.len() / 16 * 16;
            let (mut e0, mut c0) = (data[..whole].to_vec(), data.to_vec());
            reference.encrypt_blocks(&mut e0);
            reference.ctr_xor(iv, &mut c0);
            for v in Aes::available() {
                let k = v.key(key).expect("key length");
                let (mut e, mut c) = (data[..whole].to_vec(), data.to_vec());
                k.encrypt_blocks(&mut e);
                k.ctr_xor(iv, &mut c);
                if e != e0 || c != c0 {
                    return Err(format!(
                        "aes/{} differs from fips-sbox ({klen}-byte key, {} bytes)",
                        v.name(),
                        data.len()
                    ));
                }
                k.decrypt_blocks(&mut e);
                if e != data[..whole] {
                    return Err(format!(
                        "aes/{} does not decrypt its own ECB output",
                        v.name()
                    ));
                }
            }
            // Every provider's AES-ECB and AES-CTR (the catalog has the
            // 128- and 256-bit ones).
            let (ecb, ctr) = match klen {
                16 => (Algorithm::Aes128Ecb, Algorithm::Aes128Ctr),
                32 => (Algorithm::Aes256Ecb, Algorithm::Aes256Ctr),
                _ => return Ok(()),
            };
            ciphers_agree(ecb, key, &[], &data[..whole], &e0)?;
            ciphers_agree(ctr, key, iv, data, &c0)
        }
        "cryptrec" => {
            // Seed 002's block ciphers: one byte picks the cipher and the
            // key length; every row of the cipher's variant table must
            // agree with its reference row (ECB both ways, CTR), then every
            // provider of the catalog with it.
            let Some(sel) = take(&mut data, 1) else {
                return Ok(());
            };
            let ciphers = ango_prims::cryptrec::BLOCK_CIPHERS;
            // One more choice than block ciphers: MUGI.
            let n = ciphers.len() + 1;
            if sel[0] as usize % n == ciphers.len() {
                return mugi_agrees(data);
            }
            let (cipher, rows) = ciphers[sel[0] as usize % n];
            let klen = [16, 24, 32][(sel[0] as usize / n) % 3];
            let (Some(key), Some(iv)) = (take(&mut data, klen), take(&mut data, 16)) else {
                return Ok(());
            };
            let iv: &[u8; 16] = iv.try_into().expect("16");
            let reference = (rows[0].make)(key).expect("key length");
            let whole = data.len() / 16 * 16;
            let (mut e0, mut c0) = (data[..whole].to_vec(), data.to_vec());
            reference.encrypt_blocks(&mut e0);
            reference.ctr(iv, &mut c0);
            for v in rows.iter().filter(|v| (v.available)().is_ok()) {
                let k = (v.make)(key).expect("key length");
                let (mut e, mut c) = (data[..whole].to_vec(), data.to_vec());
                k.encrypt_blocks(&mut e);
                k.ctr(iv, &mut c);
                if e != e0 || c != c0 {
                    return Err(format!(
                        "{cipher}/{} differs from {} ({klen}-byte key, {} bytes)",
                        v.name,
                        rows[0].name,
                        data.len()
                    ));
                }
                k.decrypt_blocks(&mut e);
                if e != data[..whole] {
                    return Err(format!(
                        "{cipher}/{} does not decrypt its own ECB output",
                        v.name
                    ));
                }
            }
            let bits = klen * 8;
            if let Ok(ecb) = Algorithm::parse(&format!("{cipher}-{bits}-ecb")) {
                ciphers_agree(ecb, key, &[], &data[..whole], &e0)?;
            }
            match Algorithm::parse(&format!("{cipher}-{bits}-ctr")) {
                Ok(ctr) => ciphers_agree(ctr, key, iv, data, &c0),
                Err(_) => Ok(()),
            }
        }
        "chacha20-poly1305" | "aes-gcm" | "aes-ccm" => {
            // One byte picks the algorithm (and for CCM the nonce and tag
            // lengths, from those SP 800-38C allows).
            let Some(sel) = take(&mut data, 1) else {
                return Ok(());
            };
            let sel = sel[0] as usize;
            let (algo, nonce_len, tag_len) = match target {
                "aes-gcm" => (
                    [Algorithm::Aes128Gcm, Algorithm::Aes256Gcm][sel % 2],
                    12,
                    16,
                ),
                "aes-ccm" => (
                    [Algorithm::Aes128Ccm, Algorithm::Aes256Ccm][sel % 2],
                    7 + (sel >> 1) % 7,
                    4 + 2 * ((sel >> 4) % 7),
                ),
                _ => match sel % 2 {
                    0 => (Algorithm::ChaCha20Poly1305, 12, 16),
                    _ => (Algorithm::XChaCha20Poly1305, 24, 16),
                },
            };
            let (Some(key), Some(nonce), Some(alen)) = (
                take(&mut data, algo.key_len()),
                take(&mut data, nonce_len),
                take(&mut data, 1),
            ) else {
                return Ok(());
            };
            let alen = (alen[0] as usize).min(data.len());
            let (aad, msg) = data.split_at(alen);
            aeads_agree(algo, key, nonce, tag_len, aad, msg)
        }
        // The readers of files a user hands ango: any bytes give a parsed
        // file or an error, never a panic.
        "vector-file" => {
            let text = String::from_utf8_lossy(data);
            if let Ok(f) = crate::vectors::parse("fuzz", &text) {
                let _ = f.cases.len();
            }
            Ok(())
        }
        "wycheproof" => {
            let text = String::from_utf8_lossy(data);
            let _ = crate::wycheproof_pk::is_pk_file(&text);
            if let Ok(f) = crate::wycheproof_pk::parse("fuzz", &text) {
                let _ = crate::wycheproof_pk::algorithms(&f);
            }
            let _ = crate::wycheproof::parse("fuzz", &text);
            if let Ok(f) = crate::wycheproof_suite::load("fuzz", &text) {
                let _ = (f.number_of_tests(), f.schema().len());
            }
            Ok(())
        }
        _ => Err(format!(
            "unknown target '{target}'; valid: {}",
            TARGETS.join(", ")
        )),
    }
}

/// The implementations of `algo` in the catalog that run here, the
/// libraries before ango's own variants. One with a known library defect
/// of `algo` (`vectors/known-defects.toml`) is left out: the fuzzer would
/// only find that defect again (`ango verify` shows it).
fn every_provider(algo: Algorithm) -> Vec<&'static Entry> {
    ango_backends::catalog()
        .runnable(AlgorithmId::Sym(algo))
        .into_iter()
        .filter(|e| !crate::defects::concerns_entry(e, algo.name()))
        .collect()
}

/// Every provider's `algo` turns `data` into `want` from `iv`, and back.
fn ciphers_agree(
    algo: Algorithm,
    key: &[u8],
    iv: &[u8],
    data: &[u8],
    want: &[u8],
) -> Result<(), String> {
    for e in every_provider(algo) {
        let mut c = e.cipher(key).map_err(|x| format!("{}: {x}", e.label()))?;
        let mut buf = data.to_vec();
        c.encrypt(iv, &mut buf)
            .map_err(|x| format!("{algo} {}: {x}", e.label()))?;
        if buf != want {
            return Err(format!(
                "{algo} {} differs from ango's reference ({} bytes)",
                e.label(),
                data.len()
            ));
        }
        c.decrypt(iv, &mut buf)
            .map_err(|x| format!("{algo} {}: {x}", e.label()))?;
        if buf != data {
            return Err(format!(
                "{algo} {} does not decrypt to the input ({} bytes)",
                e.label(),
                data.len()
            ));
        }
    }
    Ok(())
}

/// Every implementation of `algo` in the catalog that runs here seals the
/// message to the same ciphertext and tag as the first (the libraries come
/// before ango's own variants), opens it again, and refuses a wrong tag.
fn aeads_agree(
    algo: Algorithm,
    key: &[u8],
    nonce: &[u8],
    tag_len: usize,
    aad: &[u8],
    msg: &[u8],
) -> Result<(), String> {
    let entries = every_provider(algo);
    let reference = entries
        .first()
        .ok_or_else(|| format!("no implementation of {algo} runs here"))?;
    let mut want: Option<(Vec<u8>, Vec<u8>)> = None;
    for e in &entries {
        let fail = |x: ango_core::Error| format!("{algo} {}: {x}", e.label());
        let mut a = e.aead(key, nonce.len(), tag_len).map_err(fail)?;
        let mut buf = msg.to_vec();
        let mut tag = vec![0u8; tag_len];
        a.seal(nonce, aad, &mut buf, &mut tag).map_err(fail)?;
        // The first implementation's sealing is the one all must match.
        let want = want.get_or_insert_with(|| (buf.clone(), tag.clone()));
        if (&buf, &tag) != (&want.0, &want.1) {
            return Err(format!(
                "{algo} {} differs from {} ({} bytes, AAD {}, nonce {}, tag {})",
                e.label(),
                reference.label(),
                msg.len(),
                aad.len(),
                nonce.len(),
                tag_len
            ));
        }
        let mut open = |tag: &[u8]| -> Option<Vec<u8>> {
            let mut out = vec![0u8; msg.len()];
            a.open(nonce, aad, &want.0, tag, &mut out).ok().map(|_| out)
        };
        if open(&want.1).as_deref() != Some(msg) {
            return Err(format!(
                "{algo} {} does not open its own sealing ({} bytes, AAD {})",
                e.label(),
                msg.len(),
                aad.len()
            ));
        }
        let mut bad = want.1.clone();
        bad[msg.len() % tag_len] ^= 1;
        if open(&bad).is_some() {
            return Err(format!("{algo} {} accepted a wrong tag", e.label()));
        }
    }
    Ok(())
}
