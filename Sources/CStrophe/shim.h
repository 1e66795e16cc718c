#ifndef NOTIFYD_CSTROPHE_SHIM_H
#define NOTIFYD_CSTROPHE_SHIM_H
// libstrophe (an XMPP client library), as Swift sees it.
//
// The XMPP_CONN_FLAG_* constants are `(1UL << n)` macros, which Swift does
// not import: they are exposed as functions with the notifyd_strophe_ prefix.
#include <strophe.h>

static inline long notifyd_strophe_flag_mandatory_tls(void) { return XMPP_CONN_FLAG_MANDATORY_TLS; }
static inline long notifyd_strophe_flag_disable_sm(void) { return XMPP_CONN_FLAG_DISABLE_SM; }
#endif
