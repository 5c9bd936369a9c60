//! OpenSSL 3.5's public-key algorithms through EVP: ML-KEM and the hybrid
//! X25519MLKEM768 with `EVP_PKEY_encapsulate`/`EVP_PKEY_decapsulate` (declared
//! by openssl-sys), X25519 with `EVP_PKEY_derive`, ML-DSA, SLH-DSA and
//! Ed25519 with one-shot `EVP_DigestSign` (no digest: the schemes sign the
//! message itself; OpenSSL's ML-DSA and SLH-DSA signing is hedged), ECDSA
//! P-256 and RSASSA-PSS with SHA-256.

use ango_core::pk::{Kem, PkAlgorithm, PkBackend, PkOp, Prepared, Signer, SizeEntry};
use ango_core::{Error, Result, Unavailable};
use foreign_types::{ForeignType, ForeignTypeRef};
use openssl::derive::Deriver;
use openssl::error::ErrorStack;
use openssl::hash::MessageDigest;
use openssl::md_ctx::MdCtx;
use openssl::pkey::{HasPublic, Id, PKey, PKeyRef, Private, Public};
use openssl::pkey_ctx::PkeyCtx;
use openssl::rsa::{Padding, Rsa};
use openssl::sign::RsaPssSaltlen;
use openssl_sys as ffi;
use std::ffi::CString;
use std::ptr;

const NAME: &str = "openssl";

pub struct OpenSslPk;

provider_errors!(NAME);

fn cvt(r: libc::c_int) -> std::result::Result<libc::c_int, ErrorStack> {
    if r <= 0 {
        Err(ErrorStack::get())
    } else {
        Ok(r)
    }
}

/// OpenSSL's provider name of an algorithm.
fn ossl_name(a: PkAlgorithm) -> Option<&'static str> {
    use PkAlgorithm::*;
    Some(match a {
        X25519 => "X25519",
        MlKem512 => "ML-KEM-512",
        MlKem768 => "ML-KEM-768",
        MlKem1024 => "ML-KEM-1024",
        X25519MlKem768 => "X25519MLKEM768",
        Rsa2048 | Rsa3072 => "RSA",
        P256 => "EC",
        Ed25519 => "ED25519",
        MlDsa44 => "ML-DSA-44",
        MlDsa65 => "ML-DSA-65",
        MlDsa87 => "ML-DSA-87",
        SlhDsaSha2_128f => "SLH-DSA-SHA2-128f",
        _ => return None,
    })
}

/// A key-generation context by provider name (EVP_PKEY_CTX_new_from_name,
/// with its implicit algorithm fetch). The API calls make one per key pair,
/// as a program that generates a key now and then does; `timing:
/// operation` makes one and reuses it (see `prepared`).
pub fn keygen_ctx(name: &str) -> std::result::Result<PkeyCtx<()>, ErrorStack> {
    let cname = CString::new(name).expect("no NUL in algorithm names");
    // SAFETY: a valid NUL-terminated name; NULL library context and
    // property query select the defaults.
    let raw =
        unsafe { ffi::EVP_PKEY_CTX_new_from_name(ptr::null_mut(), cname.as_ptr(), ptr::null()) };
    if raw.is_null() {
        return Err(ErrorStack::get());
    }
    // SAFETY: `raw` is a fresh EVP_PKEY_CTX that the PkeyCtx now owns.
    let mut ctx: PkeyCtx<()> = unsafe { PkeyCtx::from_ptr(raw) };
    ctx.keygen_init()?;
    Ok(ctx)
}

/// The encoded public key (OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY): what TLS
/// sends in a key share.
fn encoded_pub<T: HasPublic>(k: &PKeyRef<T>) -> std::result::Result<Vec<u8>, ErrorStack> {
    let mut len = 0usize;
    // SAFETY: `k` is a valid EVP_PKEY; a NULL buffer asks for the length.
    cvt(unsafe {
        ffi::EVP_PKEY_get_octet_string_param(
            k.as_ptr(),
            c"encoded-pub-key".as_ptr(),
            ptr::null_mut(),
            0,
            &mut len,
        )
    })?;
    let mut v = vec![0u8; len];
    // SAFETY: `v` has `len` writable bytes.
    cvt(unsafe {
        ffi::EVP_PKEY_get_octet_string_param(
            k.as_ptr(),
            c"encoded-pub-key".as_ptr(),
            v.as_mut_ptr(),
            v.len(),
            &mut len,
        )
    })?;
    v.truncate(len);
    Ok(v)
}

