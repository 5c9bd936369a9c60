// Records the compiler that built ango, for `ango env`.
fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let v = std::process::Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=ANGO_RUSTC_VERSION={}", v.trim());
    // The allocator functions of src/memhook.rs go into the dynamic symbol
    // table, so that shared libraries (glibc's own calls among them) bind
    // to them too.
    for f in [
        "malloc",
        "calloc",
        "realloc",
        "free",
        "memalign",
        "aligned_alloc",
        "valloc",
        "posix_memalign",
    ] {
        println!("cargo:rustc-link-arg=-Wl,--export-dynamic-symbol={f}");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
