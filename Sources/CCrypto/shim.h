#ifndef NOTIFYD_CCRYPTO_SHIM_H
#define NOTIFYD_CCRYPTO_SHIM_H
// OpenSSL's libcrypto (3.0 on Debian 12), as Swift sees it: the SHA-256 of
// downloads (Sources/NotifyTransfer), through the EVP digest functions,
// which Swift calls as they are. libcurl links libcrypto already, so the
// process carries no new library.
#include <openssl/evp.h>
#endif
