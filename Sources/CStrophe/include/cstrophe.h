#ifndef NOTIFYD_CSTROPHE_H
#define NOTIFYD_CSTROPHE_H
// libstrophe (an XMPP client library, 0.12 on Debian 12), as Swift sees it:
// the XMPP push client (Sources/NotifyPush) and the benchmark's bare client.
//
// Loaded lazily. notifyd does not link libstrophe: its types come from
// <strophe.h>, and the xmpp_ functions Swift calls are defined in
// cstrophe.c, each calling libstrophe's own, found by
// `dlopen("libstrophe.so.0")` in notifyd_strophe_load(). A notifyd with no
// XMPP server set never maps libstrophe nor what it brings (OpenSSL's
// libssl and libcrypto, expat).
//
// Call notifyd_strophe_load() first, and go on only when it returns 1; it
// also runs xmpp_initialize(). An xmpp_ function called before aborts with
// its name (a programming error). Functions not defined in cstrophe.c do
// not link: add them there.
#include <strophe.h>

/// Loads libstrophe (once, thread-safe) and runs xmpp_initialize() (once):
/// 1 when it is ready, 0 when it cannot be loaded (notifyd_strophe_load_error
/// says why).
int notifyd_strophe_load(void);

/// Why libstrophe could not be loaded (dlerror's words), or NULL when it
/// was or was not yet tried.
const char *_Nullable notifyd_strophe_load_error(void);

// The XMPP_CONN_FLAG_* constants are `(1UL << n)` macros, which Swift does
// not import: they are exposed as functions with the notifyd_strophe_ prefix.
static inline long notifyd_strophe_flag_mandatory_tls(void) { return XMPP_CONN_FLAG_MANDATORY_TLS; }
static inline long notifyd_strophe_flag_disable_sm(void) { return XMPP_CONN_FLAG_DISABLE_SM; }
#endif
