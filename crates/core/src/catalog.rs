//! The catalog of implementations, as data.
//!
//! A [`Provider`] is a plain value that lists what it offers (the habit of
//! rustls' `CryptoProvider`): its exact version, the environment its worker
//! process needs for a hardware setting, and its [`Entry`]s. An entry is one
//! implementation of one algorithm: its provider, its variant, the hardware
//! settings it can be measured under, whether it runs on this machine (and
//! why not), and a typed constructor. Symmetric and public-key entries live
//! in the same catalog.
//!
//! Names are resolved into entries once, at the command line; every study,
//! check, record and worker process after that works on entries (a worker
//! gets entry ids). Only a provider's own module knows its library.

use crate::algo::{Algorithm, Hw};
use crate::error::{Error, Result};
use crate::pk::{Kem, PkAlgorithm, Signer};
use crate::traits::{Aead, Cipher};
use std::fmt;
use std::sync::Arc;

/// An algorithm of either family, typed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AlgorithmId {
    Sym(Algorithm),
    Pk(PkAlgorithm),
}

impl AlgorithmId {
    pub fn name(self) -> &'static str {
        match self {
            AlgorithmId::Sym(a) => a.name(),
            AlgorithmId::Pk(a) => a.name(),
        }
    }

    /// Every algorithm of both families, symmetric first, in table order.
    pub fn all() -> Vec<AlgorithmId> {
        Algorithm::ALL
            .iter()
            .map(|&a| AlgorithmId::Sym(a))
            .chain(PkAlgorithm::ALL.iter().map(|&a| AlgorithmId::Pk(a)))
            .collect()
    }
}

impl fmt::Display for AlgorithmId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A keyed AEAD from (key, nonce length, tag length).
pub type MakeAead = Arc<dyn Fn(&[u8], usize, usize) -> Result<Box<dyn Aead>> + Send + Sync>;
/// A keyed cipher from its key.
pub type MakeCipher = Arc<dyn Fn(&[u8]) -> Result<Box<dyn Cipher>> + Send + Sync>;
/// A KEM instance.
pub type MakeKem = Arc<dyn Fn() -> Result<Box<dyn Kem>> + Send + Sync>;
/// A signature instance.
pub type MakeSigner = Arc<dyn Fn() -> Result<Box<dyn Signer>> + Send + Sync>;

/// An entry's typed constructor, by the shape of its algorithm.
#[derive(Clone)]
pub enum Make {
    Aead(MakeAead),
    Cipher(MakeCipher),
    Kem(MakeKem),
    Signer(MakeSigner),
}

/// Environment variables a worker process is started with (an empty value
/// removes the variable).
pub type WorkerEnv = Vec<(&'static str, String)>;

/// For a provider whose hardware settings need no worker process.
pub fn no_worker_env(_hw: Hw) -> Option<WorkerEnv> {
    None
}

/// For a provider that does not report its own view of the CPU.
pub fn no_cpu_view() -> Option<String> {
    None
}

/// A provider: one library (or ango's own code) as data.
pub struct Provider {
    /// Short lower-case name used on the command line and in records.
    pub name: &'static str,
    /// The library's exact version string.
    pub version: fn() -> String,
    /// The environment a worker process needs for `hw` (OpenSSL reads its
    /// capability mask once, at start-up); None when `hw` is applied in
    /// this process (or not at all).
    pub worker_env: fn(Hw) -> Option<WorkerEnv>,
    /// The CPU features the library itself sees in this process (OpenSSL:
    /// its decoded capability words), the proof that a setting took effect.
    pub cpu_view: fn() -> Option<String>,
    /// Whether the provider has several named variants of one algorithm
    /// (ango's own code): reports then label its points by variant.
    pub has_variants: bool,
    /// Every entry of this provider, available here or not.
    pub entries: fn() -> Vec<Entry>,
}

impl fmt::Debug for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Provider")
            .field("name", &self.name)
            .finish()
    }
}

