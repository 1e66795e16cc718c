#ifndef NOTIFYD_CSQLITE_SHIM_H
#define NOTIFYD_CSQLITE_SHIM_H
#include <sqlite3.h>
// SQLITE_TRANSIENT is `((sqlite3_destructor_type)-1)`, a cast macro Swift
// cannot import: expose it as a function.
static inline sqlite3_destructor_type notifyd_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}
#endif