/// A public-only key from its encoded form (EVP_PKEY_fromdata with "pub").
fn pub_from_encoded(name: &str, enc: &[u8]) -> std::result::Result<PKey<Public>, ErrorStack> {
    let cname = CString::new(name).expect("no NUL in algorithm names");
    // SAFETY: as in `keygen_ctx`.
    let raw =
        unsafe { ffi::EVP_PKEY_CTX_new_from_name(ptr::null_mut(), cname.as_ptr(), ptr::null()) };
    if raw.is_null() {
        return Err(ErrorStack::get());
    }
    // SAFETY: `raw` is a fresh EVP_PKEY_CTX that the PkeyCtx now owns.
    let ctx: PkeyCtx<()> = unsafe { PkeyCtx::from_ptr(raw) };
    // SAFETY: `ctx` is valid.
    cvt(unsafe { ffi::EVP_PKEY_fromdata_init(ctx.as_ptr()) })?;
    // SAFETY: the parameter array points into `enc`, which outlives the
    // fromdata call (OpenSSL copies the bytes); the array ends with END.
    let mut params = unsafe {
        [
            ffi::OSSL_PARAM_construct_octet_string(
                c"pub".as_ptr(),
                enc.as_ptr() as *mut libc::c_void,
                enc.len(),
            ),
            ffi::OSSL_PARAM_construct_end(),
        ]
    };
    let mut pk = ptr::null_mut();
    // SAFETY: valid context, out pointer and parameter array.
    cvt(unsafe {
        ffi::EVP_PKEY_fromdata(
            ctx.as_ptr(),
            &mut pk,
            ffi::EVP_PKEY_PUBLIC_KEY,
            params.as_mut_ptr(),
        )
    })?;
    // SAFETY: fromdata succeeded, so `pk` is a new EVP_PKEY we own.
    Ok(unsafe { PKey::from_ptr(pk) })
}

/// A public key from raw bytes (EVP_PKEY_new_raw_public_key_ex).
fn pub_from_raw(name: &str, raw: &[u8]) -> std::result::Result<PKey<Public>, ErrorStack> {
    let cname = CString::new(name).expect("no NUL in algorithm names");
    // SAFETY: valid name and a byte range inside `raw`.
    let p = unsafe {
        ffi::EVP_PKEY_new_raw_public_key_ex(
            ptr::null_mut(),
            cname.as_ptr(),
            ptr::null(),
            raw.as_ptr(),
            raw.len(),
        )
    };
    if p.is_null() {
        return Err(ErrorStack::get());
    }
    // SAFETY: `p` is a new EVP_PKEY we own.
    Ok(unsafe { PKey::from_ptr(p) })
}

fn encapsulate<T: HasPublic>(
    pk: &PKeyRef<T>,
) -> std::result::Result<(Vec<u8>, Vec<u8>), ErrorStack> {
    encapsulate_with(pk, None)
}

/// Encapsulation, with `ikme` (OpenSSL 3.5's ML-KEM parameter for FIPS
/// 203's m, meant for known-answer tests) when given.
fn encapsulate_with<T: HasPublic>(
    pk: &PKeyRef<T>,
    ikme: Option<&[u8]>,
) -> std::result::Result<(Vec<u8>, Vec<u8>), ErrorStack> {
    let ctx = PkeyCtx::new(pk)?;
    // SAFETY: the parameter points into `ikme`, which outlives the init
    // call (OpenSSL copies it); the array ends with END.
    let params = ikme.map(|m| unsafe {
        [
            ffi::OSSL_PARAM_construct_octet_string(
                c"ikme".as_ptr(),
                m.as_ptr() as *mut libc::c_void,
                m.len(),
            ),
            ffi::OSSL_PARAM_construct_end(),
        ]
    });
    let p = params.as_ref().map_or(ptr::null(), |a| a.as_ptr());
    // SAFETY: `ctx` is valid; `p` is NULL or a terminated parameter array.
    cvt(unsafe { ffi::EVP_PKEY_encapsulate_init(ctx.as_ptr(), p) })?;
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
    })?;
    let (mut ct, mut ss) = (vec![0u8; ctlen], vec![0u8; sslen]);
    // SAFETY: the buffers have the lengths OpenSSL asked for.
    cvt(unsafe {
        ffi::EVP_PKEY_encapsulate(
            ctx.as_ptr(),
            ct.as_mut_ptr(),
            &mut ctlen,
            ss.as_mut_ptr(),
            &mut sslen,
        )
    })?;
    ct.truncate(ctlen);
    ss.truncate(sslen);
    Ok((ct, ss))
}

