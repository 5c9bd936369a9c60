//! Replays every input kept in fuzz/regressions/<target>/, plus a few
//! generated ones, through the differential checks the fuzz targets run.

use ango_verify::differential::{check, TARGETS};

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
fn generated_inputs_pass_every_target() {
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    for len in [0usize, 1, 47, 48, 49, 64, 100, 300, 700, 1500] {
        let data: Vec<u8> = (0..len)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                s as u8
            })
            .collect();
        for t in TARGETS {
            check(t, &data).unwrap_or_else(|e| panic!("{t} len {len}: {e}"));
        }
    }
    assert!(check("rot13", b"").is_err());
}
