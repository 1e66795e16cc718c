#ifndef NOTIFYD_CLIBNOTIFY_SHIM_H
#define NOTIFYD_CLIBNOTIFY_SHIM_H
// libnotify, with the GLib, GObject and GIO it brings (GDesktopAppInfo lives
// in gio-unix).
#include <libnotify/notify.h>
#include <gio/gio.h>
#include <gio/gdesktopappinfo.h>
#endif
