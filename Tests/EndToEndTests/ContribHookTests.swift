import DBus
import Foundation
import Testing
import NotifyTesting

/// The download-tool hooks of contrib/ against the real notifyd, run by the
/// real tools against a local web server: aria2c, curl and wget (through
/// notifyd-download), yt-dlp (+YtDlp) and transmission-daemon with a web seed
/// (+Transmission); a few more call a hook directly, as its tool would.
/// Every tool is required: a missing one fails the test, it is never
/// skipped (scripts/deps.sh installs them).
@Suite struct ContribHookTests {
    static let sessions = "org.notifyd.Notifyd1.Sessions"
    let fixture: Fixture
    let recorder: SignalRecorder
    let directory: URL

    init() throws {
        fixture = try Fixture()
        recorder = try SignalRecorder(
            address: fixture.bus.address,
            rules: [DBusMatchRule(interface: Self.sessions, member: "HandleEventsForBackgroundSession")])
        directory = fixture.bus.directory
    }

    // MARK: aria2

    @Test func aria2ReportsACompletedDownload() throws {
        let aria2c = try requireTool("aria2c", package: "aria2")
        let server = try LocalHTTPServer(serving: try webRoot(), scratch: directory)
        defer { server.stop() }
        let out = directory.appendingPathComponent("aria2 out")
        let gid = "0123456789abcdef"
        let result = try runProcess(
            aria2c, aria2Arguments(gid: gid, out: out, url: server.url("file.bin")),
            environment: hookEnvironment(app: "org.example.Aria"))
        #expect(result.status == 0, "aria2c: \(result.stdout) \(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("file.bin").path))

        let session = try waitForSession("aria2@org.example.Aria:\(gid)")
        #expect(session.app == "org.example.Aria")
        #expect(session.pending == 1, "one pending completion handler")
        #expect(try fixture.badge("org.example.Aria") == 1)
        let event = try recordedEvent("aria2@org.example.Aria:\(gid)")
        #expect(event["kind"] ?? .string("finished") == .string("finished"))
        #expect(event["title"] == .string("file.bin"))
        #expect(event["path"] == .string(out.appendingPathComponent("file.bin").path))
        #expect(result.stderr.isEmpty, "the hook warned: \(result.stderr)")
    }

    @Test func aria2ReportsAFailedDownload() throws {
        let aria2c = try requireTool("aria2c", package: "aria2")
        let server = try LocalHTTPServer(serving: try webRoot(), scratch: directory)
        defer { server.stop() }
        let gid = "00000000000000f1"
        let result = try runProcess(
            aria2c, aria2Arguments(gid: gid, out: directory.appendingPathComponent("out"), url: server.url("missing.bin")),
            environment: hookEnvironment(app: "org.example.Aria"))
        #expect(result.status == 3, "aria2c exits 3 when the resource is not found: \(result.stderr)")

        let event = try recordedEvent("aria2@org.example.Aria:\(gid)")
        #expect(event["kind"] == .string("failed"))
        #expect(event["error"] == .string("aria2 download failed"))
        #expect(event["path"] == nil, "a failed download has no result to open")
        let session = try waitForSession("aria2@org.example.Aria:\(gid)")
        #expect(session.app == "org.example.Aria" && session.pending == 1)
    }

    @Test func aria2ReportsAHostileFileNameExactly() throws {
        let aria2c = try requireTool("aria2c", package: "aria2")
        let root = try webRoot()
        try Data(repeating: 0x2b, count: 2048).write(to: root.appendingPathComponent(Self.hostileName))
        let server = try LocalHTTPServer(serving: root, scratch: directory)
        defer { server.stop() }
        let out = try workDirectory("aria2 hostile")
        let gid = "00000000000000aa"
        let result = try runTool(
            aria2c, aria2Arguments(gid: gid, out: out, url: server.url(percentEncoded(Self.hostileName))),
            environment: toolEnvironment(app: nil), in: out)
        #expect(result.status == 0, "aria2c: \(result.stdout) \(result.stderr)")
        let event = try recordedEvent("aria2:\(gid)")
        #expect(event["title"] == .string(Self.hostileName))
        #expect(event["path"] == .string(out.appendingPathComponent(Self.hostileName).path))
        #expect(try waitForSession("aria2:\(gid)").app == "aria2", "the default app ID")
        try expectNothingRan(in: out)
    }

