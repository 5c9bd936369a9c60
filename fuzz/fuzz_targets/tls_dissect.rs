//! Reader fuzz target: see ango_tls::fuzz_readers ("tls-dissect").
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(e) = ango_tls::fuzz_readers::check("tls-dissect", data) {
        panic!("{e}");
    }
});