fn decapsulate(sk: &PKeyRef<Private>, ct: &[u8]) -> std::result::Result<Vec<u8>, ErrorStack> {
    let ctx = PkeyCtx::new(sk)?;
    // SAFETY: `ctx` is valid; NULL params.
    cvt(unsafe { ffi::EVP_PKEY_decapsulate_init(ctx.as_ptr(), ptr::null()) })?;
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
    })?;
    let mut ss = vec![0u8; sslen];
    // SAFETY: `ss` has the length OpenSSL asked for.
    cvt(unsafe {
        ffi::EVP_PKEY_decapsulate(
            ctx.as_ptr(),
            ss.as_mut_ptr(),
            &mut sslen,
            ct.as_ptr(),
            ct.len(),
        )
    })?;
    ss.truncate(sslen);
    Ok(ss)
}

fn derive(
    own: &PKeyRef<Private>,
    peer: &PKeyRef<Public>,
) -> std::result::Result<Vec<u8>, ErrorStack> {
    let mut d = Deriver::new(own)?;
    d.set_peer(peer)?;
    d.derive_to_vec()
}

/// The sizes of a key pair's encodings that OpenSSL can produce: the raw
/// secret key, PKCS#8, PKCS#1 (RSA) and, if `spki`, the DER public key.
fn encoding_sizes(k: &PKey<Private>, spki: bool) -> Result<Vec<SizeEntry>> {
    let mut v = Vec::new();
    if let Ok(raw) = k.raw_private_key() {
        v.push(SizeEntry::new("secret_key", "raw", raw.len()));
    }
    if let Ok(der) = k.private_key_to_pkcs8() {
        v.push(SizeEntry::new("secret_key", "pkcs8-der", der.len()));
    }
    if let Ok(rsa) = k.rsa() {
        let der = rsa.private_key_to_der().map_err(err)?;
        v.push(SizeEntry::new("secret_key", "pkcs1-der", der.len()));
    }
    if spki {
        if let Ok(der) = k.public_key_to_der() {
            v.push(SizeEntry::new("public_key", "spki-der", der.len()));
        }
    }
    Ok(v)
}

struct OsslKem {
    algo: PkAlgorithm,
    key: Option<PKey<Private>>,
    peer: Option<PKey<Public>>,
}

impl OsslKem {
    fn name(&self) -> &'static str {
        ossl_name(self.algo).expect("available algorithms have names")
    }
    fn key(&self) -> Result<&PKey<Private>> {
        self.key
            .as_ref()
            .ok_or_else(|| err("no key pair yet (keygen first)"))
    }
}

impl Kem for OsslKem {
    fn keygen(&mut self) -> Result<Vec<u8>> {
        let name = self.name();
        let k = keygen_ctx(name).and_then(|mut c| c.keygen()).map_err(err)?;
        let pk = if self.algo == PkAlgorithm::X25519 {
            k.raw_public_key().map_err(err)?
        } else {
            encoded_pub(&k).map_err(err)?
        };
        self.key = Some(k);
        Ok(pk)
    }

    fn set_peer(&mut self, pk: &[u8]) -> Result<()> {
        let p = if self.algo == PkAlgorithm::X25519 {
            if pk.len() != 32 {
                return Err(err(format!("X25519 public key of {} bytes", pk.len())));
            }
            PKey::public_key_from_raw_bytes(pk, Id::X25519).map_err(err)?
        } else {
            pub_from_encoded(self.name(), pk).map_err(err)?
        };
        self.peer = Some(p);
        Ok(())
    }

    fn encaps(&mut self) -> Result<(Vec<u8>, Vec<u8>)> {
        let peer = self
            .peer
            .as_ref()
            .ok_or_else(|| err("no peer key (set_peer first)"))?;
        if self.algo == PkAlgorithm::X25519 {
            let eph = PKey::generate_x25519().map_err(err)?;
            let ss = derive(&eph, peer).map_err(err)?;
            Ok((eph.raw_public_key().map_err(err)?, ss))
        } else {
            encapsulate(peer).map_err(err)
        }
    }

    /// ML-KEM.Encaps_internal(ek, m) through the "ikme" parameter.
    fn encaps_derand(&mut self, m: &[u8]) -> Result<(Vec<u8>, Vec<u8>)> {
        if ml_kem_type(self.algo).is_none() {
            return Err(Error::Unsupported("encapsulation with a given m".into()));
        }
        let peer = self
            .peer
            .as_ref()
            .ok_or_else(|| err("no peer key (set_peer first)"))?;
        encapsulate_with(peer, Some(m)).map_err(err)
    }

