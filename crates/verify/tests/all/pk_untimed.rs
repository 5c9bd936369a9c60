//! Implementations that lack an operation or cannot repeat one (ring's
//! X25519 decapsulation, ring's RSA key generation and signing): still
//! checked in full, with their reasons real.

use ango_core::{AlgorithmId, EntryBackend, PkAlgorithm, PkBackend, PkOp};
use ango_verify::cross::Rng;
use ango_verify::pk::{all_checks, cross_checks, key_source};

fn ring(a: PkAlgorithm) -> EntryBackend<'static> {
    let e = ango_backends::catalog()
        .of(AlgorithmId::Pk(a))
        .find(|e| e.provider.name == "ring")
        .expect("ring is built in");
    assert!(e.available.is_ok(), "{:?}", e.available);
    EntryBackend(e)
}

#[test]
fn ring_x25519_is_checked_in_full_and_its_untimed_decaps_is_real() {
    let b = ring(PkAlgorithm::X25519);
    let ops: Vec<PkOp> = b
        .untimed_ops(PkAlgorithm::X25519)
        .into_iter()
        .map(|(o, _)| o)
        .collect();
    assert_eq!(ops, vec![PkOp::Decaps]);
    let c = all_checks(&b, PkAlgorithm::X25519, &mut Rng::new(7));
    assert!(c.failures.is_empty(), "{:?}", c.failures);
    // ango's five checks and Wycheproof's cases through the test-RNG import.
    assert!(c.ran.iter().filter(|id| id.starts_with("check:")).count() >= 5);
    assert!(
        c.ran
            .iter()
            .filter(|id| id.starts_with("x25519_test.json#"))
            .count()
            > 200,
        "{:?}",
        c.summary
    );
    // The reason decaps is not timed: a key pair agrees once.
    let mut k = b.kem(PkAlgorithm::X25519).unwrap();
    let pk = k.keygen().unwrap();
    k.set_peer(&pk).unwrap();
    let (ct, ss) = k.encaps().unwrap();
    assert_eq!(k.decaps(&ct).unwrap(), ss);
    assert!(
        k.decaps(&ct).is_err(),
        "a consumed key must not agree again"
    );
}

#[test]
fn ring_rsa_verifies_another_providers_keys_and_wycheproof() {
    for a in [PkAlgorithm::Rsa2048, PkAlgorithm::Rsa3072] {
        let b = ring(a);
        let mut s = b.signer(a).unwrap();
        assert!(s.keygen().is_err(), "ring makes no RSA keys");
        let src = key_source(a).expect("a provider that makes RSA keys");
        assert_ne!(src.name(), "ring");
        let c = all_checks(&b, a, &mut Rng::new(11));
        assert!(c.failures.is_empty(), "{a}: {:?}", c.failures);
        assert_eq!(c.keys_from.as_deref(), Some(src.0.label().as_str()));
        assert_eq!(
            // Both upstream files: the key as rsaEncryption and with PSS
            // parameters, 108 cases each.
            c.ran.iter().filter(|id| id.contains("rsa_pss_")).count(),
            216,
            "{a}: {:?}",
            c.summary
        );
        // Cross-library: ring only verifies (it is never the key maker).
        let (passed, fails) = cross_checks(&[&b, &src], a);
        assert!(fails.is_empty(), "{fails:?}");
        assert_eq!(passed, 1);
    }
}
