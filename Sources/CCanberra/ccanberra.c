// libcanberra, loaded the first time notifyd plays a sound itself (see
// include/ccanberra.h). Each ca_ function notifyd calls is defined here with
// libcanberra's own prototype (the header is included, so the compiler
// holds each definition to it), hidden, and calls the one found in
// libcanberra.so.0.
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
#pragma GCC visibility push(hidden)
#include <canberra.h>
#pragma GCC visibility pop

#include "ccanberra.h"
#include "lazylibrary.h"
#include <dlfcn.h>

// The functions, once for their pointers and once for their names.
#define NOTIFYD_CANBERRA_FUNCTIONS(X) \
    X(ca_context_create) \
    X(ca_context_destroy) \
    X(ca_context_change_props_full) \
    X(ca_context_play_full) \
    X(ca_proplist_create) \
    X(ca_proplist_destroy) \
    X(ca_proplist_sets) \
    X(ca_strerror)

NOTIFYD_LAZY_LIBRARY(notifyd_canberra, "libcanberra.so.0", "libcanberra0", NOTIFYD_CANBERRA_FUNCTIONS, (void)0)

#define NOTIFYD_REQUIRE() NOTIFYD_LAZY_REQUIRE(notifyd_canberra, "libcanberra.so.0")

int ca_context_create(ca_context **c) {
    NOTIFYD_REQUIRE();
    return api.ca_context_create(c);
}

int ca_context_destroy(ca_context *c) {
    NOTIFYD_REQUIRE();
    return api.ca_context_destroy(c);
}

int ca_context_change_props_full(ca_context *c, ca_proplist *p) {
    NOTIFYD_REQUIRE();
    return api.ca_context_change_props_full(c, p);
}

int ca_context_play_full(ca_context *c, uint32_t id, ca_proplist *p, ca_finish_callback_t cb, void *userdata) {
    NOTIFYD_REQUIRE();
    return api.ca_context_play_full(c, id, p, cb, userdata);
}

int ca_proplist_create(ca_proplist **p) {
    NOTIFYD_REQUIRE();
    return api.ca_proplist_create(p);
}

int ca_proplist_destroy(ca_proplist *p) {
    NOTIFYD_REQUIRE();
    return api.ca_proplist_destroy(p);
}

int ca_proplist_sets(ca_proplist *p, const char *key, const char *value) {
    NOTIFYD_REQUIRE();
    return api.ca_proplist_sets(p, key, value);
}

const char *ca_strerror(int code) {
    NOTIFYD_REQUIRE();
    return api.ca_strerror(code);
}

// The library is opened by name, so that notifyd needs no libasound
// headers, and kept open: canberra's backend then uses this same instance.
static void notifyd_alsa_error_ignored(
    const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file;
    (void)line;
    (void)function;
    (void)err;
    (void)fmt;
}

int notifyd_silence_alsa(void) {
    typedef void (*notifyd_alsa_handler)(const char *, int, const char *, int, const char *, ...);
    typedef int (*notifyd_alsa_set_handler)(notifyd_alsa_handler);
    void *alsa = dlopen("libasound.so.2", RTLD_NOW | RTLD_GLOBAL);
    if (alsa == NULL) return -1;
    notifyd_alsa_set_handler set = (notifyd_alsa_set_handler)dlsym(alsa, "snd_lib_error_set_handler");
    if (set == NULL) return -1;
    return set(notifyd_alsa_error_ignored);
}
