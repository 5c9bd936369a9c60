//! What every AEAD here shares: the failed-tag error and the constant-time
//! comparison of tags.

/// The tag did not verify; the buffer was left untouched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AuthError;

/// Constant-time equality of two tags: no early exit on the first
/// difference.
pub fn ct_eq(a: &[u8; 16], b: &[u8; 16]) -> bool {
    ct_eq_slices(a, b)
}

/// Constant-time comparison of byte strings (their lengths are public).
pub fn ct_eq_slices(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len()
        && std::hint::black_box(a.iter().zip(b).fold(0u8, |d, (x, y)| d | (x ^ y))) == 0
}
