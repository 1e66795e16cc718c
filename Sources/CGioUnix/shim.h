#ifndef NOTIFYD_CGIOUNIX_SHIM_H
#define NOTIFYD_CGIOUNIX_SHIM_H
// GIO's Unix-only API (GDesktopAppInfo). Its headers live under
// gio-unix-2.0, which libnotify's pkg-config flags do not name.
#include <gio/gdesktopappinfo.h>
#endif
