//! `suite: pk-memory`: the memory of one public-key operation, per
//! (algorithm, library, variant, operation), as `ango pk --memory`
//! measures it: the peak stack and the peak heap of one call, maxima and
//! medians over the calls measured.

use crate::record::Header;
use serde::{Deserialize, Serialize};

/// One (algorithm, backend, variant, operation)'s memory per call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PkMemoryRecord {
    #[serde(flatten)]
    pub head: Header,
    pub library_version: String,
    pub algorithm: String,
    /// `kem` or `sig`.
    pub kind: String,
    pub operation: String,
    pub backend: String,
    /// As in the `pk` record: the provider's variant when it has several.
    #[serde(default)]
    pub variant: Option<String>,
    pub implementation: String,
    /// Calls measured (after `warmup` calls that were not kept).
    pub calls: u64,
    pub warmup: u64,
    /// Bytes of stack one call used, from the frame that made it to the
    /// deepest word it changed: the maximum over the calls, and the median.
    pub peak_stack_bytes: u64,
    pub peak_stack_bytes_median: u64,
    /// Bytes of heap one call held at once above what was held when it
    /// started (the allocator's usable sizes): maximum and median.
    pub peak_heap_bytes: u64,
    pub peak_heap_bytes_median: u64,
    /// Allocations one call made (malloc, calloc, realloc, posix_memalign,
    /// aligned_alloc, memalign, valloc): maximum and median.
    pub allocations: u64,
    pub allocations_median: u64,
    /// The stack the measuring frames themselves take (a call that does
    /// nothing reads this much); included in `peak_stack_bytes`.
    pub stack_floor_bytes: u64,
    /// Sizes of the algorithm's objects as this backend encodes them (as in
    /// the `pk` record).
    pub sizes: Vec<crate::pk::SizeEntry>,
    /// What the heap figures cannot see for this library (direct mmap,
    /// static tables, other threads).
    pub unseen: String,
    /// The same calls under valgrind massif, when `--massif` asked for it.
    #[serde(default)]
    pub massif: Option<MassifCheck>,
    pub warnings: Vec<String>,
    pub method: String,
    pub time: String,
}

/// One operation under valgrind massif (`--stacks=yes`), in a process of
/// its own: the window from just before the call to just after it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MassifCheck {
    /// Whether valgrind could run the library's code; when not, `note`
    /// says why and the figures are absent.
    pub ran: bool,
    pub peak_stack_bytes: Option<u64>,
    /// Useful heap bytes (massif's `mem_heap_B`) above the window's start.
    pub peak_heap_bytes: Option<u64>,
    /// massif ÷ ango, stack and heap (None when either is 0 or absent).
    pub stack_ratio: Option<f64>,
    pub heap_ratio: Option<f64>,
    pub note: String,
}

/// Bytes as tables show them: `812 B`, `12.3 KiB`, `1.25 MiB`.
pub fn bytes(b: u64) -> String {
    match b {
        0..1024 => format!("{b} B"),
        1024..1_048_576 => format!("{:.1} KiB", b as f64 / 1024.0),
        _ => format!("{:.2} MiB", b as f64 / 1_048_576.0),
    }
}

impl PkMemoryRecord {
    /// See [`crate::record::who`].
    pub fn who(&self) -> String {
        crate::record::who(&self.backend, self.variant.as_deref())
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn byte_figures_read_as_tables_show_them() {
        use super::bytes;
        assert_eq!(bytes(812), "812 B");
        assert_eq!(bytes(12_595), "12.3 KiB");
        assert_eq!(bytes(1_310_720), "1.25 MiB");
    }
}
