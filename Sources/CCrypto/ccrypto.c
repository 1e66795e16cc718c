// libcrypto, loaded the first time a download is hashed (see
// include/ccrypto.h). Each EVP_ function notifyd calls is defined here with
// OpenSSL's own prototype (the header is included, so the compiler holds
// each definition to it), hidden, and calls the one found in libcrypto.so.3.
// The C library's headers first, outside the pragma: only the
// library's own declarations are made hidden.
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>
#include <time.h>
#pragma GCC visibility push(hidden)
#include <openssl/evp.h>
#pragma GCC visibility pop

#include "ccrypto.h"
#include "lazylibrary.h"

// The functions, once for their pointers and once for their names.
#define NOTIFYD_CRYPTO_FUNCTIONS(X) \
    X(EVP_sha256) X(EVP_MD_CTX_new) X(EVP_MD_CTX_free) X(EVP_DigestInit_ex) X(EVP_DigestUpdate) X(EVP_DigestFinal_ex)

NOTIFYD_LAZY_LIBRARY(notifyd_crypto, "libcrypto.so.3", "libssl3", NOTIFYD_CRYPTO_FUNCTIONS, (void)0)

#define NOTIFYD_REQUIRE() NOTIFYD_LAZY_REQUIRE(notifyd_crypto, "libcrypto.so.3")

const EVP_MD *EVP_sha256(void) {
    NOTIFYD_REQUIRE();
    return api.EVP_sha256();
}
EVP_MD_CTX *EVP_MD_CTX_new(void) {
    NOTIFYD_REQUIRE();
    return api.EVP_MD_CTX_new();
}
void EVP_MD_CTX_free(EVP_MD_CTX *ctx) {
    NOTIFYD_REQUIRE();
    api.EVP_MD_CTX_free(ctx);
}
int EVP_DigestInit_ex(EVP_MD_CTX *ctx, const EVP_MD *type, ENGINE *impl) {
    NOTIFYD_REQUIRE();
    return api.EVP_DigestInit_ex(ctx, type, impl);
}
int EVP_DigestUpdate(EVP_MD_CTX *ctx, const void *d, size_t cnt) {
    NOTIFYD_REQUIRE();
    return api.EVP_DigestUpdate(ctx, d, cnt);
}
int EVP_DigestFinal_ex(EVP_MD_CTX *ctx, unsigned char *md, unsigned int *s) {
    NOTIFYD_REQUIRE();
    return api.EVP_DigestFinal_ex(ctx, md, s);
}
