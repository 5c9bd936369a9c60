//! CPU feature tokens: a token can only be made when the running CPU has the
//! feature, and every SIMD variant takes one, so calling AVX2 code on a CPU
//! without AVX2 cannot be written.

/// Proof that the CPU has SSE2 (always true on x86_64).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sse2(());

/// Proof that the CPU has AVX2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Avx2(());

impl Sse2 {
    pub fn detect() -> Option<Sse2> {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("sse2") {
            return Some(Sse2(()));
        }
        None
    }
}

impl Avx2 {
    pub fn detect() -> Option<Avx2> {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            return Some(Avx2(()));
        }
        None
    }
}

/// Proof that the CPU has AES-NI (and SSE2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AesNi(());

impl AesNi {
    pub fn detect() -> Option<AesNi> {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("aes") && std::arch::is_x86_feature_detected!("sse2")
        {
            return Some(AesNi(()));
        }
        None
    }
}

/// Proof that the CPU has PCLMULQDQ (and SSE2, SSSE3 for byte shuffles).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pclmul(());

impl Pclmul {
    pub fn detect() -> Option<Pclmul> {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("pclmulqdq")
            && std::arch::is_x86_feature_detected!("ssse3")
        {
            return Some(Pclmul(()));
        }
        None
    }
}

/// Proof that the CPU has VAES with AVX2 (256-bit AES rounds) and AES-NI.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Vaes(());

impl Vaes {
    pub fn detect() -> Option<Vaes> {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("vaes")
            && std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("aes")
        {
            return Some(Vaes(()));
        }
        None
    }

    /// VAES implies the AES-NI key schedule is available.
    pub fn aesni(self) -> AesNi {
        AesNi(())
    }
}

/// Proof that the CPU has AVX-512F.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Avx512(());

impl Avx512 {
    pub fn detect() -> Option<Avx512> {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx512f") {
            return Some(Avx512(()));
        }
        None
    }
}

/// Proof that the CPU has AVX2 and AVX-512F/VL: the AVX-512 instructions
/// on 256-bit registers (VPROLD's one-instruction rotations).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Avx512Vl(());

impl Avx512Vl {
    pub fn detect() -> Option<Avx512Vl> {
        #[cfg(target_arch = "x86_64")]
        if Avx2::detect().is_some()
            && std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512vl")
        {
            return Some(Avx512Vl(()));
        }
        None
    }
}

/// Proof that the CPU has AVX-512F with IFMA (52-bit multiply-accumulate).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ifma(());

impl Ifma {
    pub fn detect() -> Option<Ifma> {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512ifma")
        {
            return Some(Ifma(()));
        }
        None
    }
}

/// Proof that the CPU has VPCLMULQDQ with AVX2 (256-bit carry-less
/// multiplies) and PCLMULQDQ with SSSE3.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Vpclmul(());

impl Vpclmul {
    pub fn detect() -> Option<Vpclmul> {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("vpclmulqdq")
            && std::arch::is_x86_feature_detected!("avx2")
            && Pclmul::detect().is_some()
        {
            return Some(Vpclmul(()));
        }
        None
    }

    /// VPCLMULQDQ implies the 128-bit PCLMULQDQ code runs.
    pub fn pclmul(self) -> Pclmul {
        Pclmul(())
    }
}

/// Proof that the CPU has VAES on 512-bit registers: VAES, AES-NI, AVX2 and
/// AVX-512F/BW.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Vaes512(());

impl Vaes512 {
    pub fn detect() -> Option<Vaes512> {
        #[cfg(target_arch = "x86_64")]
        if Vaes::detect().is_some()
            && std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
        {
            return Some(Vaes512(()));
        }
        None
    }

    /// The 256-bit VAES code runs too.
    pub fn vaes(self) -> Vaes {
        Vaes(())
    }
}

/// For tests of code that needs a CPU feature: on a CPU without it such a
/// test must not pass by returning early. It checks instead that the
/// variant is refused with the reason (`refused`: what asking for it gave)
/// and says what it skipped; the feature's own part then does not run.
#[cfg(test)]
pub(crate) fn present_or_refused<T, E: core::fmt::Display>(
    token: Option<T>,
    what: &str,
    refused: Result<(), E>,
) -> Option<T> {
    if token.is_some() {
        return token;
    }
    let e = match refused {
        Ok(()) => panic!("{what}: the CPU lacks it, yet the variant was accepted"),
        Err(e) => e.to_string(),
    };
    assert!(
        e.contains("lacks") || e.contains("needs"),
        "{what}: refused without naming the missing feature: {e}"
    );
    eprintln!(
        "skipped the {what} part (this CPU lacks it); checked instead that it is refused: {e}"
    );
    None
}

#[cfg(test)]
mod tests {
    use super::present_or_refused;

    #[test]
    fn a_missing_feature_must_be_refused_with_its_name() {
        assert_eq!(
            present_or_refused(Some(7), "X", Ok::<(), &str>(())),
            Some(7)
        );
        assert_eq!(
            present_or_refused(None::<u8>, "X", Err("CPU lacks X")),
            None
        );
        let accepted =
            std::panic::catch_unwind(|| present_or_refused(None::<u8>, "X", Ok::<(), &str>(())));
        assert!(
            accepted.is_err(),
            "a variant accepted on a CPU without it must fail the test"
        );
        let nameless = std::panic::catch_unwind(|| present_or_refused(None::<u8>, "X", Err("no")));
        assert!(nameless.is_err(), "a refusal must name the missing feature");
    }
}