/// One implementation of one algorithm.
#[derive(Clone)]
pub struct Entry {
    pub algorithm: AlgorithmId,
    pub provider: &'static Provider,
    /// The variant's name: `evp`, `aes/vaes512+ghash/vpclmul`, …; the
    /// provider's name when it has a single implementation.
    pub variant: String,
    /// The variant a plain `--backend PROVIDER` measures (ango's own:
    /// the best this CPU runs; libraries: their only one).
    pub auto: bool,
    /// The code path as records and `ango list` show it.
    pub implementation: String,
    /// CPU features the variant needs (`avx2`, `vaes`, …).
    pub needs: Vec<&'static str>,
    /// The hardware settings it can be measured under; `hw_note` says why
    /// not the others.
    pub hw: Vec<Hw>,
    pub hw_note: String,
    /// Whether it runs on this machine, and why not.
    pub available: std::result::Result<(), String>,
    /// Public-key operations it lacks or cannot repeat, with why: never
    /// timed (see `PkBackend::untimed_ops`).
    pub untimed: Vec<(crate::pk::PkOp, String)>,
    pub make: Make,
}

impl fmt::Debug for Entry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.id())
    }
}

impl Entry {
    /// The entry's id, stable within a build: `provider/algorithm/variant`.
    /// Worker processes receive these.
    pub fn id(&self) -> String {
        format!(
            "{}/{}/{}",
            self.provider.name,
            self.algorithm.name(),
            self.variant
        )
    }

    /// How tables and charts name it: the provider, with the variant for a
    /// provider that has several (`ango[chacha20/avx2+poly1305/ifma]`).
    pub fn label(&self) -> String {
        if self.provider.has_variants {
            format!("{}[{}]", self.provider.name, self.variant)
        } else {
            self.provider.name.to_string()
        }
    }

    /// Its untimed operations (`untimed`) as "keygen, sign not timed: why"
    /// lines, operations with the same reason together.
    pub fn untimed_lines(&self, wanted: impl Fn(crate::pk::PkOp) -> bool) -> Vec<String> {
        let mut groups: Vec<(Vec<String>, &str)> = Vec::new();
        for (op, why) in self.untimed.iter().filter(|(o, _)| wanted(*o)) {
            match groups.iter_mut().find(|(_, w)| *w == why.as_str()) {
                Some((ops, _)) => ops.push(op.to_string()),
                None => groups.push((vec![op.to_string()], why)),
            }
        }
        groups
            .into_iter()
            .map(|(ops, why)| format!("{} not timed: {why}", ops.join(", ")))
            .collect()
    }

    /// Whether it can be measured under `hw` here, and why not.
    pub fn runs(&self, hw: Hw) -> std::result::Result<(), String> {
        self.available.clone()?;
        if self.hw.contains(&hw) {
            Ok(())
        } else {
            Err(self.hw_note.clone())
        }
    }

    pub fn aead(&self, key: &[u8], nonce_len: usize, tag_len: usize) -> Result<Box<dyn Aead>> {
        match &self.make {
            Make::Aead(f) => f(key, nonce_len, tag_len),
            _ => Err(Error::usage(format!("{} is not an AEAD", self.id()))),
        }
    }

    pub fn cipher(&self, key: &[u8]) -> Result<Box<dyn Cipher>> {
        match &self.make {
            Make::Cipher(f) => f(key),
            _ => Err(Error::usage(format!("{} is not a cipher", self.id()))),
        }
    }

    pub fn kem(&self) -> Result<Box<dyn Kem>> {
        match &self.make {
            Make::Kem(f) => f(),
            _ => Err(Error::usage(format!("{} is not a KEM", self.id()))),
        }
    }

    pub fn signer(&self) -> Result<Box<dyn Signer>> {
        match &self.make {
            Make::Signer(f) => f(),
            _ => Err(Error::usage(format!("{} is not a signature", self.id()))),
        }
    }
}

/// Every provider built into this binary and their entries.
pub struct Catalog {
    pub providers: Vec<&'static Provider>,
    /// Providers ango knows of but this binary was built without, with why.
    pub not_built: Vec<(&'static str, &'static str)>,
    pub entries: Vec<Entry>,
}

impl Catalog {
    pub fn new(
        providers: Vec<&'static Provider>,
        not_built: Vec<(&'static str, &'static str)>,
    ) -> Catalog {
        let entries = providers.iter().flat_map(|p| (p.entries)()).collect();
        Catalog {
            providers,
            not_built,
            entries,
        }
    }

