//! Pinning the measuring process to one CPU (`--cpu N`), so that no
//! migration between CPUs lands inside a sample. Child processes (the
//! hardware-setting workers) inherit the affinity.

/// The CPUs this process may run on.
#[cfg(target_os = "linux")]
pub fn allowed_cpus() -> Vec<usize> {
    // SAFETY: FFI; cpu_set_t is plain data, zero-initialised, and
    // sched_getaffinity writes at most sizeof(cpu_set_t) bytes into it.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: FFI call with a valid pointer to the set and its size.
    let rc =
        unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) };
    if rc != 0 {
        return vec![];
    }
    (0..libc::CPU_SETSIZE as usize)
        // SAFETY: CPU_ISSET reads the bit of an index below CPU_SETSIZE.
        .filter(|&c| unsafe { libc::CPU_ISSET(c, &set) })
        .collect()
}

#[cfg(not(target_os = "linux"))]
pub fn allowed_cpus() -> Vec<usize> {
    vec![]
}

/// Restrict this process (and the children it starts later) to `cpus`.
#[cfg(target_os = "linux")]
fn set_affinity(cpus: &[usize]) -> std::io::Result<()> {
    // SAFETY: FFI; zeroed cpu_set_t is a valid empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &c in cpus {
        if c >= libc::CPU_SETSIZE as usize {
            return Err(std::io::Error::other(format!("CPU {c} out of range")));
        }
        // SAFETY: CPU_SET writes the bit of an index checked to be below
        // CPU_SETSIZE.
        unsafe { libc::CPU_SET(c, &mut set) };
    }
    // SAFETY: FFI call with a valid pointer to the set and its size.
    let rc = unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

#[cfg(not(target_os = "linux"))]
fn set_affinity(_cpus: &[usize]) -> std::io::Result<()> {
    Err(std::io::Error::other("CPU pinning is Linux only"))
}

/// Pin this process (and the children it starts later) to `cpu`.
pub fn pin(cpu: usize) -> std::io::Result<()> {
    set_affinity(&[cpu])
}

/// Pin the calling thread only to `cpu` (Linux affinity is per thread:
/// the measuring workers of `--multi` each pin themselves).
pub fn pin_thread(cpu: usize) -> std::io::Result<()> {
    set_affinity(&[cpu])
}

/// Restore a set of CPUs (e.g. what [`allowed_cpus`] returned before).
pub fn unpin(cpus: &[usize]) -> std::io::Result<()> {
    set_affinity(cpus)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pin_and_unpin_round_trip() {
        let cpus = allowed_cpus();
        if cpus.is_empty() {
            return;
        }
        pin(cpus[0]).unwrap();
        assert_eq!(allowed_cpus(), vec![cpus[0]]);
        unpin(&cpus).unwrap();
        assert_eq!(allowed_cpus(), cpus);
    }
}