    /// Defect 9: the same download reported for another app (as after
    /// setting NOTIFYD_HOOK_APP) is a session of that app, never refused.
    @Test func aria2ReportsTheSameDownloadForAnotherApp() throws {
        let aria2c = try requireTool("aria2c", package: "aria2")
        let server = try LocalHTTPServer(serving: try webRoot(), scratch: directory)
        defer { server.stop() }
        let gid = "00000000000000bb"
        for (run, app) in [nil, "org.gnome.Terminal"].enumerated() {
            let out = try workDirectory("aria2 run \(run)")
            let result = try runTool(
                aria2c, aria2Arguments(gid: gid, out: out, url: server.url("file.bin")),
                environment: toolEnvironment(app: app), in: out)
            #expect(result.status == 0, "aria2c: \(result.stderr)")
        }
        let first = try waitForSession("aria2:\(gid)")
        let second = try waitForSession("aria2@org.gnome.Terminal:\(gid)")
        #expect(first.app == "aria2" && first.pending == 1)
        #expect(second.app == "org.gnome.Terminal" && second.pending == 1)
        #expect(try fixture.badge("org.gnome.Terminal") == 1)
        #expect(!fixture.daemon.log.contains("belongs to app"), "an event was refused: \(fixture.daemon.log)")
    }

    @Test func aria2HooksAreLinksToOneScript() throws {
        let folder = contrib.appendingPathComponent("aria2")
        for name in ["notifyd-aria2-complete", "notifyd-aria2-error"] {
            let target = try FileManager.default.destinationOfSymbolicLink(
                atPath: folder.appendingPathComponent(name).path)
            #expect(target == "notifyd-aria2-hook", "\(name) -> \(target)")
        }
    }

    // MARK: curl through notifyd-download

    @Test func downloadPassesCurlsStatusAndReportsTheFile() throws {
        _ = try requireTool("curl", package: "curl")
        let server = try LocalHTTPServer(serving: try webRoot(), scratch: directory)
        defer { server.stop() }
        let out = directory.appendingPathComponent("fetched files")
        let fetch = contrib.appendingPathComponent("download/notifyd-download").path
        let environment = hookEnvironment(app: "org.example.Fetch")

        let success = try runProcess(
            fetch, ["curl", "-fsS", "--create-dirs", "--output-dir", out.path, "-O", server.url("file.bin")],
            environment: environment)
        #expect(success.status == 0, "\(success.stderr)")
        let finished = try fetchEvent()
        #expect(finished["kind"] ?? .string("finished") == .string("finished"))
        #expect(finished["title"] == .string("file.bin"))
        #expect(finished["path"] == .string(out.appendingPathComponent("file.bin").path))

        recorder.reset()
        let notFound = try runProcess(
            fetch, ["curl", "-fsS", "-o", out.appendingPathComponent("missing.bin").path, server.url("missing.bin")],
            environment: environment)
        #expect(notFound.status == 22, "curl -f exits 22 on a 404, and the wrapper with it: \(notFound.stderr)")
        let failed = try fetchEvent()
        #expect(failed["kind"] == .string("failed"))
        #expect(failed["error"] == .string("curl exited with status 22"))

        let sessions = try listSessions().filter { $0.app == "org.example.Fetch" }
        #expect(sessions.count == 2, "each run is a session of its own: \(sessions.map(\.id))")
        #expect(sessions.allSatisfy { $0.id.hasPrefix("download:") && $0.pending == 1 })
        #expect(try fixture.badge("org.example.Fetch") == 2)
    }

    // MARK: Transmission and yt-dlp, called as those tools call them

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

    // MARK: Without notifyd

