import DBus
import Foundation
import Testing
import NotifyTesting

/// Transmission's and yt-dlp's hooks called directly, as those tools call
/// them, and the session IDs the hooks make.
extension ContribHookTests {
    @Test func transmissionDoneScript() throws {
        let hash = "0123456789abcdef0123456789abcdef01234567"
        let downloads = directory.appendingPathComponent("Downloads")
        let name = "-Some Torrent 'quoted' (2024)"
        let result = try runProcess(
            contrib.appendingPathComponent("transmission/notifyd-transmission-done").path, [],
            environment: hookEnvironment(app: "org.example.Transmission").merging([
                "TR_APP_VERSION": "4.0.5", "TR_TORRENT_ID": "7", "TR_TORRENT_HASH": hash,
                "TR_TORRENT_NAME": name, "TR_TORRENT_DIR": downloads.path + "/",
            ]) { $1 })
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
        let session = try waitForSession("transmission@org.example.Transmission:\(hash)")
        #expect(session.app == "org.example.Transmission" && session.pending == 1)
        let event = try recordedEvent("transmission@org.example.Transmission:\(hash)")
        #expect(event["title"] == .string(name))
        #expect(event["path"] == .string(downloads.appendingPathComponent(name).path))
    }

    @Test func transmissionDefaultsToTheInstalledClientsDesktopEntry() throws {
        let data = directory.appendingPathComponent("xdg-data")
        let applications = data.appendingPathComponent("applications")
        try FileManager.default.createDirectory(at: applications, withIntermediateDirectories: true)
        try "[Desktop Entry]\nName=Transmission\n".write(
            to: applications.appendingPathComponent("transmission-gtk.desktop"), atomically: true, encoding: .utf8)
        var environment = hookEnvironment(app: nil)
        environment["XDG_DATA_DIRS"] = data.path
        environment["XDG_DATA_HOME"] = directory.appendingPathComponent("empty").path
        environment["TR_TORRENT_ID"] = "42"
        environment["TR_TORRENT_NAME"] = "distro.iso"
        environment["TR_TORRENT_DIR"] = "/srv/torrents"
        let result = try runProcess(
            contrib.appendingPathComponent("transmission/notifyd-transmission-done").path, [], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try waitForSession("transmission@transmission-gtk:42").app == "transmission-gtk")
    }

    @Test func ytDlpExecHook() throws {
        let file = directory.appendingPathComponent("videos/-A video [dQw4w9WgXcQ].webm")
        let result = try runProcess(
            contrib.appendingPathComponent("yt-dlp/notifyd-yt-dlp").path,
            [file.path, "dQw4w9WgXcQ", "A video: \"quoted\", $(not run)"],
            environment: hookEnvironment(app: nil))
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
        let session = try waitForSession("yt-dlp:dQw4w9WgXcQ")
        #expect(session.app == "yt-dlp", "the default app ID")
        let event = try recordedEvent("yt-dlp:dQw4w9WgXcQ")
        #expect(event["title"] == .string("A video: \"quoted\", $(not run)"))
        #expect(event["path"] == .string(file.path))
    }

    /// Session IDs stay within notifyd's 255 bytes whatever the app ID and
    /// the tool's ID, and stay the same for the same video and app.
    @Test func hookSessionIDsStayWithinTheLimit() throws {
        let app = "org.example." + String(repeating: "a", count: 243)
        let longID = String(repeating: "é", count: 150)
        let hook = contrib.appendingPathComponent("yt-dlp/notifyd-yt-dlp").path
        for id in [longID, longID, longID + "x"] {
            let result = try runProcess(hook, ["/tmp/v.webm", id, "v"], environment: hookEnvironment(app: app))
            #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
        }
        let sessions = try listSessions().filter { $0.app == app }
        #expect(sessions.map(\.pending).sorted() == [1, 2], "the same ID twice is one session: \(sessions.map(\.id))")
        for session in sessions {
            #expect(session.id.utf8.count <= 200 && session.id.hasPrefix("yt-dlp@org.example.aaa"), "\(session.id)")
            #expect(session.id.range(of: #"~[0-9]+$"#, options: .regularExpression) != nil, "\(session.id)")
        }
    }
}
