//! Canonical algorithm names and measurement settings.
//!
//! Every command, record and chart uses the lower-case names defined here
//! (`aes-128-gcm`, `chacha20-poly1305`, ...). Parsing is the only place a
//! user's spelling is accepted; it is case-insensitive and answers unknown
//! names with the list of valid ones.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::fmt;

/// What shape of primitive an algorithm is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Authenticated encryption with associated data.
    Aead,
    /// Unauthenticated cipher: a block-cipher mode or a stream cipher.
    Cipher,
}

macro_rules! algorithms {
    ($( $var:ident => $name:literal, $kind:ident, key $key:literal, nonce $nonce:literal, tag $tag:literal, block $block:literal; )*) => {
        /// A symmetric algorithm ango can measure, by its canonical name.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Algorithm { $( $var, )* }

        impl Algorithm {
            /// Every algorithm, in the order tables list them.
            pub const ALL: &'static [Algorithm] = &[ $( Algorithm::$var, )* ];

            /// The canonical lower-case name.
            pub const fn name(self) -> &'static str {
                match self { $( Algorithm::$var => $name, )* }
            }
            pub const fn kind(self) -> Kind {
                match self { $( Algorithm::$var => Kind::$kind, )* }
            }
            /// Key length in bytes.
            pub const fn key_len(self) -> usize {
                match self { $( Algorithm::$var => $key, )* }
            }
            /// Nonce (AEAD) or IV (cipher) length in bytes used for measurement;
            /// 0 for ECB. ChaCha20's IV is OpenSSL's 16-byte layout:
            /// 32-bit little-endian block counter, then the 12-byte nonce.
            pub const fn nonce_len(self) -> usize {
                match self { $( Algorithm::$var => $nonce, )* }
            }
            /// Tag length in bytes used for measurement (0 for ciphers).
            pub const fn tag_len(self) -> usize {
                match self { $( Algorithm::$var => $tag, )* }
            }
            /// Message lengths must be a multiple of this (ECB: 16).
            pub const fn block_multiple(self) -> usize {
                match self { $( Algorithm::$var => $block, )* }
            }
        }
    };
}

algorithms! {
    Aes128Gcm => "aes-128-gcm", Aead, key 16, nonce 12, tag 16, block 1;
    Aes256Gcm => "aes-256-gcm", Aead, key 32, nonce 12, tag 16, block 1;
    Aes128Ccm => "aes-128-ccm", Aead, key 16, nonce 12, tag 16, block 1;
    Aes256Ccm => "aes-256-ccm", Aead, key 32, nonce 12, tag 16, block 1;
    ChaCha20Poly1305 => "chacha20-poly1305", Aead, key 32, nonce 12, tag 16, block 1;
    XChaCha20Poly1305 => "xchacha20-poly1305", Aead, key 32, nonce 24, tag 16, block 1;
    Aes128Ecb => "aes-128-ecb", Cipher, key 16, nonce 0, tag 0, block 16;
    Aes256Ecb => "aes-256-ecb", Cipher, key 32, nonce 0, tag 0, block 16;
    ChaCha20 => "chacha20", Cipher, key 32, nonce 16, tag 0, block 1;
    Aes128Ctr => "aes-128-ctr", Cipher, key 16, nonce 16, tag 0, block 1;
    Aes256Ctr => "aes-256-ctr", Cipher, key 32, nonce 16, tag 0, block 1;
    Camellia128Ecb => "camellia-128-ecb", Cipher, key 16, nonce 0, tag 0, block 16;
    Camellia192Ecb => "camellia-192-ecb", Cipher, key 24, nonce 0, tag 0, block 16;
    Camellia256Ecb => "camellia-256-ecb", Cipher, key 32, nonce 0, tag 0, block 16;
    Camellia128Ctr => "camellia-128-ctr", Cipher, key 16, nonce 16, tag 0, block 1;
    Camellia256Ctr => "camellia-256-ctr", Cipher, key 32, nonce 16, tag 0, block 1;
    Sc2000_128Ecb => "sc2000-128-ecb", Cipher, key 16, nonce 0, tag 0, block 16;
    Sc2000_192Ecb => "sc2000-192-ecb", Cipher, key 24, nonce 0, tag 0, block 16;
    Sc2000_256Ecb => "sc2000-256-ecb", Cipher, key 32, nonce 0, tag 0, block 16;
    Hierocrypt3_128Ecb => "hierocrypt3-128-ecb", Cipher, key 16, nonce 0, tag 0, block 16;
    Hierocrypt3_192Ecb => "hierocrypt3-192-ecb", Cipher, key 24, nonce 0, tag 0, block 16;
    Hierocrypt3_256Ecb => "hierocrypt3-256-ecb", Cipher, key 32, nonce 0, tag 0, block 16;
    CipherunicornA128Ecb => "cipherunicorn-a-128-ecb", Cipher, key 16, nonce 0, tag 0, block 16;
    CipherunicornA192Ecb => "cipherunicorn-a-192-ecb", Cipher, key 24, nonce 0, tag 0, block 16;
    CipherunicornA256Ecb => "cipherunicorn-a-256-ecb", Cipher, key 32, nonce 0, tag 0, block 16;
    Mugi => "mugi", Cipher, key 16, nonce 16, tag 0, block 1;
}

