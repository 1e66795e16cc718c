import DBus
import Foundation
import NotifyTesting
import Testing

/// notifyd on GNOME Shell 43 with Dash to Dock, run for real, headless
/// (``GnomeShellSession``): what a GNOME user sees, read from the shell
/// itself (its message tray and Dash to Dock's model, through
/// `org.gnome.Shell.Eval`) and from its screenshots. The test app is a
/// DBusActivatable fake that records how it is activated and opened.
@Suite(.serialized) struct GnomeShellTests {
    static let app = "org.example.Fake"

    /// GNOME Shell with notifyd and the fake app on a private bus.
    typealias Run = DesktopAppRun<GnomeShellSession>

    /// Issue 19's defect with the real helper: GNOME 43 has no activation
    /// file for `org.freedesktop.Notifications`, so after the helper
    /// crashed nothing started it again, and popups waited for ever.
    @Test func aCrashedHelperIsStartedAgainByTheNextPopup() throws {
        let run = try Run()
        try run.shell.stop()
        try waitUntil("notifyd sees no server", seconds: 20) { try run.server() == "" }
        try run.event("crash-1", "--title", "after-crash.iso")
        try run.shell.start()
        let shown = try run.trayNotification(body: "after-crash.iso")
        #expect(shown.title == "Download complete")
        #expect(run.daemon.log.contains("started the notification server on demand"))
    }

    /// A finished download as a GNOME user sees it: in the tray under the
    /// app's name, an Open button, the badge on the app's icon in Dash to
    /// Dock; a click on the banner activates the app and clears the badge.
    @Test func aFinishedDownloadThenAClickOnTheBanner() throws {
        let run = try Run()
        try run.event("gnome-1", "--title", "debian-12.iso", "--path", try run.file("debian-12.iso"))
        let shown = try run.trayNotification(body: "debian-12.iso")
        #expect(shown.title == "Download complete")
        #expect(shown.source == "Fake Downloads", "the source is named from the app's desktop file")
        #expect(shown.actions == ["Open"], "the default action is the banner itself, not a button")
        try waitUntil("Dash to Dock shows the badge", seconds: 10) {
            let entry = try run.shell.dockEntry(Self.app)
            return entry["count"] as? Int == 1 && entry["count-visible"] as? Bool == true
        }
        try run.shell.click(notification: shown.id)
        let calls = try run.app.waitForCalls(count: 1)
        #expect(calls.first?.method == "Activate")
        try waitUntil("the click cleared the badge", seconds: 10) { try run.badge() == 0 }
        try waitUntil("Dash to Dock hides the badge", seconds: 10) {
            try run.shell.dockEntry(Self.app)["count-visible"] as? Bool == false
        }
    }

    /// Open opens the file with the default handler, and is not activating the app.
    @Test func openOpensTheFile() throws {
        let run = try Run()
        let path = try run.file("report.txt")
        try run.event("gnome-2", "--title", "report.txt", "--path", path)
        let shown = try run.trayNotification(body: "report.txt")
        try run.shell.click(notification: shown.id, button: "Open")
        try run.expectOpened(path)
    }

    /// What a person sees: Dash to Dock draws notifyd's count and progress
    /// on the app's icon (pixels against the same icon without them).
    @Test func dashToDockDrawsTheBadgeAndProgress() throws {
        let run = try Run()
        let icon = try run.shell.dockIcon(Self.app)
        let plain = run.bus.directory.appendingPathComponent("dock-plain.png")
        let badged = run.bus.directory.appendingPathComponent("dock-badged.png")
        try run.shell.screenshot(to: plain)
        try run.event("gnome-3", "--progress", "400/1000", "--title", "big.iso")
        for index in 0..<7 { try run.event("gnome-badge-\(index)", "--title", "f\(index)", "--no-notify") }
        try waitUntil("Dash to Dock has the count and progress", seconds: 10) {
            let entry = try run.shell.dockEntry(Self.app)
            return entry["count"] as? Int == 7 && entry["progress-visible"] as? Bool == true
        }
        // The model changes before the frame is drawn: bounded, until it shows.
        var difference = 0
        try waitUntil("the badge and the bar change the icon", seconds: 10) {
            try run.shell.screenshot(to: badged)
            difference = try PlankSession.differingPixels(
                try run.crop(plain, icon), try run.crop(badged, icon))
            return difference >= 150
        }
        try Attachment.record(Data(contentsOf: badged), named: "gnome-dash-to-dock-badge.png")
    }

    /// The picture of README and docs/images/gnome-shell-finished.png
    /// (`scripts/screenshots` copies the attachment): a finished download's
    /// banner, and the badge of the app's three downloads in Dash to Dock.
    @Test func aBannerAndTheBadgeAsAPersonSeesThem() throws {
        let run = try Run()
        let before = run.bus.directory.appendingPathComponent("screen-before.png")
        try run.shell.screenshot(to: before)
        for name in ["ubuntu-24.04-desktop-amd64.iso", "notes.pdf"] {
            try run.event("shot-\(name)", "--title", name, "--no-notify")
        }
        try run.event(
            "shot-debian", "--title", "debian-12.5.0-amd64-netinst.iso", "--path",
            try run.file("debian-12.5.0-amd64-netinst.iso"))
        try waitUntil("the banner is on screen", seconds: 10) {
            try run.shell.banner()?.body == "debian-12.5.0-amd64-netinst.iso"
        }
        try waitUntil("Dash to Dock shows 3", seconds: 10) { try run.shell.dockEntry(Self.app)["count"] as? Int == 3 }
        let screen = run.bus.directory.appendingPathComponent("gnome-shell-finished.png")
        // The model changes before the frame is drawn: bounded, until it shows.
        try waitUntil("the banner and the badge are drawn", seconds: 10) {
            try run.shell.screenshot(to: screen)
            return try PlankSession.differingPixels(before, screen) >= 2_000
        }
        try Attachment.record(Data(contentsOf: screen), named: "gnome-shell-finished.png")
    }
}

extension DesktopAppRun where Desktop == GnomeShellSession {
    convenience init() throws {
        try self.init(app: GnomeShellTests.app, serverName: "gnome-shell 43.9") { bus, data in
            try GnomeShellSession(
                bus: bus, directory: bus.directory, favoriteApps: [GnomeShellTests.app], dataDirectories: [data])
        }
    }

    var shell: GnomeShellSession { desktop }

    /// Waits until the tray shows a notification with this body.
    func trayNotification(body: String) throws -> GnomeShellSession.TrayNotification {
        var found: GnomeShellSession.TrayNotification?
        try waitUntil("GNOME Shell shows \(body)", seconds: 20) {
            found = try self.shell.tray().first { $0.body == body }
            return found != nil
        }
        return found!
    }
}
