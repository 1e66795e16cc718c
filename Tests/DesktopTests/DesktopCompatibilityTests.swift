import DBus
import Foundation
import Testing
import TestSupport

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
            text += "`\(report.expectation.command.executable)`; capabilities: "
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

/// One server's run: a bus, the monitor, notifyd, the server, the scenarios.
final class ServerRun {
    let expectation: ServerExpectation
    private var failures: [DesktopScenario: [String]] = [:]
    private var current: DesktopScenario = .finished

    private var bus: TestBus!
    private var monitor: NotificationCallMonitor!
    private var daemon: DaemonProcess!
    private var server: NotificationServerSession!
    private var client: DBusConnection!
    private var downloads: URL!
    private var capabilities: Set<String> = []

    static let desktopName = "Desktop Suite"
    static let soundFile = "/usr/share/sounds/freedesktop/stereo/complete.oga"

    init(_ expectation: ServerExpectation) {
        self.expectation = expectation
    }

    var key: String { expectation.command.key }

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
        server = try NotificationServerSession(command: expectation.command, busAddress: bus.address, directory: bus.directory)
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

    // MARK: Helpers

    private func waitForNotifydToSeeServer(_ present: Bool) throws {
        try waitUntil("notifyd \(present ? "sees" : "loses") the notification server", seconds: 20) {
            let value: DBusValue = try client.call(
                destination: "org.notifyd.Notifyd1", path: "/org/notifyd/Notifyd1",
                interface: "org.freedesktop.DBus.Properties", member: "Get",
                [.string("org.notifyd.Notifyd1.Daemon"), .string("NotificationServer")]
            ).decode(0)
            let name: String
            if case .variant(.string(let inner)) = value { name = inner } else if case .string(let inner) = value {
                name = inner
            } else { name = "" }
            return name.isEmpty != present
        }
    }

    /// Runs `notifyctl event SESSION --app APP ARGS...` and checks it succeeded.
    private func event(_ session: String, app: String, _ arguments: [String]) throws {
        let result = try runProcess(
            Executables.notifyctl, ["event", session, "--app", app] + arguments, environment: daemon.environment)
        guard result.status == 0 else {
            throw TestFailure("notifyctl event \(session) exited \(result.status): \(result.stderr)")
        }
    }

    /// Answered Notify calls for `app` (by its desktop-entry hint).
    private func notifies(_ app: String) -> [NotificationCallMonitor.Notify] {
        monitor.notifyCalls.filter { $0.hints["desktop-entry"] == .string(app) }
    }

    private func posted(_ session: String) -> [NotificationCallMonitor.Posted] {
        monitor.posted.filter { $0.session == session }
    }

    /// Waits until `count` Notify calls for `app` were answered.
    @discardableResult
    private func waitForNotifies(_ app: String, count: Int, seconds: Double = 15) throws -> [NotificationCallMonitor.Notify] {
        try waitUntil("\(count) answered Notify calls for \(app)", seconds: seconds) {
            notifies(app).filter { $0.id != nil || $0.error != nil }.count >= count
        }
        return notifies(app)
    }

    private func waitForPosted(_ session: String) throws -> NotificationCallMonitor.Posted {
        try waitUntil("NotificationPosted for \(session)", seconds: 15) { !posted(session).isEmpty }
        return posted(session)[0]
    }

    private func callsDescription(_ app: String) -> String {
        "Notify calls for \(app): " + notifies(app).map(\.description).joined(separator: "; ")
    }

