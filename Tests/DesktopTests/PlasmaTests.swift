import DBus
import Foundation
import NotifyTesting
import Testing

/// notifyd on KDE Plasma 5.27, run for real under Xvfb (``PlasmaSession``),
/// the test app pinned in the panel's task manager: a click reaches the
/// app, and the task manager draws notifyd's badge.
@Suite(.serialized) struct PlasmaTests {
    static let app = "org.example.Fake"

    /// Plasma with notifyd and the fake app on a private bus.
    typealias Run = DesktopAppRun<PlasmaSession>

    static let posted = [DBusMatchRule(interface: "org.notifyd.Notifyd1.Sessions", member: "NotificationPosted")]

    /// A click on the popup's body (the default action, as Plasma's popup
    /// invokes it) activates the app and clears its badge.
    @Test func aClickOnThePopupActivatesTheApp() throws {
        let run = try Run()
        let recorder = try SignalRecorder(address: run.bus.address, rules: Self.posted)
        try run.event("plasma-1", "--title", "debian-12.iso", "--path", try run.file("debian-12.iso"))
        let id = try run.postedID(recorder, body: "debian-12.iso")
        #expect(try run.badge() == 1)
        try run.plasma.invokeAction(id: id, action: "default")
        #expect(try run.app.waitForCalls(count: 1).first?.method == "Activate")
        try waitUntil("the click cleared the badge", seconds: 10) { try run.badge() == 0 }
    }

    /// Open opens the file with its default handler; the badge stays.
    @Test func openOpensTheFile() throws {
        let run = try Run()
        let recorder = try SignalRecorder(address: run.bus.address, rules: Self.posted)
        let path = try run.file("report.txt")
        try run.event("plasma-2", "--title", "report.txt", "--path", path)
        try run.plasma.invokeAction(id: try run.postedID(recorder, body: "report.txt"), action: "open")
        try run.expectOpened(path)
    }

    /// What a person sees: the task manager draws notifyd's count on the
    /// pinned launcher (the panel's left half, where the launchers are,
    /// against the same panel without it), and draws it as before once
    /// the app is activated.
    @Test func theTaskManagerDrawsTheBadge() throws {
        let run = try Run()
        // The panel's left half: the launchers, not the clock.
        let panel = (x: 0, y: 740, width: 640, height: 60)
        let plain = run.bus.directory.appendingPathComponent("panel-plain.png")
        let badged = run.bus.directory.appendingPathComponent("panel-badged.png")
        try run.plasma.settledScreenshot(to: plain)
        for index in 0..<12 { try run.event("plasma-badge-\(index)", "--title", "f\(index)", "--no-notify") }
        #expect(try run.badge() == 12)
        var difference = 0
        try waitUntil("the task manager draws the badge", seconds: 20) {
            try run.plasma.screen.screenshot(to: badged)
            difference = try PlankSession.differingPixels(try run.crop(plain, panel), try run.crop(badged, panel))
            return difference >= 100
        }
        try Attachment.record(Data(contentsOf: badged), named: "plasma-task-manager-badge.png")
        try runProcess(Executables.notifyctl, ["activate", Self.app], environment: run.daemon.environment).expectSuccess()
        let cleared = run.bus.directory.appendingPathComponent("panel-cleared.png")
        var left = 0
        do {
            try waitUntil("the badge is gone from the task manager", seconds: 20) {
                try run.plasma.screen.screenshot(to: cleared)
                left = try PlankSession.differingPixels(try run.crop(plain, panel), try run.crop(cleared, panel))
                return left < 20
            }
        } catch {
            // What a person would see, to tell what else changed in the panel.
            try Attachment.record(Data(contentsOf: plain), named: "plasma-task-manager-plain.png")
            try Attachment.record(Data(contentsOf: cleared), named: "plasma-task-manager-cleared.png")
            throw TestFailure("\(error): \(left) pixels still differ (the badge made \(difference))")
        }
    }
}

