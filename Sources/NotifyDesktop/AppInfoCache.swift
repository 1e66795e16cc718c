import CLibnotify

/// Apps' names and icons, looked up once per app through GIO's
/// `GDesktopAppInfo` (which follows `$XDG_DATA_HOME`, `$XDG_DATA_DIRS` and
/// the desktop-ID rules, e.g. `kde-foo` → `applications/kde/foo.desktop`).
///
/// GLib thread only. GIO reads `XDG_DATA_DIRS` once per process and keeps
/// its own cache of the directories, refreshed by file monitors; this cache
/// is on top of that, and keeps only apps that have a desktop file, so an
/// app whose desktop file is installed after notifyd started gets its name
/// and icon from its next popup on.
final class AppInfoCache {
    private var entries: [String: DesktopAppInfo] = [:]
    /// Bounds memory against a client inventing app IDs.
    private let limit: Int

    init(limit: Int = 512) {
        self.limit = limit
    }

    /// The app's info, looked up on first use.
    func info(for appID: String) -> DesktopAppInfo {
        if let cached = entries[appID] { return cached }
        let info = Self.lookUp(appID)
        guard info.hasDesktopFile else { return info }
        if entries.count >= limit { entries.removeAll(keepingCapacity: true) }
        entries[appID] = info
        return info
    }

    /// Reads `APP_ID.desktop` through GIO; without one, the app ID is the
    /// name and there is no icon.
    static func lookUp(_ appID: String) -> DesktopAppInfo {
        let fallback = DesktopAppInfo(name: appID, icon: nil, hasDesktopFile: false)
        guard !appID.isEmpty, !appID.contains("/"), let desktop = g_desktop_app_info_new("\(appID).desktop") else {
            return fallback
        }
        // g_desktop_app_info_new returned a new reference.
        defer { g_object_unref(UnsafeMutableRawPointer(desktop)) }
        let appInfo = desktop  // a GDesktopAppInfo is a GAppInfo (both opaque to Swift)
        var name = appID
        if let cName = g_app_info_get_name(appInfo), cName.pointee != 0 {
            name = String(cString: cName)
        }
        return DesktopAppInfo(name: name, icon: iconString(of: appInfo), hasDesktopFile: true)
    }

    /// `g_icon_to_string` of the app's `Icon`: a theme name or a file path.
    private static func iconString(of appInfo: OpaquePointer) -> String? {
        // Owned by the app info: no unref.
        guard let icon = g_app_info_get_icon(appInfo), let text = g_icon_to_string(icon) else { return nil }
        defer { g_free(text) }
        let string = String(cString: text)
        return string.isEmpty ? nil : string
    }
}
