//! Garbage in, a clear error out: what the fuzz targets `tls-dissect` and
//! `capture` feed the TLS lab's readers (the packet parser and TCP
//! reassembly that turn captured IP packets into byte streams, the key-log
//! reader, and the TLS 1.3 dissector). Each must return, never panic,
//! whatever the bytes; inputs that ever made one panic are kept in
//! `fuzz/regressions/<target>/` and replayed by the tests.

use crate::capture::{connections, parse_tcp, Packet};
use crate::tls13::{dissect, KeyLog};
use std::net::{Ipv4Addr, SocketAddrV4};

/// The targets, by name.
pub const TARGETS: &[&str] = &["tls-dissect", "capture"];

fn take<'a>(data: &mut &'a [u8], n: usize) -> &'a [u8] {
    let n = n.min(data.len());
    let (a, b) = data.split_at(n);
    *data = b;
    a
}

fn len16(data: &mut &[u8]) -> usize {
    let b = take(data, 2);
    usize::from(u16::from_le_bytes([
        b.first().copied().unwrap_or(0),
        b.get(1).copied().unwrap_or(0),
    ]))
}

/// Run one target on one input: `Ok` unless the target name is unknown (a
/// panic is the failure the fuzzer looks for).
pub fn check(target: &str, mut data: &[u8]) -> Result<(), String> {
    match target {
        "tls-dissect" => {
            // c2s stream, s2c stream, then key-log text, each behind a
            // 16-bit length.
            let n = len16(&mut data);
            let c2s = take(&mut data, n);
            let n = len16(&mut data);
            let s2c = take(&mut data, n);
            let mut keys = KeyLog::new();
            for line in String::from_utf8_lossy(data).lines() {
                let _ = keys.add_line(line);
            }
            let d = dissect(c2s, s2c, &keys);
            let _ = (d.problems.len(), d.c2s_records.len(), d.s2c_records.len());
            Ok(())
        }
        "capture" => {
            // IP packets, each behind a 16-bit length and a direction byte,
            // reassembled into connections as the lab does with its
            // captures, and each connection's streams dissected.
            let mut packets = Vec::new();
            let mut t = 0u64;
            while !data.is_empty() {
                let dir = take(&mut data, 1)[0];
                let n = len16(&mut data);
                let ip = take(&mut data, n).to_vec();
                let _ = parse_tcp(&ip);
                t += 1000;
                packets.push(Packet {
                    t_ns: t,
                    outgoing: dir & 1 == 1,
                    data: ip,
                });
            }
            // Two captures, as the lab has one per namespace: every third
            // packet goes to the second.
            let (a, b): (Vec<Packet>, Vec<Packet>) =
                packets.into_iter().partition(|p| p.t_ns % 3000 != 0);
            let server = SocketAddrV4::new(Ipv4Addr::new(10, 0, 0, 1), 4433);
            for c in connections(&[&a, &b], server) {
                let _ = dissect(&c.c2s, &c.s2c, &KeyLog::new());
            }
            Ok(())
        }
        _ => Err(format!(
            "unknown target '{target}'; valid: {}",
            TARGETS.join(", ")
        )),
    }
}

#[cfg(test)]
mod tests {
    // Replays the `tls-dissect` and `capture` fuzz targets' kept inputs
    // (fuzz/regressions/<target>/) and seeds (fuzz/seeds/<target>/), and many
    // mutations of the seeds (bits flipped, bytes cut, bytes inserted): the
    // readers must return, never panic.

    use super::{check, TARGETS};
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
        let mut keys = crate::tls13::KeyLog::new();
        for line in String::from_utf8_lossy(&rest[2 + m..]).lines() {
            assert!(keys.add_line(line), "{line}");
        }
        let d = crate::tls13::dissect(c2s, s2c, &keys);
        assert!(d.problems.is_empty(), "{:?}", d.problems);
        assert!(
            d.c2s.len() >= 2 && d.s2c.len() >= 6,
            "{} {}",
            d.c2s.len(),
            d.s2c.len()
        );
    }
}
