import DBus
import Foundation
import Testing
import NotifyTesting

/// notifyd's badges and progress on a real dock: Plank under Xvfb, on the
/// test's bus, with a launcher for the test app (``PlankSession``).
///
/// Plank never asks for entries (no `Query()`): it takes
/// `com.canonical.Unity` and listens to `Update` signals, so an app whose
/// badge was set before the dock started must send its entry again when
/// the dock takes the name, as notifyd does. Each test checks what went
/// out on the bus (a bus monitor), what Plank processed (its `--verbose`
/// log) and what a person sees: the dock's pixels with the badge against
/// the same dock without it. `swift test --attachments-path DIR` keeps the
/// screenshots. The last test renders the `plank` section of docs/DESKTOPS.md.
@Suite(.serialized) struct PlankTests {
    @Test func plankTakesTheUnityName() throws {
        let run = try PlankRun()
        try run.dockTakesTheName()
        // The name is on the bus before Plank's log line about it is written.
        try waitUntil("Plank logs that it took the name", seconds: 10) {
            run.plank.log.contains("com.canonical.Unity acquired")
        }
        let dock = try run.plank.dockGeometry()
        #expect(dock.width >= 48 && dock.height >= 48, "one launcher: \(dock)")
    }

    @Test func aBadgeAndProgressReachPlank() throws {
        let run = try PlankRun()
        try run.dockTakesTheName()
        try run.capturePlainDock()
        let difference = try run.badgeAndProgressAreDrawn()
        #expect(difference >= PlankRun.badgePixels)
        try run.clearedEntryIsDrawnAsBefore()
        #expect(run.queryCalls == 0, "Plank asks for no entry: \(run.monitor.text)")
    }

    @Test func entriesAreSentAgainWhenTheDockStartsAfterNotifyd() throws {
        let run = try PlankRun()
        try run.dockTakesTheName()
        try run.capturePlainDock()
        let difference = try run.entryReachesADockStartedLater()
        #expect(difference >= PlankRun.badgePixels)
    }

    /// Every scenario on one dock, one after another, rendered as the
    /// `plank` section of docs/DESKTOPS.md; a failed step is a ✗ cell and
    /// an issue.
    @Test func plankSectionOfDesktops() throws {
        let run = try PlankRun()
        var rows: [(String, String)] = []
        func check(_ title: String, _ passed: String, _ step: () throws -> Void) {
            do {
                try step()
                rows.append((title, "✓ \(passed)"))
            } catch {
                let reason = "\(error)".replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "|", with: "/")
                rows.append((title, "✗ " + String(reason.prefix(200))))
                Issue.record(error, "\(title)")
            }
        }
        check("takes `com.canonical.Unity`", "from its own connection (checked by process ID)") { try run.dockTakesTheName() }
        check("badge 12 and progress 40 %", "drawn on the app's icon: a count badge and a bar") {
            try run.capturePlainDock()
            try run.badgeAndProgressAreDrawn()
        }
        check("badge cleared, progress ended", "the icon is drawn as before, pixel for pixel") {
            try run.clearedEntryIsDrawnAsBefore()
        }
        check(
            "dock started after the badge was set",
            "notifyd sends the entry again when the dock takes `com.canonical.Unity`; drawn"
        ) { try run.entryReachesADockStartedLater() }
        let queries = run.queryCalls
        rows.append((
            "`LauncherEntry.Query()` calls",
            queries == 0 ? "none: Plank only listens to `Update` signals" : "\(queries) (notifyd answers them)"
        ))

        let version = run.plank.log.components(separatedBy: "Plank version: ").dropFirst().first?
            .split(whereSeparator: \.isNewline).first.map(String.init) ?? "unknown"
        var text = "## Plank (dock)\n\n"
        text += "Plank \(version), with one launcher (`\(PlankRun.app).desktop`, icon `folder-download`), "
        text += "under Xvfb with no window manager or compositor. What it got from notifyd is read off the bus "
        text += "(`dbus-monitor`) and Plank's `--verbose` log; what it drew is compared pixel by pixel with the "
        text += "same dock without a badge.\n\n"
        text += "| scenario | result |\n|---|---|\n"
        for (title, result) in rows { text += "| \(title) | \(result) |\n" }
        text += "\nPlank ties an entry to the connection that sent it and forgets it when that connection "
        text += "leaves the bus, which is why notifyd keeps one connection per shown app.\n\n"
        text += "![Plank's icon with a badge of 12 and a progress bar](images/plank-badge.png)\n"
        let outcome = try DesktopsDocument.verify(section: "plank", rendered: text)
        #expect(outcome.matches, "\(outcome)")
    }
}
