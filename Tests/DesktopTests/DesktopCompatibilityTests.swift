import DBus
import Foundation
import Testing
import NotifyTesting

/// The desktop compatibility suite: each real notification server in turn,
/// under Xvfb on a private bus with the real notifyd, driven the way users
/// do (short-lived `notifyctl event` processes); checks what each server
/// RECEIVED (a bus monitor) against ``ServerExpectation/all``, then renders
/// the `notification-servers` section of docs/DESKTOPS.md.
@Suite(.serialized) struct DesktopCompatibilityTests {
    @Test func everyServerReceivesWhatTheSpecificationSays() throws {
        var reports: [ServerReport] = []
        for expectation in ServerExpectation.all {
            reports.append(ServerRun(expectation).run())
        }
        let outcome = try DesktopsDocument.verify(section: "notification-servers", rendered: Self.render(reports))
        #expect(outcome.matches, "\(outcome)")
    }

    // MARK: The document

    static func render(_ reports: [ServerReport]) -> String {
        var text = "## Notification servers\n\n"
        text += "Each server runs on its own, one after another; what it received from notifyd is read off the bus. "
        text += "A cell is ✓ when every check of the scenario passed, or says what the server cannot do and what "
        text += "notifyd does about it.\n\n"
        text += "| server | " + DesktopScenario.allCases.map(\.title).joined(separator: " | ") + " |\n"
        text += "|---|" + DesktopScenario.allCases.map { _ in "---|" }.joined() + "\n"
        for report in reports {
            let cells = DesktopScenario.allCases.map { report.cell($0) }
            text += "| \(report.displayName) | " + cells.joined(separator: " | ") + " |\n"
        }
        text += "\nScenarios:\n\n"
        for scenario in DesktopScenario.allCases { text += "- **\(scenario.title)**: \(scenario.legend).\n" }
        for report in reports {
            text += "\n### \(report.displayName)\n\n"
            text += "\(report.expectation.launch.description); capabilities: "
            text += report.expectation.capabilities.sorted().map { "`\($0)`" }.joined(separator: ", ") + ".\n\n"
            for note in report.expectation.notes { text += "- \(note)\n" }
            for scenario in DesktopScenario.allCases {
                guard let limitation = report.expectation.limitations[scenario] else { continue }
                text += "- \(scenario.title): the server \(limitation.server); notifyd \(limitation.notifyd).\n"
            }
        }
        return text
    }
}

/// What the suite found for one server.
struct ServerReport {
    var expectation: ServerExpectation
    /// `name version (vendor)` from GetServerInformation, or the key when it never answered.
    var displayName: String
    /// Failed checks by scenario (none: green).
    var failures: [DesktopScenario: [String]]

    func cell(_ scenario: DesktopScenario) -> String {
        if let failed = failures[scenario], !failed.isEmpty { return "✗ failing (see the test log)" }
        if let limitation = expectation.limitations[scenario] { return limitation.cell }
        return "✓"
    }
}