extension PlasmaTests {
    /// A download in progress is a Plasma job, as KDE's own downloads are
    /// (Plasma draws no `value` hint): requested with the app's desktop
    /// entry, updated with the file's name and percent, ended (transient)
    /// when the download finishes, after which notifyd's badge is sent
    /// again (Plasma clears the app's task badge when a job of it ends).
    @Test func progressIsAPlasmaJob() throws {
        let run = try Run()
        let monitor = try DBusMonitor(
            bus: .address(run.bus.address),
            rules: [
                "type='method_call',interface='org.kde.JobViewServerV2'", "type='method_call',interface='org.kde.JobViewV3'",
                "type='signal',interface='com.canonical.Unity.LauncherEntry'",
            ])
        try run.event("job-1", "--progress", "400/1000", "--title", "big.iso")
        try run.event("job-1", "--title", "big.iso", "--path", try run.file("big.iso"))
        var seen: [String] = []
        var updates: [[String: DBusValue]] = []
        var badgeAfterTerminate = false
        try waitUntil("the job ends and the badge is sent again", seconds: 20) {
            while let message = try monitor.next(timeoutMilliseconds: 100) {
                let arguments = (try? message.arguments()) ?? []
                switch message.member ?? "" {
                case "requestView":
                    #expect(arguments.first == .string(Self.app), "the job is the app's")
                    seen.append("requestView")
                case "update":
                    if let fields = try? [String: DBusValue](dbusValue: arguments[0]) { updates.append(fields) }
                    seen.append("update")
                case "terminate":
                    #expect(arguments.first == .uint32(0), "finished, not failed")
                    seen.append("terminate")
                case "Update" where seen.contains("terminate"):
                    guard arguments.first == .string("application://\(Self.app).desktop"),
                        let properties = try? [String: DBusValue](dbusValue: arguments[1]),
                        properties["count"] == .int64(1), properties["count-visible"] == .boolean(true)
                    else { break }
                    badgeAfterTerminate = true
                default: break
                }
            }
            return badgeAfterTerminate
        }
        #expect(seen.first == "requestView")
        #expect(updates.contains { $0["percent"] == .uint32(40) && $0["title"] == .string("big.iso") }, "\(updates)")
        #expect(updates.contains { $0["processedBytes"] == .uint64(400) && $0["totalBytes"] == .uint64(1000) })
    }
}

extension ProcessResult {
    func expectSuccess() throws {
        guard status == 0 else { throw TestFailure("exit \(status): \(stderr)") }
    }
}

extension PlasmaTests {
    /// The picture of README and docs/images/plasma-finished.png
    /// (`scripts/screenshots` copies the attachment): a finished
    /// download's popup, and the badge of the app's three downloads on its
    /// launcher in the task manager. Without a compositor a screenshot of
    /// the screen catches the popup half drawn: its own window is captured
    /// and laid where Plasma placed it, as a compositor would show it.
    @Test func aPopupAndTheBadgeAsAPersonSeesThem() throws {
        let run = try Run()
        let before = run.bus.directory.appendingPathComponent("plasma-before.png")
        try run.plasma.settledScreenshot(to: before)
        for name in ["ubuntu-24.04-desktop-amd64.iso", "notes.pdf"] {
            try run.event("shot-\(name)", "--title", name, "--no-notify")
        }
        try run.event(
            "shot-debian", "--title", "debian-12.5.0-amd64-netinst.iso", "--path",
            try run.file("debian-12.5.0-amd64-netinst.iso"))
        var popup: PlasmaSession.Window?
        try waitUntil("Plasma shows the popup", seconds: 20) {
            popup = try run.plasma.notificationPopups().first
            return popup != nil
        }
        var window = try #require(popup)
        // The popup first, while it shows (its time runs out); the badge stays.
        let drawn = run.bus.directory.appendingPathComponent("plasma-popup.png")
        try waitUntil("the popup is drawn whole", seconds: 10) {
            // Under load a capture can meet the window mid-change (import:
            // "Resource temporarily unavailable"): found again and retried.
            window = try run.plasma.notificationPopups().first ?? window
            guard (try? run.plasma.capture(window, to: drawn)) != nil else { return false }
            let region = (x: window.x, y: window.y, width: window.width, height: window.height)
            // Its own pixels, not the wallpaper behind it: most of them differ.
            return try PlankSession.differingPixels(try run.crop(before, region), drawn) > window.width * window.height / 2
        }
        let screen = run.bus.directory.appendingPathComponent("plasma-screen.png")
        let launchers = (x: 0, y: 740, width: 640, height: 60)
        try waitUntil("the task manager draws the badge", seconds: 20) {
            try run.plasma.screen.screenshot(to: screen)
            return try PlankSession.differingPixels(try run.crop(before, launchers), try run.crop(screen, launchers)) >= 100
        }
        // The screen with the badge; where popups slide in, the desktop as it
        // was (the screenshot may hold the popup half drawn); the popup whole.
        let composed = run.bus.directory.appendingPathComponent("plasma-finished.png")
        let result = try runProcess(
            "/usr/bin/convert",
            [
                screen.path, "(", before.path, "-crop", "440x276+840+480", ")", "-geometry", "+840+480", "-composite",
                drawn.path, "-geometry", "+\(window.x)+\(window.y)", "-composite",
                "-crop", "1280x240+0+560", "+repage", composed.path,
            ])
        #expect(result.status == 0, "\(result.stderr)")
        try Attachment.record(Data(contentsOf: composed), named: "plasma-finished.png")
    }
}

