//! ango's own primitives against the vector files: every variant (and every
//! pair of variants for the AEADs) must reproduce every case.

use ango_prims::aead::{AuthError, ChaCha20Poly1305, XChaCha20Poly1305};
use ango_prims::chacha20::{hchacha20, ChaCha20};
use ango_prims::poly1305::Poly1305;
use ango_verify::vectors::builtin_section;

fn arr<const N: usize>(v: &[u8]) -> [u8; N] {
    v.try_into()
        .unwrap_or_else(|_| panic!("expected {N} bytes, got {}", v.len()))
}

#[test]
fn poly1305_every_variant() {
    let cases = builtin_section("poly1305").unwrap();
    assert!(cases.len() >= 12);
    for (_, c) in &cases {
        let key = arr::<32>(c.get("KEY").unwrap());
        let msg = c.get("IN").unwrap();
        let tag = c.get("TAG").unwrap();
        c.finish().unwrap();
        for v in Poly1305::available() {
            assert_eq!(v.mac(&key, msg).as_slice(), tag, "{} {}", v.name(), c.name);
        }
    }
}

#[test]
fn hchacha20_vectors() {
    let cases = builtin_section("hchacha20").unwrap();
    assert!(!cases.is_empty());
    for (_, c) in &cases {
        let out = hchacha20(&arr(c.get("KEY").unwrap()), &arr(c.get("NONCE").unwrap()));
        assert_eq!(out.as_slice(), c.get("OUT").unwrap(), "{}", c.name);
        c.finish().unwrap();
    }
}

#[test]
fn chacha20_every_variant_every_file() {
    let cases = builtin_section("chacha20").unwrap();
    assert!(cases.len() >= 13);
    for (_, c) in &cases {
        let key = arr::<32>(c.get("KEY").unwrap());
        let iv = c.get("IV").unwrap();
        let counter = u32::from_le_bytes(arr(&iv[..4]));
        let nonce = arr::<12>(&iv[4..]);
        let (pt, ct) = (c.get("IN").unwrap(), c.get("OUT").unwrap());
        c.finish().unwrap();
        for v in ChaCha20::available() {
            let mut b = pt.to_vec();
            v.xor_keystream(&key, counter, &nonce, &mut b);
            assert_eq!(b, ct, "{} {}", v.name(), c.name);
        }
    }
}

fn aead_cases(
    section: &str,
    mut check: impl FnMut(&str, &[u8], &[u8], &[u8], &[u8], &[u8], &[u8], bool),
) {
    let cases = builtin_section(section).unwrap();
    assert!(!cases.is_empty());
    for (_, c) in &cases {
        let (k, n, ad) = (
            c.get("KEY").unwrap(),
            c.get("NONCE").unwrap(),
            c.get("AD").unwrap(),
        );
        let (pt, ct, tag) = (
            c.get("IN").unwrap(),
            c.get("CT").unwrap(),
            c.get("TAG").unwrap(),
        );
        c.finish().unwrap();
        check(&c.name, k, n, ad, pt, ct, tag, c.fails);
    }
}

#[test]
fn chacha20_poly1305_every_pair_of_variants() {
    aead_cases("chacha20-poly1305", |name, k, n, ad, pt, ct, tag, fails| {
        for cv in ChaCha20::available() {
            for pv in Poly1305::available() {
                let a = ChaCha20Poly1305::new(&arr(k), cv, pv);
                let mut buf = ct.to_vec();
                let r = a.open(&arr(n), ad, &mut buf, &arr(tag));
                if fails {
                    assert_eq!(r, Err(AuthError), "{name} {}", a.variant_name());
                    assert_eq!(buf, ct, "rejected open changed the buffer");
                } else {
                    r.unwrap();
                    assert_eq!(buf, pt, "{name}");
                    let mut s = pt.to_vec();
                    assert_eq!(
                        a.seal(&arr(n), ad, &mut s).as_slice(),
                        tag,
                        "{name} {}",
                        a.variant_name()
                    );
                    assert_eq!(s, ct);
                }
            }
        }
    });
}

