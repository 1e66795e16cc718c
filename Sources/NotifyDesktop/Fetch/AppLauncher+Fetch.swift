import CLibnotify

/// How a background fetch reaches an app beyond the `PerformFetch` signal
/// (SPEC "Background fetch").
public enum FetchWakeRoute: Sendable, Hashable {
    /// The app is `DBusActivatable`: the caller sends
    /// `org.freedesktop.Application.ActivateAction("background-fetch", …)`
    /// on its own connection.
    case activateAction
    /// The desktop file's `background-fetch` action was spawned.
    case launchedAction
    /// Neither applies: the signal alone reaches the app (why, for the log).
    case signalOnly(String)
    /// The action could not be launched (why).
    case failed(String)
}

extension AppLauncher {
    /// The desktop action and `ActivateAction` name of a background fetch.
    static let fetchAction = "background-fetch"

    /// Wakes `appID` for a fetch: says to call it over D-Bus when GIO would
    /// (``FetchWakeRoute/activateAction``), else spawns its
    /// `[Desktop Action background-fetch]` with `environment` added, no
    /// shell and no signal blocked. `completion` runs once, on this thread.
    func wakeForFetch(
        _ appID: String, environment: [(String, String)], hasSessionBus: Bool,
        completion: @escaping @Sendable (FetchWakeRoute) -> Void
    ) {
        guard !appID.isEmpty, !appID.contains("/"), let app = g_desktop_app_info_new("\(appID).desktop") else {
            completion(.signalOnly("no usable desktop file \(appID).desktop"))
            return
        }
        defer { g_object_unref(UnsafeMutableRawPointer(app)) }
        if activatesOverDBus(app, hasSessionBus: hasSessionBus) {
            completion(.activateAction)
            return
        }
        do throws(DesktopError) {
            guard let action = try actionApp(of: app, appID: appID) else {
                completion(.signalOnly(
                    "\(appID).desktop has neither DBusActivatable=true nor a [Desktop Action \(Self.fetchAction)]"))
                return
            }
            defer { g_object_unref(UnsafeMutableRawPointer(action)) }
            let context = LaunchContext(activationToken: nil)
            for (name, value) in environment { g_app_launch_context_setenv(context.raw, name, value) }
            try withGError("cannot launch the \(Self.fetchAction) action of \(appID)", failed: { $0 == gFalse }) {
                g_desktop_app_info_launch_uris_as_manager(
                    action, nil, context.raw, G_SPAWN_SEARCH_PATH, unblockSignalsInChild, nil, nil, nil, $0)
            }
            completion(.launchedAction)
        } catch {
            completion(.failed(error.message))
        }
    }

    /// The action as an app of its own (its `Exec` line, the app's name),
    /// nil when the file has no such action: GIO's
    /// `g_desktop_app_info_launch_action` has no child set-up, and a child
    /// of the GLib thread would start with every signal blocked.
    private func actionApp(of app: OpaquePointer, appID: String) throws(DesktopError) -> OpaquePointer? {
        let what = "cannot launch the \(Self.fetchAction) action of \(appID)"
        guard let filename = g_desktop_app_info_get_filename(app) else {
            throw DesktopError(.glib, "\(what): GIO knows no file for it")
        }
        let source = g_key_file_new()
        defer { g_key_file_free(source) }
        try withGError(what, failed: { $0 == gFalse }) {
            g_key_file_load_from_file(source, filename, G_KEY_FILE_NONE, $0)
        }
        let group = "Desktop Action \(Self.fetchAction)"
        guard g_key_file_has_group(source, group) != gFalse else { return nil }
        let exec = try withGError("\(what): its [\(group)] has no Exec", failed: { $0 == nil }) {
            g_key_file_get_string(source, group, "Exec", $0)
        }!
        defer { g_free(exec) }
        let entry = g_key_file_new()
        defer { g_key_file_free(entry) }
        let name = g_app_info_get_name(app).map { String(cString: $0) } ?? appID
        g_key_file_set_string(entry, "Desktop Entry", "Type", "Application")
        g_key_file_set_string(entry, "Desktop Entry", "Name", "\(name) (\(Self.fetchAction))")
        g_key_file_set_string(entry, "Desktop Entry", "Exec", exec)
        guard let action = g_desktop_app_info_new_from_keyfile(entry) else {
            throw DesktopError(.glib, "\(what): its program (Exec=\(String(cString: exec))) is not installed")
        }
        return action
    }
}
