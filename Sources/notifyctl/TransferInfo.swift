import DBus

/// One transfer as notifyd describes it: its ID, app and session when
/// known (`ListTransfers`, `TransferChanged`; `GetTransfer` has neither)
/// and the details (`direction`, `url`, `path`, `state`, `reason`,
/// `bytes-done`, `bytes-total`, `attempts`, `title`, `created`, and
/// `ended`, `retry-at`, `not-before` when they apply).
struct TransferInfo: Equatable {
    var id: UInt64
    var app: String?
    var session: String?
    /// The details, variants unwrapped.
    var details: [String: DBusValue]

    /// The states in which a transfer has ended for good.
    static let endStates: Set<String> = ["completed", "failed", "cancelled"]

    /// Decodes `ListTransfers() → a(tssa{sv})`, sorted by ID.
    static func list(from reply: [DBusValue]) throws(DBusError) -> [TransferInfo] {
        guard case .array(_, let rows)? = reply.first else {
            throw .invalidArgs("expected a(tssa{sv}), got '\(reply.first?.signature ?? "")'")
        }
        var transfers: [TransferInfo] = []
        for row in rows {
            guard case .structure(let fields) = row, fields.count >= 4, case .uint64(let id) = fields[0],
                case .string(let app) = fields[1], case .string(let session) = fields[2],
                let details = fields[3].vardictEntries
            else { throw .invalidArgs("expected (tssa{sv}), got '\(row.signature)'") }
            transfers.append(TransferInfo(id: id, app: app, session: session, details: details))
        }
        return transfers.sorted { $0.id < $1.id }
    }

    func text(_ key: String) -> String? {
        if case .string(let value)? = details[key] { return value }
        return nil
    }

    func number(_ key: String) -> UInt64? {
        switch details[key] {
        case .uint64(let v)?: v
        case .uint32(let v)?: UInt64(v)
        case .int64(let v)? where v >= 0: UInt64(v)
        case .int32(let v)? where v >= 0: UInt64(v)
        default: nil
        }
    }

    /// A time detail (`created`, `ended`, ...), in Unix µs.
    func time(_ key: String) -> Int64? {
        switch details[key] {
        case .int64(let v)?: v
        case .uint64(let v)?: Int64(clamping: v)
        default: nil
        }
    }

    var state: String { text("state") ?? "unknown" }
    var reason: String { text("reason") ?? "" }
    var path: String { text("path") ?? "" }
    var bytesDone: UInt64 { number("bytes-done") ?? 0 }
    /// 0 when unknown.
    var bytesTotal: UInt64 { number("bytes-total") ?? 0 }
    var hasEnded: Bool { Self.endStates.contains(state) }

    /// How far it is, 0 to 1, when the size is known.
    var fraction: Double? {
        if state == "completed" { return 1 }
        guard bytesTotal > 0 else { return nil }
        return min(1, Double(bytesDone) / Double(bytesTotal))
    }

    /// `47%` (rounded down: 100% only once done), or `-` when the size is unknown.
    var percentText: String {
        fraction.map { "\(Int(($0 * 100).rounded(.down)))%" } ?? "-"
    }

    /// `23.5 MB / 50.0 MB`, or `23.5 MB` when the size is unknown.
    var bytesText: String {
        let done = ByteCount.text(bytesDone)
        return bytesTotal > 0 ? "\(done) / \(ByteCount.text(bytesTotal))" : done
    }

    // MARK: Output

    /// The details in the order `transfer show` prints them; others after, sorted.
    static let keyOrder = [
        "direction", "title", "url", "path", "state", "reason", "bytes-done", "bytes-total", "attempts", "created",
        "not-before", "retry-at", "ended",
    ]
    static let timeKeys: Set<String> = ["created", "not-before", "retry-at", "ended"]

    private var orderedKeys: [String] {
        Self.keyOrder.filter { details[$0] != nil } + details.keys.filter { !Self.keyOrder.contains($0) }.sorted()
    }

    /// `transfer show`: `key: value` lines, a progress line, times in
    /// local time (`localTime`).
    func lines(localTime: (Int64) -> String) -> [String] {
        var lines = ["id: \(id)"]
        if let app { lines.append("app: \(app)") }
        if let session { lines.append("session: \(session)") }
        for key in orderedKeys {
            guard let value = details[key] else { continue }
            if key == "bytes-done" {
                lines.append("progress: " + (fraction == nil ? bytesText : "\(percentText) (\(bytesText))"))
            }
            if Self.timeKeys.contains(key), let time = time(key) {
                lines.append("\(key): \(localTime(time))")
            } else if case .string(let text) = value {
                if !text.isEmpty { lines.append("\(key): \(text)") }
            } else {
                lines.append("\(key): \(DBusValueText.text(value))")
            }
        }
        return lines.map(Output.printable)
    }

    /// The transfer as a JSON object: `id`, `app` and `session` when known,
    /// then the details with keys in snake_case, times as ISO-8601 UTC
    /// and as Unix µs (`created`, `created_us`).
    var json: JSON {
        var members: [(key: String, value: JSON)] = [("id", .uint(id))]
        if let app { members.append(("app", .string(app))) }
        if let session { members.append(("session", .string(session))) }
        for key in orderedKeys {
            guard let value = details[key] else { continue }
            let name = key.replacing("-", with: "_")
            if Self.timeKeys.contains(key), let time = time(key) {
                members.append((name, .string(Timestamp.utc(unixMicroseconds: time))))
                members.append((name + "_us", .int(time)))
            } else {
                members.append((name, .dbus(value)))
            }
        }
        return .object(members)
    }

    // MARK: The table of `transfers`

    static let header = ["ID", "APP", "STATE", "PERCENT", "BYTES", "REASON"]

    /// One row: single tokens but for the reason, which is last.
    var row: [String] {
        let bytes = ByteCount.compact(bytesDone) + "/" + (bytesTotal > 0 ? ByteCount.compact(bytesTotal) : "?")
        return [
            String(id), DBusValueText.word(app ?? "-"), DBusValueText.word(state), percentText, bytes,
            reason.isEmpty ? "-" : Output.printable(reason),
        ]
    }

    /// The table: a header and a row per transfer; nothing when there is none.
    static func table(_ transfers: [TransferInfo]) -> [String] {
        transfers.isEmpty ? [] : TextTable.lines([header] + transfers.map(\.row))
    }
}
