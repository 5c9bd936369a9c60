//! Valgrind client requests, for the constant-time checks: mark secret
//! bytes undefined so that memcheck reports every branch and every memory
//! index that depends on them (the ctgrind method), and mark outputs
//! defined again before they are used. Outside valgrind each request is a
//! no-op that returns its default.
//!
//! A client request is valgrind's "special instruction sequence" on
//! x86-64: four rotations of rdi that add up to 128 bits (no effect on real
//! hardware) followed by `xchg rbx, rbx`, with rax pointing to the request
//! and its five arguments and rdx holding the default result (valgrind.h,
//! `VALGRIND_DO_CLIENT_REQUEST_EXPR`).

/// `VG_USERREQ_TOOL_BASE('M','C')`: memcheck's requests.
const MC_BASE: u64 = ((b'M' as u64) << 24) | ((b'C' as u64) << 16);
const MAKE_MEM_UNDEFINED: u64 = MC_BASE + 1;
const MAKE_MEM_DEFINED: u64 = MC_BASE + 2;
/// `VG_USERREQ__GDB_MONITOR_COMMAND`.
const MONITOR_COMMAND: u64 = 0x1202;
/// `VG_USERREQ__RUNNING_ON_VALGRIND`.
const RUNNING_ON_VALGRIND: u64 = 0x1001;

#[cfg(target_arch = "x86_64")]
fn request(default: u64, args: [u64; 6]) -> u64 {
    let mut out = default;
    // SAFETY: the sequence only rotates rdi by a total of 128 bits (its
    // value is unchanged) and exchanges rbx with itself; under valgrind it
    // reads the six words at rax (a live array) and writes rdx. The stack
    // is not touched; memory is left alone, but the block is not marked
    // read-only so that it orders the accesses around it (a barrier).
    unsafe {
        core::arch::asm!(
            "rol rdi, 3",
            "rol rdi, 13",
            "rol rdi, 61",
            "rol rdi, 51",
            "xchg rbx, rbx",
            in("rax") args.as_ptr(),
            inout("rdx") out,
            out("rdi") _,
            options(nostack, preserves_flags),
        );
    }
    out
}

#[cfg(not(target_arch = "x86_64"))]
fn request(default: u64, _args: [u64; 6]) -> u64 {
    default
}

/// Whether this process runs under valgrind.
pub fn running_on_valgrind() -> bool {
    request(0, [RUNNING_ON_VALGRIND, 0, 0, 0, 0, 0]) != 0
}

/// Mark `bytes` undefined (secret) for memcheck.
pub fn poison(bytes: &[u8]) {
    request(
        0,
        [
            MAKE_MEM_UNDEFINED,
            bytes.as_ptr() as u64,
            bytes.len() as u64,
            0,
            0,
            0,
        ],
    );
}

/// Mark `bytes` defined again (an output that may be used freely).
pub fn unpoison(bytes: &[u8]) {
    request(
        0,
        [
            MAKE_MEM_DEFINED,
            bytes.as_ptr() as u64,
            bytes.len() as u64,
            0,
            0,
            0,
        ],
    );
}

/// Run a monitor command of the tool (massif's `snapshot FILE`), as
/// `VALGRIND_MONITOR_COMMAND` does; true when the tool took it (false
/// outside valgrind).
pub fn monitor(command: &std::ffi::CStr) -> bool {
    // Valgrind returns 0 for a command it recognised, 1 otherwise; the
    // default (not under valgrind) is 2.
    request(2, [MONITOR_COMMAND, command.as_ptr() as u64, 0, 0, 0, 0]) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_no_ops_outside_valgrind() {
        let v = [1u8, 2, 3];
        poison(&v);
        unpoison(&v);
        assert_eq!(v, [1, 2, 3]);
        // The tests do not run under valgrind (ango ct's own test does).
        assert!(!running_on_valgrind());
        assert!(!monitor(c"snapshot /dev/null"));
    }
}
