import Foundation

/// The scratch session GNOME Shell runs in: its environment, its GSettings
/// keyfile (Dash to Dock enabled, fixed, with the test's apps pinned) and
/// the apps' desktop files.
extension GnomeShellSession {
    static func environment(
        home: URL, busAddress: String, systemBus: String, dataDirectories: [URL]
    ) -> [String: String] {
        func path(_ sub: String) -> String { home.appendingPathComponent(sub).path }
        return [
            "HOME": path("home"), "XDG_RUNTIME_DIR": path("runtime"), "XDG_CONFIG_HOME": path("config"),
            "XDG_DATA_HOME": path("data"), "XDG_CACHE_HOME": path("cache"), "XDG_STATE_HOME": path("state"),
            "XDG_DATA_DIRS": (dataDirectories.map(\.path) + ["/usr/local/share", "/usr/share"]).joined(separator: ":"),
            "XDG_CONFIG_DIRS": "/etc/xdg",
            "XDG_SESSION_TYPE": "wayland", "XDG_CURRENT_DESKTOP": "GNOME", "XDG_SESSION_DESKTOP": "gnome",
            "DESKTOP_SESSION": "gnome", "GSETTINGS_BACKEND": "keyfile",
            "DBUS_SESSION_BUS_ADDRESS": busAddress, "DBUS_SYSTEM_BUS_ADDRESS": systemBus,
            "NO_AT_BRIDGE": "1", "GTK_A11Y": "none", "GIO_USE_VFS": "local", "GVFS_DISABLE_FUSE": "1",
            "LIBGL_ALWAYS_SOFTWARE": "1", "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8",
        ]
    }

    /// Writes the scratch home: `pinned` in Dash to Dock, and a desktop
    /// file for each of `needingDesktopFile`.
    static func writeScratchHome(_ home: URL, pinned favoriteApps: [String], needingDesktopFile: [String]) throws {
        let manager = FileManager.default
        for sub in ["home", "runtime", "config/glib-2.0/settings", "data/applications", "data/gnome-shell", "cache", "state"] {
            try manager.createDirectory(
                at: home.appendingPathComponent(sub), withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        }
        // Stops the "Screen Lock disabled" notice of a session without GDM.
        manager.createFile(atPath: home.appendingPathComponent("data/gnome-shell/lock-warning-shown").path, contents: nil)
        let favorites = favoriteApps.map { "'\($0).desktop'" }.joined(separator: ", ")
        let keyfile = """
            [org/gnome/shell]
            enabled-extensions=['\(dashToDock)']
            disable-user-extensions=false
            disable-extension-version-validation=true
            favorite-apps=[\(favorites)]
            welcome-dialog-last-shown-version='999'

            [org/gnome/shell/extensions/dash-to-dock]
            dock-fixed=true
            autohide=false
            intellihide=false
            manualhide=false
            dock-position='BOTTOM'
            disable-overview-on-startup=true
            show-trash=false
            show-mounts=false
            animation-time=0.0
            hot-keys=false
            multi-monitor=false

            [org/gnome/desktop/interface]
            enable-animations=false

            [org/gnome/desktop/screensaver]
            lock-enabled=false

            [org/gnome/desktop/session]
            idle-delay=uint32 0

            """
        try keyfile.write(
            to: home.appendingPathComponent("config/glib-2.0/settings/keyfile"), atomically: true, encoding: .utf8)
        for app in needingDesktopFile {
            try desktopEntry(name: "Downloads (\(app))").write(
                to: home.appendingPathComponent("data/applications/\(app).desktop"), atomically: true, encoding: .utf8)
        }
    }

    /// A desktop file whose app does nothing when launched.
    static func desktopEntry(name: String) -> String {
        """
        [Desktop Entry]
        Type=Application
        Name=\(name)
        Exec=/bin/true
        Icon=folder-download
        Terminal=false

        """
    }
}
