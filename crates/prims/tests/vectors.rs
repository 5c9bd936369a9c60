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
