import DBus
import Foundation
import Testing
import NotifyTesting

/// The hook tests' helpers: work directories, the tools' environment, the
/// local web server's root, and what notifyd received.
extension ContribHookTests {
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
