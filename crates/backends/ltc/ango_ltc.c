/* ango's shim over LibTomCrypt (Debian's libtomcrypt-dev, linked
 * dynamically): it holds LibTomCrypt's keyed states, whose layouts only
 * its headers know, behind opaque pointers, and calls the library's own
 * functions on them. Nothing cryptographic happens here. */
#include <stdlib.h>
#include <string.h>
#include <tomcrypt.h>

enum { K_GCM = 0, K_CCM = 1, K_CHACHAPOLY = 2, K_ECB = 3, K_CTR = 4, K_CHACHA = 5 };

typedef struct {
    int kind;
    int cipher;
    unsigned long taglen;
    unsigned char key[32];
    unsigned long keylen;
    union {
        gcm_state gcm;
        symmetric_key skey;
        chacha20poly1305_state cp;
        symmetric_ECB ecb;
        symmetric_CTR ctr;
        chacha_state chacha;
    } u;
} ango_ltc;

/* The index of LibTomCrypt's AES ("aes", its table-based Rijndael),
 * registered once. */
int ango_ltc_aes(void) {
    int i = find_cipher("aes");
    if (i < 0) {
        register_cipher(&aes_desc);
        i = find_cipher("aes");
    }
    return i;
}

const char *ango_ltc_version(void) { return SCRYPT; }

const char *ango_ltc_error(int err) { return error_to_string(err); }

void ango_ltc_free(ango_ltc *c) {
    if (c) {
        zeromem(c, sizeof *c);
        free(c);
    }
}

/* A keyed state of `kind`; NULL with *err set on failure. */
ango_ltc *ango_ltc_new(int kind, const unsigned char *key, unsigned long keylen,
                       unsigned long taglen, int *err) {
    ango_ltc *c = calloc(1, sizeof *c);
    unsigned char zero[16] = {0};
    if (!c) {
        *err = CRYPT_MEM;
        return NULL;
    }
    c->kind = kind;
    c->taglen = taglen;
    c->cipher = ango_ltc_aes();
    if (keylen > sizeof c->key) {
        *err = CRYPT_INVALID_KEYSIZE;
        free(c);
        return NULL;
    }
    memcpy(c->key, key, keylen);
    c->keylen = keylen;
    switch (kind) {
    case K_GCM: *err = gcm_init(&c->u.gcm, c->cipher, key, (int)keylen); break;
    case K_CCM: *err = cipher_descriptor[c->cipher].setup(key, (int)keylen, 0, &c->u.skey); break;
    case K_CHACHAPOLY: *err = chacha20poly1305_init(&c->u.cp, key, keylen); break;
    case K_ECB: *err = ecb_start(c->cipher, key, (int)keylen, 0, &c->u.ecb); break;
    case K_CTR:
        *err = ctr_start(c->cipher, zero, key, (int)keylen, 0, CTR_COUNTER_BIG_ENDIAN, &c->u.ctr);
        break;
    case K_CHACHA: *err = chacha_setup(&c->u.chacha, key, keylen, 20); break;
    default: *err = CRYPT_INVALID_ARG;
    }
    if (*err != CRYPT_OK) {
        ango_ltc_free(c);
        return NULL;
    }
    return c;
}

/* Seal `buf` in place, writing c->taglen bytes of tag. */
int ango_ltc_seal(ango_ltc *c, const unsigned char *nonce, unsigned long nlen,
                  const unsigned char *aad, unsigned long alen, unsigned char *buf,
                  unsigned long len, unsigned char *tag) {
    unsigned long tl = c->taglen;
    int err;
    switch (c->kind) {
    case K_GCM:
        if ((err = gcm_reset(&c->u.gcm)) != CRYPT_OK) return err;
        if ((err = gcm_add_iv(&c->u.gcm, nonce, nlen)) != CRYPT_OK) return err;
        if ((err = gcm_add_aad(&c->u.gcm, aad, alen)) != CRYPT_OK) return err;
        if ((err = gcm_process(&c->u.gcm, buf, len, buf, GCM_ENCRYPT)) != CRYPT_OK) return err;
        return gcm_done(&c->u.gcm, tag, &tl);
    case K_CCM:
        return ccm_memory(c->cipher, c->key, c->keylen, &c->u.skey, nonce, nlen, aad, alen, buf,
                          len, buf, tag, &tl, CCM_ENCRYPT);
    case K_CHACHAPOLY:
        /* chacha20poly1305_done wipes the state, key included: each
         * message starts from chacha20poly1305_init (a key copy), as
         * chacha20poly1305_memory does. */
        if ((err = chacha20poly1305_init(&c->u.cp, c->key, c->keylen)) != CRYPT_OK) return err;
        if ((err = chacha20poly1305_setiv(&c->u.cp, nonce, nlen)) != CRYPT_OK) return err;
        if ((err = chacha20poly1305_add_aad(&c->u.cp, aad, alen)) != CRYPT_OK) return err;
        if ((err = chacha20poly1305_encrypt(&c->u.cp, buf, len, buf)) != CRYPT_OK) return err;
        return chacha20poly1305_done(&c->u.cp, tag, &tl);
    default: return CRYPT_INVALID_ARG;
    }
}

