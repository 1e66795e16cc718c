#ifndef NOTIFYD_LAZYLIBRARY_H
#define NOTIFYD_LAZYLIBRARY_H
// Libraries that notifyd maps only when it first needs them (libcurl,
// libstrophe, libcrypto, libcanberra, libsecret): an idle notifyd then
// carries neither them nor what they bring (TLS, XML, Kerberos, LDAP,
// Vorbis...). Each C target that loads one (CCurl, CStrophe, CCrypto,
// CCanberra, CLibsecret) does it with NOTIFYD_LAZY_LIBRARY below: once,
// under a pthread_once of its own.
#include <pthread.h>
#include <stddef.h>

/// Maps `soname` (RTLD_NOW | RTLD_LOCAL: its symbols stay its own) and finds
/// each of the `count` functions `names[i]` into `*slots[i]`, all or none.
///
/// Returns 1 when all were found. Otherwise returns 0, unmaps the library,
/// and writes into `error` (`capacity` bytes, always terminated) why, in
/// words: dlerror's text and, when the library itself is missing, the
/// Debian `package` that provides it.
int notifyd_lazy_library_open(
    const char *_Nonnull soname, const char *_Nonnull package, const char *_Nonnull const *_Nonnull names,
    void *_Nullable *_Nonnull const *_Nonnull slots, size_t count, char *_Nonnull error, size_t capacity);

/// Says that a function of a lazily loaded library was called before the
/// library was loaded (a programming error: its loader must be called, and
/// its failure handled, first), then aborts.
_Noreturn void notifyd_lazy_library_unloaded(const char *_Nonnull soname, const char *_Nonnull function);
// What a C target that loads a library defines with NOTIFYD_LAZY_LIBRARY:
// FUNCTIONS(X) lists the library's functions as X(name) X(name)...; the
// macro makes `api`, a struct with a pointer of each function's own type
// (`api.name(...)` calls it), and the target's two public functions,
// PREFIX_load() (once, thread-safe: 1 when every function was found, then
// ON_LOAD has run) and PREFIX_load_error() (why not, or NULL).
#define NOTIFYD_LAZY_POINTER(name) __typeof__(name) *name;
#define NOTIFYD_LAZY_NAME(name) #name,
#define NOTIFYD_LAZY_SLOT(name) (void **)&api.name,
#define NOTIFYD_LAZY_LIBRARY(PREFIX, SONAME, PACKAGE, FUNCTIONS, ON_LOAD)                                          \
    static struct {                                                                                               \
        FUNCTIONS(NOTIFYD_LAZY_POINTER)                                                                           \
    } api;                                                                                                        \
    static pthread_once_t PREFIX##_once = PTHREAD_ONCE_INIT;                                                      \
    static int PREFIX##_loaded;                                                                                   \
    static char PREFIX##_error[512];                                                                              \
    static void PREFIX##_open(void) {                                                                             \
        const char *names[] = {FUNCTIONS(NOTIFYD_LAZY_NAME)};                                                     \
        void **slots[] = {FUNCTIONS(NOTIFYD_LAZY_SLOT)};                                                          \
        if (!notifyd_lazy_library_open(SONAME, PACKAGE, names, slots, sizeof names / sizeof names[0],             \
                                       PREFIX##_error, sizeof PREFIX##_error)) {                                  \
            return;                                                                                               \
        }                                                                                                         \
        ON_LOAD;                                                                                                  \
        PREFIX##_loaded = 1;                                                                                      \
    }                                                                                                             \
    int PREFIX##_load(void) {                                                                                     \
        pthread_once(&PREFIX##_once, PREFIX##_open);                                                              \
        return PREFIX##_loaded;                                                                                   \
    }                                                                                                             \
    const char *PREFIX##_load_error(void) { return PREFIX##_error[0] ? PREFIX##_error : NULL; }

/// In a function of a lazily loaded library: aborts, saying so, when called
/// before PREFIX_load() succeeded.
#define NOTIFYD_LAZY_REQUIRE(PREFIX, SONAME) \
    if (!PREFIX##_loaded) notifyd_lazy_library_unloaded(SONAME, __func__)
#endif
