#ifndef NOTIFYD_CDBUS_SHIM_H
#define NOTIFYD_CDBUS_SHIM_H
// libdbus-1, as Swift sees it.
//
// The DBUS_TYPE_* and DBUS_*_FLAG constants are cast macros such as
// `((int) 'y')`, which Swift cannot import; the DBus module mirrors them
// as Swift constants (DBus/CConstants.swift) rather than shimming each one.
// Variadic functions (dbus_message_append_args) are never called: the
// iterator API is used instead.
#include <dbus/dbus.h>
#endif
