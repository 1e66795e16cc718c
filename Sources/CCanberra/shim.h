#ifndef NOTIFYD_CCANBERRA_SHIM_H
#define NOTIFYD_CCANBERRA_SHIM_H
// libcanberra, for playing event sounds when the notification server has
// no `sound` capability. ca_context_play is variadic and cannot be called
// from Swift; ca_context_play_full with a ca_proplist is used instead.
#include <canberra.h>
#include <dlfcn.h>

// libasound prints every error to stderr ("ALSA lib pcm.c:... Unknown PCM
// default", eight lines a sound on a machine without a sound card) unless
// the program sets an error handler, which canberra's ALSA backend never
// does; and the handler type is variadic, which Swift cannot write. The
// library is opened by name, so that notifyd needs no libasound headers,
// and kept open: canberra's backend then uses this same instance.
static void notifyd_alsa_error_ignored(const char *file, int line, const char *function, int err,
                                       const char *fmt, ...) {
    (void)file;
    (void)line;
    (void)function;
    (void)err;
    (void)fmt;
}

/// Silences libasound's own printing; 0 when done, -1 without libasound.
static inline int notifyd_silence_alsa(void) {
    typedef void (*notifyd_alsa_handler)(const char *, int, const char *, int, const char *, ...);
    typedef int (*notifyd_alsa_set_handler)(notifyd_alsa_handler);
    void *alsa = dlopen("libasound.so.2", RTLD_NOW | RTLD_GLOBAL);
    if (alsa == NULL) return -1;
    notifyd_alsa_set_handler set = (notifyd_alsa_set_handler)dlsym(alsa, "snd_lib_error_set_handler");
    if (set == NULL) return -1;
    return set(notifyd_alsa_error_ignored);
}
#endif
