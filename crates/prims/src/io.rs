//! The buffers the one-pass AEAD code (GCM's and ChaCha20-Poly1305's)
//! reads from and writes to.

/// Where the one-pass code opens from and to: one buffer (in place) or two
/// that do not overlap, held as raw pointers so that one code serves both.
/// Every piece is read before it is written; views of the ciphertext are
/// made for one use at a time.
#[cfg(target_arch = "x86_64")]
pub(crate) struct Io<'a> {
    src: *const u8,
    dst: *mut u8,
    pub(crate) len: usize,
    _buf: core::marker::PhantomData<&'a mut [u8]>,
}

#[cfg(target_arch = "x86_64")]
impl<'a> Io<'a> {
    pub(crate) fn in_place(buf: &'a mut [u8]) -> Io<'a> {
        let p = buf.as_mut_ptr();
        Io {
            src: p,
            dst: p,
            len: buf.len(),
            _buf: core::marker::PhantomData,
        }
    }

    pub(crate) fn between(src: &'a [u8], dst: &'a mut [u8]) -> Io<'a> {
        assert_eq!(src.len(), dst.len());
        Io {
            src: src.as_ptr(),
            dst: dst.as_mut_ptr(),
            len: dst.len(),
            _buf: core::marker::PhantomData,
        }
    }

    /// The `n` ciphertext bytes at `at`, for one use.
    pub(crate) fn src(&self, at: usize, n: usize) -> &[u8] {
        assert!(at + n <= self.len);
        // SAFETY: inside the source buffer (checked above); no write happens
        // while the view lives (writes need `&mut self`).
        unsafe { core::slice::from_raw_parts(self.src.add(at), n) }
    }

    /// The `n` output bytes at `at`.
    pub(crate) fn dst(&mut self, at: usize, n: usize) -> &mut [u8] {
        assert!(at + n <= self.len);
        // SAFETY: inside the destination buffer (checked above); `&mut self`
        // keeps any view of the source from living beside it.
        unsafe { core::slice::from_raw_parts_mut(self.dst.add(at), n) }
    }

    /// Raw pointers to byte `at` of the source and the destination, for
    /// code that reads each piece before writing it.
    pub(crate) fn at(&mut self, at: usize) -> (*const u8, *mut u8) {
        assert!(at <= self.len);
        // SAFETY: at most one past the end of both buffers (checked above).
        unsafe { (self.src.add(at), self.dst.add(at)) }
    }
}
