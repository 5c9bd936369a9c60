//! Reader fuzz target: see ango_verify::differential ("wycheproof").
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(e) = ango_verify::differential::check("wycheproof", data) {
        panic!("{e}");
    }
});