impl Algorithm {
    /// The default set of `ango speed`: the nine of seed 000 plus AES-CTR
    /// and XChaCha20-Poly1305 (the CRYPTREC ciphers of seed 002 are named
    /// with `--algo`, and measured by `ango cycles`).
    pub const DEFAULT_SPEED: &'static [Algorithm] = &[
        Algorithm::Aes128Gcm,
        Algorithm::Aes256Gcm,
        Algorithm::Aes128Ccm,
        Algorithm::Aes256Ccm,
        Algorithm::ChaCha20Poly1305,
        Algorithm::XChaCha20Poly1305,
        Algorithm::Aes128Ecb,
        Algorithm::Aes256Ecb,
        Algorithm::ChaCha20,
        Algorithm::Aes128Ctr,
        Algorithm::Aes256Ctr,
    ];

    /// Seed 002's ciphers, every key size: the default of `ango cycles`
    /// (which adds AES-128/256-ECB for reference).
    pub const CRYPTREC: &'static [Algorithm] = &[
        Algorithm::Camellia128Ecb,
        Algorithm::Camellia192Ecb,
        Algorithm::Camellia256Ecb,
        Algorithm::CipherunicornA128Ecb,
        Algorithm::CipherunicornA192Ecb,
        Algorithm::CipherunicornA256Ecb,
        Algorithm::Hierocrypt3_128Ecb,
        Algorithm::Hierocrypt3_192Ecb,
        Algorithm::Hierocrypt3_256Ecb,
        Algorithm::Sc2000_128Ecb,
        Algorithm::Sc2000_192Ecb,
        Algorithm::Sc2000_256Ecb,
        Algorithm::Mugi,
    ];

    /// The cipher an algorithm is a mode of (`camellia` for
    /// `camellia-128-ctr`, `mugi`), for grouping seed 002's tables.
    pub fn cipher_name(self) -> &'static str {
        let n = self.name();
        for c in [
            "camellia",
            "sc2000",
            "hierocrypt3",
            "cipherunicorn-a",
            "aes",
            "mugi",
        ] {
            if n.starts_with(c) {
                return c;
            }
        }
        n
    }

    /// Why no library provides the algorithm, for the ciphers of seed 002
    /// that only their designers' code implements (`ango list` shows it
    /// for every library).
    pub fn library_note(self) -> Option<String> {
        let who = match self.cipher_name() {
            "sc2000" => "SC2000",
            "hierocrypt3" => "Hierocrypt-3",
            "cipherunicorn-a" => "CIPHERUNICORN-A",
            "mugi" => "MUGI",
            _ => return None,
        };
        Some(format!(
            "no library ango links (OpenSSL, RustCrypto, libgcrypt, ring, AWS-LC, libsodium, \
             LibTomCrypt) implements {who}"
        ))
    }

    /// How the algorithm is checked when no official test data exist
    /// (CIPHERUNICORN-A: NEC published none that can be reached), for
    /// `ango list`, `ango verify` and the report.
    pub fn unofficial_check(self) -> Option<&'static str> {
        (self.cipher_name() == "cipherunicorn-a").then_some(
            "no official test data exist (NEC's are not reachable; it was never a NESSIE \
             submission): checked by its S-boxes against their algebraic definition, A3 \
             against Robshaw's worked example, 42 cases computed by an independent \
             implementation (Jither/cryptopunk, vectors/cipherunicorn-a-crosscheck.txt), \
             decryption against encryption and its variants against each other",
        )
    }

    /// Whether the algorithm is ECB of a 128-bit block cipher (or MUGI):
    /// what `ango cycles` times per block.
    pub fn cycles_capable(self) -> bool {
        self.kind() == Kind::Cipher && (self.block_multiple() == 16 || self == Algorithm::Mugi)
    }

    /// Parse a user's name (case-insensitive, `_` accepted for `-`).
    pub fn parse(s: &str) -> Result<Algorithm> {
        let norm = s.trim().to_ascii_lowercase().replace('_', "-");
        Algorithm::ALL
            .iter()
            .copied()
            .find(|a| a.name() == norm)
            .ok_or_else(|| {
                Error::usage(format!(
                    "unknown algorithm '{s}'; valid: {}",
                    names(Algorithm::ALL.iter().map(|a| a.name()))
                ))
            })
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for Algorithm {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Algorithm {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Algorithm::parse(&s).map_err(serde::de::Error::custom)
    }
}

/// Which CPU features the backend may use for a point.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Hw {
    /// Everything the CPU offers.
    On,
    /// The AES and carry-less-multiply instructions removed (AES-NI,
    /// PCLMULQDQ and their 256/512-bit forms VAES, VPCLMULQDQ), nothing
    /// else; see [`Hw::ia32cap`].
    Off,
    /// Seed 000's exact mask `~0x200000200000000`, which also clears
    /// OpenSSL's extended capability word (AVX2, BMI2, ADX, VAES, ...).
    Seed000,
}

