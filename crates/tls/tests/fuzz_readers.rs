//! Replays the `tls-dissect` and `capture` fuzz targets' kept inputs
//! (fuzz/regressions/<target>/) and seeds (fuzz/seeds/<target>/), and many
//! mutations of the seeds (bits flipped, bytes cut, bytes inserted): the
//! readers must return, never panic.

use ango_tls::fuzz_readers::{check, TARGETS};
use std::path::Path;

fn files(dir: &Path) -> Vec<Vec<u8>> {
    let mut v = Vec::new();
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "md") {
                continue;
            }
            v.push(std::fs::read(&p).unwrap());
        }
    }
    v
}

#[test]
fn kept_inputs_seeds_and_their_mutations_never_panic() {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fuzz"));
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for t in TARGETS {
        assert!(
            root.join("regressions").join(t).is_dir(),
            "missing fuzz/regressions/{t}"
        );
        for data in files(&root.join("regressions").join(t)) {
            check(t, &data).unwrap();
        }
        let seeds = files(&root.join("seeds").join(t));
        assert!(!seeds.is_empty(), "fuzz/seeds/{t} is empty");
        for seed in seeds {
            check(t, &seed).unwrap();
            for _ in 0..300 {
                let mut m = seed.clone();
                match next() % 3 {
                    0 => {
                        for _ in 0..1 + next() % 8 {
                            let i = (next() as usize) % m.len();
                            m[i] ^= 1 << (next() % 8);
                        }
                    }
                    1 => m.truncate((next() as usize) % (m.len() + 1)),
                    _ => {
                        let i = (next() as usize) % m.len();
                        m[i] = next() as u8;
                        m.insert(i, next() as u8);
                    }
                }
                check(t, &m).unwrap();
            }
        }
    }
    assert!(check("pcapng", b"").is_err());
}

#[test]
fn the_dissect_seed_is_a_whole_decryptable_handshake() {
    // The seed starts the fuzzer from RFC 8448's trace with its key log, so
    // mutations reach record decryption, not just the framing.
    let p = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fuzz/seeds/tls-dissect/rfc8448-simple-1rtt"
    );
    let seed = std::fs::read(p).unwrap();
    let n = usize::from(u16::from_le_bytes([seed[0], seed[1]]));
    let c2s = &seed[2..2 + n];
    let rest = &seed[2 + n..];
    let m = usize::from(u16::from_le_bytes([rest[0], rest[1]]));
    let s2c = &rest[2..2 + m];
    let mut keys = ango_tls::tls13::KeyLog::new();
    for line in String::from_utf8_lossy(&rest[2 + m..]).lines() {
        assert!(keys.add_line(line), "{line}");
    }
    let d = ango_tls::tls13::dissect(c2s, s2c, &keys);
    assert!(d.problems.is_empty(), "{:?}", d.problems);
    assert!(
        d.c2s.len() >= 2 && d.s2c.len() >= 6,
        "{} {}",
        d.c2s.len(),
        d.s2c.len()
    );
}