/* Open `ct` into `out` (same length): CRYPT_OK, or CRYPT_ERROR on a wrong
 * tag (out zeroed). */
int ango_ltc_open(ango_ltc *c, const unsigned char *nonce, unsigned long nlen,
                  const unsigned char *aad, unsigned long alen, const unsigned char *ct,
                  unsigned long len, const unsigned char *tag, unsigned char *out) {
    unsigned char calc[16];
    unsigned long tl = c->taglen;
    int err;
    switch (c->kind) {
    case K_GCM:
        if ((err = gcm_reset(&c->u.gcm)) != CRYPT_OK) return err;
        if ((err = gcm_add_iv(&c->u.gcm, nonce, nlen)) != CRYPT_OK) return err;
        if ((err = gcm_add_aad(&c->u.gcm, aad, alen)) != CRYPT_OK) return err;
        if ((err = gcm_process(&c->u.gcm, out, len, (unsigned char *)ct, GCM_DECRYPT)) != CRYPT_OK)
            return err;
        if ((err = gcm_done(&c->u.gcm, calc, &tl)) != CRYPT_OK) return err;
        break;
    case K_CCM: {
        /* ccm_memory compares the tag itself on decryption (tag is input). */
        unsigned char t[16];
        memcpy(t, tag, tl);
        err = ccm_memory(c->cipher, c->key, c->keylen, &c->u.skey, nonce, nlen, aad, alen, out,
                         len, (unsigned char *)ct, t, &tl, CCM_DECRYPT);
        if (err != CRYPT_OK) zeromem(out, len);
        return err;
    }
    case K_CHACHAPOLY:
        if ((err = chacha20poly1305_init(&c->u.cp, c->key, c->keylen)) != CRYPT_OK) return err;
        if ((err = chacha20poly1305_setiv(&c->u.cp, nonce, nlen)) != CRYPT_OK) return err;
        if ((err = chacha20poly1305_add_aad(&c->u.cp, aad, alen)) != CRYPT_OK) return err;
        if ((err = chacha20poly1305_decrypt(&c->u.cp, ct, len, out)) != CRYPT_OK) return err;
        if ((err = chacha20poly1305_done(&c->u.cp, calc, &tl)) != CRYPT_OK) return err;
        break;
    default: return CRYPT_INVALID_ARG;
    }
    if (mem_neq(calc, tag, c->taglen) != 0) {
        zeromem(out, len);
        return CRYPT_ERROR;
    }
    return CRYPT_OK;
}

/* ECB, CTR (iv: the 16-byte initial counter block, incremented as a
 * big-endian 128-bit number) and ChaCha20 (iv: 4-byte little-endian block
 * counter, then the 12-byte nonce), in place. */
int ango_ltc_crypt(ango_ltc *c, int decrypt, const unsigned char *iv, unsigned long ivlen,
                   unsigned char *buf, unsigned long len) {
    int err;
    switch (c->kind) {
    case K_ECB:
        return decrypt ? ecb_decrypt(buf, buf, len, &c->u.ecb) : ecb_encrypt(buf, buf, len, &c->u.ecb);
    case K_CTR:
        if ((err = ctr_setiv(iv, ivlen, &c->u.ctr)) != CRYPT_OK) return err;
        return ctr_encrypt(buf, buf, len, &c->u.ctr);
    case K_CHACHA: {
        ulong32 ctr;
        if (ivlen != 16) return CRYPT_INVALID_ARG;
        ctr = (ulong32)iv[0] | ((ulong32)iv[1] << 8) | ((ulong32)iv[2] << 16) | ((ulong32)iv[3] << 24);
        if ((err = chacha_ivctr32(&c->u.chacha, iv + 4, 12, ctr)) != CRYPT_OK) return err;
        return chacha_crypt(&c->u.chacha, buf, len, buf);
    }
    default: return CRYPT_INVALID_ARG;
    }
}
