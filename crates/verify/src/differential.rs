//! Differential checks of ango's own variants: each SIMD variant against the
//! portable one, and the AEADs against OpenSSL. The fuzz targets in `fuzz/`
//! call these on raw fuzzer input; inputs that ever failed are kept in
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
    "chacha20-poly1305",
    "aes-gcm",
];

fn take<'a>(data: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
    if data.len() < n {
        return None;
    }
    let (a, b) = data.split_at(n);
    *data = b;
    Some(a)
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
            Ok(())
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
            Ok(())
        }
        "chacha20-poly1305" | "aes-gcm" => {
            let algo = if target == "aes-gcm" {
                Algorithm::Aes128Gcm
            } else {
                Algorithm::ChaCha20Poly1305
            };
            let (Some(key), Some(nonce), Some(alen)) = (
                take(&mut data, algo.key_len()),
                take(&mut data, 12),
                take(&mut data, 1),
            ) else {
                return Ok(());
            };
            let alen = (alen[0] as usize).min(data.len());
            let (aad, msg) = data.split_at(alen);
            aead_against_openssl(algo, key, nonce, aad, msg)
        }
        _ => Err(format!(
            "unknown target '{target}'; valid: {}",
            TARGETS.join(", ")
        )),
    }
}

/// Every implementation of `algo` in the catalog that runs here seals the
/// message to the same ciphertext and tag as the first (the libraries come
/// before ango's own variants), and refuses a wrong tag. An implementation
/// with a known defect of `algo` (`vectors/known-defects.toml`; `ango
/// verify --wycheproof` shows it) is left out: the fuzzer would only find
/// that defect again.
fn aead_against_openssl(
    algo: Algorithm,
    key: &[u8],
    nonce: &[u8],
    aad: &[u8],
    msg: &[u8],
) -> Result<(), String> {
    let defective = |e: &&Entry| {
        let v = (e.provider.version)();
        crate::defects::builtin()
            .iter()
            .any(|d| d.applies(&e.label(), &v, algo.name()))
    };
    let entries: Vec<&Entry> = ango_backends::catalog()
        .runnable(AlgorithmId::Sym(algo))
        .into_iter()
        .filter(|e| !defective(e))
        .collect();
    let seal = |e: &Entry| -> Result<(Vec<u8>, Vec<u8>), String> {
        let mut a = e.aead(key, 12, 16).map_err(|e| e.to_string())?;
        let mut buf = msg.to_vec();
        let mut tag = vec![0u8; 16];
        a.seal(nonce, aad, &mut buf, &mut tag)
            .map_err(|e| e.to_string())?;
        Ok((buf, tag))
    };
    let (reference, rest) = entries
        .split_first()
        .ok_or_else(|| format!("no implementation of {algo} runs here"))?;
    let want = seal(reference)?;
    for e in rest {
        let got = seal(e)?;
        if got != want {
            return Err(format!(
                "{algo} {} differs from {} ({} bytes, AAD {})",
                e.label(),
                reference.label(),
                msg.len(),
                aad.len()
            ));
        }
        // And the wrong tag is refused.
        let mut a = e.aead(key, 12, 16).map_err(|e| e.to_string())?;
        let mut bad = want.1.clone();
        bad[msg.len() % 16] ^= 1;
        let mut out = vec![0u8; msg.len()];
        if a.open(nonce, aad, &want.0, &bad, &mut out).is_ok() {
            return Err(format!("{algo} {} accepted a wrong tag", e.label()));
        }
    }
    Ok(())
}