    fn decaps(&mut self, ct: &[u8]) -> Result<Vec<u8>> {
        let key = self.key()?;
        if self.algo == PkAlgorithm::X25519 {
            if ct.len() != 32 {
                return Err(err(format!("X25519 ciphertext of {} bytes", ct.len())));
            }
            let eph = PKey::public_key_from_raw_bytes(ct, Id::X25519).map_err(err)?;
            derive(key, &eph).map_err(err)
        } else {
            decapsulate(key, ct).map_err(err)
        }
    }

    fn key_sizes(&self) -> Result<Vec<SizeEntry>> {
        encoding_sizes(self.key()?, true)
    }

    fn keygen_from_seed(&mut self, seed: &[u8]) -> Result<Vec<u8>> {
        let kt = ml_kem_type(self.algo)
            .ok_or_else(|| Error::Unsupported(format!("{} from a seed", self.algo)))?;
        let k = PKey::private_key_from_seed(None, kt, None, seed).map_err(err)?;
        let pk = encoded_pub(&k).map_err(err)?;
        self.key = Some(k);
        Ok(pk)
    }

    /// `EVP_PKEY_get_raw_private_key`: ML-KEM's expanded decapsulation key.
    fn export_secret(&self) -> Result<Vec<u8>> {
        if ml_kem_type(self.algo).is_none() {
            return Err(Error::Unsupported(format!(
                "exporting a {} secret key",
                self.algo
            )));
        }
        self.key()?.raw_private_key().map_err(err)
    }

    fn prepare(&mut self, op: PkOp, ct: &[u8]) -> Result<Option<Prepared<'_>>> {
        let x = self.algo == PkAlgorithm::X25519;
        let peer = || {
            self.peer
                .as_ref()
                .ok_or_else(|| err("no peer key (set_peer first)"))
        };
        Ok(Some(match op {
            PkOp::Keygen => prepared::keygen(self.algo)?,
            PkOp::Encaps if x => prepared::x25519_encaps(peer()?)?,
            PkOp::Encaps => prepared::encaps(peer()?)?,
            PkOp::Decaps if x => prepared::x25519_decaps(self.key()?, ct)?,
            PkOp::Decaps => prepared::decaps(self.key()?, ct)?,
            _ => return Err(err(format!("{op} is not a KEM operation"))),
        }))
    }

    fn import_secret(&mut self, sk: &[u8]) -> Result<()> {
        let k = if self.algo == PkAlgorithm::X25519 {
            PKey::private_key_from_raw_bytes(sk, Id::X25519).map_err(err)?
        } else {
            let kt = ml_kem_type(self.algo)
                .ok_or_else(|| Error::Unsupported(format!("importing a {} key", self.algo)))?;
            // OpenSSL applies FIPS 203's input checks (length, H(ek)).
            PKey::private_key_from_raw_bytes_ex(None, kt, None, sk).map_err(err)?
        };
        self.key = Some(k);
        Ok(())
    }
}

fn ml_kem_type(a: PkAlgorithm) -> Option<openssl::pkey::KeyType> {
    use openssl::pkey::KeyType;
    match a {
        PkAlgorithm::MlKem512 => Some(KeyType::ML_KEM_512),
        PkAlgorithm::MlKem768 => Some(KeyType::ML_KEM_768),
        PkAlgorithm::MlKem1024 => Some(KeyType::ML_KEM_1024),
        _ => None,
    }
}

fn ml_dsa_type(a: PkAlgorithm) -> Option<openssl::pkey::KeyType> {
    use openssl::pkey::KeyType;
    match a {
        PkAlgorithm::MlDsa44 => Some(KeyType::ML_DSA_44),
        PkAlgorithm::MlDsa65 => Some(KeyType::ML_DSA_65),
        PkAlgorithm::MlDsa87 => Some(KeyType::ML_DSA_87),
        _ => None,
    }
}

