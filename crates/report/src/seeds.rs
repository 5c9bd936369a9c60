//! The five seed documents as the report presents them: each one's section
//! heading, the one line of the dashboard, and what it did and found, which
//! opens its section before ango's reproduction of its tables and figures.

/// One seed document.
pub struct Seed {
    /// `000` … `004`: the `seed` of its findings.
    pub id: &'static str,
    /// The section heading after "Seed NNN — ".
    pub title: &'static str,
    /// What the seed did and found (HTML, no markup from records).
    pub what: &'static str,
}

/// The seeds, in their order.
pub const SEEDS: [Seed; 5] = [
    Seed {
        id: "000",
        title: "ChaCha20-Poly1305 against AES-GCM and AES-CCM, with and without AES-NI",
        what: "A 2017 survey and study: <code>openssl speed -elapsed -evp</code> for AES-128/256-GCM, \
               AES-128/256-CCM, ChaCha20-Poly1305, AES-128/256-ECB and ChaCha20 at 16, 64, 256, 1024, \
               8192 and 16384 bytes, with AES-NI on and off (<code>OPENSSL_ia32cap</code>), on four \
               platforms (its Tables 5.5–5.20 and Figs 5.7–5.18). It found that AES-NI makes AES-GCM \
               12–15× faster; that without AES-NI ChaCha20-Poly1305 beats AES-GCM 3–5× and with it \
               AES-GCM wins 1.4–3×; that Poly1305 costs about 30% of ChaCha20's throughput; and \
               (§5.3.3) that <code>openssl speed</code> timed CCM unfairly, one Init per many \
               Updates. ango times one whole message per operation, for every library here and its \
               own code, side by side, with the same hardware settings.",
    },
    Seed {
        id: "001",
        title: "hand-vectorised ChaCha20 and AES: latency by message length",
        what: "A course report (\"Cha Cha Real Smooth\"): ChaCha20 in portable, 128-bit and 256-bit \
               vector code, AES from FIPS-197 S-boxes and from T-tables, timed with Google Benchmark \
               at every length from 0 to 4096 bytes in steps of 16, latency in ns with 95% \
               intervals (its Table 1). It found that the vectorised ChaCha20 loses to the simple \
               one on short messages and wins on long ones, and named 512-bit ChaCha20, vectorised \
               Poly1305, AES-NI and constant-time bitsliced AES as future work — all of which ango \
               has.",
    },
    Seed {
        id: "002",
        title: "the CRYPTREC ciphers on 64-bit CPUs, in cycles",
        what: "SCIS 2010: Camellia, CIPHERUNICORN-A, Hierocrypt-3, SC2000 and MUGI in C, with \
               32-bit and 64-bit fast variants (merged S-box and linear-layer tables, full \
               inlining, word-size-aware code, MUGI's buffer rotated by an index) beside reference \
               code, timed with <code>rdtsc</code> over chained calls: cycles per key schedule \
               (its Table 4) and per block (its Table 5) for 128-, 192- and 256-bit keys. It found \
               the 64-bit code faster on x64 and Camellia's 64-bit key schedule the fastest.",
    },
    Seed {
        id: "003",
        title: "post-quantum TLS: primitives and handshakes timed message by message",
        what: "A 2025–26 field trial's supplementary material: X25519, ML-KEM-512/768/1024, \
               RSA-2048/3072, P-256, ML-DSA and the additional signatures (MAYO, CROSS, UOV, SNOVA) \
               timed 1000 times each (its Tables 1–8, 16–17) with their sizes; then TLS 1.3 \
               handshakes between two hosts about 1 ms apart with OpenSSL 3.5 for every key \
               exchange × server signature × CA signature, each handshake's messages timed on the \
               wire from both sides (its figures), the server flight's packets (Table 9), the \
               client's processing time (Tables 10–12) and the certificates' sizes (Tables 14–15). \
               It explained the timings by OpenSSL's 4096-byte write buffer and TCP's initial \
               congestion window of 10 segments.",
    },
    Seed {
        id: "004",
        title: "ChaCha20-Poly1305 in TLS: record overhead, speed and cipher-suite policy",
        what: "A 2016 blog post: a TLS 1.2 record of 1 byte is 30 bytes on the wire with AES-GCM \
               (its 8-byte explicit nonce) and 22 with ChaCha20-Poly1305; at 8 KiB \
               <code>openssl speed</code> gives AES-GCM about twice ChaCha20-Poly1305 on Haswell \
               and ChaCha20-Poly1305 about three times AES-GCM without AES instructions; clients \
               order their suites by their own hardware, and a server that imposes its order takes \
               that away unless it has equal-preference groups (BoringSSL) or \
               <code>SSL_OP_PRIORITIZE_CHACHA</code> (OpenSSL).",
    },
];

/// The part of the page a suite's section belongs to that is not a seed.
pub const OWN: &str = "ango";

/// The seed of `id`, if it is one.
pub fn seed(id: &str) -> Option<&'static Seed> {
    SEEDS.iter().find(|s| s.id == id)
}
