//! SC2000's constants, transcribed once from the designers' paper (T.
//! Shimoyama et al., "The Block Cipher SC2000", FSE 2001, LNCS 2355,
//! §4), and the compile-time builders the table variants make their merged
//! tables with. Every variant reads them from here.

/// S6, FSE 2001 paper §4.
pub(super) const S6: [u8; 64] = [
    47, 59, 25, 42, 15, 23, 28, 39, 26, 38, 36, 19, 60, 24, 29, 56, //
    37, 63, 20, 61, 55, 2, 30, 44, 9, 10, 6, 22, 53, 48, 51, 11, //
    62, 52, 35, 18, 14, 46, 0, 54, 17, 40, 27, 4, 31, 8, 5, 12, //
    3, 16, 41, 34, 33, 7, 45, 49, 50, 58, 1, 21, 43, 57, 32, 13, //
];

/// S5, FSE 2001 paper §4.
pub(super) const S5: [u8; 32] = [
    20, 26, 7, 31, 19, 12, 10, 15, 22, 30, 13, 14, 4, 24, 9, 18, //
    27, 11, 1, 21, 6, 16, 2, 28, 23, 5, 8, 3, 0, 17, 29, 25, //
];

/// S4, FSE 2001 paper §4.
pub(super) const S4: [u8; 16] = [2, 5, 10, 12, 7, 15, 1, 11, 13, 6, 0, 9, 4, 8, 3, 14];

/// S4i (the inverse of S4), FSE 2001 paper §4.
pub(super) const S4I: [u8; 16] = [10, 6, 0, 14, 12, 1, 9, 4, 13, 11, 2, 7, 3, 8, 15, 5];

/// The matrix M of the M function, FSE 2001 paper §4: M[i] is the row
/// selected by bit i of the input (bit 0 = most significant).
pub(super) const M: [u32; 32] = [
    0xd0c19225, 0xa5a2240a, 0x1b84d250, 0xb728a4a1, //
    0x6a704902, 0x85dddbe6, 0x766ff4a4, 0xecdfe128, //
    0xafd13e94, 0xdf837d09, 0xbb27fa52, 0x695059ac, //
    0x52a1bb58, 0xcc322f1d, 0x1844565b, 0xb4a8acf6, //
    0x34235438, 0x6847a851, 0xe48c0cbb, 0xcd181136, //
    0x9a112a0c, 0x43ec6d0e, 0x87d8d27d, 0x487dc995, //
    0x90fb9b4b, 0xa1f63697, 0xfc513ed9, 0x78a37d93, //
    0x8d16c5df, 0x9e0c8bbe, 0x3c381f7c, 0xe9fb0779, //
];

/// Intermediate-key arrays named in the Order table.
const A: u8 = 0;
const B: u8 = 1;
const C: u8 = 2;
const D: u8 = 3;

/// Order[t] = (X, Y, Z, W) for t = 0..11, FSE 2001 paper §4.
pub(super) const ORDER: [[u8; 4]; 12] = [
    [A, B, C, D],
    [B, A, D, C],
    [C, D, A, B],
    [D, C, B, A],
    [A, C, D, B],
    [B, D, C, A],
    [C, A, B, D],
    [D, B, A, C],
    [A, D, B, C],
    [B, C, A, D],
    [C, B, D, A],
    [D, A, C, B],
];

/// Index[s] = (x, y, z, w) for s = 0..8, FSE 2001 paper §4.
pub(super) const INDEX: [[u8; 4]; 9] = [
    [0, 0, 0, 0],
    [1, 1, 1, 1],
    [2, 2, 2, 2],
    [0, 1, 0, 1],
    [1, 2, 1, 2],
    [2, 0, 2, 0],
    [0, 2, 0, 2],
    [1, 0, 1, 0],
    [2, 1, 2, 1],
];

