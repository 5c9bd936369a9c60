//! `timing: operation` for OpenSSL: the contexts `openssl speed` keeps
//! across calls, made once here.

use super::*;
use ango_core::pk::{prepared, Prepared};
use openssl::nid::Nid;

/// A key-generation context for `a` with its parameters set (RSA bits,
/// the P-256 group): EVP_PKEY_keygen alone is timed.
pub fn keygen(a: PkAlgorithm) -> Result<Prepared<'static>> {
    let mut ctx = match a {
        PkAlgorithm::Rsa2048 | PkAlgorithm::Rsa3072 => {
            let mut c = keygen_ctx("RSA").map_err(err)?;
            c.set_rsa_keygen_bits(if a == PkAlgorithm::Rsa2048 {
                2048
            } else {
                3072
            })
            .map_err(err)?;
            c
        }
        PkAlgorithm::P256 => {
            let mut c = keygen_ctx("EC").map_err(err)?;
            c.set_ec_paramgen_curve_nid(Nid::X9_62_PRIME256V1)
                .map_err(err)?;
            c
        }
        _ => keygen_ctx(ossl_name(a).expect("named")).map_err(err)?,
    };
    Ok(prepared(0, move |_| {
        ctx.keygen().map_err(err)?;
        Ok(0)
    }))
}

/// EVP_PKEY_encapsulate on a context initialised once for the peer key.
pub fn encaps(peer: &PKey<Public>) -> Result<Prepared<'static>> {
    let ctx = PkeyCtx::new(peer).map_err(err)?;
    // SAFETY: `ctx` is valid; NULL params.
    cvt(unsafe { ffi::EVP_PKEY_encapsulate_init(ctx.as_ptr(), ptr::null()) }).map_err(err)?;
    let (mut ctlen, mut sslen) = (0usize, 0usize);
    // SAFETY: NULL buffers ask for the lengths.
    cvt(unsafe {
        ffi::EVP_PKEY_encapsulate(
            ctx.as_ptr(),
            ptr::null_mut(),
            &mut ctlen,
            ptr::null_mut(),
            &mut sslen,
        )
    })
    .map_err(err)?;
    let mut ct = vec![0u8; ctlen];
    Ok(prepared(sslen, move |ss: &mut [u8]| {
        let (mut cl, mut sl) = (ct.len(), ss.len());
        // SAFETY: `ct` and `ss` have the lengths OpenSSL asked for
        // (`ss` is the prepared buffer of `sslen` bytes).
        cvt(unsafe {
            ffi::EVP_PKEY_encapsulate(
                ctx.as_ptr(),
                ct.as_mut_ptr(),
                &mut cl,
                ss.as_mut_ptr(),
                &mut sl,
            )
        })
        .map_err(err)?;
        Ok(sl)
    }))
}

/// EVP_PKEY_decapsulate on a context initialised once for the key.
pub fn decaps(key: &PKey<Private>, ct: &[u8]) -> Result<Prepared<'static>> {
    let ctx = PkeyCtx::new(key).map_err(err)?;
    // SAFETY: `ctx` is valid; NULL params.
    cvt(unsafe { ffi::EVP_PKEY_decapsulate_init(ctx.as_ptr(), ptr::null()) }).map_err(err)?;
    let ct = ct.to_vec();
    let mut sslen = 0usize;
    // SAFETY: a NULL buffer asks for the length; `ct` is a valid range.
    cvt(unsafe {
        ffi::EVP_PKEY_decapsulate(
            ctx.as_ptr(),
            ptr::null_mut(),
            &mut sslen,
            ct.as_ptr(),
            ct.len(),
        )
    })
    .map_err(err)?;
    Ok(prepared(sslen, move |ss: &mut [u8]| {
        let mut sl = ss.len();
        // SAFETY: `ss` is the prepared buffer of the `sslen` bytes
        // OpenSSL asked for; `ct` is a valid range.
        cvt(unsafe {
            ffi::EVP_PKEY_decapsulate(
                ctx.as_ptr(),
                ss.as_mut_ptr(),
                &mut sl,
                ct.as_ptr(),
                ct.len(),
            )
        })
        .map_err(err)?;
        Ok(sl)
    }))
}

/// X25519 as seed 003's KEM. encaps: an ephemeral key from a reused
/// key-generation context, then the derivation with the parsed peer key
/// (a derivation context belongs to its own, new key, so it is made per
/// call, as any X25519 client must; the record's method says so).
/// decaps: EVP_PKEY_derive on one context holding the key and the
/// peer's ephemeral key.
pub fn x25519_encaps(peer: &PKey<Public>) -> Result<Prepared<'static>> {
    let mut kg = keygen_ctx("X25519").map_err(err)?;
    let peer = peer.clone();
    Ok(prepared(32, move |ss: &mut [u8]| {
        let eph = kg.keygen().map_err(err)?;
        let mut d = Deriver::new(&eph).map_err(err)?;
        d.set_peer(&peer).map_err(err)?;
        d.derive(ss).map_err(err)
    }))
}

