// libstrophe, loaded the first time notifyd connects to an XMPP server
// (see include/cstrophe.h).
//
// Each xmpp_ function notifyd calls is defined here with libstrophe's own
// prototype (the header is included, so the compiler holds each definition
// to it) and calls the function of the same name found in libstrophe.so.0.
// They are hidden: libstrophe's calls to its own functions stay its own.
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
#include <strophe.h>
#pragma GCC visibility pop

#include "cstrophe.h"
#include "lazylibrary.h"

// The functions, once for their pointers and once for their names.
#define NOTIFYD_STROPHE_FUNCTIONS(X) \
    X(xmpp_initialize) \
    X(xmpp_base64_decode_bin) \
    X(xmpp_base64_encode) \
    X(xmpp_conn_get_context) \
    X(xmpp_conn_new) \
    X(xmpp_conn_release) \
    X(xmpp_conn_send_queue_len) \
    X(xmpp_conn_set_cafile) \
    X(xmpp_conn_set_certfail_handler) \
    X(xmpp_conn_set_flags) \
    X(xmpp_conn_set_jid) \
    X(xmpp_conn_set_pass) \
    X(xmpp_conn_set_sockopt_callback) \
    X(xmpp_connect_client) \
    X(xmpp_ctx_free) \
    X(xmpp_ctx_new) \
    X(xmpp_disconnect) \
    X(xmpp_free) \
    X(xmpp_handler_add) \
    X(xmpp_id_handler_add) \
    X(xmpp_iq_new) \
    X(xmpp_run_once) \
    X(xmpp_send) \
    X(xmpp_sockopt_cb_keepalive) \
    X(xmpp_stanza_add_child) \
    X(xmpp_stanza_get_attribute) \
    X(xmpp_stanza_get_child_by_name) \
    X(xmpp_stanza_get_child_by_name_and_ns) \
    X(xmpp_stanza_get_children) \
    X(xmpp_stanza_get_from) \
    X(xmpp_stanza_get_id) \
    X(xmpp_stanza_get_name) \
    X(xmpp_stanza_get_next) \
    X(xmpp_stanza_get_text) \
    X(xmpp_stanza_get_type) \
    X(xmpp_stanza_new) \
    X(xmpp_stanza_new_from_string) \
    X(xmpp_stanza_release) \
    X(xmpp_stanza_set_attribute) \
    X(xmpp_stanza_set_name) \
    X(xmpp_stanza_set_ns) \
    X(xmpp_stanza_set_to) \
    X(xmpp_stanza_set_type) \
    X(xmpp_tlscert_get_ctx)

// Once loaded, libstrophe is initialized (xmpp_initialize) before any use.
NOTIFYD_LAZY_LIBRARY(
    notifyd_strophe, "libstrophe.so.0", "libstrophe0", NOTIFYD_STROPHE_FUNCTIONS, api.xmpp_initialize())

#define NOTIFYD_REQUIRE() NOTIFYD_LAZY_REQUIRE(notifyd_strophe, "libstrophe.so.0")

