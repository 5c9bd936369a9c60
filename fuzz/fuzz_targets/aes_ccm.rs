//! Differential fuzz target: see ango_verify::differential ("aes-ccm").
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(e) = ango_verify::differential::check("aes-ccm", data) {
        panic!("{e}");
    }
});