#[test]
fn xchacha20_poly1305_every_pair_of_variants() {
    aead_cases(
        "xchacha20-poly1305",
        |name, k, n, ad, pt, ct, tag, fails| {
            for cv in ChaCha20::available() {
                for pv in Poly1305::available() {
                    let a = XChaCha20Poly1305::new(&arr(k), cv, pv);
                    let mut buf = ct.to_vec();
                    let r = a.open(&arr(n), ad, &mut buf, &arr(tag));
                    if fails {
                        assert_eq!(r, Err(AuthError), "{name}");
                    } else {
                        r.unwrap();
                        assert_eq!(buf, pt, "{name}");
                        let mut s = pt.to_vec();
                        assert_eq!(a.seal(&arr(n), ad, &mut s).as_slice(), tag, "{name}");
                    }
                }
            }
        },
    );
}

/// Wycheproof's full XChaCha20-Poly1305 file (vectors/wycheproof/), every
/// pair of variants: valid cases seal and open exactly, every other case is
/// rejected (a nonce that is not 24 bytes cannot even be expressed).
#[test]
fn wycheproof_xchacha20_poly1305_every_pair_of_variants() {
    let text = include_str!("../../../vectors/wycheproof/xchacha20_poly1305_test.json");
    let v: serde_json::Value = serde_json::from_str(text).unwrap();
    let hx = |t: &serde_json::Value, k: &str| hex::decode(t[k].as_str().unwrap()).unwrap();
    let mut checked = 0;
    for g in v["testGroups"].as_array().unwrap() {
        for t in g["tests"].as_array().unwrap() {
            let (key, iv, aad, msg, ct, tag) = (
                hx(t, "key"),
                hx(t, "iv"),
                hx(t, "aad"),
                hx(t, "msg"),
                hx(t, "ct"),
                hx(t, "tag"),
            );
            let valid = t["result"] == "valid";
            if iv.len() != 24 || tag.len() != 16 || key.len() != 32 {
                assert!(!valid, "tcId {} is valid with odd sizes", t["tcId"]);
                continue;
            }
            for cv in ChaCha20::available() {
                for pv in Poly1305::available() {
                    let a = XChaCha20Poly1305::new(&arr(&key), cv, pv);
                    let mut buf = ct.clone();
                    let opened = a.open(&arr(&iv), &aad, &mut buf, &arr(&tag)).is_ok();
                    assert_eq!(
                        opened,
                        valid,
                        "tcId {} {}+{}",
                        t["tcId"],
                        cv.name(),
                        pv.name()
                    );
                    if valid {
                        assert_eq!(buf, msg);
                        let mut s = msg.clone();
                        assert_eq!(a.seal(&arr(&iv), &aad, &mut s).to_vec(), tag);
                        assert_eq!(s, ct);
                    }
                }
            }
            checked += 1;
        }
    }
    assert!(checked > 250, "{checked}");
}

