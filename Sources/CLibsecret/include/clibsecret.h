#ifndef NOTIFYD_CLIBSECRET_H
#define NOTIFYD_CLIBSECRET_H
// libsecret (the freedesktop Secret Service client) with the GLib, GObject
// and GIO it brings. Swift cannot build a SecretSchema (a struct with a
// fixed array of attributes), call variadic functions (g_async_initable_new_async,
// g_object_set) or subclass a GObject type without help, so those few
// things are here, each prefixed notifyd_.
//
// Loaded lazily: GLib, GObject and GIO are linked (libnotify needs them),
// libsecret is not. Its headers are found through `libsecret` beside this
// file, a link to /usr/include/libsecret-1/libsecret (libsecret-1-dev): a
// system-library target would take pkg-config's --libs with its --cflags.
// The secret_ functions used here and in Swift are defined in clibsecret.c,
// each calling libsecret's own, found by `dlopen("libsecret-1.so.0")` in
// notifyd_secret_load(). A notifyd that never asks for the push password
// never maps libsecret, libgcrypt nor libgpg-error. Call
// notifyd_secret_load() first, and go on only when it returns 1; a secret_
// function called before aborts with its name (a programming error).
// Functions not defined in clibsecret.c do not link: add them there.
#include <libsecret/secret.h>
#include <gio/gio.h>

/// Loads libsecret (once, thread-safe): 1 when it is ready, 0 when it
/// cannot be loaded (notifyd_secret_load_error says why).
int notifyd_secret_load(void);

/// Why libsecret could not be loaded (dlerror's words), or NULL when it
/// was or was not yet tried.
const char *notifyd_secret_load_error(void);

// The schema of notifyd's push-server password: one item per XMPP account
// on its server.
static inline const SecretSchema *notifyd_push_password_schema(void) {
    static const SecretSchema schema = {
        "org.notifyd.Notifyd1.PushPassword", SECRET_SCHEMA_NONE,
        {
            { "account", SECRET_SCHEMA_ATTRIBUTE_STRING },
            { "server", SECRET_SCHEMA_ATTRIBUTE_STRING },
            { NULL, 0 },
        },
    };
    return &schema;
}

// The attributes of one push password item, for the secret_service_*
// calls (which take a table, not variadic pairs). Free with g_hash_table_unref.
static inline GHashTable *notifyd_push_password_attributes(const char *account, const char *server) {
    GHashTable *attributes = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    g_hash_table_insert(attributes, g_strdup("account"), g_strdup(account));
    g_hash_table_insert(attributes, g_strdup("server"), g_strdup(server));
    return attributes;
}

// A SecretService proxy on a connection of the caller's, not GIO's
// process-wide session bus: libsecret's own constructor always sets
// "g-bus-type" to the session bus (libsecret 0.20 and later), which would
// tie every keeper of the process to one GIO singleton (shared with
// libnotify, set up once from DBUS_SESSION_BUS_ADDRESS, and SIGTERM to the
// process when that bus closes). This subclass runs that constructor and
// then puts the bus type back to none, so that GDBusProxy uses the
// "g-connection" it was given. Everything else (sessions, prompts, items)
// libsecret does on the proxy's own connection.
static inline GObject *notifyd_secret_service_constructor(GType type, guint count, GObjectConstructParam *parameters) {
    GObjectClass *parent = G_OBJECT_CLASS(g_type_class_peek(SECRET_TYPE_SERVICE));
    GObject *object = parent->constructor(type, count, parameters);
    g_object_set(object, "g-bus-type", G_BUS_TYPE_NONE, NULL);
    return object;
}

static inline void notifyd_secret_service_class_init(gpointer class_pointer, gpointer data) {
    (void)data;
    G_OBJECT_CLASS(class_pointer)->constructor = notifyd_secret_service_constructor;
}

static inline GType notifyd_secret_service_get_type(void) {
    static gsize registered = 0;
    if (g_once_init_enter(&registered)) {
        GTypeQuery query;
        g_type_query(SECRET_TYPE_SERVICE, &query);
        GType type = g_type_register_static_simple(
            SECRET_TYPE_SERVICE, "NotifydSecretService", query.class_size,
            notifyd_secret_service_class_init, query.instance_size, NULL, 0);
        g_once_init_leave(&registered, type);
    }
    return (GType)registered;
}

// Starts making the proxy on `connection`; finish with
// notifyd_secret_service_new_finish on the callback's source object.
static inline void notifyd_secret_service_new(
    GDBusConnection *connection, GCancellable *cancellable, GAsyncReadyCallback callback, gpointer data) {
    g_async_initable_new_async(
        notifyd_secret_service_get_type(), G_PRIORITY_DEFAULT, cancellable, callback, data,
        "g-connection", connection, "flags", SECRET_SERVICE_NONE, NULL);
}

static inline SecretService *notifyd_secret_service_new_finish(GObject *source, GAsyncResult *result, GError **error) {
    GObject *object = g_async_initable_new_finish(G_ASYNC_INITABLE(source), result, error);
    return object == NULL ? NULL : SECRET_SERVICE(object);
}

// Stores `password` (copied into libsecret's non-pageable memory) as the
// push password of `account` on `server`, in the default collection.
static inline void notifyd_push_password_store(
    SecretService *service, const char *account, const char *server, const char *label, const char *password,
    GCancellable *cancellable, GAsyncReadyCallback callback, gpointer data) {
    GHashTable *attributes = notifyd_push_password_attributes(account, server);
    SecretValue *value = secret_value_new(password, -1, "text/plain");
    secret_service_store(
        service, notifyd_push_password_schema(), attributes, SECRET_COLLECTION_DEFAULT, label, value,
        cancellable, callback, data);
    secret_value_unref(value);
    g_hash_table_unref(attributes);
}

// Searches for the push password items of `account` on `server`, unlocking
// them if need be (the service may prompt) and loading their secrets when
// `load_secrets`; finish with secret_service_search_finish. A search, not
// secret_service_lookup: that one answers "nothing" when the unlock fails,
// which would read as "no password stored"; the search returns the items
// still locked instead.
static inline void notifyd_push_password_search(
    SecretService *service, const char *account, const char *server, gboolean load_secrets,
    GCancellable *cancellable, GAsyncReadyCallback callback, gpointer data) {
    GHashTable *attributes = notifyd_push_password_attributes(account, server);
    SecretSearchFlags flags = SECRET_SEARCH_ALL | SECRET_SEARCH_UNLOCK | (load_secrets ? SECRET_SEARCH_LOAD_SECRETS : 0);
    secret_service_search(
        service, notifyd_push_password_schema(), attributes, flags,
        cancellable, callback, data);
    g_hash_table_unref(attributes);
}

// Asks the Secret Service to unlock `collection` (it may prompt); finish
// with secret_service_unlock_finish. (The call takes a GList, which Swift
// has no convenient way to build.)
static inline void notifyd_secret_unlock_collection(
    SecretService *service, SecretCollection *collection, GCancellable *cancellable,
    GAsyncReadyCallback callback, gpointer data) {
    GList *objects = g_list_append(NULL, collection);
    secret_service_unlock(service, objects, cancellable, callback, data);
    g_list_free(objects);
}
#endif
