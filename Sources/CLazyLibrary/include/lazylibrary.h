#ifndef NOTIFYD_LAZYLIBRARY_H
#define NOTIFYD_LAZYLIBRARY_H
// Libraries that notifyd maps only when it first needs them (libcurl,
// libstrophe, libcrypto): an idle notifyd with no transfer and no push
// server then carries neither them nor what they bring (TLS, XML, Kerberos,
// LDAP...). Each C target that loads one (CCurl, CStrophe, CCrypto) calls
// this once, under a pthread_once of its own.
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
#endif