/// Every row of every CRYPTREC cipher's variant table that runs here
/// reproduces every ECB and CTR vector of its cipher, both ways.
#[test]
fn cryptrec_every_variant_every_vector() {
    use ango_prims::cryptrec::BLOCK_CIPHERS;
    let mut checked = 0;
    for (cipher, rows) in BLOCK_CIPHERS {
        let sections: Vec<String> = ["128", "192", "256"]
            .iter()
            .flat_map(|b| [format!("{cipher}-{b}-ecb"), format!("{cipher}-{b}-ctr")])
            .collect();
        let mut cases = Vec::new();
        for s in &sections {
            cases.extend(builtin_section(s).unwrap());
        }
        assert!(!cases.is_empty(), "{cipher} has no vectors");
        for v in rows.iter().filter(|v| (v.available)().is_ok()) {
            for (_, c) in &cases {
                let key = c.get("KEY").unwrap();
                let iv = c.get("IV").unwrap();
                let (pt, ct) = (c.get("IN").unwrap(), c.get("OUT").unwrap());
                c.finish().unwrap();
                let k = (v.make)(key).unwrap();
                let mut b = pt.to_vec();
                if c.section.ends_with("-ctr") {
                    k.ctr(&arr(iv), &mut b);
                } else {
                    assert!(iv.is_empty());
                    k.encrypt_blocks(&mut b);
                }
                assert_eq!(b, ct, "{cipher}/{} {}", v.name, c.name);
                if !c.section.ends_with("-ctr") {
                    k.decrypt_blocks(&mut b);
                    assert_eq!(b, pt, "{cipher}/{} {} decrypt", v.name, c.name);
                    // One block at a time gives the same.
                    let mut one = arr::<16>(&pt[..16]);
                    k.encrypt_block(&mut one);
                    assert_eq!(&one[..], &ct[..16], "{cipher}/{} {}", v.name, c.name);
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 1000, "{checked}");
}

/// The variants of each cipher agree on random keys and lengths (ECB both
/// ways, CTR, the key schedule's bytes after a rekey), and refuse bad key
/// lengths.
#[test]
fn cryptrec_variants_agree() {
    use ango_prims::cryptrec::BLOCK_CIPHERS;
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for (cipher, rows) in BLOCK_CIPHERS {
        let rows: Vec<_> = rows.iter().filter(|v| (v.available)().is_ok()).collect();
        for v in &rows {
            for bad in [0, 15, 17, 31, 33] {
                assert!(
                    (v.make)(&vec![0u8; bad]).is_none(),
                    "{cipher}/{} {bad}",
                    v.name
                );
            }
        }
        for round in 0..60 {
            let klen = [16, 24, 32][round % 3];
            let key: Vec<u8> = (0..klen).map(|_| next() as u8).collect();
            let blocks = (next() % 70) as usize;
            let msg: Vec<u8> = (0..16 * blocks).map(|_| next() as u8).collect();
            let iv: [u8; 16] = core::array::from_fn(|_| next() as u8);
            let mut outs = Vec::new();
            for v in &rows {
                let mut k = (v.make)(&key).unwrap();
                let mut e = msg.clone();
                k.encrypt_blocks(&mut e);
                let mut d = e.clone();
                k.decrypt_blocks(&mut d);
                assert_eq!(d, msg, "{cipher}/{} round trip", v.name);
                let mut c = msg.clone();
                c.truncate(msg.len().saturating_sub(round % 16));
                k.ctr(&iv, &mut c);
                assert!(k.rekey(&key));
                assert!(!k.rekey(&[0u8; 5]));
                outs.push((v.name, e, c, k.schedule_bytes()));
            }
            for o in &outs[1..] {
                assert_eq!(o.1, outs[0].1, "{cipher}: {} vs {} ECB", o.0, outs[0].0);
                assert_eq!(o.2, outs[0].2, "{cipher}: {} vs {} CTR", o.0, outs[0].0);
            }
        }
    }
}

/// Every MUGI variant reproduces the specification's examples, the
/// keystream XORed in and out again, and the variants agree on random keys
/// and IVs, with the keystream however a message is split into calls.
#[test]
fn mugi_every_variant_every_vector_and_agreement() {
    use ango_prims::mugi::{Bytes, VARIANTS};
    let cases = builtin_section("mugi").unwrap();
    assert!(cases.len() >= 2);
    for v in VARIANTS {
        for (_, c) in &cases {
            let (key, iv) = (arr(c.get("KEY").unwrap()), arr(c.get("IV").unwrap()));
            let (pt, ct) = (c.get("IN").unwrap(), c.get("OUT").unwrap());
            c.finish().unwrap();
            let mut b = pt.to_vec();
            (v.make)(&key, &iv).apply(&mut b);
            assert_eq!(b, ct, "{} {}", v.name, c.name);
            (v.make)(&key, &iv).apply(&mut b);
            assert_eq!(b, pt, "{} {}", v.name, c.name);
        }
    }
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for _ in 0..40 {
        let key: [u8; 16] = core::array::from_fn(|_| next() as u8);
        let iv: [u8; 16] = core::array::from_fn(|_| next() as u8);
        let len = (next() % 600) as usize;
        let outs: Vec<(&str, Vec<u8>, [u8; 32])> = VARIANTS
            .iter()
            .map(|v| {
                let mut ks = vec![0u8; len];
                let mut g = Bytes::new((v.make)(&key, &iv));
                let cut = len / 3;
                g.apply(&mut ks[..cut]);
                g.apply(&mut ks[cut..]);
                let mut s = (v.make)(&key, &iv);
                s.reinit(&iv, &key);
                (v.name, ks, s.state_bytes())
            })
            .collect();
        for o in &outs[1..] {
            assert_eq!(o.1, outs[0].1, "{} vs {}", o.0, outs[0].0);
            assert_eq!(o.2, outs[0].2, "{} vs {} state", o.0, outs[0].0);
        }
    }
}
