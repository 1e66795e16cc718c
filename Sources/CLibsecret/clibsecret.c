// libsecret, loaded the first time notifyd asks the Secret Service for the
// push password (see include/clibsecret.h). Each secret_ function notifyd
// calls is defined here with libsecret's own prototype (the header is
// included, so the compiler holds each definition to it), hidden, and calls
// the one found in libsecret-1.so.0.
// The C library's headers first, outside the pragma: only the library's
// own declarations are made hidden.
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
#include <gio/gio.h>
#include <glib.h>
#pragma GCC visibility push(hidden)
#include <libsecret/secret.h>
#pragma GCC visibility pop

#include "clibsecret.h"
#include "lazylibrary.h"

// The functions, once for their pointers and once for their names.
#define NOTIFYD_SECRET_FUNCTIONS(X) \
    X(secret_service_get_type) \
    X(secret_error_get_quark) \
    X(secret_value_new) \
    X(secret_value_get) \
    X(secret_value_unref) \
    X(secret_service_store) \
    X(secret_service_store_finish) \
    X(secret_service_search) \
    X(secret_service_search_finish) \
    X(secret_service_unlock) \
    X(secret_service_unlock_finish) \
    X(secret_service_clear) \
    X(secret_collection_for_alias) \
    X(secret_collection_for_alias_finish) \
    X(secret_item_delete) \
    X(secret_item_delete_finish) \
    X(secret_item_get_locked) \
    X(secret_item_get_secret)

NOTIFYD_LAZY_LIBRARY(notifyd_secret, "libsecret-1.so.0", "libsecret-1-0", NOTIFYD_SECRET_FUNCTIONS, (void)0)

#define NOTIFYD_REQUIRE() NOTIFYD_LAZY_REQUIRE(notifyd_secret, "libsecret-1.so.0")

GQuark secret_error_get_quark(void) {
    NOTIFYD_REQUIRE();
    return api.secret_error_get_quark();
}

GType secret_service_get_type(void) {
    NOTIFYD_REQUIRE();
    return api.secret_service_get_type();
}

SecretValue *secret_value_new(const gchar *secret, gssize length, const gchar *content_type) {
    NOTIFYD_REQUIRE();
    return api.secret_value_new(secret, length, content_type);
}

const gchar *secret_value_get(SecretValue *value, gsize *length) {
    NOTIFYD_REQUIRE();
    return api.secret_value_get(value, length);
}

void secret_value_unref(gpointer value) {
    NOTIFYD_REQUIRE();
    api.secret_value_unref(value);
}

void secret_service_store(
    SecretService *service, const SecretSchema *schema, GHashTable *attributes, const gchar *collection,
    const gchar *label, SecretValue *value, GCancellable *cancellable, GAsyncReadyCallback callback,
    gpointer user_data) {
    NOTIFYD_REQUIRE();
    api.secret_service_store(service, schema, attributes, collection, label, value, cancellable, callback, user_data);
}

gboolean secret_service_store_finish(SecretService *service, GAsyncResult *result, GError **error) {
    NOTIFYD_REQUIRE();
    return api.secret_service_store_finish(service, result, error);
}

void secret_service_search(
    SecretService *service, const SecretSchema *schema, GHashTable *attributes, SecretSearchFlags flags,
    GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data) {
    NOTIFYD_REQUIRE();
    api.secret_service_search(service, schema, attributes, flags, cancellable, callback, user_data);
}

GList *secret_service_search_finish(SecretService *service, GAsyncResult *result, GError **error) {
    NOTIFYD_REQUIRE();
    return api.secret_service_search_finish(service, result, error);
}

void secret_service_unlock(
    SecretService *service, GList *objects, GCancellable *cancellable, GAsyncReadyCallback callback,
    gpointer user_data) {
    NOTIFYD_REQUIRE();
    api.secret_service_unlock(service, objects, cancellable, callback, user_data);
}

gint secret_service_unlock_finish(SecretService *service, GAsyncResult *result, GList **unlocked, GError **error) {
    NOTIFYD_REQUIRE();
    return api.secret_service_unlock_finish(service, result, unlocked, error);
}

void secret_service_clear(
    SecretService *service, const SecretSchema *schema, GHashTable *attributes, GCancellable *cancellable,
    GAsyncReadyCallback callback, gpointer user_data) {
    NOTIFYD_REQUIRE();
    api.secret_service_clear(service, schema, attributes, cancellable, callback, user_data);
}

void secret_collection_for_alias(
    SecretService *service, const gchar *alias, SecretCollectionFlags flags, GCancellable *cancellable,
    GAsyncReadyCallback callback, gpointer user_data) {
    NOTIFYD_REQUIRE();
    api.secret_collection_for_alias(service, alias, flags, cancellable, callback, user_data);
}

SecretCollection *secret_collection_for_alias_finish(GAsyncResult *result, GError **error) {
    NOTIFYD_REQUIRE();
    return api.secret_collection_for_alias_finish(result, error);
}

void secret_item_delete(SecretItem *self, GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data) {
    NOTIFYD_REQUIRE();
    api.secret_item_delete(self, cancellable, callback, user_data);
}

gboolean secret_item_delete_finish(SecretItem *self, GAsyncResult *result, GError **error) {
    NOTIFYD_REQUIRE();
    return api.secret_item_delete_finish(self, result, error);
}

gboolean secret_item_get_locked(SecretItem *self) {
    NOTIFYD_REQUIRE();
    return api.secret_item_get_locked(self);
}

SecretValue *secret_item_get_secret(SecretItem *self) {
    NOTIFYD_REQUIRE();
    return api.secret_item_get_secret(self);
}
