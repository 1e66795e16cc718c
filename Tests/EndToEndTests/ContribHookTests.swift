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
}