impl Hw {
    pub const ALL: &'static [Hw] = &[Hw::On, Hw::Off, Hw::Seed000];

    pub const fn name(self) -> &'static str {
        match self {
            Hw::On => "on",
            Hw::Off => "off",
            Hw::Seed000 => "seed000",
        }
    }

    /// The `OPENSSL_ia32cap` value that realises this setting in OpenSSL.
    ///
    /// The first word clears bit 57 (AES-NI, CPUID.1:ECX.25) and bit 33
    /// (PCLMULQDQ, CPUID.1:ECX.1). The second clears bits 41 and 42 (VAES and
    /// VPCLMULQDQ, CPUID.7:ECX.9/10): OpenSSL 3.5 picks its VAES/AVX-512 GCM
    /// and AES code by those bits, not by the AES-NI bit, so leaving them set
    /// would leave AES in hardware on CPUs that expose AVX-512. OpenSSL 3.5
    /// keeps ten capability words and zeroes every word pair that the
    /// variable does not mention, so the remaining three pairs are given as
    /// `~0` (keep). Seed 000's mask has no `:` part at all and so also zeroes
    /// the extended words (AVX2, BMI2, ADX, AVX-512, ...).
    pub const fn ia32cap(self) -> Option<&'static str> {
        match self {
            Hw::On => None,
            Hw::Off => Some("~0x200000200000000:~0x60000000000:~0:~0:~0"),
            Hw::Seed000 => Some("~0x200000200000000"),
        }
    }

    pub fn parse(s: &str) -> Result<Hw> {
        Hw::ALL
            .iter()
            .copied()
            .find(|h| h.name() == s.trim().to_ascii_lowercase())
            .ok_or_else(|| {
                Error::usage(format!("unknown hw setting '{s}'; valid: on, off, seed000"))
            })
    }

    /// Parse the `--hw` flag: `on`, `off`, `seed000`, `both` (= on, off),
    /// `all`, or a comma-separated list of them.
    pub fn parse_list(s: &str) -> Result<Vec<Hw>> {
        let mut v: Vec<Hw> = Vec::new();
        for part in list_items(s, "--hw", "on, off, both, seed000, all")? {
            let add: &[Hw] = match part.trim().to_ascii_lowercase().as_str() {
                "both" => &[Hw::On, Hw::Off],
                "all" => Hw::ALL,
                "on" => &[Hw::On],
                "off" => &[Hw::Off],
                "seed000" => &[Hw::Seed000],
                _ => {
                    return Err(Error::usage(format!(
                        "invalid --hw '{s}'; valid: on, off, both, seed000, all, or a comma-separated list"
                    )))
                }
            };
            for h in add {
                if !v.contains(h) {
                    v.push(*h);
                }
            }
        }
        Ok(v)
    }
}