/// ML-DSA signing for known-answer tests through EVP_PKEY_sign_message_init
/// with OpenSSL 3.5's parameters: "context-string", "deterministic" (rnd
/// all zero) or "test-entropy" (a given rnd), and "mu" (the message is an
/// external μ).
fn ml_dsa_sign_kat(
    a: PkAlgorithm,
    key: &PKey<Private>,
    msg: &[u8],
    ctx_str: &[u8],
    rnd: &[u8],
    mu: bool,
) -> Result<Vec<u8>> {
    let f = prepared::Fetched::new(ossl_name(a).expect("named"))?;
    let mut ctx = PkeyCtx::new(key).map_err(err)?;
    let deterministic = rnd.iter().all(|&b| b == 0);
    let mut one: libc::c_uint = 1;
    let mut mu_flag: libc::c_uint = u32::from(mu);
    // SAFETY: every parameter points into a local or an argument that
    // outlives the init call (OpenSSL copies what it keeps); the array ends
    // with END.
    let params = unsafe {
        let mut v = vec![ffi::OSSL_PARAM_construct_octet_string(
            c"context-string".as_ptr(),
            ctx_str.as_ptr() as *mut libc::c_void,
            ctx_str.len(),
        )];
        v.push(if deterministic {
            ffi::OSSL_PARAM_construct_uint(c"deterministic".as_ptr(), &mut one)
        } else {
            ffi::OSSL_PARAM_construct_octet_string(
                c"test-entropy".as_ptr(),
                rnd.as_ptr() as *mut libc::c_void,
                rnd.len(),
            )
        });
        v.push(ffi::OSSL_PARAM_construct_uint(c"mu".as_ptr(), &mut mu_flag));
        v.push(ffi::OSSL_PARAM_construct_end());
        v
    };
    // SAFETY: valid context holding a private key, fetched algorithm and a
    // terminated parameter array.
    cvt(unsafe { ffi::EVP_PKEY_sign_message_init(ctx.as_ptr(), f.0, params.as_ptr()) })
        .map_err(err)?;
    let mut sig = Vec::new();
    ctx.sign_to_vec(msg, &mut sig).map_err(err)?;
    Ok(sig)
}

struct OsslSig {
    algo: PkAlgorithm,
    key: Option<PKey<Private>>,
    peer: Option<PKey<Public>>,
}

impl OsslSig {
    fn key(&self) -> Result<&PKey<Private>> {
        self.key
            .as_ref()
            .ok_or_else(|| err("no key pair yet (keygen first)"))
    }
    /// RSA and ECDSA keys travel as DER SubjectPublicKeyInfo.
    fn spki(&self) -> bool {
        matches!(
            self.algo,
            PkAlgorithm::Rsa2048 | PkAlgorithm::Rsa3072 | PkAlgorithm::P256
        )
    }
}

fn pss_sign<T: openssl::pkey::HasPrivate>(
    k: &PKeyRef<T>,
    msg: &[u8],
) -> std::result::Result<Vec<u8>, ErrorStack> {
    let mut s = openssl::sign::Signer::new(MessageDigest::sha256(), k)?;
    s.set_rsa_padding(Padding::PKCS1_PSS)?;
    s.set_rsa_mgf1_md(MessageDigest::sha256())?;
    s.set_rsa_pss_saltlen(RsaPssSaltlen::DIGEST_LENGTH)?;
    s.sign_oneshot_to_vec(msg)
}

impl Signer for OsslSig {
    fn keygen(&mut self) -> Result<Vec<u8>> {
        use PkAlgorithm::*;
        let k = match self.algo {
            Rsa2048 => PKey::from_rsa(Rsa::generate(2048).map_err(err)?).map_err(err)?,
            Rsa3072 => PKey::from_rsa(Rsa::generate(3072).map_err(err)?).map_err(err)?,
            P256 => PKey::ec_gen("P-256").map_err(err)?,
            a => keygen_ctx(ossl_name(a).expect("named"))
                .and_then(|mut c| c.keygen())
                .map_err(err)?,
        };
        let pk = if self.spki() {
            k.public_key_to_der().map_err(err)?
        } else {
            k.raw_public_key().map_err(err)?
        };
        self.key = Some(k);
        Ok(pk)
    }

    fn sign(&mut self, msg: &[u8]) -> Result<Vec<u8>> {
        let k = self.key()?;
        match self.algo {
            PkAlgorithm::Rsa2048 | PkAlgorithm::Rsa3072 => pss_sign(k, msg).map_err(err),
            PkAlgorithm::P256 => {
                let mut s = openssl::sign::Signer::new(MessageDigest::sha256(), k).map_err(err)?;
                s.sign_oneshot_to_vec(msg).map_err(err)
            }
            _ => {
                let mut md = MdCtx::new().map_err(err)?;
                md.digest_sign_init(None, k).map_err(err)?;
                let mut sig = Vec::new();
                md.digest_sign_to_vec(msg, &mut sig).map_err(err)?;
                Ok(sig)
            }
        }
    }

