import DBus
import Foundation
import Testing
import NotifyTesting

/// One server's run: a bus, the monitor, notifyd, the server, the scenarios.
///
/// This file sets the run up, runs the scenarios and records failed
/// checks; the scenarios are in `ServerRun+*Scenario(s).swift`, what they
/// share (sending events, reading the calls) in ServerRun+EventsAndCalls.swift.
final class ServerRun {
    let expectation: ServerExpectation
    private var failures: [DesktopScenario: [String]] = [:]
    private var current: DesktopScenario = .finished

    private(set) var bus: TestBus!
    private(set) var monitor: NotificationCallMonitor!
    private(set) var daemon: DaemonProcess!
    private(set) var server: (any NotificationServerHost)!
    private(set) var client: DBusConnection!
    private(set) var downloads: URL!
    private(set) var capabilities: Set<String> = []

    static let desktopName = "Desktop Suite"
    static let soundFile = "/usr/share/sounds/freedesktop/stereo/complete.oga"

    init(_ expectation: ServerExpectation) {
        self.expectation = expectation
    }

    var key: String { expectation.launch.key }

    func app(_ scenario: DesktopScenario) -> String { "org.example.desktops.\(scenario.rawValue)" }

    // MARK: Checks

    /// Records a failed check for the current scenario (and as an issue).
    func check(
        _ condition: Bool, _ message: @autoclosure () -> String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard !condition else { return }
        let text = "[\(key)] \(current.title): \(message())"
        failures[current, default: []].append(text)
        Issue.record(Comment(rawValue: text), sourceLocation: sourceLocation)
    }

    func run() -> ServerReport {
        var displayName = key
        do {
            try setUp()
            let info = try server.serverInformation()
            displayName = "\(info.name) \(info.version) (\(info.vendor))"
            capabilities = Set(try server.capabilities())
            current = .finished
            check(info.name == expectation.name, "GetServerInformation name \(info.name), expected \(expectation.name)")
            check(
                capabilities == expectation.capabilities,
                "capabilities \(capabilities.sorted()), expected \(expectation.capabilities.sorted())")
        } catch {
            for scenario in DesktopScenario.allCases {
                current = scenario
                check(
                    false,
                    "the server did not start: \(error)\nserver log: \(String((server?.log ?? "").suffix(2000)))"
                        + "\nnotifyd log: \(String((daemon?.log ?? "").suffix(2000)))")
            }
            return ServerReport(expectation: expectation, displayName: displayName, failures: failures)
        }
        let scenarios: [(DesktopScenario, () throws -> Void)] = [
            (.finished, finished), (.failed, failed), (.progress, progress), (.flood, flood),
            (.hostileTitles, hostileTitles), (.sound, sound), (.restart, restart),
        ]
        for (scenario, body) in scenarios {
            current = scenario
            do {
                try body()
            } catch {
                check(false, "\(error)\n\(callsDescription(app(scenario)))")
            }
        }
        let calls = monitor.notifyCalls
        print(
            "DesktopTests: [\(key)] \(displayName): \(calls.count) Notify calls (\(calls.filter { $0.replacesID != 0 }.count) "
                + "in place), \(monitor.posted.count) NotificationPosted, failures: \(failures.values.map(\.count).reduce(0, +))")
        tearDown()
        return ServerReport(expectation: expectation, displayName: displayName, failures: failures)
    }

    private func setUp() throws {
        bus = try TestBus()
        let data = bus.directory.appendingPathComponent("data")
        let applications = data.appendingPathComponent("applications")
        try FileManager.default.createDirectory(at: applications, withIntermediateDirectories: true)
        for scenario in DesktopScenario.allCases {
            let entry = """
                [Desktop Entry]
                Type=Application
                Name=\(Self.desktopName)
                Exec=/bin/true
                Icon=folder-download

                """
            try entry.write(
                to: applications.appendingPathComponent("\(app(scenario)).desktop"), atomically: true, encoding: .utf8)
        }
        downloads = bus.directory.appendingPathComponent("downloads")
        try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
        monitor = try NotificationCallMonitor(address: bus.address)
        daemon = try DaemonProcess(bus: bus, extraEnvironment: ["XDG_DATA_DIRS": "\(data.path):/usr/share"])
        client = try DBusConnection.connect(to: .address(bus.address))
        server = try expectation.launch.start(bus: bus, directory: bus.directory, data: data)
        monitor.ignore(peers: try server.internalPeers())
        try waitForNotifydToSeeServer(true)
    }

    /// Releases everything, server first (processes end with their objects).
    private func tearDown() {
        server = nil
        daemon = nil
        client = nil
        monitor = nil
        bus = nil
    }

    deinit { tearDown() }
}
