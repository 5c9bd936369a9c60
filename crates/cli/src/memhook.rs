//! ango's `malloc`, `calloc`, `realloc`, `free`, `posix_memalign`,
//! `aligned_alloc`, `memalign` and `valloc`: glibc's own (its `__libc_*`
//! entry points), each reporting the block's usable size to
//! `ango_harness::memory`, so that `ango pk --memory` sees the heap of C
//! libraries and of Rust alike. Defined in the executable, they take the
//! place of glibc's for every object in the process: the statically
//! linked libraries bind to them at link time, shared ones (LibTomCrypt,
//! libgcrypt, glibc itself) through the dynamic symbol table (build.rs
//! exports them). Nothing here allocates.
//!
//! Under valgrind (`--soname-synonyms=somalloc=NONE`) the tool replaces
//! these functions in turn, so massif sees every allocation too.

use ango_harness::memory::{on_alloc, on_free};
use libc::{c_int, c_void, size_t};

extern "C" {
    fn __libc_malloc(size: size_t) -> *mut c_void;
    fn __libc_calloc(n: size_t, size: size_t) -> *mut c_void;
    fn __libc_realloc(p: *mut c_void, size: size_t) -> *mut c_void;
    fn __libc_free(p: *mut c_void);
    fn __libc_memalign(align: size_t, size: size_t) -> *mut c_void;
    fn malloc_usable_size(p: *mut c_void) -> size_t;
}

/// The usable size of a block glibc handed out (0 for null).
fn usable(p: *mut c_void) -> usize {
    if p.is_null() {
        0
    } else {
        // SAFETY: FFI; p is a live block from glibc's allocator.
        unsafe { malloc_usable_size(p) }
    }
}

fn handed_out(p: *mut c_void) -> *mut c_void {
    if !p.is_null() {
        on_alloc(usable(p), 0);
    }
    p
}

/// # Safety
/// As C's `malloc`.
#[no_mangle]
pub unsafe extern "C" fn malloc(size: size_t) -> *mut c_void {
    // SAFETY: FFI; glibc's malloc has no preconditions.
    handed_out(unsafe { __libc_malloc(size) })
}

/// # Safety
/// As C's `calloc`.
#[no_mangle]
pub unsafe extern "C" fn calloc(n: size_t, size: size_t) -> *mut c_void {
    // SAFETY: FFI; glibc's calloc checks the product for overflow.
    handed_out(unsafe { __libc_calloc(n, size) })
}

/// # Safety
/// As C's `free`: `p` is null or a live block of this allocator.
#[no_mangle]
pub unsafe extern "C" fn free(p: *mut c_void) {
    if p.is_null() {
        return;
    }
    on_free(usable(p));
    // SAFETY: FFI; the caller's contract: p is a live block.
    unsafe { __libc_free(p) }
}

/// # Safety
/// As C's `realloc`.
#[no_mangle]
pub unsafe extern "C" fn realloc(p: *mut c_void, size: size_t) -> *mut c_void {
    let old = usable(p);
    // SAFETY: FFI; the caller's contract: p is null or a live block.
    let q = unsafe { __libc_realloc(p, size) };
    if !q.is_null() {
        on_alloc(usable(q), old);
    } else if size == 0 && !p.is_null() {
        // glibc frees the block and returns null.
        on_free(old);
    }
    q
}

/// # Safety
/// As C's `memalign`.
#[no_mangle]
pub unsafe extern "C" fn memalign(align: size_t, size: size_t) -> *mut c_void {
    // SAFETY: FFI; glibc's memalign rounds a bad alignment up itself.
    handed_out(unsafe { __libc_memalign(align, size) })
}

/// # Safety
/// As C's `aligned_alloc`.
#[no_mangle]
pub unsafe extern "C" fn aligned_alloc(align: size_t, size: size_t) -> *mut c_void {
    // SAFETY: as in memalign.
    handed_out(unsafe { __libc_memalign(align, size) })
}

