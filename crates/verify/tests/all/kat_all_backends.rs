//! Every built-in backend passes every built-in vector of every algorithm,
//! and all backends of an algorithm agree on random inputs.

use ango_core::{Algorithm, AlgorithmId, Backend, Entry, EntryBackend, Hw};

/// Every symmetric entry of the catalog that runs here, with its algorithm:
/// every library and every variant of ango's own code.
fn entries() -> Vec<(&'static Entry, Algorithm)> {
    ango_backends::catalog()
        .entries
        .iter()
        .filter(|e| e.runs(Hw::On).is_ok())
        .filter_map(|e| match e.algorithm {
            AlgorithmId::Sym(a) => Some((e, a)),
            AlgorithmId::Pk(_) => None,
        })
        .collect()
}

#[test]
fn every_backend_passes_known_answers() {
    for (e, a) in entries() {
        let r = ango_verify::kat::run(&EntryBackend(e), a).unwrap();
        assert!(
            r.ok(),
            "{} {a}: {} {:?} {:?}",
            e.id(),
            r.summary(),
            r.failures,
            r.skips
        );
    }
}

/// Whether no implementation of `a` runs because ango has none it could
/// verify (a cipher whose specification could not be reached): its ango
/// entry says "blocked", and no library has it.
fn blocked(a: Algorithm) -> bool {
    let c = ango_backends::catalog();
    c.runnable(AlgorithmId::Sym(a)).is_empty()
        && c.of(AlgorithmId::Sym(a)).any(|e| {
            e.provider.has_variants
                && e.available
                    .as_ref()
                    .is_err_and(|w| w.starts_with("blocked:"))
        })
}

#[test]
fn backends_agree_on_random_messages() {
    for &a in Algorithm::ALL {
        if blocked(a) {
            continue;
        }
        let digests: Vec<(String, u64)> = entries()
            .into_iter()
            .filter(|(_, x)| *x == a)
            .map(|(e, _)| {
                (
                    e.id(),
                    ango_verify::cross::digest(&EntryBackend(e), a, 200, 4096, 7).unwrap(),
                )
            })
            .collect();
        assert!(
            digests.len() >= 2,
            "{a}: fewer than two implementations to compare"
        );
        assert!(
            digests.windows(2).all(|w| w[0].1 == w[1].1),
            "{a}: {digests:?}"
        );
    }
}

#[test]
fn kat_counts_are_real() {
    // Guard against a runner that passes by skipping: for every algorithm
    // some implementation can express every built-in case (OpenSSL's, or
    // for XChaCha20-Poly1305 the 24-byte-nonce ones), so that one skips
    // nothing.
    let mut total = 0;
    for &a in Algorithm::ALL {
        if blocked(a) {
            continue;
        }
        let mut none_skipped = false;
        for (e, _) in entries().into_iter().filter(|(_, x)| *x == a) {
            let r = ango_verify::kat::run(&EntryBackend(e), a).unwrap();
            eprintln!("{} {a}: {}", e.id(), r.summary());
            none_skipped |= r.skipped == 0 && r.passed > 0;
            total += r.passed;
        }
        assert!(none_skipped, "{a}: every implementation skipped some case");
    }
    assert!(total >= 80, "{total}");
}

#[test]
fn a_wrong_vector_is_caught_by_every_backend() {
    let text = "# Source: RFC 8439 2.8.2 with the last tag byte changed\n[chacha20-poly1305]\n\
KEY = 808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f\n\
NONCE = 070000004041424344454647\nAD = 50515253c0c1c2c3c4c5c6c7\n\
IN = 4c616469657320616e642047656e746c656d656e206f662074686520636c617373206f66202739393a204966204920636f756c64206f6666657220796f75206f6e6c79206f6e652074697020666f7220746865206675747572652c2073756e73637265656e20776f756c642062652069742e\n\
CT = d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d63dbea45e8ca9671282fafb69da92728b1a71de0a9e060b2905d6a5b67ecd3b3692ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc3ff4def08e4b7a9de576d26586cec64b6116\n\
TAG = 1ae10b594f09e26a7e902ecbd0600692\n";
    let f = ango_verify::vectors::parse("t", text).unwrap();
    let cases: Vec<(String, _)> = f.cases.into_iter().map(|c| ("t".to_string(), c)).collect();
    for (e, _) in entries()
        .into_iter()
        .filter(|(_, a)| *a == Algorithm::ChaCha20Poly1305)
    {
        let r = ango_verify::kat::run_cases(&EntryBackend(e), Algorithm::ChaCha20Poly1305, &cases);
        assert_eq!((r.passed, r.failed), (0, 1), "{}", e.id());
        assert!(!r.ok());
    }
}