    private func file(_ name: String) throws -> String {
        let url = downloads.appendingPathComponent(name)
        try Data("notifyd desktop suite\n".utf8).write(to: url)
        return url.path
    }

    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }

    /// The body the server must get for `text` (escaped when it reads markup).
    private func wireBody(_ text: String) -> String {
        capabilities.contains("body-markup") ? Self.escaped(text) : text
    }

    private func checkActions(_ notify: NotificationCallMonitor.Notify, path: Bool) {
        if capabilities.contains("actions") {
            check(notify.actionIDs.contains("default"), "no default action: \(notify.actions)")
            if path {
                check(notify.actionIDs.contains("open"), "no open action: \(notify.actions)")
                check(notify.actionLabels["open"] == "Open", "the open action's label: \(notify.actions)")
            }
        } else {
            check(notify.actions.isEmpty, "actions sent to a server without `actions`: \(notify.actions)")
        }
    }

    // MARK: Scenarios

    /// 1. A finished download with a title and a real file.
    private func finished() throws {
        let app = app(.finished)
        try event("finished-1", app: app, ["--title", "report.pdf", "--path", try file("report.pdf")])
        let notify = try #require(try waitForNotifies(app, count: 1).first)
        check(notify.id != nil && notify.id != 0, "the server answered no id: \(notify)")
        check(notify.summary == "Download complete", "summary \(notify.summary.debugDescription)")
        check(notify.body == "report.pdf", "body \(notify.body.debugDescription)")
        check(notify.appName == Self.desktopName, "app name \(notify.appName.debugDescription)")
        check(notify.hints["desktop-entry"] == .string(app), "desktop-entry \(String(describing: notify.hints["desktop-entry"]))")
        check(notify.hints["category"] == .string("transfer.complete"), "category \(String(describing: notify.hints["category"]))")
        checkActions(notify, path: true)
        let posted = try waitForPosted("finished-1")
        check(posted.id == notify.id, "NotificationPosted id \(posted.id), server id \(notify.id ?? 0)")
        check(posted.details["summary"] == .string("Download complete"), "posted summary \(posted.details)")
        check(posted.details["body"] == .string("report.pdf"), "posted body \(posted.details)")
    }

    /// 2. A failed download.
    private func failed() throws {
        let app = app(.failed)
        try event("failed-1", app: app, ["--title", "big.iso", "--failed", "disk full"])
        let notify = try #require(try waitForNotifies(app, count: 1).first)
        check(notify.summary == "Download failed", "summary \(notify.summary.debugDescription)")
        check(notify.body == "big.iso\ndisk full", "body \(notify.body.debugDescription)")
        check(notify.hints["category"] == .string("transfer.error"), "category \(String(describing: notify.hints["category"]))")
        check(notify.hints["desktop-entry"] == .string(app), "desktop-entry")
        checkActions(notify, path: false)
    }

    /// 3. Progress: a transient popup with the `value` hint only where it is drawn.
    private func progress() throws {
        let app = app(.progress)
        let isValue = { (notify: NotificationCallMonitor.Notify) in notify.hints["value"] != nil }
        try event("progress-1", app: app, ["--title", "movie.mkv", "--progress", "25/100"])
        if expectation.drawsValue {
            try waitUntil("a Notify with value 25", seconds: 10) { notifies(app).contains { isValue($0) && $0.id != nil } }
            try event("progress-1", app: app, ["--title", "movie.mkv", "--progress", "50/100"])
            // The update may wait for the throttle (at most twice a second).
            try waitUntil("a Notify with value 50", seconds: 10) {
                notifies(app).contains { $0.hints["value"] == .int32(50) && $0.id != nil }
            }
            let bars = notifies(app).filter(isValue)
            let first = bars[0]
            check(first.hints["value"] == .int32(25), "first value \(String(describing: first.hints["value"]))")
            check(first.body == "25%", "body \(first.body.debugDescription)")
            check(first.hints["transient"] == .boolean(true), "not transient: \(first.hints.keys.sorted())")
            for update in bars.dropFirst() {
                check(update.replacesID == first.id, "an update does not replace the bar in place: \(update)")
            }
            if let last = bars.last { check(last.body == "50%", "updated body \(last.body.debugDescription)") }
            // The session's finished event ends the bar: closed, or replaced by the popup.
            try event("progress-1", app: app, ["--title", "movie.mkv"])
            try waitUntil("the finished popup", seconds: 10) {
                notifies(app).contains { $0.summary == "Download complete" && $0.id != nil }
            }
            let barID = first.id ?? 0
            try waitUntil("the progress popup ends", seconds: 10) {
                monitor.timeline.contains {
                    if case .closeNotification(let id) = $0, id == barID { return true }
                    if case .notificationClosed(let id, _) = $0, id == barID { return true }
                    return false
                } || notifies(app).contains { $0.replacesID == barID && !isValue($0) }
            }
        } else {
            try event("progress-1", app: app, ["--title", "movie.mkv", "--progress", "50/100"])
            // The finished event is the barrier: notifyd handles a session's events in order.
            try event("progress-1", app: app, ["--title", "movie.mkv"])
            try waitUntil("the finished popup", seconds: 10) {
                notifies(app).contains { $0.summary == "Download complete" && $0.id != nil }
            }
            let bars = notifies(app).filter(isValue)
            check(bars.isEmpty, "a progress popup went to a server that does not draw `value`: \(bars)")
        }
    }

    /// 4. Ten downloads at once from ten short-lived notifyctl processes.
    private func flood() throws {
        let app = app(.flood)
        let titles = (1...10).map { String(format: "flood-%02d.iso", $0) }
        var processes: [(process: Process, output: Pipe, title: String)] = []
        for (index, title) in titles.enumerated() {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Executables.notifyctl)
            process.arguments = ["event", "flood-\(index + 1)", "--app", app, "--title", title]
            process.environment = childEnvironment(daemon.environment)
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            processes.append((process, output, title))
        }
        for entry in processes { try entry.process.run() }
        // notifyctl prints the handler ID: notifyd's own order of the events (newest = highest).
        var handlerIDs: [String: UInt64] = [:]
        for entry in processes {
            let printed = String(decoding: entry.output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            entry.process.waitUntilExit()
            handlerIDs[entry.title] = UInt64(printed.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        check(
            processes.allSatisfy { $0.process.terminationStatus == 0 } && handlerIDs.count == 10,
            "a notifyctl failed: \(processes.map(\.process.terminationStatus)), handler IDs \(handlerIDs)")
        let newestFirst = titles.sorted { (handlerIDs[$0] ?? 0) > (handlerIDs[$1] ?? 0) }
        let isSummary = { (notify: NotificationCallMonitor.Notify) in notify.summary.hasSuffix(" downloads complete") }
        try waitUntil("the summary says 10", seconds: 20) {
            notifies(app).contains { $0.summary == "10 downloads complete" && $0.id != nil }
                && monitor.posted.contains { $0.app == app && $0.details["summary"] == .string("10 downloads complete") }
        }
        let all = notifies(app)
        let singles = all.filter { $0.summary == "Download complete" }
        let summaries = all.filter(isSummary)
        check(singles.count == 3, "\(singles.count) single popups, expected 3")
        check(all.count == singles.count + summaries.count, "other popups: \(all)")
        let sent = monitor.sentEvents.filter { $0.app == app }.compactMap { event -> String? in
            if case .string(let title)? = event.event["title"] { return title }
            return nil
        }
        check(Set(sent) == Set(titles), "events seen on the bus: \(sent)")
        for summary in summaries {
            let number = Int(summary.summary.split(separator: " ")[0]) ?? -1
            let lines = summary.body.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            var listed = lines
            var more = 0
            if let last = lines.last, last.hasPrefix("and "), last.hasSuffix(" more"),
                let count = Int(last.dropFirst(4).dropLast(5))
            {
                more = count
                listed = Array(lines.dropLast())
            }
            check(listed.count <= 5, "more than 5 titles listed: \(summary.body.debugDescription)")
            check(
                listed.count + more == number,
                "\(summary.summary.debugDescription) lists \(listed.count) and \(more) more: \(summary.body.debugDescription)")
            check(listed.allSatisfy { titles.contains($0) }, "unknown lines in \(summary.body.debugDescription)")
            if number == 10 {
                let newest = Array(newestFirst.prefix(listed.count))
                check(listed == newest, "listed \(listed), the newest first (by handler ID) are \(newest)")
            }
        }
        let final = summaries.last { $0.summary == "10 downloads complete" }
        if expectation.keepsQueuedReplacements {
            check(summaries.count <= 4, "\(summaries.count) summary updates: not coalesced")
            if let first = summaries.first {
                check(first.replacesID == 0, "the first summary replaces \(first.replacesID)")
                for update in summaries.dropFirst() {
                    check(update.replacesID == first.id, "a summary update is not in place: \(update)")
                }
            }
        } else {
            check(summaries.count == 1, "the summary was posted \(summaries.count) times: \(summaries)")
            check(final?.replacesID == 0, "the summary replaced a queued bubble: \(String(describing: final))")
        }
        check(final != nil, "no final summary")
    }

    /// 5. The server restarts while a popup is held.
    private func restart() throws {
        let app = app(.restart)
        try server.stop()
        try waitForNotifydToSeeServer(false)
        try event("restart-1", app: app, ["--title", "held.pdf", "--path", try file("held.pdf")])
        try server.start()
        let notify = try #require(try waitForNotifies(app, count: 1, seconds: 20).first)
        check(notify.summary == "Download complete", "summary \(notify.summary.debugDescription)")
        check(notify.body == "held.pdf", "body \(notify.body.debugDescription)")
        checkActions(notify, path: true)
    }

    static let hostileTitles = [
        "<untitled>.pdf", #"R&D <b>notes</b> "v2" <draft>.pdf"#, #"<a href="https://example.com/">invoice.pdf</a>"#,
    ]

    /// 6. Titles that look like markup.
    private func hostileTitles() throws {
        let app = app(.hostileTitles)
        for (index, title) in Self.hostileTitles.enumerated() {
            try event("hostile-\(index)", app: app, ["--title", title])
        }
        let received = try waitForNotifies(app, count: Self.hostileTitles.count)
        for (index, title) in Self.hostileTitles.enumerated() {
            let posted = try waitForPosted("hostile-\(index)")
            check(posted.details["body"] == .string(title), "posted body \(String(describing: posted.details["body"]))")
            guard let notify = received.first(where: { $0.id == posted.id }) else {
                check(false, "no Notify answered with id \(posted.id)")
                continue
            }
            check(notify.summary == "Download complete", "summary \(notify.summary.debugDescription)")
            check(
                notify.body == wireBody(title),
                "body \(notify.body.debugDescription), expected \(wireBody(title).debugDescription)")
        }
        if expectation.readsDisplayedText {
            // The history keeps the body as received; dunst shows it as Pango markup.
            let shown = try dunstBodies().map(Self.displayedText)
            for title in Self.hostileTitles {
                check(shown.contains(title), "dunst shows \(shown), not \(title.debugDescription)")
            }
        }
    }

    /// The text a person sees for a body read as markup (dunst's `markup = full`):
    /// tags dropped, entities decoded. Good enough for the titles of this suite.
    static func displayedText(_ markup: String) -> String {
        var text = ""
        var inTag = false
        for character in markup {
            if character == "<" { inTag = true } else if character == ">", inTag { inTag = false } else if !inTag {
                text.append(character)
            }
        }
        for (entity, character) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&apos;", "'"), ("&amp;", "&")] {
            text = text.replacingOccurrences(of: entity, with: character)
        }
        return text
    }

    /// What dunst shows (its history after closing everything), bodies only.
    private func dunstBodies() throws -> [String] {
        let environment = ["DBUS_SESSION_BUS_ADDRESS": bus.address, "DISPLAY": server.screen.display]
        _ = try runProcess("/usr/bin/dunstctl", ["close-all"], environment: environment)
        var bodies: [String] = []
        try waitUntil("dunst's history holds the hostile titles", seconds: 10) {
            let history = try runProcess("/usr/bin/dunstctl", ["history"], environment: environment)
            guard let json = try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [String: Any],
                let data = json["data"] as? [[[String: Any]]]
            else { return false }
            bodies = (data.first ?? []).compactMap { ($0["body"] as? [String: Any])?["data"] as? String }
            return bodies.count >= Self.hostileTitles.count
        }
        return bodies
    }

    /// 7. Sound: the hints sent and who played.
    private func sound() throws {
        let app = app(.sound)
        try event("sound-name", app: app, ["--title", "named.ogg"])
        try event("sound-file", app: app, ["--title", "filed.ogg", "--sound", Self.soundFile])
        let received = try waitForNotifies(app, count: 2)
        guard let named = received.first(where: { $0.body == "named.ogg" }),
            let filed = received.first(where: { $0.body == "filed.ogg" })
        else { throw TestFailure("the two popups: \(received)") }
        let namedBackend = try waitForPosted("sound-name").details["sound-backend"]
        let fileBackend = try waitForPosted("sound-file").details["sound-backend"]
        let byNotifyd: Set<DBusValue> = [.string("canberra"), .string("failed")]
        func noSoundHints(_ notify: NotificationCallMonitor.Notify, _ what: String) {
            check(notify.hints["sound-name"] == nil, "\(what): sound-name sent: \(notify.hints)")
            check(notify.hints["sound-file"] == nil, "\(what): sound-file sent: \(notify.hints)")
        }
        switch expectation.sound {
        case .notListed:
            for (notify, backend, what) in [(named, namedBackend, "name"), (filed, fileBackend, "file")] {
                noSoundHints(notify, what)
                check(notify.hints["suppress-sound"] == nil, "\(what): suppress-sound sent: \(notify.hints)")
                check(byNotifyd.contains(backend ?? .string("")), "\(what): sound-backend \(String(describing: backend))")
            }
        case .listedButSilent:
            for (notify, backend, what) in [(named, namedBackend, "name"), (filed, fileBackend, "file")] {
                noSoundHints(notify, what)
                check(notify.hints["suppress-sound"] == .boolean(true), "\(what): no suppress-sound: \(notify.hints)")
                check(byNotifyd.contains(backend ?? .string("")), "\(what): sound-backend \(String(describing: backend))")
            }
        case .filesOnly:
            noSoundHints(named, "name")
            check(named.hints["suppress-sound"] == .boolean(true), "name: no suppress-sound: \(named.hints)")
            check(byNotifyd.contains(namedBackend ?? .string("")), "name: sound-backend \(String(describing: namedBackend))")
            check(filed.hints["sound-file"] == .string(Self.soundFile), "file: sound-file \(filed.hints)")
            check(filed.hints["suppress-sound"] == nil, "file: suppress-sound sent: \(filed.hints)")
            check(fileBackend == .string("server"), "file: sound-backend \(String(describing: fileBackend))")
        }
    }
}