    fn set_peer(&mut self, pk: &[u8]) -> Result<()> {
        let p = if self.spki() {
            PKey::public_key_from_der(pk).map_err(err)?
        } else if self.algo == PkAlgorithm::Ed25519 {
            PKey::public_key_from_raw_bytes(pk, Id::ED25519).map_err(err)?
        } else {
            pub_from_raw(ossl_name(self.algo).expect("named"), pk).map_err(err)?
        };
        self.peer = Some(p);
        Ok(())
    }

    fn verify(&mut self, msg: &[u8], sig: &[u8]) -> Result<bool> {
        let p = self
            .peer
            .as_ref()
            .ok_or_else(|| err("no peer key (set_peer first)"))?;
        let r = match self.algo {
            PkAlgorithm::Rsa2048 | PkAlgorithm::Rsa3072 => (|| {
                let mut v = openssl::sign::Verifier::new(MessageDigest::sha256(), p)?;
                v.set_rsa_padding(Padding::PKCS1_PSS)?;
                v.set_rsa_mgf1_md(MessageDigest::sha256())?;
                v.set_rsa_pss_saltlen(RsaPssSaltlen::DIGEST_LENGTH)?;
                v.verify_oneshot(sig, msg)
            })(),
            PkAlgorithm::P256 => openssl::sign::Verifier::new(MessageDigest::sha256(), p)
                .and_then(|mut v| v.verify_oneshot(sig, msg)),
            _ => (|| {
                let mut md = MdCtx::new()?;
                md.digest_verify_init(None, p)?;
                md.digest_verify(msg, sig)
            })(),
        };
        // A malformed signature is an error inside OpenSSL (and leaves
        // its error queue filled, now drained): to the caller it is a
        // rejected signature.
        Ok(r.unwrap_or(false))
    }

    /// ML-DSA.KeyGen_internal(ξ) (`EVP_PKEY_fromdata` with "seed").
    fn keygen_from_seed(&mut self, seed: &[u8]) -> Result<Vec<u8>> {
        self.key = None;
        let kt = ml_dsa_type(self.algo)
            .ok_or_else(|| Error::Unsupported(format!("{} from a seed", self.algo)))?;
        let k = PKey::private_key_from_seed(None, kt, None, seed).map_err(err)?;
        let pk = k.raw_public_key().map_err(err)?;
        self.key = Some(k);
        Ok(pk)
    }

    /// An expanded ML-DSA signing key (FIPS 204 skEncode) as OpenSSL's raw
    /// private key.
    fn import_secret(&mut self, sk: &[u8]) -> Result<()> {
        self.key = None;
        let kt = ml_dsa_type(self.algo)
            .ok_or_else(|| Error::Unsupported(format!("importing a {} key", self.algo)))?;
        self.key = Some(PKey::private_key_from_raw_bytes_ex(None, kt, None, sk).map_err(err)?);
        Ok(())
    }

    fn sign_with(&mut self, msg: &[u8], ctx: &[u8], rnd: &[u8]) -> Result<Vec<u8>> {
        if ml_dsa_type(self.algo).is_none() {
            return Err(Error::Unsupported(
                "signing with a given context and randomness".into(),
            ));
        }
        ml_dsa_sign_kat(self.algo, self.key()?, msg, ctx, rnd, false)
    }

    fn sign_mu(&mut self, mu: &[u8], rnd: &[u8]) -> Result<Vec<u8>> {
        if ml_dsa_type(self.algo).is_none() {
            return Err(Error::Unsupported("signing an external μ".into()));
        }
        ml_dsa_sign_kat(self.algo, self.key()?, mu, &[], rnd, true)
    }

    /// ML-DSA with a context string (`set_context_string`).
    fn verify_ctx(&mut self, msg: &[u8], ctx: &[u8], sig: &[u8]) -> Result<bool> {
        if ctx.is_empty() {
            return self.verify(msg, sig);
        }
        if !matches!(
            self.algo,
            PkAlgorithm::MlDsa44 | PkAlgorithm::MlDsa65 | PkAlgorithm::MlDsa87
        ) {
            return Err(Error::Unsupported(
                "verification with a context string".into(),
            ));
        }
        let p = self
            .peer
            .as_ref()
            .ok_or_else(|| err("no peer key (set_peer first)"))?;
        let mut md = MdCtx::new().map_err(err)?;
        // An over-long context is refused here: a rejection.
        let r = md
            .digest_verify_init(None, p)
            .and_then(|pctx| pctx.set_context_string(ctx))
            .and_then(|()| md.digest_verify(msg, sig));
        Ok(r.unwrap_or(false))
    }