void xmpp_base64_decode_bin(
    xmpp_ctx_t *ctx, const char *base64, size_t len, unsigned char **out, size_t *outlen) {
    NOTIFYD_REQUIRE();
    api.xmpp_base64_decode_bin(ctx, base64, len, out, outlen);
}
char *xmpp_base64_encode(xmpp_ctx_t *ctx, const unsigned char *data, size_t len) {
    NOTIFYD_REQUIRE();
    return api.xmpp_base64_encode(ctx, data, len);
}
xmpp_ctx_t *xmpp_conn_get_context(xmpp_conn_t *conn) {
    NOTIFYD_REQUIRE();
    return api.xmpp_conn_get_context(conn);
}
xmpp_conn_t *xmpp_conn_new(xmpp_ctx_t *ctx) {
    NOTIFYD_REQUIRE();
    return api.xmpp_conn_new(ctx);
}
int xmpp_conn_release(xmpp_conn_t *conn) {
    NOTIFYD_REQUIRE();
    return api.xmpp_conn_release(conn);
}
int xmpp_conn_send_queue_len(const xmpp_conn_t *conn) {
    NOTIFYD_REQUIRE();
    return api.xmpp_conn_send_queue_len(conn);
}
void xmpp_conn_set_cafile(xmpp_conn_t *const conn, const char *path) {
    NOTIFYD_REQUIRE();
    api.xmpp_conn_set_cafile(conn, path);
}
void xmpp_conn_set_certfail_handler(xmpp_conn_t *const conn, xmpp_certfail_handler hndl) {
    NOTIFYD_REQUIRE();
    api.xmpp_conn_set_certfail_handler(conn, hndl);
}
int xmpp_conn_set_flags(xmpp_conn_t *conn, long flags) {
    NOTIFYD_REQUIRE();
    return api.xmpp_conn_set_flags(conn, flags);
}
void xmpp_conn_set_jid(xmpp_conn_t *conn, const char *jid) {
    NOTIFYD_REQUIRE();
    api.xmpp_conn_set_jid(conn, jid);
}
void xmpp_conn_set_pass(xmpp_conn_t *conn, const char *pass) {
    NOTIFYD_REQUIRE();
    api.xmpp_conn_set_pass(conn, pass);
}
void xmpp_conn_set_sockopt_callback(xmpp_conn_t *conn, xmpp_sockopt_callback callback) {
    NOTIFYD_REQUIRE();
    api.xmpp_conn_set_sockopt_callback(conn, callback);
}
int xmpp_connect_client(
    xmpp_conn_t *conn, const char *altdomain, unsigned short altport, xmpp_conn_handler callback, void *userdata) {
    NOTIFYD_REQUIRE();
    return api.xmpp_connect_client(conn, altdomain, altport, callback, userdata);
}
void xmpp_ctx_free(xmpp_ctx_t *ctx) {
    NOTIFYD_REQUIRE();
    api.xmpp_ctx_free(ctx);
}
xmpp_ctx_t *xmpp_ctx_new(const xmpp_mem_t *mem, const xmpp_log_t *log) {
    NOTIFYD_REQUIRE();
    return api.xmpp_ctx_new(mem, log);
}
void xmpp_disconnect(xmpp_conn_t *conn) {
    NOTIFYD_REQUIRE();
    api.xmpp_disconnect(conn);
}
void xmpp_free(const xmpp_ctx_t *ctx, void *p) {
    NOTIFYD_REQUIRE();
    api.xmpp_free(ctx, p);
}
void xmpp_handler_add(
    xmpp_conn_t *conn, xmpp_handler handler, const char *ns, const char *name, const char *type, void *userdata) {
    NOTIFYD_REQUIRE();
    api.xmpp_handler_add(conn, handler, ns, name, type, userdata);
}
void xmpp_id_handler_add(xmpp_conn_t *conn, xmpp_handler handler, const char *id, void *userdata) {
    NOTIFYD_REQUIRE();
    api.xmpp_id_handler_add(conn, handler, id, userdata);
}
xmpp_stanza_t *xmpp_iq_new(xmpp_ctx_t *ctx, const char *type, const char *id) {
    NOTIFYD_REQUIRE();
    return api.xmpp_iq_new(ctx, type, id);
}
void xmpp_run_once(xmpp_ctx_t *ctx, unsigned long timeout) {
    NOTIFYD_REQUIRE();
    api.xmpp_run_once(ctx, timeout);
}
void xmpp_send(xmpp_conn_t *conn, xmpp_stanza_t *stanza) {
    NOTIFYD_REQUIRE();
    api.xmpp_send(conn, stanza);
}
int xmpp_sockopt_cb_keepalive(xmpp_conn_t *conn, void *sock) {
    NOTIFYD_REQUIRE();
    return api.xmpp_sockopt_cb_keepalive(conn, sock);
}
int xmpp_stanza_add_child(xmpp_stanza_t *stanza, xmpp_stanza_t *child) {
    NOTIFYD_REQUIRE();
    return api.xmpp_stanza_add_child(stanza, child);
}
const char *xmpp_stanza_get_attribute(xmpp_stanza_t *stanza, const char *name) {
    NOTIFYD_REQUIRE();
    return api.xmpp_stanza_get_attribute(stanza, name);
}
xmpp_stanza_t *xmpp_stanza_get_child_by_name(xmpp_stanza_t *stanza, const char *name) {
    NOTIFYD_REQUIRE();
    return api.xmpp_stanza_get_child_by_name(stanza, name);
}
xmpp_stanza_t *xmpp_stanza_get_child_by_name_and_ns(xmpp_stanza_t *stanza, const char *name, const char *ns) {
    NOTIFYD_REQUIRE();
    return api.xmpp_stanza_get_child_by_name_and_ns(stanza, name, ns);
}
xmpp_stanza_t *xmpp_stanza_get_children(xmpp_stanza_t *stanza) {
    NOTIFYD_REQUIRE();
    return api.xmpp_stanza_get_children(stanza);
}
const char *xmpp_stanza_get_from(xmpp_stanza_t *stanza) {
    NOTIFYD_REQUIRE();
    return api.xmpp_stanza_get_from(stanza);
}
const char *xmpp_stanza_get_id(xmpp_stanza_t *stanza) {
    NOTIFYD_REQUIRE();
    return api.xmpp_stanza_get_id(stanza);
}
const char *xmpp_stanza_get_name(xmpp_stanza_t *stanza) {
    NOTIFYD_REQUIRE();
    return api.xmpp_stanza_get_name(stanza);
}
xmpp_stanza_t *xmpp_stanza_get_next(xmpp_stanza_t *stanza) {
    NOTIFYD_REQUIRE();
    return api.xmpp_stanza_get_next(stanza);
}
char *xmpp_stanza_get_text(xmpp_stanza_t *stanza) {
    NOTIFYD_REQUIRE();
    return api.xmpp_stanza_get_text(stanza);
}
const char *xmpp_stanza_get_type(xmpp_stanza_t *stanza) {
    NOTIFYD_REQUIRE();
    return api.xmpp_stanza_get_type(stanza);
}
xmpp_stanza_t *xmpp_stanza_new(xmpp_ctx_t *ctx) {
    NOTIFYD_REQUIRE();
    return api.xmpp_stanza_new(ctx);
}
xmpp_stanza_t *xmpp_stanza_new_from_string(xmpp_ctx_t *ctx, const char *str) {
    NOTIFYD_REQUIRE();
    return api.xmpp_stanza_new_from_string(ctx, str);
}
int xmpp_stanza_release(xmpp_stanza_t *stanza) {
    NOTIFYD_REQUIRE();
    return api.xmpp_stanza_release(stanza);
}
int xmpp_stanza_set_attribute(xmpp_stanza_t *stanza, const char *key, const char *value) {
    NOTIFYD_REQUIRE();
    return api.xmpp_stanza_set_attribute(stanza, key, value);
}
int xmpp_stanza_set_name(xmpp_stanza_t *stanza, const char *name) {
    NOTIFYD_REQUIRE();
    return api.xmpp_stanza_set_name(stanza, name);
}
int xmpp_stanza_set_ns(xmpp_stanza_t *stanza, const char *ns) {
    NOTIFYD_REQUIRE();
    return api.xmpp_stanza_set_ns(stanza, ns);
}
int xmpp_stanza_set_to(xmpp_stanza_t *stanza, const char *to) {
    NOTIFYD_REQUIRE();
    return api.xmpp_stanza_set_to(stanza, to);
}
int xmpp_stanza_set_type(xmpp_stanza_t *stanza, const char *type) {
    NOTIFYD_REQUIRE();
    return api.xmpp_stanza_set_type(stanza, type);
}
xmpp_ctx_t *xmpp_tlscert_get_ctx(const xmpp_tlscert_t *cert) {
    NOTIFYD_REQUIRE();
    return api.xmpp_tlscert_get_ctx(cert);
}
