import DBus
import Foundation
import Testing
import NotifyTesting

/// The real transmission-daemon runs notifyd-transmission-done, configured
/// by the settings.json of contrib/README.md (defect 10). Transmission
/// ignores peers on 127.0.0.0/8, so the torrent comes from a web seed: a
/// local web server that answers byte ranges (transmission-create 3.00 has
/// no option for web seeds, so the test adds a `url-list` to the .torrent).
extension ContribHookTests {
    @Test func transmissionDaemonRunsTheHookOfTheReadmesSettings() throws {
        // Transmission names the file as Windows would allow: <>:"\|?* become _.
        let local = #"-x _q_ 's' _b_$(touch pwned) `touch pwned` _.bin"#
        let rootHadPwned = FileManager.default.fileExists(atPath: "/pwned")
        let torrent = try makeWebSeededTorrent(name: Self.hostileName, servedAs: local)
        defer { torrent.server.stop() }
        let run = try TransmissionRun(test: self, torrent: torrent, app: nil, name: "readme")
        defer { run.stop() }

        let session = try waitForSession("transmission:\(torrent.hash)", seconds: 15, log: run.log)
        #expect(session.app == "transmission", "transmission-daemon with no desktop entry installed")
        #expect(session.pending == 1)
        let event = try recordedEvent("transmission:\(torrent.hash)")
        #expect(event["title"] == .string(Self.hostileName), "the torrent's name, exactly")
        #expect(event["path"] == .string(run.downloads.appendingPathComponent(local).path), "the file on disk")
        #expect(FileManager.default.contents(atPath: run.downloads.appendingPathComponent(local).path) == torrent.content)
        try expectNothingRan(in: run.downloads)
        try expectNothingRan(in: run.home)
        #expect(FileManager.default.fileExists(atPath: "/pwned") == rootHadPwned, "Transmission runs hooks in /")
    }

    /// Defect 9: the same torrent reported under the default app, then by a
    /// daemon with NOTIFYD_HOOK_APP set, is recorded both times.
    @Test func transmissionReportsTheSameTorrentForAnotherApp() throws {
        let torrent = try makeWebSeededTorrent(name: "holiday.iso", servedAs: "holiday.iso")
        defer { torrent.server.stop() }
        for (index, app) in [nil, "org.example.Torrents"].enumerated() {
            let run = try TransmissionRun(test: self, torrent: torrent, app: app, name: "run \(index)")
            defer { run.stop() }
            let id = app.map { "transmission@\($0):\(torrent.hash)" } ?? "transmission:\(torrent.hash)"
            let session = try waitForSession(id, seconds: 15, log: run.log)
            #expect(session.app == app ?? "transmission" && session.pending == 1)
        }
        #expect(try fixture.badge("org.example.Torrents") == 1)
        #expect(try fixture.badge("transmission") == 1)
    }

    @Test func transmissionSettingsOfTheReadmeAreValidJSON() throws {
        let text = try readmeTransmissionSettings()
        let settings = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        #expect(settings?["script-torrent-done-enabled"] as? Bool == true)
        #expect((settings?["script-torrent-done-filename"] as? String)?.hasSuffix("/notifyd-transmission-done") == true)
    }

    // MARK: Helpers

    /// A single-file torrent of 5000 bytes named `name`, with a web seed
    /// serving the file as `servedAs` (the name Transmission gives it).
    func makeWebSeededTorrent(name: String, servedAs: String) throws -> WebSeededTorrent {
        let create = try requireTool("transmission-create", package: "transmission-cli")
        let show = try requireTool("transmission-show", package: "transmission-cli")
        let content = Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let source = try workDirectory("torrent source")
        try content.write(to: source.appendingPathComponent(name))
        let root = try workDirectory("web seed")
        try content.write(to: root.appendingPathComponent(servedAs))
        let server = try LocalHTTPServer(serving: root, scratch: try workDirectory("web seed server"))

        let file = directory.appendingPathComponent("seeded.torrent")
        let created = try runTool(
            create, ["-o", file.path, source.appendingPathComponent(name).path], environment: toolEnvironment(app: nil),
            in: source)
        guard created.status == 0 else { throw TestFailure("transmission-create: \(created.stdout) \(created.stderr)") }
        // A bencoded dictionary ends with "e"; "url-list" sorts after "info".
        var data = try Data(contentsOf: file).dropLast()
        let seed = server.url("")
        data.append(Data("8:url-list\(seed.utf8.count):\(seed)e".utf8))
        try data.write(to: file)

        let shown = try runTool(show, [file.path], environment: toolEnvironment(app: nil), in: directory)
        guard let hash = shown.stdout.split(separator: "\n").lazy.map({ $0.trimmingCharacters(in: .whitespaces) })
            .first(where: { $0.hasPrefix("Hash: ") })?.dropFirst("Hash: ".count), shown.stdout.contains(seed)
        else { throw TestFailure("transmission-show: no hash or web seed: \(shown.stdout) \(shown.stderr)") }
        return WebSeededTorrent(file: file, hash: String(hash), content: content, server: server)
    }

