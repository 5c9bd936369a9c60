//! Builds ango's shim over LibTomCrypt (feature `libtomcrypt`): Debian's
//! libtomcrypt-dev, installed by scripts/setup, linked dynamically.

fn main() {
    println!("cargo:rerun-if-changed=ltc/ango_ltc.c");
    if std::env::var_os("CARGO_FEATURE_LIBTOMCRYPT").is_none() {
        return;
    }
    if !std::path::Path::new("/usr/include/tomcrypt.h").exists() {
        panic!(
            "the libtomcrypt feature needs LibTomCrypt's headers: run scripts/setup (it installs \
             Debian's libtomcrypt-dev) or build without the feature"
        );
    }
    cc::Build::new()
        .file("ltc/ango_ltc.c")
        .flag_if_supported("-Wno-unused-parameter")
        .compile("ango_ltc");
    println!("cargo:rustc-link-lib=dylib=tomcrypt");
}