    fn key_sizes(&self) -> Result<Vec<SizeEntry>> {
        // RSA and ECDSA keys already travel as SPKI.
        encoding_sizes(self.key()?, !self.spki())
    }

    fn signature_encoding(&self) -> &'static str {
        match self.algo {
            PkAlgorithm::Rsa2048 | PkAlgorithm::Rsa3072 => "rsa-pss-sha256",
            PkAlgorithm::P256 => "x962-der",
            _ => "raw",
        }
    }

    fn public_key_encoding(&self) -> &'static str {
        if self.spki() {
            "spki-der"
        } else {
            "raw"
        }
    }

    fn prepare(&mut self, op: PkOp, msg: &[u8], sig: &[u8]) -> Result<Option<Prepared<'_>>> {
        Ok(Some(match op {
            PkOp::Keygen => prepared::keygen(self.algo)?,
            PkOp::Sign => prepared::sign(self.algo, self.key()?, msg)?,
            PkOp::Verify => {
                let p = self
                    .peer
                    .as_ref()
                    .ok_or_else(|| err("no peer key (set_peer first)"))?;
                prepared::verify(self.algo, p, msg, sig)?
            }
            _ => return Err(err(format!("{op} is not a signature operation"))),
        }))
    }
}

impl PkBackend for OpenSslPk {
    fn name(&self) -> &'static str {
        NAME
    }

    fn version(&self) -> String {
        openssl::version::version().to_string()
    }

    fn availability(&self, a: PkAlgorithm) -> std::result::Result<(), Unavailable> {
        use PkAlgorithm::*;
        match a {
            Mayo1
            | Mayo2
            | CrossRsdp128Balanced
            | CrossRsdp128Fast
            | CrossRsdp128Small
            | CrossRsdpg128Balanced
            | CrossRsdpg128Fast
            | CrossRsdpg128Small
            | OvIs
            | OvIp
            | OvIsPkc
            | OvIpPkc
            | OvIsPkcSkc
            | OvIpPkcSkc
            | Snova24_5_4
            | Snova25_8_3
            | Snova37_17_2 => Err(Unavailable(
                "OpenSSL 3.5 has no MAYO, CROSS, UOV or SNOVA (NIST's additional signature \
                 round; liboqs has some)"
                    .into(),
            )),
            _ => Ok(()),
        }
    }

    fn implementation(&self, a: PkAlgorithm) -> String {
        use PkAlgorithm::*;
        match a {
            X25519 => "EVP X25519 derive".into(),
            Rsa2048 | Rsa3072 => "EVP RSASSA-PSS SHA-256 (salt 32)".into(),
            P256 => "EVP ECDSA P-256 SHA-256".into(),
            MlKem512 | MlKem768 | MlKem1024 | X25519MlKem768 => {
                format!("EVP_PKEY_encapsulate {}", ossl_name(a).unwrap_or("?"))
            }
            _ => format!("EVP_DigestSign {}", ossl_name(a).unwrap_or("?")),
        }
    }

    fn kem(&self, a: PkAlgorithm) -> Result<Box<dyn Kem>> {
        if a.kind() != ango_core::PkKind::Kem || self.availability(a).is_err() {
            return Err(err(format!("{a} is not a KEM OpenSSL provides")));
        }
        Ok(Box::new(OsslKem {
            algo: a,
            key: None,
            peer: None,
        }))
    }

    fn signer(&self, a: PkAlgorithm) -> Result<Box<dyn Signer>> {
        if a.kind() != ango_core::PkKind::Sig || self.availability(a).is_err() {
            return Err(err(format!("{a} is not a signature OpenSSL provides")));
        }
        Ok(Box::new(OsslSig {
            algo: a,
            key: None,
            peer: None,
        }))
    }
}

