//! Bad input of every command, one test per case.

use crate::common::*;

/// One test per case of bad input, each named by its arguments (run them
/// all with `cargo test --test cli bad_input::`): exit 2, one line on stderr naming the
/// valid choices, nothing on stdout, nothing written.
macro_rules! bad_input {
    ($($name:ident: $args:expr => $must:expr;)*) => {
        $(
            #[test]
            fn $name() {
                rejects($args, $must);
            }
        )*
    };
}

/// Every provider of a default build, in the catalog's order: what an
/// unknown backend's error must name (written out here, not read from the
/// catalog under test).
const EVERY_PROVIDER: &str =
    "openssl, liboqs, rustcrypto, ring, aws-lc, libcrux, pqclean, libsodium, libtomcrypt, libgcrypt, ango";

bad_input! {
    speed_algo_rot13: &["speed", "--algo", "rot13"] => "chacha20-poly1305";
    speed_algo_empty: &["speed", "--algo", ""] => "valid:";
    speed_backend_wolfssl: &["speed", "--backend", "wolfssl"] => EVERY_PROVIDER;
    pk_backend_wolfssl: &["pk", "--backend", "wolfssl"] => EVERY_PROVIDER;
    speed_unit_furlongs: &["speed", "--unit", "furlongs"] => "kbps, MBps, Gbps, cpb, ns";
    speed_sizes_0: &["speed", "--sizes", "0"] => "positive";
    speed_sizes_negative: &["speed", "--sizes", "-16"] => "positive";
    speed_sizes_lots: &["speed", "--sizes", "lots"] => "positive";
    speed_sizes_not_a_number: &["speed", "--sizes", "16,abc"] => "positive";
    speed_algo_aes_128_ecb_sizes_10: &["speed", "--algo", "aes-128-ecb", "--sizes", "10"] => "multiple of 16";
    speed_hw_maybe: &["speed", "--hw", "maybe"] => "on, off, both, seed000";
    speed_op_sign: &["speed", "--op", "sign"] => "encrypt, decrypt, both";
    speed_format_xml: &["speed", "--format", "xml"] => "table, json, csv, md";
    speed_time_negative: &["speed", "--time", "-1"] => "--time";
    speed_samples_zero: &["speed", "--samples", "zero"] => "--samples";
    speed_aad_x: &["speed", "--aad", "x"] => "--aad";
    run_unit_furlongs: &["run", "--unit", "furlongs"] => "kbps";
    speed_cpu_4096: &["speed", "--cpu", "4096"] => "valid:";
    speed_impl_chacha20_neon: &["speed", "--impl", "chacha20/neon"] => "chacha20/portable, chacha20/sse2, chacha20/avx2";
    report_nonexistent_dir: &["report", "/nonexistent/dir"] => "not a results directory";
    compare_nonexistent_a_nonexistent_b: &["compare", "/nonexistent/a", "/nonexistent/b"] => "not a results directory";
    compare_x_colour_red_y: &["compare", "x@colour=red", "y"] => "hw, backend, impl, op, algorithm, size";
    list_format_xml: &["list", "--format", "xml"] => "table, json, csv, md, html";
    pk_algo_ml_kem_999: &["pk", "--algo", "ml-kem-999"] => "ml-kem-768";
    pk_algo_empty: &["pk", "--algo", ""] => "valid:";
    pk_backend_botan: &["pk", "--backend", "botan"] => "openssl, liboqs, rustcrypto";
    pk_ops_frob: &["pk", "--ops", "frob"] => "keygen, encaps, decaps, sign, verify";
    pk_iterations_0: &["pk", "--iterations", "0"] => "--iterations";
    pk_message_bytes_negative: &["pk", "--message-bytes", "-1"] => "--message-bytes";
    pk_max_time_soon: &["pk", "--max-time", "soon"] => "--max-time";
    pk_format_xml: &["pk", "--format", "xml"] => "table, json, csv, md";
    run_pk_iterations_none: &["run", "--pk-iterations", "none"] => "--iterations";
    pk_memory_multi: &["pk", "--memory", "--multi"] => "--memory cannot be combined with --multi";
    pk_memory_multi_2: &["pk", "--memory", "--multi", "2"] => "--multi";
    pk_memory_timing_api_call: &["pk", "--memory", "--timing", "api-call"] => "--timing operation or both";
    pk_massif_without_memory: &["pk", "--massif"] => "--massif needs --memory";
    pk_memory_calls_without_memory: &["pk", "--memory-calls", "5"] => "--memory-calls needs --memory";
    pk_memory_calls_0: &["pk", "--memory", "--memory-calls", "0"] => "--memory-calls";
    tls_groups_x448: &["tls", "--groups", "x448"] => "x25519, ml-kem-512";
    tls_server_sig_snova_25_8_3: &["tls", "--server-sig", "snova-25-8-3"] => "rsa-2048, rsa-3072, p-256";
    tls_server_sig_x25519: &["tls", "--server-sig", "x25519"] => "mayo-1, mayo-2";
    tls_rtt_fast: &["tls", "--rtt", "fast"] => "1ms";
    tls_loss_150: &["tls", "--loss", "150"] => "--loss";
    tls_rate_warp9: &["tls", "--rate", "warp9"] => "100mbit";
    tls_handshakes_0: &["tls", "--handshakes", "0"] => "--handshakes";
    tls_loopback_rtt_20ms: &["tls", "--loopback", "--rtt", "20ms"] => "--loopback";
    tls_format_xml: &["tls", "--format", "xml"] => "table, json, csv";
    tls_cc_warp: &["tls", "--cc", "warp"] => "cubic";
    tls_emulator_ns3: &["tls", "--emulator", "ns3"] => "auto, netem, relay";
    pk_algo_x25519_ops_sign: &["pk", "--algo", "x25519", "--ops", "sign"] => "x25519: keygen, encaps, decaps";
    unknown_command: &["frobnicate"] => "frobnicate";
    speed_no_such_flag: &["speed", "--no-such-flag"] => "--no-such-flag";
    // Zero steps, ranges too long, empty list items: refused, never skipped
    // or looped on.
    latency_sizes_0_64_0: &["latency", "--sizes", "0:64:0"] => "STEP is 0";
    speed_sizes_16_4096_0: &["speed", "--sizes", "16:4096:0"] => "STEP is 0";
    latency_sizes_0_100000000_1: &["latency", "--sizes", "0:100000000:1"] => "at most 65536";
    speed_sizes_empty_item: &["speed", "--sizes", "16,,64"] => "empty item";
    speed_algo_empty_item: &["speed", "--algo", "chacha20,,aes-128-gcm"] => "aes-256-gcm";
    speed_backend_trailing_comma: &["speed", "--backend", "openssl,"] => "libtomcrypt";
    speed_hw_empty_item: &["speed", "--hw", "on,,off"] => "seed000";
    speed_impl_trailing_comma: &["speed", "--impl", "auto,"] => "empty item";
    pk_algo_empty_item: &["pk", "--algo", "x25519,,ed25519"] => "ml-dsa-44";
    pk_ops_trailing_comma: &["pk", "--ops", "keygen,"] => "encaps";
    tls_groups_empty_items: &["tls", "--groups", "x25519,,"] => "x25519mlkem768";
    // A missing required argument is named.
    compare_onlyone: &["compare", "onlyone"] => "<B>";
    report_without_dir: &["report"] => "<DIR>";
}
