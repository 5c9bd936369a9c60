//! Reader fuzz target: see ango_verify::differential ("vector-file").
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(e) = ango_verify::differential::check("vector-file", data) {
        panic!("{e}");
    }
});
