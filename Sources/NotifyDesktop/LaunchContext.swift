import CLibnotify
import DBus
import Glibc

/// A `GAppLaunchContext` for one launch, carrying the activation token the
/// notification server gave with the click (when it gave one), so that
/// the compositor lets the launched app take the focus.
///
/// The token travels three ways: as `XDG_ACTIVATION_TOKEN` (Wayland) and
/// `DESKTOP_STARTUP_ID` (X11 startup notification, GTK 3) in the
/// environment of a spawned app, and as the startup notification ID GIO
/// asks its context for, which it puts in the `platform_data` of
/// `org.freedesktop.Application.Activate` and `Open` (`desktop-startup-id`,
/// and `activation-token` from GLib 2.76) for a `DBusActivatable` app and,
/// for an app with `StartupNotify=true`, in its environment. A plain
/// `GAppLaunchContext` has no startup IDs, hence the small subclass.
///
/// GLib thread only; this object owns one reference.
final class LaunchContext {
    let raw: UnsafeMutablePointer<GAppLaunchContext>

    init(activationToken: String?) {
        let object = g_object_new_with_properties(notifydLaunchContextType, 0, nil, nil)!
        raw = UnsafeMutableRawPointer(object).assumingMemoryBound(to: GAppLaunchContext.self)
        guard let token = activationToken, !token.isEmpty else { return }
        // Freed with the context.
        g_object_set_data_full(object, activationTokenKey, g_strdup(token), g_free)
        g_app_launch_context_setenv(raw, "XDG_ACTIVATION_TOKEN", token)
        g_app_launch_context_setenv(raw, "DESKTOP_STARTUP_ID", token)
    }

    deinit {
        g_object_unref(UnsafeMutableRawPointer(raw))
    }
}

/// Where a ``LaunchContext`` keeps its token (GObject data, a `gchar *`).
private let activationTokenKey = "notifyd-activation-token"

/// `NotifydLaunchContext`, a `GAppLaunchContext` whose startup notification
/// ID is its activation token; registered once per process.
private let notifydLaunchContextType: GType = {
    var info = GTypeInfo()
    // Sizes as C's sizeof, trailing padding included.
    info.class_size = guint16(MemoryLayout<GAppLaunchContextClass>.stride)
    info.instance_size = guint16(MemoryLayout<GAppLaunchContext>.stride)
    info.class_init = { contextClass, _ in
        guard let contextClass else { return }
        contextClass.assumingMemoryBound(to: GAppLaunchContextClass.self).pointee.get_startup_notify_id =
            startupNotifyID
    }
    return g_type_register_static(g_app_launch_context_get_type(), "NotifydLaunchContext", &info, GTypeFlags(rawValue: 0))
}()

/// `GAppLaunchContextClass.get_startup_notify_id`: a copy of the token
/// (GIO frees it), or NULL without one.
private let startupNotifyID:
    @convention(c) (UnsafeMutablePointer<GAppLaunchContext>?, OpaquePointer?, UnsafeMutablePointer<GList>?) ->
    UnsafeMutablePointer<CChar>? = { context, _, _ in
        guard let context,
            let token = g_object_get_data(UnsafeMutableRawPointer(context).assumingMemoryBound(to: GObject.self), activationTokenKey)
        else { return nil }
        return g_strdup(token.assumingMemoryBound(to: CChar.self))
    }

/// Runs in each child GIO spawns, between `fork` and `exec`, so only
/// async-signal-safe calls: unblocks every signal, and puts back the
/// descriptor limit notifyd started with (``DescriptorLimit``).
///
/// notifyd blocks SIGTERM, SIGINT and SIGHUP for its signalfd, and its GLib
/// threads block every asynchronous signal; a child inherits the mask of
/// the thread that forked it, and GLib (2.74) restores the dispositions of
/// a child's signals but not its mask. Without this, an app launched from
/// a notification would ignore SIGTERM and Ctrl-C until it changed the
/// mask itself.
let unblockSignalsInChild: GSpawnChildSetupFunc = { _ in
    var none = sigset_t()
    sigemptyset(&none)
    sigprocmask(SIG_SETMASK, &none, nil)
    DescriptorLimit.restoreInChild()
}