    /// A provider by its name (case-insensitive); an unknown name is a
    /// usage error that names every valid one.
    pub fn provider(&self, name: &str) -> Result<&'static Provider> {
        let n = name.trim().to_ascii_lowercase();
        if let Some(p) = self.providers.iter().find(|p| p.name == n) {
            return Ok(p);
        }
        let valid: Vec<&str> = self.providers.iter().map(|p| p.name).collect();
        if let Some((_, why)) = self.not_built.iter().find(|(p, _)| *p == n) {
            return Err(Error::usage(format!(
                "backend '{name}' is not in this binary ({why}); valid: {}",
                valid.join(", ")
            )));
        }
        Err(Error::usage(format!(
            "unknown backend '{name}'; valid: {}",
            valid.join(", ")
        )))
    }

    /// Parse a comma-separated `--backend` list into providers.
    pub fn providers_named(&self, list: &str) -> Result<Vec<&'static Provider>> {
        let mut out: Vec<&'static Provider> = Vec::new();
        let valid: Vec<&str> = self.providers.iter().map(|p| p.name).collect();
        for part in crate::algo::list_items(list, "--backend", &valid.join(", "))? {
            let p = self.provider(part)?;
            if !out.iter().any(|q| q.name == p.name) {
                out.push(p);
            }
        }
        if out.is_empty() {
            return Err(Error::usage(format!(
                "--backend is empty; valid: {}",
                self.providers
                    .iter()
                    .map(|p| p.name)
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        Ok(out)
    }

    /// The entry with this id.
    pub fn entry(&self, id: &str) -> Result<&Entry> {
        self.entries
            .iter()
            .find(|e| e.id() == id)
            .ok_or_else(|| Error::usage(format!("no implementation '{id}' in this binary")))
    }

    /// Every entry of `a`, in provider order.
    pub fn of(&self, a: AlgorithmId) -> impl Iterator<Item = &Entry> {
        self.entries.iter().filter(move |e| e.algorithm == a)
    }

    /// Every entry of `a` from provider `p`.
    pub fn of_provider<'a>(
        &'a self,
        a: AlgorithmId,
        p: &'a Provider,
    ) -> impl Iterator<Item = &'a Entry> {
        self.of(a).filter(move |e| std::ptr::eq(e.provider, p))
    }

    /// Every entry of `a` that runs here (any hardware setting), in
    /// provider order: what verification covers.
    pub fn runnable(&self, a: AlgorithmId) -> Vec<&Entry> {
        self.of(a).filter(|e| e.available.is_ok()).collect()
    }

    /// Where a signer without key generation gets its key pairs and
    /// signatures for checks and timing: the first provider's automatic
    /// entry of `a` that runs here and makes keys and signatures itself.
    pub fn key_source(&self, a: PkAlgorithm) -> Option<&Entry> {
        let makes = |e: &&Entry| e.available.is_ok() && e.auto && crate::pk::makes_keys(&e.untimed);
        self.of(AlgorithmId::Pk(a)).find(makes)
    }
}

/// An entry seen through the per-algorithm interfaces ([`Backend`],
/// [`PkBackend`]) that the measuring and checking code takes: every call
/// goes to the entry's own constructor.
pub struct EntryBackend<'a>(pub &'a Entry);

impl EntryBackend<'_> {
    /// The provider's name (without naming either interface).
    pub fn name(&self) -> &'static str {
        self.0.provider.name
    }
}

impl crate::traits::Backend for EntryBackend<'_> {
    fn name(&self) -> &'static str {
        self.0.provider.name
    }
    fn version(&self) -> String {
        (self.0.provider.version)()
    }
    fn availability(&self, algo: Algorithm, hw: Hw) -> std::result::Result<(), Unavailable> {
        if self.0.algorithm != AlgorithmId::Sym(algo) {
            return Err(Unavailable(format!("{} is not {algo}", self.0.id())));
        }
        self.0.runs(hw).map_err(Unavailable)
    }
    fn implementation(&self, _algo: Algorithm, _hw: Hw) -> String {
        self.0.implementation.clone()
    }
    fn label(&self) -> String {
        self.0.label()
    }
    fn child_env(&self, hw: Hw) -> Option<Vec<(&'static str, String)>> {
        (self.0.provider.worker_env)(hw)
    }
    fn cpu_view(&self) -> Option<String> {
        (self.0.provider.cpu_view)()
    }
    fn aead(
        &self,
        _algo: Algorithm,
        key: &[u8],
        nonce_len: usize,
        tag_len: usize,
    ) -> Result<Box<dyn Aead>> {
        self.0.aead(key, nonce_len, tag_len)
    }
    fn cipher(&self, _algo: Algorithm, key: &[u8]) -> Result<Box<dyn Cipher>> {
        self.0.cipher(key)
    }
}

