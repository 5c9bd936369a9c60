//! Hierocrypt-3 straight from the description, byte by byte: XS(X) =
//! S(mdsL(S(X ⊕ A)) ⊕ B) with mdsL as GF(2^8) products (by a table of
//! the products with each of its four coefficients), then MDSH by its
//! coefficients' maps on the columns; decryption the inverse operations in
//! reverse order with the same keys. NOT constant time: the S-box is a
//! table indexed by secret bytes.

use super::spec::{mds_l_by, mdsh, INV_SBOX, MH, MH_INV, ML_INV_PRODUCTS, ML_PRODUCTS, SBOX};
use super::{DataPath, Keys};

fn xor(x: [u32; 4], k: &[u32; 4]) -> [u32; 4] {
    core::array::from_fn(|j| x[j] ^ k[j])
}

/// The S-box (or its inverse) on every byte.
fn s(x: [u32; 4], sbox: &[u8; 256]) -> [u32; 4] {
    x.map(|w| u32::from_be_bytes(w.to_be_bytes().map(|b| sbox[b as usize])))
}

/// The four XS-boxes: S, mdsL, the second key, S.
fn xs(x: [u32; 4], a: &[u32; 4], b: &[u32; 4]) -> [u32; 4] {
    let y = s(xor(x, a), &SBOX).map(|c| mds_l_by(&ML_PRODUCTS, c));
    s(xor(y, b), &SBOX)
}

fn xs_inv(x: [u32; 4], a: &[u32; 4], b: &[u32; 4]) -> [u32; 4] {
    let y = xor(s(x, &INV_SBOX), b).map(|c| mds_l_by(&ML_INV_PRODUCTS, c));
    xor(s(y, &INV_SBOX), a)
}

pub struct Straight;

impl DataPath for Straight {
    fn encrypt(k: &Keys, mut x: [u32; 4]) -> [u32; 4] {
        for r in 0..k.t - 1 {
            x = mdsh(&MH, xs(x, &k.a[r], &k.b[r]));
        }
        xor(xs(x, &k.a[k.t - 1], &k.b[k.t - 1]), &k.a[k.t])
    }

    fn decrypt(k: &Keys, x: [u32; 4]) -> [u32; 4] {
        let mut x = xs_inv(xor(x, &k.a[k.t]), &k.a[k.t - 1], &k.b[k.t - 1]);
        for r in (0..k.t - 1).rev() {
            x = xs_inv(mdsh(&MH_INV, x), &k.a[r], &k.b[r]);
        }
        x
    }
}

pub type Key = super::Key<Straight>;
