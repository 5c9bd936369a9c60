//! Differential fuzz target: see ango_verify::differential ("chacha20-poly1305").
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(e) = ango_verify::differential::check("chacha20-poly1305", data) {
        panic!("{e}");
    }
});