pub fn x25519_decaps(key: &PKey<Private>, ct: &[u8]) -> Result<Prepared<'static>> {
    let eph = PKey::public_key_from_raw_bytes(ct, Id::X25519).map_err(err)?;
    let mut ctx = PkeyCtx::new(key).map_err(err)?;
    ctx.derive_init().map_err(err)?;
    ctx.derive_set_peer(&eph).map_err(err)?;
    Ok(prepared(32, move |ss: &mut [u8]| {
        ctx.derive(Some(ss)).map_err(err)
    }))
}

/// The signature algorithm fetched once (EVP_SIGNATURE_fetch), for
/// EVP_PKEY_sign_message_init / verify_message_init.
pub(super) struct Fetched(pub(super) *mut ffi::EVP_SIGNATURE);

impl Fetched {
    pub(super) fn new(name: &str) -> Result<Fetched> {
        let c = CString::new(name).expect("no NUL in algorithm names");
        // SAFETY: a valid NUL-terminated name; default library context
        // and properties.
        let p = unsafe { ffi::EVP_SIGNATURE_fetch(ptr::null_mut(), c.as_ptr(), ptr::null()) };
        if p.is_null() {
            return Err(err(ErrorStack::get()));
        }
        Ok(Fetched(p))
    }
}

impl Drop for Fetched {
    fn drop(&mut self) {
        // SAFETY: we own the fetched signature; the contexts that use
        // it hold their own reference.
        unsafe { ffi::EVP_SIGNATURE_free(self.0) }
    }
}

/// How `a`'s sign and verify contexts are set up: message signing with
/// the fetched algorithm (ML-DSA, SLH-DSA, Ed25519: the scheme takes
/// the message), or a SHA-256 digest signed by ECDSA or RSASSA-PSS
/// (hashing is inside the timed call, as in the one-shot API).
fn init<T>(a: PkAlgorithm, ctx: &mut PkeyCtx<T>, sign: bool) -> Result<bool> {
    match a {
        PkAlgorithm::P256 | PkAlgorithm::Rsa2048 | PkAlgorithm::Rsa3072 => {
            // SAFETY: `ctx` is a valid context holding a key of the
            // right kind (private to sign).
            cvt(unsafe {
                if sign {
                    ffi::EVP_PKEY_sign_init(ctx.as_ptr())
                } else {
                    ffi::EVP_PKEY_verify_init(ctx.as_ptr())
                }
            })
            .map_err(err)?;
            ctx.set_signature_md(openssl::md::Md::sha256())
                .map_err(err)?;
            if a != PkAlgorithm::P256 {
                ctx.set_rsa_padding(Padding::PKCS1_PSS).map_err(err)?;
                ctx.set_rsa_mgf1_md(openssl::md::Md::sha256())
                    .map_err(err)?;
                ctx.set_rsa_pss_saltlen(RsaPssSaltlen::DIGEST_LENGTH)
                    .map_err(err)?;
            }
            Ok(true)
        }
        _ => {
            let f = Fetched::new(ossl_name(a).expect("named"))?;
            // SAFETY: valid context and fetched algorithm; NULL params.
            cvt(unsafe {
                if sign {
                    ffi::EVP_PKEY_sign_message_init(ctx.as_ptr(), f.0, ptr::null())
                } else {
                    ffi::EVP_PKEY_verify_message_init(ctx.as_ptr(), f.0, ptr::null())
                }
            })
            .map_err(err)?;
            Ok(false)
        }
    }
}

pub fn sign(a: PkAlgorithm, key: &PKey<Private>, msg: &[u8]) -> Result<Prepared<'static>> {
    let mut ctx = PkeyCtx::new(key).map_err(err)?;
    let digest = init(a, &mut ctx, true)?;
    let msg = msg.to_vec();
    let len = ctx.sign(&msg, None).map_err(err)?;
    Ok(prepared(len, move |sig: &mut [u8]| {
        if digest {
            ctx.sign(&openssl::sha::sha256(&msg), Some(sig))
        } else {
            ctx.sign(&msg, Some(sig))
        }
        .map_err(err)
    }))
}

pub fn verify(
    a: PkAlgorithm,
    peer: &PKey<Public>,
    msg: &[u8],
    sig: &[u8],
) -> Result<Prepared<'static>> {
    let mut ctx = PkeyCtx::new(peer).map_err(err)?;
    let digest = init(a, &mut ctx, false)?;
    let (msg, sig) = (msg.to_vec(), sig.to_vec());
    Ok(prepared(1, move |out: &mut [u8]| {
        let ok = if digest {
            ctx.verify(&openssl::sha::sha256(&msg), &sig)
        } else {
            ctx.verify(&msg, &sig)
        };
        out[0] = u8::from(ok.unwrap_or(false));
        Ok(1)
    }))
}
