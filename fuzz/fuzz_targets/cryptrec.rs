//! Differential fuzz target: see ango_verify::differential ("cryptrec"):
//! seed 002's block ciphers, every variant and every library.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(e) = ango_verify::differential::check("cryptrec", data) {
        panic!("{e}");
    }
});
