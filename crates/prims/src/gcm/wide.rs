//! The inner loop of the 512-bit AES-GCM code ([`super::stitched`]): a run
//! of 256-byte steps, each encrypting sixteen counter blocks (four
//! registers) while sixteen blocks are hashed, the hash's multiplies placed
//! between the AES rounds in the program's order. Each block is multiplied
//! by its own power of H; the products are summed in 512-bit registers and
//! reduced once per window of [`WIN`] steps, inside the loop.
//!
//! Measured on Zen 4 (an assembly model of the loop, cycles from a
//! dependent-add chain): VAESENC on 512 bits issues once a cycle with a
//! latency of four, so four registers in flight keep the AES units busy at
//! their latency; VPCLMULQDQ on 512 bits takes two cycles alone but mixes
//! with the AES rounds at one (44 rounds and 12 multiplies, a 256-byte
//! step of AES-128 and its hash, in 56 cycles when nothing else runs).
//! The loop came to 63 cycles a step with the multiplies between the
//! rounds and 81 with them after, and each XOR that adds a product to a
//! sum cost about half a cycle (it took AES slots): the products are added
//! two at a time with one three-way XOR (61). In ango's latency study,
//! AES-128 sealing 16 KiB went from 1,300 ns (the compiler's order, one XOR
//! a product, the sealed step reloaded from its stores) to 1,144.
//! The round count is a constant, so the round keys stay in registers
//! (AES-256 spills a few; they become memory operands).
//! Constant time: no branch or index depends on the key or the data.

use super::stitched::{STEP, WIN};
use crate::aes::vaes512;
use crate::ghash::vpclmul;
use core::arch::asm;
use core::arch::x86_64::*;

/// One AES round of the four registers `b0`..`b3` with the key `$k`.
#[rustfmt::skip]
macro_rules! round {
    ($k:literal) => {
        concat!(
            "vaesenc {b0}, {b0}, ", $k, "\n",
            "vaesenc {b1}, {b1}, ", $k, "\n",
            "vaesenc {b2}, {b2}, ", $k, "\n",
            "vaesenc {b3}, {b3}, ", $k, "\n",
        )
    };
}

/// The hashed step's piece `$c` (64 bytes) into `$x`, byte-reversed, and
/// the sum of its halves (Karatsuba's middle factor) into `$xx`; with a
/// fourth argument, that register added to `$x` first (the state).
#[rustfmt::skip]
macro_rules! load {
    ($c:literal, $x:literal, $xx:literal) => {
        concat!("vpshufb ", $x, ", ", $c, ", {rev}\n", halves!($x, $xx))
    };
    ($c:literal, $x:literal, $xx:literal, $add:literal) => {
        concat!(
            "vpshufb ", $x, ", ", $c, ", {rev}\n",
            "vpxorq ", $x, ", ", $x, ", ", $add, "\n",
            halves!($x, $xx),
        )
    };
}

/// The sum of `$x`'s 64-bit halves into `$xx`.
#[rustfmt::skip]
macro_rules! halves {
    ($x:literal, $xx:literal) => {
        concat!(
            "vpshufd ", $xx, ", ", $x, ", 0x4e\n",
            "vpxorq ", $xx, ", ", $xx, ", ", $x, "\n",
        )
    };
}

/// Two pieces' products of one kind (`$imm` picks the halves) by their
/// powers at `$pa` and `$pb`, both added to the sum `$s` with one
/// three-way XOR.
#[rustfmt::skip]
macro_rules! mul2 {
    ($s:literal, $imm:literal, $xa:literal, $pa:literal, $xb:literal, $pb:literal) => {
        concat!(
            "vpclmulqdq {t}, ", $xa, ", zmmword ptr ", $pa, ", ", $imm, "\n",
            "vpclmulqdq {u}, ", $xb, ", zmmword ptr ", $pb, ", ", $imm, "\n",
            "vpternlogq ", $s, ", {t}, {u}, 0x96\n",
        )
    };
}

/// The three Karatsuba sums of a window (each 128-bit quarter a separate
/// partial sum): low, middle (not yet corrected by low and high), high.
pub(super) type Sums = (__m512i, __m512i, __m512i);