/// # Safety
/// As C's `valloc`.
#[no_mangle]
pub unsafe extern "C" fn valloc(size: size_t) -> *mut c_void {
    // SAFETY: FFI; page alignment is a valid one.
    handed_out(unsafe { __libc_memalign(4096, size) })
}

/// # Safety
/// As C's `posix_memalign`: `out` points to writable storage for a
/// pointer.
#[no_mangle]
pub unsafe extern "C" fn posix_memalign(
    out: *mut *mut c_void,
    align: size_t,
    size: size_t,
) -> c_int {
    if !align.is_power_of_two() || !align.is_multiple_of(std::mem::size_of::<usize>()) {
        return libc::EINVAL;
    }
    // SAFETY: FFI; align is a power of two and a multiple of a pointer.
    let p = handed_out(unsafe { __libc_memalign(align, size) });
    if p.is_null() {
        return libc::ENOMEM;
    }
    // SAFETY: the caller's contract: out is writable.
    unsafe { *out = p };
    0
}

/// Make sure every symbol was bound when the process started, so that no
/// lazy binding (and its stack) falls in a measured call: unless
/// LD_BIND_NOW is set, run this same command again with it set (exec:
/// the same process id, arguments and descriptors). If exec fails the
/// command goes on; its records then say that binding was lazy.
pub fn bind_now() {
    use std::os::unix::process::CommandExt;
    if std::env::var_os("LD_BIND_NOW").is_some_and(|v| !v.is_empty()) {
        return;
    }
    let Ok(exe) = std::env::current_exe() else {
        return;
    };
    let err = std::process::Command::new(exe)
        .args(std::env::args_os().skip(1))
        .env("LD_BIND_NOW", "1")
        .exec();
    esay!("ango: could not run again with LD_BIND_NOW=1 ({err}); binding stays lazy");
}

/// Tell the harness that this executable's allocations are seen.
pub fn install() {
    ango_harness::memory::mark_interposed();
}

#[cfg(test)]
mod tests {
    use ango_harness::memory::{measure_calls, on_own_stack, CallMemory};

    fn calls(f: &mut (dyn FnMut() -> Result<(), ()> + Send)) -> Vec<CallMemory> {
        super::install();
        on_own_stack(8 << 20, |p| measure_calls(p, 2, 5, None, f).unwrap()).unwrap()
    }

    #[test]
    fn a_known_heap_reads_within_a_page_and_nothing_allocated_reads_zero() {
        // 100,000 bytes, held while 3 more small blocks come and go.
        let got = calls(&mut || {
            let big = std::hint::black_box(vec![7u8; 100_000]);
            for _ in 0..3 {
                drop(std::hint::black_box(vec![1u8; 100]));
            }
            drop(big);
            Ok(())
        });
        for m in &got {
            assert!(
                (100_000..100_000 + 4096).contains(&m.heap.peak_bytes),
                "{m:?}"
            );
            assert_eq!(m.heap.allocations, 4, "{m:?}");
        }
        let none = calls(&mut || {
            std::hint::black_box(0u64);
            Ok(())
        });
        for m in &none {
            assert_eq!((m.heap.peak_bytes, m.heap.allocations), (0, 0), "{m:?}");
        }
    }

    #[test]
    fn c_allocations_are_seen_too() {
        let got = calls(&mut || {
            // SAFETY: FFI; the blocks are freed before the call returns.
            unsafe {
                let a = libc::malloc(50_000);
                let b = libc::calloc(10, 1000);
                let mut c: *mut libc::c_void = std::ptr::null_mut();
                assert_eq!(libc::posix_memalign(&mut c, 64, 20_000), 0);
                let a = libc::realloc(a, 60_000);
                libc::free(a);
                libc::free(b);
                libc::free(c);
            }
            Ok(())
        });
        for m in &got {
            assert!(
                (90_000..90_000 + 4096).contains(&m.heap.peak_bytes),
                "{m:?}"
            );
            assert_eq!(m.heap.allocations, 4, "{m:?}");
        }
    }
}
