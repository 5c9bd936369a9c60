//! MUGI as seed 002 builds it for 64-bit processors: F's S-box, MixColumns
//! and final byte shuffle merged into eight 8→64-bit tables (F is eight
//! lookups and seven XORs on whole units), and the buffer rotated by an
//! index instead of moving its 16 words every round. The index is the
//! buffer's offset: b_j lives at `ring[(j + off) mod 16]` and a round
//! lowers `off` by one, so lambda's shift costs nothing and only b0, b4
//! and b10 are written (in place, each XORed into the word that already
//! holds its predecessor). Sixteen rounds are unrolled, the offset a
//! constant in each, and the ring is back in place after them.
//!
//! `Moving` keeps the tables and moves the words, the control for the
//! index technique. NOT constant time: the tables are indexed by secret
//! bytes.

use super::reference::{key_and_iv, rho, FFunction, Moving};
use super::{m_column, shuffle, state_bytes};
use crate::aes::SBOX;
use crate::block::Keystream64;

/// U[i][x]: byte i of F's input (0 the most significant) with value x,
/// through the S-box, its half's MixColumns column and F's shuffle.
static U: [[u64; 256]; 8] = {
    let mut t = [[0u64; 256]; 8];
    let mut i = 0;
    while i < 8 {
        let mut x = 0;
        while x < 256 {
            let q = m_column(i % 4, SBOX[x]);
            t[i][x] = if i < 4 { shuffle(q, 0) } else { shuffle(0, q) };
            x += 1;
        }
        i += 1;
    }
    t
};

/// F by the eight 64-bit tables.
pub struct T64;

impl FFunction for T64 {
    #[inline(always)]
    fn f(x: u64, b: u64) -> u64 {
        let o = x ^ b;
        U[0][(o >> 56) as usize]
            ^ U[1][(o >> 48) as usize & 0xff]
            ^ U[2][(o >> 40) as usize & 0xff]
            ^ U[3][(o >> 32) as usize & 0xff]
            ^ U[4][(o >> 24) as usize & 0xff]
            ^ U[5][(o >> 16) as usize & 0xff]
            ^ U[6][(o >> 8) as usize & 0xff]
            ^ U[7][o as usize & 0xff]
    }
}

/// The 64-bit tables with the words moved.
pub type MugiMoving = Moving<T64>;

/// The buffer rotated by an index, keystream made 16 units at a time, F
/// as a variant computes it (the 64-bit tables here; AES-NI in `aesni`).
pub struct Rotating<F> {
    a: [u64; 3],
    ring: [u64; 16],
    out: [u64; 16],
    /// The next unit of `out` to hand out (16: none left).
    pos: usize,
    f: std::marker::PhantomData<F>,
}

/// The 64-bit tables with the buffer rotated by an index.
pub type Mugi = Rotating<T64>;

/// One round with the buffer at offset `OFF`: rho from the old b4 and
/// b10, then lambda in place.
#[inline(always)]
fn round<F: FFunction, const OFF: usize>(a: &mut [u64; 3], ring: &mut [u64; 16]) {
    let at = |j: usize| (j + OFF) & 15;
    let old = *a;
    *a = rho::<F>(old, ring[at(4)], ring[at(10)]);
    ring[at(15)] ^= old[0];
    ring[at(3)] ^= ring[at(7)];
    ring[at(9)] ^= ring[at(13)].rotate_left(32);
}

impl<F: FFunction> Rotating<F> {
    /// `pub(crate)`: a variant whose F needs CPU features is made only
    /// through its row of `VARIANTS`, after its `available` check.
    pub(crate) fn new(key: &[u8; 16], iv: &[u8; 16]) -> Self {
        let mut m = Rotating {
            a: [0; 3],
            ring: [0; 16],
            out: [0; 16],
            pos: 16,
            f: std::marker::PhantomData,
        };
        m.init(key, iv);
        m
    }

    fn init(&mut self, key: &[u8; 16], iv: &[u8; 16]) {
        (self.a, self.ring) = key_and_iv::<F>(key, iv);
        // Step 3: 16 updates, their outputs not used.
        self.batch();
        self.pos = 16;
    }

    /// Sixteen rounds; `out` gets a2 before each.
    fn batch(&mut self) {
        macro_rules! rounds {
            ($($t:literal $off:literal),+) => {$(
                self.out[$t] = self.a[2];
                round::<F, $off>(&mut self.a, &mut self.ring);
            )+};
        }
        rounds!(0 0, 1 15, 2 14, 3 13, 4 12, 5 11, 6 10, 7 9,
                8 8, 9 7, 10 6, 11 5, 12 4, 13 3, 14 2, 15 1);
        self.pos = 0;
    }
}

impl<F: FFunction> Keystream64 for Rotating<F> {
    #[inline]
    fn next_u64(&mut self) -> u64 {
        if self.pos == 16 {
            self.batch();
        }
        let w = self.out[self.pos];
        self.pos += 1;
        w
    }

    fn reinit(&mut self, key: &[u8; 16], iv: &[u8; 16]) {
        self.init(key, iv);
    }

    fn state_bytes(&self) -> [u8; 32] {
        state_bytes(&self.a, self.ring[0])
    }
}
