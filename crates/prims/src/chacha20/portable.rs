//! ChaCha20 (RFC 8439 §2.1–2.4), portable 32-bit code: one block at a time.

pub(crate) const SIGMA: [u32; 4] = [0x6170_7865, 0x3320_646e, 0x7962_2d32, 0x6b20_6574];

/// The initial state: constants, key, block counter, nonce (all words
/// little-endian).
pub fn init_state(key: &[u8; 32], counter: u32, nonce: &[u8; 12]) -> [u32; 16] {
    let mut s = [0u32; 16];
    s[..4].copy_from_slice(&SIGMA);
    for i in 0..8 {
        s[4 + i] = u32::from_le_bytes(key[4 * i..4 * i + 4].try_into().expect("4 bytes"));
    }
    s[12] = counter;
    for i in 0..3 {
        s[13 + i] = u32::from_le_bytes(nonce[4 * i..4 * i + 4].try_into().expect("4 bytes"));
    }
    s
}

#[inline(always)]
fn quarter_round(x: &mut [u32; 16], a: usize, b: usize, c: usize, d: usize) {
    x[a] = x[a].wrapping_add(x[b]);
    x[d] = (x[d] ^ x[a]).rotate_left(16);
    x[c] = x[c].wrapping_add(x[d]);
    x[b] = (x[b] ^ x[c]).rotate_left(12);
    x[a] = x[a].wrapping_add(x[b]);
    x[d] = (x[d] ^ x[a]).rotate_left(8);
    x[c] = x[c].wrapping_add(x[d]);
    x[b] = (x[b] ^ x[c]).rotate_left(7);
}

/// The 20 rounds (10 double rounds) without the final addition.
#[inline(always)]
pub(crate) fn rounds(x: &mut [u32; 16]) {
    for _ in 0..10 {
        quarter_round(x, 0, 4, 8, 12);
        quarter_round(x, 1, 5, 9, 13);
        quarter_round(x, 2, 6, 10, 14);
        quarter_round(x, 3, 7, 11, 15);
        quarter_round(x, 0, 5, 10, 15);
        quarter_round(x, 1, 6, 11, 12);
        quarter_round(x, 2, 7, 8, 13);
        quarter_round(x, 3, 4, 9, 14);
    }
}

/// One keystream block for `state`, serialised.
pub fn block(state: &[u32; 16]) -> [u8; 64] {
    let mut x = *state;
    rounds(&mut x);
    let mut out = [0u8; 64];
    for i in 0..16 {
        out[4 * i..4 * i + 4].copy_from_slice(&x[i].wrapping_add(state[i]).to_le_bytes());
    }
    out
}

/// XOR the keystream starting at block `counter` into `buf`. The block
/// counter wraps modulo 2^32 as RFC 8439 leaves it (callers keep messages
/// below 256 GiB).
pub fn xor_keystream(key: &[u8; 32], counter: u32, nonce: &[u8; 12], buf: &mut [u8]) {
    let mut st = init_state(key, counter, nonce);
    for chunk in buf.chunks_mut(64) {
        let ks = block(&st);
        for (b, k) in chunk.iter_mut().zip(ks.iter()) {
            *b ^= k;
        }
        st[12] = st[12].wrapping_add(1);
    }
}

/// HChaCha20 (draft-irtf-cfrg-xchacha §2.2): a 256-bit subkey from a key and
/// a 128-bit nonce — words 0..4 and 12..16 after the rounds, no addition.
pub fn hchacha20(key: &[u8; 32], nonce: &[u8; 16]) -> [u8; 32] {
    let mut x = [0u32; 16];
    x[..4].copy_from_slice(&SIGMA);
    for i in 0..8 {
        x[4 + i] = u32::from_le_bytes(key[4 * i..4 * i + 4].try_into().expect("4 bytes"));
    }
    for i in 0..4 {
        x[12 + i] = u32::from_le_bytes(nonce[4 * i..4 * i + 4].try_into().expect("4 bytes"));
    }
    rounds(&mut x);
    let mut out = [0u8; 32];
    for (i, w) in x[..4].iter().chain(x[12..].iter()).enumerate() {
        out[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn rfc8439_2_1_1_and_2_2_1_quarter_round() {
        // vectors/chacha20_quarter_round.txt: QR, STATE, OUT per case.
        let text = include_str!("../../../../vectors/chacha20_quarter_round.txt");
        let words = |v: &str| -> [u32; 16] {
            let w: Vec<u32> = v
                .split_whitespace()
                .map(|x| u32::from_str_radix(x, 16).unwrap())
                .collect();
            w.try_into().unwrap()
        };
        let mut cases = 0;
        let mut qr: Vec<usize> = Vec::new();
        let mut state = [0u32; 16];
        for line in text
            .lines()
            .filter(|l| !l.starts_with('#') && l.contains(" = "))
        {
            let (k, v) = line.split_once(" = ").unwrap();
            match k {
                "QR" => qr = v.split(',').map(|x| x.parse().unwrap()).collect(),
                "STATE" => state = words(v),
                "OUT" => {
                    quarter_round(&mut state, qr[0], qr[1], qr[2], qr[3]);
                    assert_eq!(state, words(v), "QR {qr:?}");
                    cases += 1;
                }
                other => panic!("unread attribute {other}"),
            }
        }
        assert_eq!(cases, 2);
    }

    use super::*;

    #[test]
    fn rfc8439_quarter_round_2_1_1() {
        let mut x = [0u32; 16];
        x[0] = 0x11111111;
        x[1] = 0x01020304;
        x[2] = 0x9b8d6f43;
        x[3] = 0x01234567;
        quarter_round(&mut x, 0, 1, 2, 3);
        assert_eq!(&x[..4], &[0xea2a92f4, 0xcb1cf8ce, 0x4581472e, 0x5881c4bb]);
    }
}
