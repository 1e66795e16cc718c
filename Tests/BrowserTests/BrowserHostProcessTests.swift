import DBus
import Foundation
import Testing
import NotifyTesting

/// `notifyd-browser-host` driven as a browser drives it (frames on its
/// standard input, the pipe closed at the end), against a real notifyd:
/// the cases a headless browser cannot be made to produce on demand.
@Suite struct BrowserHostProcessTests {
    static let app = "org.example.Browser"

    /// Runs the host with `frames`, closes its input and waits for it.
    func runHost(_ run: BrowserRun, _ frames: [[UInt8]]) throws -> (status: Int32, stdout: Data, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: HeadlessBrowser.host)
        process.arguments = ["chrome-extension://\(HeadlessBrowser.chromiumExtensionID)/"]
        process.environment = childEnvironment(["DBUS_SESSION_BUS_ADDRESS": run.bus.address, "NOTIFYD_BROWSER_APP_ID": Self.app])
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        for frame in frames {
            try input.fileHandleForWriting.write(contentsOf: withUnsafeBytes(of: UInt32(frame.count)) { Data($0) } + frame)
        }
        try input.fileHandleForWriting.close()
        let stdout = output.fileHandleForReading.readDataToEndOfFile()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, stdout, stderr)
    }

    func download(_ id: Int, _ state: String, _ extra: String = "") -> [UInt8] {
        Array(#"{"type":"download","download":{"id":\#(id),"startTime":"2026-11-25T16:00:00.000Z","state":"\#(state)","filename":"/tmp/secret-plans.pdf","url":"https://example.org/secret-plans.pdf","bytesReceived":10,"totalBytes":100\#(extra)}}"#.utf8)
    }

    @Test func focusResetsTheBadgeAndLeavingItIsBackground() throws {
        let run = try BrowserRun(.chromium, browser: false)
        let done = try runHost(run, [download(1, "complete")])
        #expect(done.status == 0, "\(done.stderr)")
        #expect(try run.badge(of: Self.app) == 1)
        let focused = try runHost(run, [Array(#"{"type":"focus","focused":true}"#.utf8)])
        #expect(focused.status == 0)
        #expect(try run.badge(of: Self.app) == 0, "DidBecomeActive resets the badge")
        // The host's connection owned the state; it left with the host.
        let state: String = try run.call("org.notifyd.Notifyd1.Apps", "GetState", [.string(Self.app)]).decode(0)
        #expect(state == "not-running")
    }

    @Test func aCancelledDownloadGivesNoPopupAndNoPendingHandler() throws {
        let run = try BrowserRun(.chromium, browser: false)
        let result = try runHost(run, [download(2, "in_progress"), download(2, "interrupted", #","error":"USER_CANCELED""#)])
        #expect(result.status == 0, "\(result.stderr)")
        let session = try #require(try run.sessions().first { $0.app == Self.app })
        #expect(session.pending == 0)
        #expect(session.details["in_progress"] == nil || session.details["in_progress"] == .boolean(false))
        #expect(!run.server.notifications.contains { $0.summary.hasPrefix("Download") }, "no popup")
        #expect(try run.badge(of: Self.app) == 0)
    }

    @Test func aPrivateDownloadStoresNoNameAndNoPath() throws {
        let run = try BrowserRun(.chromium, browser: false)
        let result = try runHost(run, [download(3, "in_progress", #","incognito":true"#), download(3, "complete", #","incognito":true"#)])
        #expect(result.status == 0, "\(result.stderr)")
        let popup = try #require(try run.popups(count: 1, app: Self.app).last)
        #expect(popup.summary == "Download complete")
        #expect(!popup.body.contains("secret") && !popup.actions.contains("open"), "\(popup.body) \(popup.actions)")
        // Nothing of it in notifyd's files (database, journal, WAL).
        for file in try FileManager.default.contentsOfDirectory(atPath: run.daemon.stateDirectory.path) {
            let bytes = try Data(contentsOf: run.daemon.stateDirectory.appendingPathComponent(file))
            #expect(bytes.range(of: Data("secret-plans".utf8)) == nil, "\(file) holds the file's name")
        }
    }

    @Test func badFramesAreNamedOnStandardErrorAndTheHostGoesOn() throws {
        let run = try BrowserRun(.chromium, browser: false)
        let result = try runHost(run, [
            Array("not json".utf8), Array(#"{"type":"teleport"}"#.utf8), Array(#"{"type":"download","download":{"id":-1}}"#.utf8),
            download(4, "complete"),
        ])
        #expect(result.status == 0)
        #expect(result.stdout.isEmpty, "standard output carries frames only, and the host sends none")
        #expect(result.stderr.contains("a message is not JSON: unexpected character at byte 0: ignored"), "\(result.stderr)")
        #expect(result.stderr.contains("unknown message type \"teleport\": ignored"))
        #expect(result.stderr.contains("the download's \"id\" is not valid: ignored"))
        #expect(try run.badge(of: Self.app) == 1, "the good frame after the bad ones counted")
    }
}
