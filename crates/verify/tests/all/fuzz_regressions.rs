//! Replays every input kept in fuzz/regressions/<target>/, plus a few
//! generated ones, through the differential checks the fuzz targets run.

use ango_verify::differential::{check, TARGETS};

/// A xorshift64 generator: the same inputs every run.
fn xorshift(mut x: u64) -> impl FnMut() -> u64 {
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    }
}

#[test]
fn kept_fuzz_inputs_still_pass() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fuzz/regressions");
    for t in TARGETS {
        let dir = std::path::Path::new(root).join(t);
        assert!(dir.is_dir(), "missing {}", dir.display());
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "md") {
                continue;
            }
            let data = std::fs::read(&p).unwrap();
            check(t, &data).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        }
    }
}

#[test]
fn reader_seeds_parse_and_their_mutations_never_panic() {
    // fuzz/seeds/<target>: slices of the vendored vector files and
    // Wycheproof files the reader targets start from; each parses whole.
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fuzz/seeds");
    let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
    for t in ["vector-file", "wycheproof"] {
        let mut n = 0;
        for e in std::fs::read_dir(std::path::Path::new(root).join(t)).unwrap() {
            let p = e.unwrap().path();
            let data = std::fs::read(&p).unwrap();
            let text = String::from_utf8_lossy(&data);
            if t == "wycheproof" {
                let whole = ango_verify::wycheproof::parse("seed", &text).is_ok()
                    || ango_verify::wycheproof_pk::parse("seed", &text).is_ok();
                assert!(whole, "{} does not parse", p.display());
            }
            for _ in 0..200 {
                let mut m = data.clone();
                let i = (next() as usize) % m.len();
                match next() % 3 {
                    0 => m[i] ^= 1 << (next() % 8),
                    1 => m.truncate(i),
                    _ => m.insert(i, b"{}[],:\"0e-"[(next() % 10) as usize]),
                }
                check(t, &m).unwrap();
            }
            n += 1;
        }
        assert!(n > 0, "fuzz/seeds/{t} is empty");
    }
}

#[test]
fn generated_inputs_pass_every_target() {
    let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
    for len in [0usize, 1, 47, 48, 49, 64, 100, 300, 700, 1500] {
        let data: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        for t in TARGETS {
            check(t, &data).unwrap_or_else(|e| panic!("{t} len {len}: {e}"));
        }
    }
    assert!(check("rot13", b"").is_err());
}

#[test]
fn every_selector_byte_reaches_every_provider() {
    // The first byte picks the algorithm (and for CCM the nonce and tag
    // lengths): sweep it, so every variant of each target and every
    // provider of it is compared at least once, with AAD and a message
    // that ends inside a block.
    let mut next = xorshift(0x2545_f491_4f6c_dd1d);
    let mut rest: Vec<u8> = (0..200).map(|_| next() as u8).collect();
    for t in ["aes", "chacha20-poly1305", "aes-gcm", "aes-ccm"] {
        for sel in 0..=255u8 {
            let mut data = vec![sel];
            data.append(&mut rest.clone());
            check(t, &data).unwrap_or_else(|e| panic!("{t} selector {sel}: {e}"));
        }
    }
    // The AAD length byte sits after key and nonce; make it zero once.
    rest[80..].fill(0);
    for t in TARGETS {
        check(t, &rest).unwrap_or_else(|e| panic!("{t} zeros: {e}"));
    }
}

#[test]
fn ctr_counters_carry_alike_across_every_provider() {
    // AES-CTR's 128-bit counter block near a 32- and a 64-bit boundary and
    // at the 128-bit wrap: every provider must carry (or wrap) the same way.
    for (sel, klen) in [(0u8, 16usize), (2, 32)] {
        for low in [
            [0u8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xfe],
            [
                0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
            ],
            [0xff; 16],
        ] {
            let mut data = vec![sel];
            data.extend((0..klen).map(|i| i as u8));
            data.extend_from_slice(&low);
            data.extend((0..100u8).map(|i| i.wrapping_mul(7)));
            check("aes", &data).unwrap_or_else(|e| panic!("{klen}-byte key, iv {low:02x?}: {e}"));
        }
    }
}
