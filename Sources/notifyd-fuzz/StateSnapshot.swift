import DBus
import Glibc

/// notifyd's observable state, as sorted text lines: every badge, every
/// app with its state and badge, every session with its pending handlers
/// and details, every fetch schedule (what calls set: not the plan, which
/// moves with the clock), every running task, every transfer not ended
/// (what calls set; the ended ones are the last 100, which the run's own
/// cancelled transfers push out), and the number of pending handlers. The
/// accepted apps' rows are left out (the run stores there on purpose and
/// accounts for it).
struct StateSnapshot: Equatable {
    var lines: [String]

    static func take(_ connection: DBusConnection) throws -> StateSnapshot {
        func excluded(_ app: String) -> Bool { app.hasPrefix(Legit.acceptedPrefix) }
        var lines: [String] = []
        func call(_ interface: String, _ member: String, _ arguments: [DBusValue] = []) throws -> DBusValue? {
            try connection.call(destination: Contract.busName, path: Contract.path, interface: interface, member: member, arguments).first
        }
        if case .dictionary(_, _, let entries)? = try call(Contract.badges, "ListBadges") {
            for entry in entries {
                guard case .string(let app) = entry.key, !excluded(app) else { continue }
                lines.append("badge \(app) \(Describe.value(entry.value))")
            }
        }
        if case .array(_, let rows)? = try call(Contract.apps, "ListApps") {
            for case .structure(let fields) in rows {
                guard case .string(let app)? = fields.first, !excluded(app) else { continue }
                lines.append("app " + fields.map(Describe.value).joined(separator: " "))
            }
        }
        if case .array(_, let rows)? = try call(Contract.sessions, "ListSessions") {
            for case .structure(let fields) in rows where fields.count == 4 {
                guard case .string(let app) = fields[1], !excluded(app) else { continue }
                lines.append("session " + fields.map(canonical).joined(separator: " "))
            }
        }
        if case .array(_, let rows)? = try call(Contract.fetch, "ListFetchSchedules") {
            for case .structure(let fields) in rows where fields.count == 2 {
                guard case .dictionary(_, _, let entries) = fields[1] else { continue }
                let set = entries.filter { entry in Self.scheduleKeys.contains { entry.key == .string($0) } }
                lines.append("fetch-schedule \(canonical(fields[0])) \(canonical(.dictionary(key: .string, value: .variant, set)))")
            }
        }
        if case .array(_, let rows)? = try call(Contract.tasks, "ListBackgroundTasks") {
            for case .structure(let fields) in rows { lines.append("task " + fields.prefix(3).map(canonical).joined(separator: " ")) }
        }
        for row in try Preparation.transfers(connection) where !row.hasEnded && !excluded(row.app) {
            let set = row.details.filter { Self.transferKeys.contains($0.key) }
            lines.append("transfer \(row.id) \(canonical(.string(row.app))) \(canonical(.string(row.session))) \(canonical(.vardict(set)))"
                + (row.state == "suspended" ? " suspended" : ""))
        }
        let pending = try call(Contract.properties, "Get", [.string(Contract.daemon), .string("PendingHandlers")])
        lines.append("pending-handlers \(pending.map(Describe.value) ?? "?")")
        return StateSnapshot(lines: lines.sorted())
    }

    /// What calls set in a transfer (its state moves with the network and
    /// the clock; only whether it is suspended is a call's).
    static let transferKeys: Set<String> = ["direction", "url", "path", "title", "created", "not-before"]

    /// What calls set in a fetch schedule (GetFetchSchedule's keys).
    static let scheduleKeys = ["interval", "requested-interval", "enabled", "last-run", "last-result", "runs", "running"]

    /// A value in full (no abridging), with dictionaries sorted by key.
    static func canonical(_ value: DBusValue) -> String {
        switch value {
        case .string(let text): return "\"" + text.unicodeScalars.map { $0.escaped(asASCII: true) }.joined() + "\""
        case .variant(let inner): return "<" + canonical(inner) + ">"
        case .dictionary(_, _, let entries):
            return "{" + entries.map { canonical($0.key) + ": " + canonical($0.value) }.sorted().joined(separator: ", ") + "}"
        case .array(_, let items): return "[" + items.map(canonical).joined(separator: ", ") + "]"
        case .structure(let fields): return "(" + fields.map(canonical).joined(separator: ", ") + ")"
        default: return Describe.value(value)
        }
    }

    /// Lines only in `self` (-) and only in `other` (+).
    func difference(to other: StateSnapshot) -> [String] {
        let mine = Set(lines)
        let theirs = Set(other.lines)
        return lines.filter { !theirs.contains($0) }.map { "- " + $0 } + other.lines.filter { !mine.contains($0) }.map { "+ " + $0 }
    }
}

/// Who notifyd is on the bus and what its process holds, to tell that it
/// stayed up (same connection, same process) and did not leak.
struct DaemonWatch: Equatable {
    var uniqueName: String
    var pid: UInt32

    static func look(_ connection: DBusConnection) throws -> DaemonWatch {
        guard let owner = try connection.nameOwner(of: Contract.busName) else {
            throw FuzzFailure("\(Contract.busName) has no owner on the bus: is notifyd running?")
        }
        return DaemonWatch(uniqueName: owner, pid: try connection.unixProcessID(of: owner))
    }

    /// Whether the process exists (asked only when /proc shows it: the bus
    /// may be another machine's or another PID namespace's).
    var processAlive: Bool { kill(pid_t(pid), 0) == 0 || errno == EPERM }

    /// Open descriptors and resident memory, when /proc shows them.
    var resources: (descriptors: Int, residentKiB: Int)? {
        guard let directory = opendir("/proc/\(pid)/fd") else { return nil }
        var count = 0
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { count += 1 }
        }
        closedir(directory)
        var resident = 0
        if let file = fopen("/proc/\(pid)/status", "r") {
            var line = [CChar](repeating: 0, count: 256)
            while fgets(&line, 256, file) != nil {
                let text = line.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
                if text.hasPrefix("VmRSS:") { resident = Int(text.split(separator: " ").dropFirst().first ?? "") ?? 0 }
            }
            fclose(file)
        }
        return (count, resident)
    }
}
