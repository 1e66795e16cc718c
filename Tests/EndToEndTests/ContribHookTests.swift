import DBus
import Foundation
import Testing
import TestSupport

/// The download-tool hooks of contrib/ against the real notifyd: aria2 and
/// curl for real (against a local HTTP server), Transmission and yt-dlp
/// called the way those tools call them. aria2c, curl and python3 are
/// required: a missing one fails the test, it is never skipped.
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
        let server = try LocalHTTPServer(serving: try webRoot(), log: directory.appendingPathComponent("http.log"))
        defer { server.stop() }
        let out = directory.appendingPathComponent("aria2 out")
        let gid = "0123456789abcdef"
        let result = try runProcess(
            aria2c, aria2Arguments(gid: gid, out: out, url: server.url("file.bin")),
            environment: hookEnvironment(app: "org.example.Aria"))
        #expect(result.status == 0, "aria2c: \(result.stdout) \(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("file.bin").path))

        let session = try waitForSession("aria2:\(gid)")
        #expect(session.app == "org.example.Aria")
        #expect(session.pending == 1, "one pending completion handler")
        #expect(try fixture.badge("org.example.Aria") == 1)
        let event = try recordedEvent("aria2:\(gid)")
        #expect(event["kind"] ?? .string("finished") == .string("finished"))
        #expect(event["title"] == .string("file.bin"))
        #expect(event["path"] == .string(out.appendingPathComponent("file.bin").path))
        #expect(result.stderr.isEmpty, "the hook warned: \(result.stderr)")
    }

    @Test func aria2ReportsAFailedDownload() throws {
        let aria2c = try requireTool("aria2c", package: "aria2")
        let server = try LocalHTTPServer(serving: try webRoot(), log: directory.appendingPathComponent("http.log"))
        defer { server.stop() }
        let gid = "00000000000000f1"
        let result = try runProcess(
            aria2c, aria2Arguments(gid: gid, out: directory.appendingPathComponent("out"), url: server.url("missing.bin")),
            environment: hookEnvironment(app: "org.example.Aria"))
        #expect(result.status == 3, "aria2c exits 3 when the resource is not found: \(result.stderr)")

        let event = try recordedEvent("aria2:\(gid)")
        #expect(event["kind"] == .string("failed"))
        #expect(event["error"] == .string("aria2 download failed"))
        #expect(event["path"] == nil, "a failed download has no result to open")
        let session = try waitForSession("aria2:\(gid)")
        #expect(session.app == "org.example.Aria" && session.pending == 1)
    }

    @Test func aria2HooksAreLinksToOneScript() throws {
        let folder = contrib.appendingPathComponent("aria2")
        for name in ["notifyd-aria2-complete", "notifyd-aria2-error"] {
            let target = try FileManager.default.destinationOfSymbolicLink(
                atPath: folder.appendingPathComponent(name).path)
            #expect(target == "notifyd-aria2-hook", "\(name) -> \(target)")
        }
    }

    // MARK: curl through notifyd-fetch

    @Test func fetchPassesCurlsStatusAndReportsTheFile() throws {
        _ = try requireTool("curl", package: "curl")
        let server = try LocalHTTPServer(serving: try webRoot(), log: directory.appendingPathComponent("http.log"))
        defer { server.stop() }
        let out = directory.appendingPathComponent("fetched files")
        let fetch = contrib.appendingPathComponent("fetch/notifyd-fetch").path
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
        #expect(sessions.allSatisfy { $0.id.hasPrefix("fetch:") && $0.pending == 1 })
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
        let session = try waitForSession("transmission:\(hash)")
        #expect(session.app == "org.example.Transmission" && session.pending == 1)
        let event = try recordedEvent("transmission:\(hash)")
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
        #expect(try waitForSession("transmission:42").app == "transmission-gtk")
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
            ("fetch/notifyd-fetch", ["true"], 0),
            ("fetch/notifyd-fetch", ["sh", "-c", "exit 22"], 22),
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

    static let hooks = [
        "aria2/notifyd-aria2-hook", "transmission/notifyd-transmission-done", "yt-dlp/notifyd-yt-dlp",
        "fetch/notifyd-fetch",
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
    func waitForSession(_ id: String, seconds: Double = 10) throws -> Session {
        let deadline = Date(timeIntervalSinceNow: seconds)
        while true {
            if let session = try listSessions().first(where: { $0.id == id }) { return session }
            guard Date() < deadline else { break }
            usleep(20_000)
        }
        throw TestFailure(
            "notifyd did not list session \(id) within \(seconds) s; it lists \(try listSessions().map(\.id)); log: \(fixture.daemon.log)")
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

    /// The event of the first notifyd-fetch session recorded.
    func fetchEvent() throws -> [String: DBusValue] {
        let isFetch = { (signal: SignalRecorder.Signal) -> Bool in
            if case .string(let id) = signal.arguments.first { id.hasPrefix("fetch:") } else { false }
        }
        guard let signal = recorder.wait(seconds: 10, until: isFetch)?.last else {
            throw TestFailure("no HandleEventsForBackgroundSession for a fetch: session within 10 s")
        }
        return try eventDictionary(signal)
    }
}

/// The full path of a program on PATH, or a failure that says how to install it.
private func requireTool(_ name: String, package: String) throws -> String {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
    for directory in path.split(separator: ":") {
        let candidate = "\(directory)/\(name)"
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    throw TestFailure("\(name) is not installed; the contrib hook tests need it (apt-get install \(package))")
}

/// `python3 -m http.server` on 127.0.0.1 at a free port.
private final class LocalHTTPServer {
    let port: UInt16
    private let process: SpawnedProcess

    init(serving root: URL, log: URL) throws {
        let python = try requireTool("python3", package: "python3")
        port = try Self.freePort()
        let logFD = open(log.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard logFD >= 0 else { throw TestFailure("cannot open \(log.path)") }
        defer { close(logFD) }
        process = try SpawnedProcess(
            python, ["-m", "http.server", "--bind", "127.0.0.1", "--directory", root.path, String(port)],
            environment: ProcessInfo.processInfo.environment, stdoutFD: logFD, stderrFD: logFD)
        let deadline = Date(timeIntervalSinceNow: 10)
        while !Self.accepts(port: port) {
            let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            guard process.isRunning else { throw TestFailure("python3 -m http.server exited: \(output)") }
            guard Date() < deadline else { throw TestFailure("python3 -m http.server did not accept within 10 s: \(output)") }
            usleep(20_000)
        }
    }

    deinit { stop() }

    func url(_ name: String) -> String { "http://127.0.0.1:\(port)/\(name)" }

    func stop() { process.kill(SIGKILL) }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    private static func freePort() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket() failed") }
        defer { close(fd) }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw TestFailure("cannot find a free port") }
        return UInt16(bigEndian: address.sin_port)
    }

    private static func accepts(port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