impl fmt::Display for Hw {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The direction of a symmetric measurement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Operation {
    Encrypt,
    Decrypt,
}

impl Operation {
    pub const fn name(self) -> &'static str {
        match self {
            Operation::Encrypt => "encrypt",
            Operation::Decrypt => "decrypt",
        }
    }

    pub fn parse_list(s: &str) -> Result<Vec<Operation>> {
        match s.trim().to_ascii_lowercase().as_str() {
            "encrypt" => Ok(vec![Operation::Encrypt]),
            "decrypt" => Ok(vec![Operation::Decrypt]),
            "both" => Ok(vec![Operation::Encrypt, Operation::Decrypt]),
            _ => Err(Error::usage(format!(
                "invalid --op '{s}'; valid: encrypt, decrypt, both"
            ))),
        }
    }
}

impl fmt::Display for Operation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The items of a comma-separated option value, trimmed. An empty item
/// (`16,,64`, a trailing comma, an empty value) is refused with one line
/// naming the flag and the valid values, never skipped.
pub fn list_items<'a>(s: &'a str, flag: &str, valid: &str) -> Result<Vec<&'a str>> {
    let items: Vec<&str> = s.split(',').map(str::trim).collect();
    if items.iter().any(|x| x.is_empty()) {
        return Err(Error::usage(format!(
            "invalid {flag} '{s}': an empty item in the list; give comma-separated values, valid: {valid}"
        )));
    }
    Ok(items)
}

/// Join names as `a, b, c` for error messages.
pub fn names<'a>(it: impl IntoIterator<Item = &'a str>) -> String {
    it.into_iter().collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_are_lower_case() {
        for &a in Algorithm::ALL {
            assert_eq!(Algorithm::parse(a.name()).unwrap(), a);
            assert_eq!(a.name(), a.name().to_ascii_lowercase());
        }
        assert_eq!(
            Algorithm::parse("AES_128_GCM").unwrap(),
            Algorithm::Aes128Gcm
        );
    }

    #[test]
    fn unknown_name_lists_valid_ones() {
        let e = Algorithm::parse("rot13").unwrap_err().to_string();
        assert!(
            e.contains("rot13") && e.contains("chacha20-poly1305"),
            "{e}"
        );
    }

    #[test]
    fn hw_masks() {
        assert_eq!(
            Hw::Off.ia32cap(),
            Some("~0x200000200000000:~0x60000000000:~0:~0:~0")
        );
        assert_eq!(Hw::Seed000.ia32cap(), Some("~0x200000200000000"));
        assert_eq!(Hw::parse_list("both").unwrap(), vec![Hw::On, Hw::Off]);
        assert!(Hw::parse_list("maybe").is_err());
        assert_eq!(
            Hw::parse_list("on,seed000,on").unwrap(),
            vec![Hw::On, Hw::Seed000]
        );
        assert_eq!(Hw::parse_list("all").unwrap(), Hw::ALL.to_vec());
    }
}
