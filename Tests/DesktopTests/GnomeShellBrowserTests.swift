import DBus
import Foundation
import Testing
import NotifyTesting

/// A real Chromium download on GNOME Shell with Dash to Dock, as a person
/// sees it: the extension and its host report it, notifyd posts the
/// banner, and Dash to Dock badges Chromium's icon (docs/images).
@Suite(.serialized) struct GnomeShellBrowserTests {
    @Test func aChromiumDownloadsBannerAndItsBadgeInTheDock() throws {
        _ = try requireTool("chromium", package: "chromium")
        let bus = try TestBus()
        // Chromium's own desktop file (Icon=chromium), found in /usr/share:
        // without it the session pins a stand-in chromium.desktop in its
        // scratch XDG_DATA_HOME, which shadows Debian's and draws a folder.
        let shell = try GnomeShellSession(
            bus: bus, directory: bus.directory, favoriteApps: ["chromium"],
            dataDirectories: [URL(fileURLWithPath: "/usr/share")])
        let daemon = try DaemonProcess(bus: bus, extraEnvironment: ["XDG_DATA_DIRS": "/usr/local/share:/usr/share"])
        defer { _ = daemon.stop() }
        let web = try SlowDownloadServer(scratch: bus.directory)
        let browser = try HeadlessBrowser(.chromium, in: bus.directory.appendingPathComponent("browser"))
        defer { browser.stop() }
        // The dock draws Chromium's own entry, not a stand-in.
        let dockApp = try shell.dockApp("chromium")
        #expect(dockApp.desktopFile == "/usr/share/applications/chromium.desktop")
        #expect(dockApp.icon == "chromium")
        #expect(dockApp.name == "Chromium Web Browser")
        let before = bus.directory.appendingPathComponent("screen-before.png")
        try shell.screenshot(to: before)

        try browser.open(
            web.page(downloading: [web.file("debian-12.5.0-amd64-netinst.iso", size: 400_000, chunks: 4, gapMilliseconds: 500)]),
            busAddress: bus.address)
        try waitUntil("the download's banner is on screen:\n\(browser.log)", seconds: 40) {
            try shell.banner()?.body == "debian-12.5.0-amd64-netinst.iso"
        }
        #expect(try shell.banner()?.title == "Download complete")
        try waitUntil("Dash to Dock shows 1 on Chromium", seconds: 10) {
            try shell.dockEntry("chromium")["count"] as? Int == 1
        }
        let screen = bus.directory.appendingPathComponent("gnome-shell-browser-download.png")
        try waitUntil("the banner and the badge are drawn", seconds: 10) {
            try shell.screenshot(to: screen)
            return try PlankSession.differingPixels(before, screen) >= 2_000
        }
        try Attachment.record(Data(contentsOf: screen), named: "gnome-shell-browser-download.png")
    }
}
