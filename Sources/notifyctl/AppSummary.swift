import DBus

/// One entry of `ListApps() → a(ssu)`: an app, its state (`active`,
/// `inactive`, `background` or `not-running`) and its badge count.
///
/// States are shown as notifyd names them, so a state a later notifyd
/// adds is printed too.
struct AppSummary: Equatable {
    var app: String
    var state: String
    var badge: UInt32

    /// Decodes the reply of `ListApps`, sorted by app.
    static func list(from reply: [DBusValue]) throws(DBusError) -> [AppSummary] {
        guard case .array(_, let elements)? = reply.first else {
            throw .invalidArgs("expected a(ssu), got '\(reply.first?.signature ?? "")'")
        }
        var apps: [AppSummary] = []
        for element in elements {
            guard case .structure(let fields) = element, fields.count >= 3,
                case .string(let app) = fields[0], case .string(let state) = fields[1],
                case .uint32(let badge) = fields[2]
            else {
                throw .invalidArgs("expected (ssu), got '\(element.signature)'")
            }
            apps.append(AppSummary(app: app, state: state, badge: badge))
        }
        return apps.sorted { $0.app < $1.app }
    }

    // MARK: Output

    static let header = ["APP", "STATE", "BADGE"]

    /// The row of the text table.
    var row: [String] {
        [DBusValueText.word(app), DBusValueText.word(state), "\(badge)"]
    }

    /// `{"app":"firefox","state":"active","badge":0}`.
    var json: JSON {
        .object([("app", .string(app)), ("state", .string(state)), ("badge", .uint(UInt64(badge)))])
    }

    /// The text table: a header and one aligned row per app; nothing at
    /// all when notifyd knows no app.
    static func table(_ apps: [AppSummary]) -> [String] {
        guard !apps.isEmpty else { return [] }
        return TextTable.lines([header] + apps.map(\.row))
    }
}

extension JSON {
    /// One app's state: `{"app":"firefox","state":"active"}`.
    static func appState(app: String, state: String) -> JSON {
        .object([("app", .string(app)), ("state", .string(state))])
    }
}