    @Test func hooksExitZeroAndWarnWhenNotifydIsAbsent() throws {
        fixture.daemon.stop()
        try fixture.daemon.waitForName(present: false)
        let environment = hookEnvironment(app: "org.example.Absent").merging([
            "TR_TORRENT_HASH": "ab", "TR_TORRENT_NAME": "n", "TR_TORRENT_DIR": "/d",
        ]) { $1 }
        let runs: [(String, [String], Int32)] = [
            ("aria2/notifyd-aria2-complete", ["0123456789abcdef", "1", "/tmp/file.bin"], 0),
            ("aria2/notifyd-aria2-error", ["0123456789abcdef", "1", ""], 0),
            ("transmission/notifyd-transmission-done", [], 0),
            ("yt-dlp/notifyd-yt-dlp", ["/tmp/v.webm", "id"], 0),
            ("download/notifyd-download", ["true"], 0),
            ("download/notifyd-download", ["sh", "-c", "exit 22"], 22),
        ]
        for (hook, arguments, status) in runs {
            let result = try runProcess(contrib.appendingPathComponent(hook).path, arguments, environment: environment)
            #expect(result.status == status, "\(hook) \(arguments): \(result.stderr)")
            #expect(result.stderr.contains("warning"), "\(hook) warns")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(hook) warns in one line: \(result.stderr)")
        }
    }

    // MARK: Shell syntax

    @Test func hooksParseInShAndBash() throws {
        for hook in Self.hooks {
            for shell in ["/bin/sh", "/bin/bash"] {
                let result = try runProcess(shell, ["-n", contrib.appendingPathComponent(hook).path])
                #expect(result.status == 0, "\(shell) -n \(hook): \(result.stderr)")
            }
            #expect(FileManager.default.isExecutableFile(atPath: contrib.appendingPathComponent(hook).path), "\(hook)")
        }
    }

    // MARK: Helpers

    /// A file name that a shell would mangle or run: a leading dash, spaces,
    /// quotes, markup, a command substitution, backquotes and a glob.
    static let hostileName = #"-x "q" 's' <b>$(touch pwned) `touch pwned` *.bin"#

    /// Fails if a hostile name was run by a shell in `directory`.
    func expectNothingRan(in directory: URL, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(
            !FileManager.default.fileExists(atPath: directory.appendingPathComponent("pwned").path),
            "a file name was run as a command", sourceLocation: sourceLocation)
    }

