import NotifyCore
import Testing

@Suite struct SystemdScopeTests {
    static let manager = "0::/user.slice/user-1000.slice/user@1000.service"

    @Test(arguments: [
        ("app.slice/app-gnome-org.gnome.Nautilus-12345.scope", "org.gnome.Nautilus"),
        ("app.slice/app-flatpak-org.gnome.Maps-1234.scope", "org.gnome.Maps"),
        ("app.slice/app-org.kde.dolphin@a1b2c3.service", "org.kde.dolphin"),
        ("app.slice/app-KDE-org.kde.okular@12345.service", "org.kde.okular"),
        ("app.slice/app-org.kde.amarok.service", "org.kde.amarok"),
        ("app.slice/app-org.gnome.Evince-12345.scope", "org.gnome.Evince"),
        ("app.slice/app-com.obsproject.Studio-d70acc38b5154a3a8b4a60accc4b15f4.scope", "com.obsproject.Studio"),
        ("app.slice/app-gnome-org.gnome.Evolution\\x2dalarm\\x2dnotify-2437.scope", "org.gnome.Evolution-alarm-notify"),
        ("app.slice/app-gnome-org.gnome.SettingsDaemon.DiskUtilityNotify-autostart.service", "org.gnome.SettingsDaemon.DiskUtilityNotify"),
        ("app.slice/app-org.gnome.Software@autostart.service", "org.gnome.Software"),
        // Per-app slices (uwsm) are skipped; a cgroup below the unit does not matter.
        ("app-graphical.slice/app-Hyprland-org.mozilla.firefox-4242.scope/tab-7", "org.mozilla.firefox"),
    ])
    func readsAppUnits(_ path: String, _ app: String) {
        #expect(SystemdScope.appID(fromCgroup: "\(Self.manager)/\(path)\n") == app)
    }

    @Test(arguments: [
        // Not an app unit.
        "0::/user.slice/user-1000.slice/session-2.scope",
        "0::/user.slice/user-1000.slice/user@1000.service/init.scope",
        "0::/user.slice/user-1000.slice/user@1000.service/session.slice/org.gnome.Shell@wayland.service",
        "0::/user.slice/user-1000.slice/user@1000.service/app.slice/vte-spawn-5b1c-4e9a.scope",
        "0::/user.slice/user-1000.slice/user@1000.service/app.slice",
        "0::/",
        "",
        // In an app unit, but no reliable reverse-DNS app ID.
        "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-dolphin-1234.scope",
        "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-firefox-1234.scope",
        "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-glib-spice\\x2dvdagent-1839.scope",
        // An app unit outside a user's service manager (a system service).
        "0::/system.slice/app-org.example.Daemon-12.scope",
        // Not following the convention: unsure, so nil.
        "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-not-a-well-formed-unit-name.scope",
        "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-org.gnome.Evolution-alarm-notify-2437.scope",
        "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-org.gnome.Maps.scope",
        "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-org.gnome.Maps-.scope",
        "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-org.gnome.Maps-12.34.scope",
        "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-org.kde.dolphin@a-1.service",
        "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-gno.me-org.gnome.Maps-1.scope",
        "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-org.gnome\\x2.Maps-1.scope",
        "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-org.gnome\\x2fMaps-1.scope",
        "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-org.gnome.Maps-1.slice",
    ])
    func noAppOtherwise(_ text: String) {
        #expect(SystemdScope.appID(fromCgroup: text) == nil)
    }

    @Test func readsTheUnifiedLineAmongV1Controllers() {
        let hybrid = """
            12:pids:/user.slice/user-1000.slice/user@1000.service
            1:name=systemd:/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-org.example.Old-1.scope
            0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-org.gnome.Maps-9.scope
            """
        #expect(SystemdScope.appID(fromCgroup: hybrid) == "org.gnome.Maps")
        let legacy = """
            4:memory:/user.slice
            1:name=systemd:/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-org.example.Old-1.scope
            """
        #expect(SystemdScope.appID(fromCgroup: legacy) == "org.example.Old")
    }

    @Test func unitNamesAlone() {
        #expect(SystemdScope.appID(fromUnit: "app-gnome-org.gnome.Nautilus-12345.scope") == "org.gnome.Nautilus")
        #expect(SystemdScope.appID(fromUnit: "app-gnome-org.gnome.Nautilus-12345.slice") == nil)
        #expect(SystemdScope.appID(fromUnit: "application-org.gnome.Nautilus-1.scope") == nil)
        #expect(SystemdScope.appID(fromUnit: "app-.scope") == nil)
        #expect(SystemdScope.appID(fromUnit: "app-x-.hidden.app-1.scope") == nil)
    }
}
