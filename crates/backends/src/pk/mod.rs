//! The public-key halves of the providers: OpenSSL 3.5 (its entries are in
//! the `openssl` provider), liboqs (the `oqs` crate's vendored build; a
//! provider of its own) and RustCrypto (in the `rustcrypto` provider), each
//! behind a cargo feature.

#[cfg(feature = "openssl")]
pub mod openssl;
#[cfg(feature = "pk-oqs")]
pub mod oqs;
#[cfg(feature = "pk-rustcrypto")]
pub mod rustcrypto;

/// FIPS 203 §7.3's decapsulation-key check, for the libraries that lack
/// one (PQClean, libsodium): the H(ek) stored in dk = dk_PKE ‖ ek ‖ H(ek) ‖
/// z must be SHA3-256 of the ek stored beside it. A caller of such a
/// library that takes a key from elsewhere must run it; their adapters run
/// it on import, never in a timed call. `dk` has the length of one of the
/// three parameter sets (the caller checked it).
#[cfg(any(feature = "pqclean", feature = "libsodium"))]
pub(crate) fn mlkem_dk_hash_ok(dk: &[u8]) -> bool {
    use sha3::Digest as _;
    let k = (dk.len() - 96) / 768;
    let ek = &dk[384 * k..768 * k + 32];
    let stored = &dk[768 * k + 32..768 * k + 64];
    sha3::Sha3_256::digest(ek).as_slice() == stored
}

/// The error an adapter returns when [`mlkem_dk_hash_ok`] fails.
#[cfg(any(feature = "pqclean", feature = "libsodium"))]
pub(crate) const DK_HASH_REFUSED: &str =
    "secret key refused: its H(ek) does not match the ek it holds (FIPS 203 §7.3)";

#[cfg(all(test, any(feature = "pqclean", feature = "libsodium")))]
mod tests {
    use sha3::Digest as _;

    #[test]
    fn the_dk_hash_check_reads_the_fips203_layout() {
        for k in [2usize, 3, 4] {
            // dk_PKE ‖ ek ‖ H(ek) ‖ z with arbitrary bytes and the right hash.
            let mut dk: Vec<u8> = (0..384 * k).map(|i| i as u8).collect();
            let ek: Vec<u8> = (0..384 * k + 32).map(|i| (i * 7) as u8).collect();
            dk.extend_from_slice(&ek);
            dk.extend_from_slice(sha3::Sha3_256::digest(&ek).as_slice());
            dk.extend_from_slice(&[9u8; 32]);
            assert_eq!(dk.len(), 768 * k + 96);
            assert!(super::mlkem_dk_hash_ok(&dk));
            for pos in [384 * k, 768 * k + 31, 768 * k + 32, 768 * k + 63] {
                let mut bad = dk.clone();
                bad[pos] ^= 1;
                assert!(!super::mlkem_dk_hash_ok(&bad), "k={k} pos={pos}");
            }
            // z and dk_PKE are not covered by the hash.
            let mut other = dk.clone();
            other[0] ^= 1;
            other[768 * k + 95] ^= 1;
            assert!(super::mlkem_dk_hash_ok(&other));
        }
    }
}