/// Where a run reads and writes.
pub(super) struct Run<'k> {
    /// The AES input of the first step and where its output goes (the same
    /// buffer or apart).
    pub src: *const u8,
    pub dst: *mut u8,
    /// Sealing: the ciphertext of the step before the run's first, hashed
    /// first (then each step's output is hashed beside the next step, and
    /// the run's last output is left unhashed). Opening ignores it: each
    /// step's own ciphertext is hashed.
    pub hash: *const u8,
    /// Steps in the run.
    pub steps: usize,
    /// The key's power tables ([`vpclmul::Key`]).
    pub powers: &'k [u8],
    pub xpowers: &'k [u8],
}

/// The sums folded to 256 bits (each register's two halves added), as
/// [`vpclmul::Agg`] keeps them.
#[inline]
#[target_feature(enable = "avx512f,avx2")]
pub(super) fn halves((lo, mid, hi): Sums) -> [__m256i; 3] {
    let half =
        |v: __m512i| _mm256_xor_si256(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64::<1>(v));
    [half(lo), half(mid), half(hi)]
}

/// The sums reduced: the new hash state.
#[inline]
#[target_feature(enable = "avx512f,vpclmulqdq,avx2,pclmulqdq,ssse3")]
pub(super) fn reduce(sums: Sums) -> __m128i {
    let [lo, mid, hi] = halves(sums);
    vpclmul::finish(lo, _mm256_xor_si256(mid, _mm256_xor_si256(lo, hi)), hi)
}