/// `timing: operation` for OpenSSL: the contexts `openssl speed` keeps
/// across calls, made once here.
mod prepared;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prepared_operations_agree_with_the_api_calls_and_repeat() {
        let b = OpenSslPk;
        for &a in PkAlgorithm::ALL {
            if b.availability(a).is_err() {
                continue;
            }
            match a.kind() {
                ango_core::PkKind::Kem => {
                    let mut k = b.kem(a).unwrap();
                    let pk = k.keygen().unwrap();
                    k.set_peer(&pk).unwrap();
                    let (ct, ss) = k.encaps().unwrap();
                    {
                        let mut kg = k.prepare(PkOp::Keygen, &[]).unwrap().unwrap();
                        kg.run().unwrap();
                        kg.run().unwrap();
                    }
                    let mut e = k.prepare(PkOp::Encaps, &[]).unwrap().unwrap();
                    e.run().unwrap();
                    let s1 = e.output().to_vec();
                    e.run().unwrap();
                    assert!(s1.len() == ss.len() && s1 != e.output(), "{a}");
                    drop(e);
                    let mut d = k.prepare(PkOp::Decaps, &ct).unwrap().unwrap();
                    for _ in 0..2 {
                        d.run().unwrap();
                        assert_eq!(d.output(), ss, "{a}");
                    }
                }
                ango_core::PkKind::Sig => {
                    let mut s = b.signer(a).unwrap();
                    let pk = s.keygen().unwrap();
                    s.set_peer(&pk).unwrap();
                    let msg = b"ango prepared";
                    let sig = {
                        let mut sign = s.prepare(PkOp::Sign, msg, &[]).unwrap().unwrap();
                        sign.run().unwrap();
                        sign.run().unwrap();
                        sign.output().to_vec()
                    };
                    assert!(s.verify(msg, &sig).unwrap(), "{a}");
                    let api = s.sign(msg).unwrap();
                    let mut v = s.prepare(PkOp::Verify, msg, &api).unwrap().unwrap();
                    for _ in 0..2 {
                        v.run().unwrap();
                        assert_eq!(v.output(), [1], "{a}");
                    }
                    drop(v);
                    let mut bad = api.clone();
                    bad[api.len() / 2] ^= 1;
                    let mut v = s.prepare(PkOp::Verify, msg, &bad).unwrap().unwrap();
                    v.run().unwrap();
                    assert_eq!(v.output(), [0], "{a}");
                }
            }
        }
    }

    #[test]
    fn every_algorithm_round_trips_with_the_seed_sizes() {
        let b = OpenSslPk;
        for &a in PkAlgorithm::ALL {
            if b.availability(a).is_err() {
                continue;
            }
            match a.kind() {
                ango_core::PkKind::Kem => {
                    let mut k = b.kem(a).unwrap();
                    let pk = k.keygen().unwrap();
                    k.set_peer(&pk).unwrap();
                    let (ct, ss) = k.encaps().unwrap();
                    assert_eq!(k.decaps(&ct).unwrap(), ss, "{a}");
                    let mut bad = ct.clone();
                    bad[3] ^= 4;
                    assert_ne!(k.decaps(&bad).unwrap(), ss, "{a}");
                    let want = match a {
                        PkAlgorithm::X25519 => (32, 32, 32),
                        PkAlgorithm::MlKem512 => (800, 768, 32),
                        PkAlgorithm::MlKem768 => (1184, 1088, 32),
                        PkAlgorithm::MlKem1024 => (1568, 1568, 32),
                        PkAlgorithm::X25519MlKem768 => (1216, 1120, 64),
                        _ => unreachable!(),
                    };
                    assert_eq!((pk.len(), ct.len(), ss.len()), want, "{a}");
                }
                ango_core::PkKind::Sig => {
                    let mut s = b.signer(a).unwrap();
                    let pk = s.keygen().unwrap();
                    let sig = s.sign(b"message").unwrap();
                    s.set_peer(&pk).unwrap();
                    assert!(s.verify(b"message", &sig).unwrap(), "{a}");
                    assert!(!s.verify(b"messagf", &sig).unwrap(), "{a}");
                    let mut bad = sig.clone();
                    bad[sig.len() / 2] ^= 1;
                    assert!(!s.verify(b"message", &bad).unwrap(), "{a}");
                    let (pkl, sigl) = match a {
                        PkAlgorithm::Rsa2048 => (294, 256),
                        PkAlgorithm::Rsa3072 => (422, 384),
                        PkAlgorithm::P256 => (91, sig.len().clamp(70, 72)),
                        PkAlgorithm::Ed25519 => (32, 64),
                        PkAlgorithm::MlDsa44 => (1312, 2420),
                        PkAlgorithm::MlDsa65 => (1952, 3309),
                        PkAlgorithm::MlDsa87 => (2592, 4627),
                        PkAlgorithm::SlhDsaSha2_128f => (32, 17088),
                        _ => unreachable!(),
                    };
                    assert_eq!((pk.len(), sig.len()), (pkl, sigl), "{a}");
                }
            }
        }
    }
}