    /// The JSON block of contrib/README.md's Transmission section, with the
    /// hook's path for /home/YOU/.local/bin/notifyd-transmission-done.
    func readmeTransmissionSettings() throws -> String {
        let section = try readmeSection("Transmission")
        guard let start = section.range(of: "```json\n"),
            let end = section.range(of: "\n```", range: start.upperBound..<section.endIndex)
        else { throw TestFailure("contrib/README.md has no ```json block under ## Transmission") }
        let block = String(section[start.upperBound..<end.lowerBound])
        let placeholder = "/home/YOU/.local/bin/notifyd-transmission-done"
        guard block.contains(placeholder) else { throw TestFailure("the README's settings name no \(placeholder)") }
        return block.replacingOccurrences(
            of: placeholder, with: contrib.appendingPathComponent("transmission/notifyd-transmission-done").path)
    }
}

struct WebSeededTorrent {
    var file: URL
    var hash: String
    var content: Data
    var server: LocalHTTPServer
}

/// transmission-daemon in a directory of its own, its settings.json the
/// README's, everything else on its command line; its environment a user's
/// (the bus, notifyctl on PATH). Adds the torrent with transmission-remote.
struct TransmissionRun {
    let home: URL
    let downloads: URL
    let logURL: URL
    let process: SpawnedProcess

    init(test: ContribHookTests, torrent: WebSeededTorrent, app: String?, name: String) throws {
        let daemon = try requireTool("transmission-daemon", package: "transmission-daemon")
        let remote = try requireTool("transmission-remote", package: "transmission-cli")
        home = try test.workDirectory("transmission \(name)")
        downloads = try test.workDirectory("transmission \(name)/Downloads")
        let config = try test.workDirectory("transmission \(name)/config")
        try test.readmeTransmissionSettings().write(
            to: config.appendingPathComponent("settings.json"), atomically: true, encoding: .utf8)
        let rpc = try freeLoopbackPort()
        var peer = try freeLoopbackPort()
        while peer == rpc { peer = try freeLoopbackPort() }
        logURL = home.appendingPathComponent("daemon.log")
        let logFD = open(logURL.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard logFD >= 0 else { throw TestFailure("cannot open \(logURL.path)") }
        defer { close(logFD) }
        // sh starts it in `home`, with the clean signal state of SpawnedProcess.
        process = try SpawnedProcess(
            "/bin/sh",
            [
                "-c", #"cd -- "$1" && shift && exec "$@""#, "sh", home.path, daemon, "--foreground",
                "--config-dir", config.path, "--port", String(rpc), "--rpc-bind-address", "127.0.0.1", "--no-auth",
                "--peerport", String(peer), "--bind-address-ipv4", "127.0.0.1", "--download-dir", downloads.path,
                "--no-incomplete-dir", "--no-dht", "--no-lpd", "--no-utp", "--no-portmap", "--log-error",
            ],
            environment: test.toolEnvironment(app: app), stdoutFD: logFD, stderrFD: logFD)
        let process = process
        let log = logURL
        try waitUntil("transmission-daemon accepts RPC on port \(rpc)", seconds: 10) {
            guard process.isRunning else {
                throw TestFailure(
                    "transmission-daemon exited: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
            }
            return loopbackAccepts(port: rpc)
        }
        let added = try runTool(
            remote, ["127.0.0.1:\(rpc)", "--add", torrent.file.path], environment: test.toolEnvironment(app: nil),
            in: home)
        guard added.status == 0, added.stdout.contains("success") else {
            throw TestFailure("transmission-remote --add: \(added.stdout) \(added.stderr)")
        }
    }

    var log: String { (try? String(contentsOf: logURL, encoding: .utf8)) ?? "" }

    func stop() { process.kill(SIGKILL) }
}
