import Foundation

/// The scratch session Plasma runs in: its environment, and its panel's
/// layout with the test's apps pinned in the task manager from the first
/// start (Plasma's default panel template, one line changed).
extension PlasmaSession {
    static func environment(
        home: URL, display: String, busAddress: String, systemBus: String, dataDirectories: [URL]
    ) -> [String: String] {
        func path(_ sub: String) -> String { home.appendingPathComponent(sub).path }
        return [
            "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
            "HOME": path("home"), "XDG_CONFIG_HOME": path("home/.config"), "XDG_DATA_HOME": path("home/.local/share"),
            "XDG_CACHE_HOME": path("home/.cache"), "XDG_STATE_HOME": path("home/.local/state"),
            "XDG_RUNTIME_DIR": path("runtime"),
            "XDG_DATA_DIRS": (dataDirectories.map(\.path) + ["/usr/local/share", "/usr/share"]).joined(separator: ":"),
            "XDG_CONFIG_DIRS": "/etc/xdg", "XDG_CURRENT_DESKTOP": "KDE", "XDG_SESSION_DESKTOP": "KDE",
            "XDG_SESSION_TYPE": "x11", "DESKTOP_SESSION": "plasma", "KDE_FULL_SESSION": "true",
            "KDE_SESSION_VERSION": "5", "QT_QPA_PLATFORM": "xcb", "QT_ACCESSIBILITY": "0", "NO_AT_BRIDGE": "1",
            "LIBGL_ALWAYS_SOFTWARE": "1", "KDE_DEBUG": "1", "KWIN_COMPOSE": "N", "DISPLAY": display,
            "DBUS_SESSION_BUS_ADDRESS": busAddress, "DBUS_SYSTEM_BUS_ADDRESS": systemBus,
        ]
    }

    static let panelTemplate = "/usr/share/plasma/layout-templates/org.kde.plasma.desktop.defaultPanel"

    static func writeScratchHome(_ home: URL, pinnedApps: [String]) throws {
        let manager = FileManager.default
        for sub in ["home/.config", "home/.local/share", "home/.cache", "home/.local/state", "runtime"] {
            try manager.createDirectory(
                at: home.appendingPathComponent(sub), withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        }
        // A user copy of the panel template wins over the system's.
        let template = home.appendingPathComponent(
            "home/.local/share/plasma/layout-templates/org.kde.plasma.desktop.defaultPanel")
        try manager.createDirectory(
            at: template.appendingPathComponent("contents"), withIntermediateDirectories: true)
        try manager.copyItem(
            at: URL(fileURLWithPath: "\(panelTemplate)/metadata.json"),
            to: template.appendingPathComponent("metadata.json"))
        let layout = try String(contentsOfFile: "\(panelTemplate)/contents/layout.js", encoding: .utf8)
        let launchers = pinnedApps.map { "\"applications:\($0).desktop\"" }.joined(separator: ", ")
        let pinned = """
            var tasks = panel.addWidget("org.kde.plasma.icontasks")
            tasks.currentConfigGroup = ["General"]
            tasks.writeConfig("launchers", [\(launchers)])
            """
        guard layout.contains("panel.addWidget(\"org.kde.plasma.icontasks\")") else {
            throw TestFailure("Plasma's panel template has no task manager line: \(panelTemplate)")
        }
        try layout.replacingOccurrences(of: "panel.addWidget(\"org.kde.plasma.icontasks\")", with: pinned)
            .write(to: template.appendingPathComponent("contents/layout.js"), atomically: true, encoding: .utf8)
    }
}
