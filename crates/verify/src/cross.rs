//! Cross-backend agreement (the SUPERCOP habit): for pseudo-random lengths
//! and AAD lengths, every backend of an algorithm must produce the same
//! ciphertexts and tags, and open what the others sealed.

use ango_core::{Algorithm, Backend, Error, Kind, Result};

/// A small deterministic generator (xorshift64*), so failures reproduce.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub fn fill(&mut self, buf: &mut [u8]) {
        for chunk in buf.chunks_mut(8) {
            let v = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

/// One output digest per backend: FNV-1a over every output of `rounds`
/// messages with lengths in 0..max_len (multiples of the block for ECB).
pub fn digest(
    b: &dyn Backend,
    algo: Algorithm,
    rounds: usize,
    max_len: usize,
    seed: u64,
) -> Result<u64> {
    let mut rng = Rng::new(seed);
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for &x in bytes {
            h ^= u64::from(x);
            h = h.wrapping_mul(0x100_0000_01b3);
        }
    };
    let mut key = vec![0u8; algo.key_len()];
    rng.fill(&mut key);
    for _ in 0..rounds {
        let bm = algo.block_multiple();
        let len = rng.below(max_len as u64 + 1) as usize / bm * bm;
        let mut msg = vec![0u8; len];
        rng.fill(&mut msg);
        let mut nonce = vec![0u8; algo.nonce_len()];
        rng.fill(&mut nonce);
        match algo.kind() {
            Kind::Aead => {
                let mut aad = vec![0u8; rng.below(65) as usize];
                rng.fill(&mut aad);
                let mut a = b.aead(algo, &key, algo.nonce_len(), algo.tag_len())?;
                let mut buf = msg.clone();
                let mut tag = vec![0u8; algo.tag_len()];
                a.seal(&nonce, &aad, &mut buf, &mut tag)?;
                let mut back = vec![0u8; len];
                a.open(&nonce, &aad, &buf, &tag, &mut back)?;
                if back != msg {
                    return Err(Error::Kat(format!(
                        "{}: {algo} round trip failed at {len} bytes",
                        b.name()
                    )));
                }
                eat(&buf);
                eat(&tag);
            }
            Kind::Cipher => {
                if algo == Algorithm::ChaCha20 {
                    nonce[..4].fill(0); // keep the block counter far from wrapping
                }
                let mut c = b.cipher(algo, &key)?;
                let mut buf = msg.clone();
                c.encrypt(&nonce, &mut buf)?;
                eat(&buf);
                c.decrypt(&nonce, &mut buf)?;
                if buf != msg {
                    return Err(Error::Kat(format!(
                        "{}: {algo} round trip failed at {len} bytes",
                        b.name()
                    )));
                }
            }
        }
    }
    Ok(h)
}

/// The SUPERCOP checks beyond the digest: the same message gives the same
/// output wherever it sits in memory (offsets 1..=15 against 0), and an
/// open leaves the ciphertext, tag and AAD it was given as they were.
/// Returns a description of the first difference.
pub fn placement(b: &dyn Backend, algo: Algorithm, rounds: usize, seed: u64) -> Result<()> {
    let mut rng = Rng::new(seed);
    let mut key = vec![0u8; algo.key_len()];
    rng.fill(&mut key);
    let bm = algo.block_multiple();
    for round in 0..rounds {
        let len = rng.below(1025) as usize / bm * bm;
        let mut msg = vec![0u8; len];
        rng.fill(&mut msg);
        let mut nonce = vec![0u8; algo.nonce_len()];
        rng.fill(&mut nonce);
        if algo == Algorithm::ChaCha20 {
            nonce[..4].fill(0);
        }
        let mut aad = vec![0u8; rng.below(40) as usize];
        rng.fill(&mut aad);
        let run = |off: usize| -> Result<(Vec<u8>, Vec<u8>)> {
            let mut store = vec![0u8; len + 16];
            store[off..off + len].copy_from_slice(&msg);
            let buf = &mut store[off..off + len];
            match algo.kind() {
                Kind::Aead => {
                    let mut a = b.aead(algo, &key, algo.nonce_len(), algo.tag_len())?;
                    let mut tag = vec![0u8; algo.tag_len()];
                    a.seal(&nonce, &aad, buf, &mut tag)?;
                    let ct = buf.to_vec();
                    let (aad0, tag0) = (aad.clone(), tag.clone());
                    let mut out_store = vec![0u8; len + 16];
                    let out = &mut out_store[15 - off..15 - off + len];
                    a.open(&nonce, &aad, buf, &tag, out)?;
                    if out != &msg[..] || buf != &ct[..] || aad != aad0 || tag != tag0 {
                        return Err(Error::Kat(format!(
                            "open at offset {off} changed its inputs or failed"
                        )));
                    }
                    Ok((ct, tag))
                }
                Kind::Cipher => {
                    let mut c = b.cipher(algo, &key)?;
                    c.encrypt(&nonce, buf)?;
                    Ok((buf.to_vec(), Vec::new()))
                }
            }
        };
        let base = run(0)?;
        for off in 1..16 {
            if run(off)? != base {
                return Err(Error::Kat(format!(
                    "{}: {algo} round {round}, {len} bytes: output differs at offset {off}",
                    b.name()
                )));
            }
        }
    }
    Ok(())
}