/// The S function (§3.4) at compile time: (6,5,5,5,5,6) from the top.
pub(super) const fn s_fn(x: u32) -> u32 {
    ((S6[(x >> 26) as usize & 0x3f] as u32) << 26)
        | ((S5[(x >> 21) as usize & 0x1f] as u32) << 21)
        | ((S5[(x >> 16) as usize & 0x1f] as u32) << 16)
        | ((S5[(x >> 11) as usize & 0x1f] as u32) << 11)
        | ((S5[(x >> 6) as usize & 0x1f] as u32) << 6)
        | (S6[x as usize & 0x3f] as u32)
}

/// The M function (§3.4) at compile time.
pub(super) const fn m_fn(x: u32) -> u32 {
    let mut y = 0;
    let mut i = 0;
    while i < 32 {
        if (x >> (31 - i)) & 1 == 1 {
            y ^= M[i];
        }
        i += 1;
    }
    y
}

/// M∘S restricted to the `N`-entry field of the input that starts `shift`
/// bits from the bottom (the field is a whole number of S-boxes, so the S
/// outputs of the other fields are masked away).
pub(super) const fn ms_table<const N: usize>(shift: u32) -> [u32; N] {
    let field = (N as u32 - 1) << shift;
    let mut t = [0u32; N];
    let mut v = 0;
    while v < N {
        t[v] = m_fn(s_fn((v as u32) << shift) & field);
        v += 1;
    }
    t
}

/// The four intermediate keys each ek[n] reads, as positions 3X + x,
/// 3Y + y, 3Z + z, 3W + w in `imkey` with (X, Y, Z, W) = Order[(n + ⌊n/36⌋)
/// mod 12] and (x, y, z, w) = Index[n mod 9] (§3.6), built at compile time.
pub(super) static EK_SEL: [[u8; 4]; 64] = {
    let mut t = [[0u8; 4]; 64];
    let mut n = 0;
    while n < 64 {
        let o = ORDER[(n + n / 36) % 12];
        let ix = INDEX[n % 9];
        let mut j = 0;
        while j < 4 {
            t[n][j] = 3 * o[j] + ix[j];
            j += 1;
        }
        n += 1;
    }
    t
};

/// The key schedule (§3.6) with the variant's M∘S: the user key (16, 24 or
/// 32 bytes) to its intermediate keys and its 56 or 64 extended keys, each
/// handed to `store(n, ek[n])` so a variant lays them out its own way.
/// Returns whether the key is long (8 B layers rather than 7); None for
/// another key length.
#[inline(always)]
pub(super) fn key_schedule(
    key: &[u8],
    ms: impl Fn(u32) -> u32,
    mut store: impl FnMut(usize, u32),
) -> Option<bool> {
    let (words, long, num_ekey) = match key.len() {
        16 => (4, false, 56),
        24 => (6, true, 64),
        32 => (8, true, 64),
        _ => return None,
    };
    let mut uk = [0u32; 8];
    for (j, w) in key.chunks_exact(4).enumerate() {
        uk[j] = u32::from_be_bytes([w[0], w[1], w[2], w[3]]);
    }
    for j in words..8 {
        uk[j] = uk[j - words];
    }
    // Intermediate keys: X[i] = MS((MS(4i + X) ⊞ MS(uk[2X])) ⊕
    // (MS(uk[2X + 1]) ⊠ (i + 1))), X = a, b, c, d, kept as imkey[3X + i].
    let mut imkey = [0u32; 12];
    for xx in 0..4 {
        let k0 = ms(uk[2 * xx]);
        let k1 = ms(uk[2 * xx + 1]);
        for ii in 0..3 {
            let t = ms((4 * ii + xx) as u32).wrapping_add(k0);
            imkey[3 * xx + ii] = ms(t ^ k1.wrapping_mul(ii as u32 + 1));
        }
    }
    // Extended keys: ek[n] = ((X[x] ≪1) ⊞ Y[y]) ⊕ (((Z[z] ≪1) ⊟ W[w]) ≪1).
    for (n, &[p, q, r, s]) in EK_SEL.iter().enumerate().take(num_ekey) {
        let v = |j: u8| imkey[j as usize];
        store(
            n,
            v(p).rotate_left(1).wrapping_add(v(q))
                ^ v(r).rotate_left(1).wrapping_sub(v(s)).rotate_left(1),
        );
    }
    Some(long)
}
