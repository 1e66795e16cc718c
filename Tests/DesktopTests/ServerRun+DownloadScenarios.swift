import DBus
import Foundation
import Testing
import NotifyTesting

/// The scenarios of one download each: finished, failed, progress, and
/// the server restarting while a popup is held.
extension ServerRun {
    /// 1. A finished download with a title and a real file.
    func finished() throws {
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
    func failed() throws {
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
    func progress() throws {
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


    /// 5. The server restarts while a popup is held.
    func restart() throws {
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
}
