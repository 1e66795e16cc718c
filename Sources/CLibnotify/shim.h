#ifndef NOTIFYD_CLIBNOTIFY_SHIM_H
#define NOTIFYD_CLIBNOTIFY_SHIM_H
// libnotify, with the GLib, GObject and GIO it brings (GDesktopAppInfo lives
// in gio-unix).
#include <libnotify/notify.h>
#include <gio/gio.h>
#include <gio/gdesktopappinfo.h>
// G_VARIANT_TYPE_BOOLEAN is a cast macro Swift does not import.
static inline const GVariantType *_Nonnull G_VARIANT_TYPE_BOOLEAN_(void) { return G_VARIANT_TYPE_BOOLEAN; }
#endif