extension PlasmaTests {
    /// Plasma draws progress on a task's button only while the app has a
    /// window: with one open (WM_CLASS the app's ID), a download in
    /// progress fills the button, and the fill goes with the download.
    @Test func theTaskButtonShowsProgressWhileTheAppHasAWindow() throws {
        let run = try Run()
        let script = """
            import gi, signal
            gi.require_version("Gtk", "3.0")
            from gi.repository import Gtk, GLib
            GLib.set_prgname("\(Self.app)")
            w = Gtk.Window(title="Fake Downloads")
            w.set_wmclass("\(Self.app)", "\(Self.app)")
            w.set_default_size(300, 150)
            w.move(100, 100)
            w.show_all()
            GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGTERM, Gtk.main_quit)
            Gtk.main()
            """
        let window = try SpawnedProcess("/usr/bin/python3", ["-c", script], environment: run.plasma.environment)
        defer { window.kill(SIGTERM) }
        let plain = run.bus.directory.appendingPathComponent("task-plain.png")
        let filled = run.bus.directory.appendingPathComponent("task-progress.png")
        let launchers = (x: 0, y: 756, width: 640, height: 44)
        try waitUntil("the app's window is a task", seconds: 20) {
            try runProcess("/usr/bin/xwininfo", ["-root", "-tree"], environment: ["DISPLAY": run.plasma.display])
                .stdout.contains("\"Fake Downloads\"")
        }
        try run.plasma.settledScreenshot(to: plain)
        try run.event("task-1", "--progress", "400/1000", "--title", "big.iso")
        try waitUntil("the task's button shows the progress", seconds: 20) {
            try run.plasma.screen.screenshot(to: filled)
            return try PlankSession.differingPixels(try run.crop(plain, launchers), try run.crop(filled, launchers)) >= 100
        }
        try Attachment.record(Data(contentsOf: filled), named: "plasma-task-progress.png")
        try run.event("task-1", "--title", "big.iso", "--no-notify", "--badge", "0")
        let ended = run.bus.directory.appendingPathComponent("task-ended.png")
        try waitUntil("the fill goes with the download", seconds: 20) {
            try run.plasma.screen.screenshot(to: ended)
            return try PlankSession.differingPixels(try run.crop(plain, launchers), try run.crop(ended, launchers)) < 100
        }
    }
}

extension DesktopAppRun where Desktop == PlasmaSession {
    convenience init() throws {
        try self.init(app: PlasmaTests.app, serverName: "Plasma 5.27.5") { bus, data in
            try PlasmaSession(bus: bus, directory: bus.directory, pinnedApps: [PlasmaTests.app], dataDirectories: [data])
        }
    }

    var plasma: PlasmaSession { desktop }

    /// The ID Plasma gave the popup with this body (from the bus: notifyd's NotificationPosted).
    func postedID(_ recorder: SignalRecorder, body: String) throws -> UInt32 {
        let signal = try #require(
            recorder.wait(seconds: 20) { signal in
                guard let details = try? [String: DBusValue](dbusValue: signal.arguments[3]) else { return false }
                return details["body"] == .string(body)
            }?.last)
        return try signal.arguments.decode(2)
    }
}
