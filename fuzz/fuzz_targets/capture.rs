//! Reader fuzz target: see ango_tls::fuzz_readers ("capture").
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(e) = ango_tls::fuzz_readers::check("capture", data) {
        panic!("{e}");
    }
});
