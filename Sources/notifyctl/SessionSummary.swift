import DBus

/// One entry of `ListSessions() → a(ssua{sv})`: a session, its app, its
/// pending handler count and notifyd's details (`events` `u`, `last-event`
/// `x` in Unix µs, `progress` `d` when known, and whatever else this
/// notifyd adds, e.g. `in-progress`, `last-result`, `bytes-written`).
struct SessionSummary: Equatable {
    var session: String
    var app: String
    var pending: UInt32
    /// The details in notifyd's order, variants unwrapped.
    var details: [(key: String, value: DBusValue)]

    init(session: String, app: String, pending: UInt32, details: [(key: String, value: DBusValue)]) {
        self.session = session
        self.app = app
        self.pending = pending
        self.details = details
    }

    /// Decodes the reply of `ListSessions`, sorted by session ID.
    static func list(from reply: [DBusValue]) throws(DBusError) -> [SessionSummary] {
        guard case .array(_, let elements)? = reply.first else {
            throw .invalidArgs("expected a(ssua{sv}), got '\(reply.first?.signature ?? "")'")
        }
        var sessions: [SessionSummary] = []
        for element in elements {
            guard case .structure(let fields) = element, fields.count >= 4,
                case .string(let session) = fields[0], case .string(let app) = fields[1],
                case .uint32(let pending) = fields[2], case .dictionary(_, _, let entries) = fields[3]
            else {
                throw .invalidArgs("expected (ssua{sv}), got '\(element.signature)'")
            }
            let details = entries.map { entry in
                (key: DBusValueText.keyText(entry.key), value: (try? DBusValue(dbusValue: entry.value)) ?? entry.value)
            }
            sessions.append(SessionSummary(session: session, app: app, pending: pending, details: details))
        }
        return sessions.sorted { $0.session < $1.session }
    }

    static func == (lhs: SessionSummary, rhs: SessionSummary) -> Bool {
        lhs.session == rhs.session && lhs.app == rhs.app && lhs.pending == rhs.pending
            && lhs.details.map(\.key) == rhs.details.map(\.key) && lhs.details.map(\.value) == rhs.details.map(\.value)
    }

    func detail(_ key: String) -> DBusValue? {
        details.first { $0.key == key }?.value
    }

    /// The number of events reported for the session, when notifyd says.
    var events: UInt64? {
        switch detail("events") {
        case .uint32(let v)?: UInt64(v)
        case .uint64(let v)?: v
        default: nil
        }
    }

    /// When the last event came, in Unix µs.
    var lastEvent: Int64? {
        switch detail("last-event") {
        case .int64(let v)?: v
        case .uint64(let v)?: Int64(clamping: v)
        default: nil
        }
    }

    /// How far the session's transfer is, 0 to 1, when known.
    var progress: Double? {
        if case .double(let v)? = detail("progress"), v.isFinite { return v }
        return nil
    }

    /// The keys shown in columns of their own.
    static let columnKeys: Set<String> = ["events", "last-event", "progress"]

    // MARK: Output

    static let header = ["SESSION", "APP", "PENDING", "EVENTS", "PROGRESS", "LAST-EVENT", "DETAILS"]

    /// The row of the text table; `localTime` formats `last-event`.
    func row(localTime: (Int64) -> String) -> [String] {
        let percent = progress.map { "\(Int((min(max($0, 0), 1) * 100).rounded(.down)))%" }
        let other = details.filter { !Self.columnKeys.contains($0.key) }
            .map { DBusValueText.word($0.key) + "=" + DBusValueText.text($0.value) }
        return [
            DBusValueText.word(session), DBusValueText.word(app), "\(pending)", events.map(String.init) ?? "-",
            percent ?? "-", lastEvent.map(localTime) ?? "-", other.isEmpty ? "-" : other.joined(separator: " "),
        ]
    }

    /// The session as a JSON object: `session`, `app`, `pending`, then the
    /// details with keys in snake_case (`last-event` as ISO-8601 UTC in
    /// `last_event` and as Unix µs in `last_event_us`).
    var json: JSON {
        var members: [(key: String, value: JSON)] = [
            ("session", .string(session)), ("app", .string(app)), ("pending", .uint(UInt64(pending))),
        ]
        for (key, value) in details {
            let name = key.replacing("-", with: "_")
            guard !members.contains(where: { $0.key == name }) else { continue }
            if key == "last-event", let lastEvent {
                members.append(("last_event", .string(Timestamp.utc(unixMicroseconds: lastEvent))))
                members.append(("last_event_us", .int(lastEvent)))
            } else {
                members.append((name, .dbus(value)))
            }
        }
        return .object(members)
    }

    /// The text table: a header and one aligned row per session; nothing
    /// at all when there is no session.
    static func table(_ sessions: [SessionSummary], localTime: (Int64) -> String) -> [String] {
        guard !sessions.isEmpty else { return [] }
        return TextTable.lines([header] + sessions.map { $0.row(localTime: localTime) })
    }
}
