import DBus
import NotifyCore

/// `org.notifyd.Notifyd1.Badges`: badge counts per app.
///
/// Every handler has one shape: decode and validate the arguments, return
/// early on a no-op, have the core decide, hand the outcome to the
/// committer (which stores it, replies, then emits `BadgeChanged` and
/// updates the dock's LauncherEntry for each real change).
final class BadgeService {
    private let committer: Committer
    private let callers: CallerCheck?

    init(committer: Committer, callers: CallerCheck?) {
        self.committer = committer
        self.callers = callers
    }

    /// Decodes the app ID of argument 0 and checks the caller may act for it.
    private func app(of call: DBusMethodCall) throws -> AppID {
        let app = try AppID(call.argument(0))
        try callers?.authorize(call, for: app)
        return app
    }

    func getBadge(_ call: DBusMethodCall) throws -> DBusMethodResult {
        let app = try app(of: call)
        return committer.read(call) { [committer] in .reply([.uint32(committer.committed.badges[app])]) }
    }

    func setBadge(_ call: DBusMethodCall) throws -> DBusMethodResult {
        let app = try app(of: call)
        let count: UInt32 = try call.argument(1)
        try committer.apply { (state) throws(NotifydError) in try state.setBadge(app, to: count) }
        return committer.respond(call, [])
    }

    func incrementBadge(_ call: DBusMethodCall) throws -> DBusMethodResult {
        let app = try app(of: call)
        let delta: Int32 = try call.argument(1)
        let count = try committer.apply { (state) throws(NotifydError) in try state.incrementBadge(app, by: delta) }
        return committer.respond(call, [.uint32(count)])
    }

    func clearBadge(_ call: DBusMethodCall) throws -> DBusMethodResult {
        let app = try app(of: call)
        // Setting 0 cannot be out of range.
        _ = try? committer.apply { (state) throws(NotifydError) in try state.setBadge(app, to: 0) }
        return committer.respond(call, [])
    }

    func clearAllBadges(_ call: DBusMethodCall) throws -> DBusMethodResult {
        try callers?.authorizeForAllApps(call)
        guard !committer.current.badges.nonZero.isEmpty else { return committer.respond(call, [.uint32(0)]) }
        let cleared = committer.apply { $0.clearAllBadges() }
        return committer.respond(call, [.uint32(UInt32(cleared))])
    }

    func listBadges(_ call: DBusMethodCall) throws -> DBusMethodResult {
        let visibility = try callers?.visibility(for: call) ?? .everyApp
        return committer.read(call) { [committer] in
            var counts: [String: UInt32] = [:]
            for (app, count) in committer.committed.badges.nonZero where visibility.shows(app) { counts[app.rawValue] = count }
            return .reply([counts.dbusValue])
        }
    }
}

extension BadgeService {
    /// The interface, declared once; `service` is nil when only the
    /// declaration is wanted (introspection files).
    static func interface(_ service: BadgeService?) -> DBusInterface {
        let handle = MethodBinder(service)
        return DBusInterface(
            NotifydNames.badgesInterface,
            documentation: """
                Badge counts per app, shown by docks through Unity LauncherEntry. Counts are 0 to \
                2147483647 and are stored before a method returns. At most 10000 apps have a badge \
                other than 0: giving one more app a badge is LimitExceeded, and nothing changes \
                (clearing a badge makes room).
                """,
            methods: [
                DBusMethod(
                    "GetBadge", inputs: [.init("app_id", .string)], outputs: [.init("count", .uint32)],
                    documentation: "The app's badge count; 0 for an unknown app.", handler: handle { $0.getBadge }),
                DBusMethod(
                    "SetBadge", inputs: [.init("app_id", .string), .init("count", .uint32)],
                    documentation: "Sets the count. Above 2147483647: OutOfRange, and nothing changes.",
                    handler: handle { $0.setBadge }),
                DBusMethod(
                    "IncrementBadge", inputs: [.init("app_id", .string), .init("delta", .int32)],
                    outputs: [.init("count", .uint32)],
                    documentation: """
                        Adds delta and returns the new count. Below 0 clamps to 0; above 2147483647 is \
                        OutOfRange, and nothing changes.
                        """,
                    handler: handle { $0.incrementBadge }),
                DBusMethod(
                    "ClearBadge", inputs: [.init("app_id", .string)],
                    documentation: "Same as SetBadge(app_id, 0).", handler: handle { $0.clearBadge }),
                DBusMethod(
                    "ClearAllBadges", outputs: [.init("cleared", .uint32)],
                    documentation: "Sets every badge to 0; returns how many apps had one.",
                    handler: handle { $0.clearAllBadges }),
                DBusMethod(
                    "ListBadges", outputs: [.init("badges", .dictionary(key: .string, value: .uint32))],
                    documentation: "Every app whose badge is not 0.", handler: handle { $0.listBadges }),
            ],
            signals: [
                DBusSignal(
                    "BadgeChanged", arguments: [.init("app_id", .string), .init("count", .uint32)],
                    documentation: "Emitted once per real change of a badge, never for a no-op.")
            ])
    }
}
