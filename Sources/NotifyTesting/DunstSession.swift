import Foundation

/// A real notification server for end-to-end tests: dunst on an Xvfb
/// display of its own, serving `org.freedesktop.Notifications` on a test bus.
public final class DunstSession: @unchecked Sendable {
    private let screen: XvfbDisplay
    private let dunst: SpawnedProcess
    public var display: String { screen.display }
    private let busAddress: String

    public init(busAddress: String, directory: URL) throws {
        for tool in ["/usr/bin/dunst", "/usr/bin/dunstctl"] where !FileManager.default.fileExists(atPath: tool) {
            throw TestFailure("\(tool) is missing: install dunst (scripts/test does)")
        }
        self.busAddress = busAddress
        screen = try XvfbDisplay(directory: directory, width: 800, height: 600)
        let dunstLog = open(directory.appendingPathComponent("dunst.log").path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        defer { close(dunstLog) }
        dunst = try SpawnedProcess(
            "/usr/bin/dunst", [], environment: screen.environment(busAddress: busAddress), stdoutFD: dunstLog,
            stderrFD: dunstLog)
    }

    deinit {
        dunst.kill(SIGTERM)
    }

    /// Runs `dunstctl` on the test bus.
    public func dunstctl(_ arguments: String...) throws -> ProcessResult {
        try runProcess("/usr/bin/dunstctl", arguments, environment: ["DBUS_SESSION_BUS_ADDRESS": busAddress, "DISPLAY": display])
    }

    /// Closes every notification (only closed ones reach the history) and
    /// returns the history as (appname, summary, body) triples, newest first.
    public func closeAllAndReadHistory() throws -> [(app: String, summary: String, body: String)] {
        _ = try dunstctl("close-all")
        let history = try dunstctl("history")
        guard history.status == 0,
            let json = try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [String: Any],
            let data = json["data"] as? [[[String: Any]]]
        else { throw TestFailure("dunstctl history said: \(history.stdout) \(history.stderr)") }
        func field(_ entry: [String: Any], _ key: String) -> String {
            ((entry[key] as? [String: Any])?["data"] as? String) ?? ""
        }
        return (data.first ?? []).map { (field($0, "appname"), field($0, "summary"), field($0, "body")) }
    }
}