/// Encrypt (CTR; `SEAL`) or decrypt `r.steps` steps from `r.src` to
/// `r.dst` with the counters `ctr` (advanced), and hash as many steps of
/// ciphertext (see [`Run::hash`]) in windows of [`WIN`] steps from the
/// first: the hash state `acc` is added to the first block, the window's
/// products to `sums`, and at the start of each later window the sums are
/// reduced into the state added to its first block. `left(t)` is the
/// number of blocks of the window that starts at step `t` (for the first,
/// those still to come): its first block is multiplied by H^left(t).
/// Returns the sums of the last window.
///
/// # Safety
/// The CPU must have VAES, VPCLMULQDQ and AVX-512F/BW. `r.src` must be
/// valid for reading and `r.dst` for writing `STEP * r.steps` bytes, the
/// same buffer or apart; when sealing, `r.hash` valid for reading STEP
/// bytes.
#[inline]
#[target_feature(enable = "vaes,avx512f,avx512bw,aes,vpclmulqdq,avx2,pclmulqdq,ssse3")]
pub(super) unsafe fn run<const NR: usize, const SEAL: bool>(
    rk: &[__m512i; 15],
    ctr: &mut __m512i,
    r: &Run,
    acc: __m128i,
    sums: Sums,
    left: impl Fn(usize) -> usize,
) -> Sums {
    let k = rk;
    let rev = vaes512::rev();
    let four = _mm512_set_epi32(0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0, 4);
    let z = _mm512_setzero_si512();
    let (mut lo, mut mid, mut hi) = sums;
    let mut first = _mm512_zextsi128_si512(acc);
    let mut o = 0;
    // The four pieces of the step to hash next. Sealing hashes the step
    // before, so after the first they are the ciphertext just computed,
    // kept in registers: loaded again from where they were just stored,
    // the loads waited for the stores (a model of the loop: 62 -> 66
    // cycles a step).
    let load4 = |at: *const u8| -> [__m512i; 4] {
        core::array::from_fn(|i| {
            // SAFETY: the callers below load 256 bytes inside a step.
            unsafe { _mm512_loadu_si512(at.add(64 * i).cast()) }
        })
    };
    let mut c = if SEAL { load4(r.hash) } else { [z; 4] };
    for t in 0..r.steps {
        if t % WIN == 0 {
            if t > 0 {
                first = _mm512_zextsi128_si512(reduce((lo, mid, hi)));
                (lo, mid, hi) = (z, z, z);
            }
            // The powers of this window's steps lie inside the tables:
            // at(l) + 16 * l = 16 * MAX_BLOCKS.
            let l = left(t);
            assert!(STEP / 16 * WIN.min(r.steps - t) <= l && l <= vpclmul::MAX_BLOCKS);
            o = vpclmul::at(l);
        }
        assert!(o + STEP <= r.powers.len() && o + STEP <= r.xpowers.len());
        // SAFETY: offsets inside step `t` < `r.steps` of the buffers the
        // caller vouches for, and inside the tables (checked above).
        let (src, dst, p, px) = unsafe {
            (
                r.src.add(STEP * t),
                r.dst.add(STEP * t),
                r.powers.as_ptr().add(o),
                r.xpowers.as_ptr().add(o),
            )
        };
        o += STEP;
        if !SEAL {
            // Opening hashes the step it decrypts: its ciphertext, loaded
            // once for both.
            c = load4(src);
        }
        let b: [__m512i; 4] = core::array::from_fn(|_| {
            let x = _mm512_xor_si512(_mm512_shuffle_epi8(*ctr, rev), k[0]);
            *ctr = _mm512_add_epi32(*ctr, four);
            x
        });
        let [mut b0, mut b1, mut b2, mut b3] = b;
        // Rounds 1 to 8 of the four registers, and between them the hashed
        // step: pieces 0 and 1 byte-reversed (the state `first` added to
        // piece 0) after rounds 1 and 2, multiplied after rounds 3 to 5,
        // pieces 2 and 3 likewise from round 5. Written in assembly because
        // the compiler's scheduler moved all the hashing ahead of the
        // rounds and ran the four registers' rounds one register after
        // another (ango's latency study, sealing 16 KiB with AES-128: 1,311
        // -> 1,451 ns).
        // SAFETY: reads 256 bytes at `p` and at `px` (the step's powers,
        // inside the tables as checked above); registers only otherwise, no
        // stack, flags untouched.
        unsafe {
            asm!(
                round!("{k1}"),
                load!("{c0}", "{x0}", "{xx0}", "{first}"),
                round!("{k2}"),
                load!("{c1}", "{x1}", "{xx1}"),
                round!("{k3}"),
                mul2!("{lo}", "0x00", "{x0}", "[{p}]", "{x1}", "[{p} + 64]"),
                round!("{k4}"),
                mul2!("{hi}", "0x11", "{x0}", "[{p}]", "{x1}", "[{p} + 64]"),
                round!("{k5}"),
                mul2!("{mid}", "0x00", "{xx0}", "[{px}]", "{xx1}", "[{px} + 64]"),
                load!("{c2}", "{x0}", "{xx0}"),
                round!("{k6}"),
                load!("{c3}", "{x1}", "{xx1}"),
                round!("{k7}"),
                mul2!("{lo}", "0x00", "{x0}", "[{p} + 128]", "{x1}", "[{p} + 192]"),
                round!("{k8}"),
                mul2!("{hi}", "0x11", "{x0}", "[{p} + 128]", "{x1}", "[{p} + 192]"),
                mul2!("{mid}", "0x00", "{xx0}", "[{px} + 128]", "{xx1}", "[{px} + 192]"),
                b0 = inout(zmm_reg) b0,
                b1 = inout(zmm_reg) b1,
                b2 = inout(zmm_reg) b2,
                b3 = inout(zmm_reg) b3,
                lo = inout(zmm_reg) lo,
                mid = inout(zmm_reg) mid,
                hi = inout(zmm_reg) hi,
                k1 = in(zmm_reg) k[1],
                k2 = in(zmm_reg) k[2],
                k3 = in(zmm_reg) k[3],
                k4 = in(zmm_reg) k[4],
                k5 = in(zmm_reg) k[5],
                k6 = in(zmm_reg) k[6],
                k7 = in(zmm_reg) k[7],
                k8 = in(zmm_reg) k[8],
                c0 = in(zmm_reg) c[0],
                c1 = in(zmm_reg) c[1],
                c2 = in(zmm_reg) c[2],
                c3 = in(zmm_reg) c[3],
                rev = in(zmm_reg) rev,
                first = in(zmm_reg) first,
                p = in(reg) p,
                px = in(reg) px,
                x0 = out(zmm_reg) _,
                xx0 = out(zmm_reg) _,
                x1 = out(zmm_reg) _,
                xx1 = out(zmm_reg) _,
                t = out(zmm_reg) _,
                u = out(zmm_reg) _,
                options(nostack, readonly, preserves_flags),
            );
        }
        first = z;
        let mut b = [b0, b1, b2, b3];
        for key in &k[9..NR] {
            for x in b.iter_mut() {
                *x = _mm512_aesenc_epi128(*x, *key);
            }
        }
        for (i, x) in b.iter().enumerate() {
            let e = _mm512_aesenclast_epi128(*x, k[NR]);
            // SAFETY: 64 bytes inside step `t` of both buffers, read before
            // written.
            unsafe {
                let v = if SEAL {
                    _mm512_loadu_si512(src.add(64 * i).cast())
                } else {
                    c[i]
                };
                let out = _mm512_xor_si512(v, e);
                _mm512_storeu_si512(dst.add(64 * i).cast(), out);
                if SEAL {
                    c[i] = out;
                }
            }
        }
    }
    (lo, mid, hi)
}