    /// A new directory in the test's scratch directory, by its real path
    /// (as the hooks see it: no `//`, no symbolic link).
    func workDirectory(_ name: String) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        guard let real = realpath(url.path, nil) else { throw TestFailure("realpath \(url.path) failed") }
        defer { free(real) }
        return URL(fileURLWithPath: String(cString: real), isDirectory: true)
    }

    /// The environment a real tool runs in, as a user's would be: the test
    /// bus as the session bus, the built notifyctl on PATH (after `path`),
    /// no NOTIFYCTL, NOTIFYD_HOOK_APP set to `app` (nil: unset), and no
    /// desktop entries (so Transmission's default app is `transmission`).
    func toolEnvironment(app: String?, path: [String] = []) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment.merging(fixture.daemon.environment) { $1 }
        environment["NOTIFYCTL"] = nil
        environment["NOTIFYD_HOOK_APP"] = app
        let searchPath = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        environment["PATH"] = (path + [Executables.directory.path, searchPath]).joined(separator: ":")
        let noData = directory.appendingPathComponent("no-data").path
        environment["XDG_DATA_HOME"] = noData
        environment["XDG_DATA_DIRS"] = noData
        return environment
    }

    static let hooks = [
        "aria2/notifyd-aria2-hook", "transmission/notifyd-transmission-done", "yt-dlp/notifyd-yt-dlp",
        "download/notifyd-download", "fetch/notifyd-fetch", "feed/notifyd-feed", "backup/notifyd-backup",
    ]

    var contrib: URL { Executables.repositoryRoot().appendingPathComponent("contrib") }

    /// The daemon's bus, the built notifyctl, and the app ID the hooks report
    /// (nil: the hook's own default).
    func hookEnvironment(app: String?) -> [String: String] {
        var environment = fixture.daemon.environment
        environment["NOTIFYCTL"] = Executables.notifyctl
        environment["NOTIFYD_HOOK_APP"] = app ?? ""
        return environment
    }

    func aria2Arguments(gid: String, out: URL, url: String) -> [String] {
        let hooks = contrib.appendingPathComponent("aria2")
        return [
            "--no-conf", "--quiet", "--dir", out.path, "--gid", gid,
            "--on-download-complete=\(hooks.appendingPathComponent("notifyd-aria2-complete").path)",
            "--on-download-error=\(hooks.appendingPathComponent("notifyd-aria2-error").path)",
            "--max-tries=1", "--auto-file-renaming=false", url,
        ]
    }

    /// A directory with `file.bin` to serve.
    func webRoot() throws -> URL {
        let root = directory.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try Data(repeating: 0x2a, count: 4096).write(to: root.appendingPathComponent("file.bin"))
        return root
    }

    struct Session {
        var id: String
        var app: String
        var pending: UInt32
        var info: [String: DBusValue]
    }

    func listSessions() throws -> [Session] {
        let rows: [DBusValue] = try fixture.call(Self.sessions, "ListSessions").decode(0)
        return try rows.map { row in
            guard case .structure(let fields) = row, fields.count == 4 else {
                throw TestFailure("a ListSessions row is not (ssua{sv}): \(row)")
            }
            return Session(
                id: try String(dbusValue: fields[0]), app: try String(dbusValue: fields[1]),
                pending: try UInt32(dbusValue: fields[2]), info: try [String: DBusValue](dbusValue: fields[3]))
        }
    }

    /// Waits (bounded) until notifyd lists `id`: hooks may run after their
    /// tool has exited (aria2 does not wait for them).
    func waitForSession(_ id: String, seconds: Double = 10, log: @autoclosure () -> String = "") throws -> Session {
        var found: Session?
        try? waitUntil("notifyd lists \(id)", seconds: seconds) {
            found = try listSessions().first(where: { $0.id == id })
            return found != nil
        }
        if let found { return found }
        throw TestFailure(
            "notifyd did not list session \(id) within \(seconds) s; it lists \(try listSessions().map(\.id)); log: \(fixture.daemon.log) \(log())")
    }

    /// The text of contrib/README.md under `## heading`, to the next `## `.
    func readmeSection(_ heading: String) throws -> String {
        let readme = try String(contentsOf: contrib.appendingPathComponent("README.md"), encoding: .utf8)
        guard let start = readme.range(of: "\n## \(heading)\n") else {
            throw TestFailure("contrib/README.md has no section ## \(heading)")
        }
        let end = readme.range(of: "\n## ", range: start.upperBound..<readme.endIndex)?.lowerBound ?? readme.endIndex
        return String(readme[start.upperBound..<end])
    }

    /// The event dictionary of the HandleEventsForBackgroundSession signal of `session`.
    func recordedEvent(_ session: String) throws -> [String: DBusValue] {
        guard let signals = recorder.wait(seconds: 10, until: { $0.arguments.first == .string(session) }),
            let signal = signals.last
        else { throw TestFailure("no HandleEventsForBackgroundSession for \(session) within 10 s") }
        return try eventDictionary(signal)
    }

    func eventDictionary(_ signal: SignalRecorder.Signal) throws -> [String: DBusValue] {
        #expect(signal.signature == "ssta{sv}")
        return try signal.arguments.decode(3)
    }

    /// The event of the first notifyd-download session recorded.
    func fetchEvent() throws -> [String: DBusValue] {
        let isFetch = { (signal: SignalRecorder.Signal) -> Bool in
            if case .string(let id) = signal.arguments.first { id.hasPrefix("download:") } else { false }
        }
        guard let signal = recorder.wait(seconds: 10, until: isFetch)?.last else {
            throw TestFailure("no HandleEventsForBackgroundSession for a download: session within 10 s")
        }
        return try eventDictionary(signal)
    }
}
