#ifndef NOTIFYD_CCANBERRA_H
#define NOTIFYD_CCANBERRA_H
// libcanberra, for playing event sounds when the notification server has
// no `sound` capability. ca_context_play is variadic and cannot be called
// from Swift; ca_context_play_full with a ca_proplist is used instead.
//
// Loaded lazily: the ca_ functions Swift calls are defined in ccanberra.c,
// each calling libcanberra's own, found by `dlopen("libcanberra.so.0")` in
// notifyd_canberra_load(). A notifyd whose notification servers play their
// own sounds never maps libcanberra nor what it brings (vorbis, ogg, tdb,
// ltdl). Call notifyd_canberra_load() first, and go on only when it returns
// 1; a ca_ function called before aborts with its name (a programming
// error). Functions not defined in ccanberra.c do not link: add them there.
#include <canberra.h>

/// Loads libcanberra (once, thread-safe): 1 when it is ready, 0 when it
/// cannot be loaded (notifyd_canberra_load_error says why).
int notifyd_canberra_load(void);

/// Why libcanberra could not be loaded (dlerror's words), or NULL when it
/// was or was not yet tried.
const char *_Nullable notifyd_canberra_load_error(void);

// libasound prints every error to stderr ("ALSA lib pcm.c:... Unknown PCM
// default", eight lines a sound on a machine without a sound card) unless
// the program sets an error handler, which canberra's ALSA backend never
// does; and the handler type is variadic, which Swift cannot write.

/// Silences libasound's own printing (ccanberra.c); 0 when done, -1 without libasound.
int notifyd_silence_alsa(void);
#endif
