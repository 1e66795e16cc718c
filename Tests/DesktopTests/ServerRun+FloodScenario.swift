import DBus
import Foundation
import Testing
import NotifyTesting

extension ServerRun {
    /// 4. Ten downloads at once from ten short-lived notifyctl processes.
    func flood() throws {
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
}