impl crate::pk::PkBackend for EntryBackend<'_> {
    fn name(&self) -> &'static str {
        self.0.provider.name
    }
    fn version(&self) -> String {
        (self.0.provider.version)()
    }
    fn availability(&self, algo: PkAlgorithm) -> std::result::Result<(), Unavailable> {
        if self.0.algorithm != AlgorithmId::Pk(algo) {
            return Err(Unavailable(format!("{} is not {algo}", self.0.id())));
        }
        self.0.available.clone().map_err(Unavailable)
    }
    fn implementation(&self, _algo: PkAlgorithm) -> String {
        self.0.implementation.clone()
    }
    fn label(&self) -> String {
        self.0.label()
    }
    fn kem(&self, _algo: PkAlgorithm) -> Result<Box<dyn Kem>> {
        self.0.kem()
    }
    fn signer(&self, _algo: PkAlgorithm) -> Result<Box<dyn Signer>> {
        self.0.signer()
    }
    fn untimed_ops(&self, _algo: PkAlgorithm) -> Vec<(crate::pk::PkOp, String)> {
        self.0.untimed.clone()
    }
}

use crate::traits::Unavailable;

/// Entries of a library with one implementation per algorithm, made from
/// its per-algorithm interface: one entry per symmetric algorithm, under
/// the hardware settings it accepts.
pub fn entries_of_backend(
    p: &'static Provider,
    b: &'static dyn crate::traits::Backend,
) -> Vec<Entry> {
    Algorithm::ALL
        .iter()
        .map(|&a| {
            let hw: Vec<Hw> = Hw::ALL
                .iter()
                .copied()
                .filter(|&h| b.availability(a, h).is_ok())
                .collect();
            let why = |h: Hw| b.availability(a, h).err().map(|u| u.0);
            let available = match hw.is_empty() {
                true => Err(why(Hw::On).unwrap_or_default()),
                false => Ok(()),
            };
            let hw_note = Hw::ALL.iter().find_map(|&h| why(h)).unwrap_or_default();
            let make = match a.kind() {
                crate::algo::Kind::Aead => {
                    Make::Aead(Arc::new(move |k: &[u8], n: usize, t: usize| {
                        b.aead(a, k, n, t)
                    }))
                }
                crate::algo::Kind::Cipher => Make::Cipher(Arc::new(move |k: &[u8]| b.cipher(a, k))),
            };
            Entry {
                algorithm: AlgorithmId::Sym(a),
                provider: p,
                variant: p.name.to_string(),
                auto: true,
                implementation: b.implementation(a, Hw::On),
                needs: Vec::new(),
                hw,
                hw_note,
                available,
                untimed: Vec::new(),
                make,
            }
        })
        .collect()
}

/// Entries of a public-key library, one per algorithm, made from its
/// per-algorithm interface.
pub fn entries_of_pk_backend(
    p: &'static Provider,
    b: &'static dyn crate::pk::PkBackend,
) -> Vec<Entry> {
    PkAlgorithm::ALL
        .iter()
        .map(|&a| {
            let make = match a.kind() {
                crate::pk::PkKind::Kem => Make::Kem(Arc::new(move || b.kem(a))),
                crate::pk::PkKind::Sig => Make::Signer(Arc::new(move || b.signer(a))),
            };
            Entry {
                algorithm: AlgorithmId::Pk(a),
                provider: p,
                variant: p.name.to_string(),
                auto: true,
                implementation: b.implementation(a),
                needs: Vec::new(),
                hw: vec![Hw::On],
                hw_note: "public-key points run with every CPU feature".into(),
                available: b.availability(a).map_err(|u| u.0),
                untimed: b.untimed_ops(a),
                make,
            }
        })
        .collect()
}

/// Public-key entries of a provider built without its public-key half:
/// each unavailable, with `why` (so `ango list` and a skip say why).
pub fn unbuilt_pk_entries(p: &'static Provider, why: &'static str) -> Vec<Entry> {
    PkAlgorithm::ALL
        .iter()
        .map(|&a| Entry {
            algorithm: AlgorithmId::Pk(a),
            provider: p,
            variant: p.name.to_string(),
            auto: true,
            implementation: String::new(),
            needs: Vec::new(),
            hw: vec![Hw::On],
            hw_note: String::new(),
            available: Err(why.to_string()),
            untimed: Vec::new(),
            make: match a.kind() {
                crate::pk::PkKind::Kem => Make::Kem(Arc::new(move || Err(Error::usage(why)))),
                crate::pk::PkKind::Sig => Make::Signer(Arc::new(move || Err(Error::usage(why)))),
            },
        })
        .collect()
}
