import CLibnotify

/// How a launch went.
public enum LaunchOutcome: Sendable, Hashable {
    /// The app was spawned, or it answered `Activate` or `Open` over D-Bus.
    case launched
    /// Nothing was launched: why, for a person to act on.
    case failed(String)
}

/// Starts apps and opens files through GIO, as a click on a launcher or a
/// file manager would: a `DBusActivatable` app is called over D-Bus
/// (`org.freedesktop.Application.Activate` or `Open`), any other app is
/// spawned from the argv GIO builds out of its `Exec` line. No shell is
/// involved; file paths are arguments of their own.
///
/// GLib thread only: spawning happens there, and the D-Bus answer arrives
/// there. The caller holds the session bus (without `exit-on-close`)
/// before calling, because GIO uses the process's shared one. Every
/// completion runs exactly once, on this thread: at once for a spawn, on
/// the app's answer over D-Bus, or at ``abandonAll()``.
final class AppLauncher {
    /// Launches over D-Bus still waiting for the app's answer.
    private var waiting: [ObjectIdentifier: PendingLaunch] = [:]

    /// Launches `APP_ID.desktop` without files.
    func launch(
        _ appID: String, activationToken: String?, hasSessionBus: Bool,
        completion: @escaping @Sendable (LaunchOutcome) -> Void
    ) {
        guard !appID.isEmpty, !appID.contains("/"), let app = g_desktop_app_info_new("\(appID).desktop") else {
            // GIO also refuses a file that is hidden or whose program is not installed.
            completion(.failed(
                "cannot launch \(appID): no usable desktop file \(appID).desktop in the applications directories "
                    + "(missing, hidden, or its program is not installed)"))
            return
        }
        // g_desktop_app_info_new returned a new reference.
        defer { g_object_unref(UnsafeMutableRawPointer(app)) }
        start(app, uris: [], activationToken: activationToken, hasSessionBus: hasSessionBus, completion: completion)
    }

    /// Opens `path` (absolute) with the user's default app for its type,
    /// like `g_app_info_launch_default_for_uri` without the portal.
    func open(
        _ path: String, activationToken: String?, hasSessionBus: Bool,
        completion: @escaping @Sendable (LaunchOutcome) -> Void
    ) {
        do throws(DesktopError) {
            let uri = try withGError("cannot open \(path)", failed: { $0 == nil }) { g_filename_to_uri(path, nil, $0) }!
            defer { g_free(uri) }
            let file = g_file_new_for_uri(uri)
            defer { g_object_unref(UnsafeMutableRawPointer(file)) }
            // The default for the `file` scheme, else for the file's content type.
            let handler = try withGError("cannot open \(path)", failed: { $0 == nil }) {
                g_file_query_default_handler(file, nil, $0)
            }!
            defer { g_object_unref(UnsafeMutableRawPointer(handler)) }
            start(handler, uris: [String(cString: uri)], activationToken: activationToken,
                  hasSessionBus: hasSessionBus, completion: completion)
        } catch {
            completion(.failed(error.message))
        }
    }

    /// Launches `app` (a `GAppInfo`) with `uris`, the way GIO would, except
    /// that a spawned child starts with no signal blocked.
    private func start(
        _ app: OpaquePointer, uris: [String], activationToken: String?, hasSessionBus: Bool,
        completion: @escaping @Sendable (LaunchOutcome) -> Void
    ) {
        let context = LaunchContext(activationToken: activationToken)
        let list = URIList(uris)
        let what = "cannot launch \(name(of: app))"
        if isDesktopAppInfo(app), activatesOverDBus(app, hasSessionBus: hasSessionBus) {
            // GIO's asynchronous launch is the one that reports the app's D-Bus
            // answer. The context only carries the token, which GIO sends for
            // `StartupNotify=true` apps; without one, GIO (2.74) would report a
            // failed call to the context with a NULL ID, a GLib critical.
            let sendsToken = activationToken?.isEmpty == false
                && g_desktop_app_info_get_boolean(app, "StartupNotify") != gFalse
            let pending = PendingLaunch(what: what, completion: completion)
            let key = ObjectIdentifier(pending)
            waiting[key] = pending
            pending.onFinish = { [weak self] in self?.waiting[key] = nil }
            // Balanced in `launchFinished`.
            g_app_info_launch_uris_async(
                app, list.raw, sendsToken ? context.raw : nil, pending.cancellable, launchFinished,
                Unmanaged.passRetained(pending).toOpaque())
            return
        }
        do throws(DesktopError) {
            try withGError(what, failed: { $0 == gFalse }) { error in
                guard isDesktopAppInfo(app) else { return g_app_info_launch_uris(app, list.raw, context.raw, error) }
                return g_desktop_app_info_launch_uris_as_manager(
                    app, list.raw, context.raw, G_SPAWN_SEARCH_PATH, unblockSignalsInChild, nil, nil, nil, error)
            }
            completion(.launched)
        } catch {
            completion(.failed(error.message))
        }
    }