/// A cipher whose output depends on where the buffer sits: the placement
/// check must catch it.
struct AlignDependent;
struct AlignCipher;

impl ango_core::Cipher for AlignCipher {
    fn encrypt(&mut self, _iv: &[u8], buf: &mut [u8]) -> ango_core::Result<()> {
        if let Some(b) = buf.first_mut() {
            *b ^= (b as *mut u8 as usize % 16) as u8;
        }
        Ok(())
    }
    fn decrypt(&mut self, iv: &[u8], buf: &mut [u8]) -> ango_core::Result<()> {
        self.encrypt(iv, buf)
    }
}

impl Backend for AlignDependent {
    fn name(&self) -> &'static str {
        "align"
    }
    fn version(&self) -> String {
        "test".into()
    }
    fn availability(&self, _: Algorithm, _: Hw) -> Result<(), ango_core::Unavailable> {
        Ok(())
    }
    fn implementation(&self, _: Algorithm, _: Hw) -> String {
        "test".into()
    }
    fn aead(
        &self,
        _: Algorithm,
        _: &[u8],
        _: usize,
        _: usize,
    ) -> ango_core::Result<Box<dyn ango_core::Aead>> {
        Err(ango_core::Error::usage("none"))
    }
    fn cipher(&self, _: Algorithm, _: &[u8]) -> ango_core::Result<Box<dyn ango_core::Cipher>> {
        Ok(Box::new(AlignCipher))
    }
}

#[test]
fn placement_check_catches_alignment_dependent_output() {
    assert!(ango_verify::cross::placement(&AlignDependent, Algorithm::ChaCha20, 5, 1).is_err());
    for (e, a) in entries() {
        ango_verify::cross::placement(&EntryBackend(e), a, 10, 3).unwrap();
    }
}

/// Wycheproof's full AES-GCM, AES-CCM, ChaCha20-Poly1305 and
/// XChaCha20-Poly1305 files
/// (vectors/wycheproof/) against every backend and every variant: no
/// failure but the known library defects (which must still reproduce), and
/// every implementation runs most of the cases.
#[test]
fn wycheproof_full_files_every_implementation() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../vectors/wycheproof/");
    for f in [
        "aes_gcm_test.json",
        "aes_ccm_test.json",
        "chacha20_poly1305_test.json",
        "xchacha20_poly1305_test.json",
    ] {
        let text = std::fs::read_to_string(format!("{dir}{f}")).unwrap();
        let file = ango_verify::wycheproof::parse(f, &text).unwrap();
        let mut algos: Vec<Algorithm> = file.cases.iter().filter_map(|c| c.algorithm).collect();
        algos.sort();
        algos.dedup();
        for a in algos {
            for (e, _) in entries().into_iter().filter(|(_, x)| *x == a) {
                let o = ango_verify::wycheproof::run(&EntryBackend(e), a, &file);
                // Every failure is a known library defect, with its case id.
                let failures: Vec<ango_core::CaseFailure> = o
                    .failed_ids
                    .iter()
                    .map(|id| ango_core::CaseFailure::new(format!("{f}#{id}"), ""))
                    .collect();
                let ran: Vec<String> = o.judged_ids.iter().map(|id| format!("{f}#{id}")).collect();
                let ex = ango_verify::defects::explain(
                    ango_verify::defects::builtin(),
                    &e.label(),
                    &(e.provider.version)(),
                    a.name(),
                    &failures,
                    &ran,
                );
                assert!(
                    ex.unexplained.is_empty() && ex.not_reproduced.is_empty(),
                    "{f} {a} {}: {:?}",
                    e.id(),
                    o.failures
                );
                assert!(
                    o.passed >= 60,
                    "{f} {a} {}: only {} passed",
                    e.id(),
                    o.passed
                );
            }
        }
    }
}

/// The cross-library check before timing: an implementation whose output
/// differs from the others' is caught; every implementation in the catalog
/// (but those with a known defect of the algorithm) agrees with all others.
#[test]
fn cross_library_check_before_timing_catches_a_disagreeing_implementation() {
    let a = ango_verify::kat::agreement(&AlignDependent, Algorithm::ChaCha20);
    assert!(!a.ok(), "{a:?}");
    assert!(
        a.others >= 3 && a.agree == 0 && a.differ.len() == a.others,
        "{a:?}"
    );
    for (e, algo) in entries() {
        if ango_verify::defects::concerns_entry(e, algo.name()) {
            continue;
        }
        let r = ango_verify::kat::agreement(&EntryBackend(e), algo);
        assert!(
            r.ok() && r.agree == r.others && r.others >= 1,
            "{} {algo}: {r:?}",
            e.label()
        );
    }
}
