#ifndef NOTIFYD_CCRYPTO_H
#define NOTIFYD_CCRYPTO_H
// OpenSSL's libcrypto (3.0 on Debian 12), as Swift sees it: the SHA-256 of
// downloads (Sources/NotifyTransfer), through the EVP digest functions.
//
// Loaded lazily, as libcurl is (by the time a download is hashed, libcurl
// has mapped libcrypto already): the EVP_ functions Swift calls are
// defined in ccrypto.c, each calling libcrypto's own, found by
// `dlopen("libcrypto.so.3")` in notifyd_crypto_load(). Call that first, and
// go on only when it returns 1; an EVP_ function called before aborts with
// its name (a programming error). Functions not defined in ccrypto.c do
// not link: add them there.
#include <openssl/evp.h>

/// Loads libcrypto (once, thread-safe): 1 when it is ready, 0 when it
/// cannot be loaded (notifyd_crypto_load_error says why).
int notifyd_crypto_load(void);

/// Why libcrypto could not be loaded (dlerror's words), or NULL when it was
/// or was not yet tried.
const char *_Nullable notifyd_crypto_load_error(void);
#endif