    /// Fails the launches still waiting for an answer, and cancels them
    /// (at shutdown, before the loop stops). GIO then lets go of the calls,
    /// and of the session bus they hold, in the loop's last iterations.
    func abandonAll() {
        let abandoned = waiting.values
        waiting.removeAll()
        for pending in abandoned {
            pending.finish(.failed("\(pending.what): the desktop notifier shut down first"))
            g_cancellable_cancel(pending.cancellable)
        }
    }

    /// GIO's rule (2.74, `g_desktop_app_info_load_from_keyfile`): an app is
    /// called over D-Bus when it says `DBusActivatable=true`, the name of its
    /// file without `.desktop` is a well-known bus name, and there is a
    /// session bus. Checked here so that every app GIO would spawn goes
    /// through the spawn with the signal mask reset.
    func activatesOverDBus(_ app: OpaquePointer, hasSessionBus: Bool) -> Bool {
        guard hasSessionBus, g_desktop_app_info_get_boolean(app, "DBusActivatable") != gFalse,
            let filename = g_desktop_app_info_get_filename(app)
        else { return false }
        let base = String(cString: filename).split(separator: "/").last.map(String.init) ?? ""
        guard base.hasSuffix(".desktop") else { return false }
        let name = String(base.dropLast(".desktop".count))
        return !name.hasPrefix(":") && g_dbus_is_name(name) != gFalse
    }

    func isDesktopAppInfo(_ app: OpaquePointer) -> Bool {
        g_type_check_instance_is_a(UnsafeMutablePointer<GTypeInstance>(app), g_desktop_app_info_get_type()) != gFalse
    }

    /// The app's `Name` and desktop file ID, for messages.
    private func name(of app: OpaquePointer) -> String {
        let name = g_app_info_get_name(app).map { String(cString: $0) } ?? ""
        guard let id = g_app_info_get_id(app).map({ String(cString: $0) }) else { return name }
        return name.isEmpty ? id : "\(name) (\(id))"
    }
}

/// A `GList` of URI strings it owns.
private final class URIList {
    let raw: UnsafeMutablePointer<GList>?

    init(_ uris: [String]) {
        var list: UnsafeMutablePointer<GList>?
        for uri in uris.reversed() { list = g_list_prepend(list, g_strdup(uri)) }
        raw = list
    }

    deinit { g_list_free_full(raw, g_free) }
}

/// What an asynchronous launch reports to, handed to GIO retained.
/// GLib thread only.
private final class PendingLaunch {
    let what: String
    /// One reference, owned here.
    let cancellable = g_cancellable_new()
    private var completion: (@Sendable (LaunchOutcome) -> Void)?
    var onFinish: () -> Void = {}

    init(what: String, completion: @escaping @Sendable (LaunchOutcome) -> Void) {
        self.what = what
        self.completion = completion
    }

    deinit { g_object_unref(UnsafeMutableRawPointer(cancellable)) }

    /// Reports `outcome`, the first time only.
    func finish(_ outcome: LaunchOutcome) {
        guard let completion else { return }
        self.completion = nil
        onFinish()
        completion(outcome)
    }
}

/// `GAsyncReadyCallback` of `g_app_info_launch_uris_async`; balances the
/// `passRetained` of `AppLauncher.start`.
private let launchFinished: GAsyncReadyCallback = { source, result, data in
    guard let data else { return }
    let pending = Unmanaged<PendingLaunch>.fromOpaque(data).takeRetainedValue()
    do throws(DesktopError) {
        try withGError(pending.what, failed: { $0 == gFalse }) {
            g_app_info_launch_uris_finish(OpaquePointer(source), result, $0)
        }
        pending.finish(.launched)
    } catch {
        pending.finish(.failed(error.message))
    }
}
