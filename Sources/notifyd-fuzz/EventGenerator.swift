import DBus
import NotifyCore
import NotifyTestingCore

/// Event dictionaries (`a{sv}`) drawn from the one table of their keys
/// (``WorkerEventKey``: name, type, bound): valid ones, ones with exactly
/// one defect SPEC refuses, and hostile unknown keys SPEC says to ignore.
/// A key added to the table is drawn, broken and duplicated here at once.
enum EventGenerator {
    typealias Entry = (key: String, value: DBusValue)

    /// Keys that look like known ones but are not: they must be ignored.
    static let lookalikeKeys = [
        "Kind", "KIND", "kind ", " kind", "kind\u{200B}", "kínd", "badge\u{0301}", "Badge", "timeout_", "time-out",
        "notify?", "path/", "bytes_written", "bytes-Written", "tïtle", "x-kind", "kind.finished", "",
    ]

    /// A valid, quiet event (no popup, no badge, no sound, a deadline that
    /// outlasts the run) of a random kind; every other key by its type
    /// and bound, some of the time.
    static func valid(_ rng: inout SplitMix64) -> (entries: [Entry], storesHandler: Bool) {
        let kind = rng.pick(choices(of: .kind))
        var entries: [Entry] = []
        for key in WorkerEventKey.allCases {
            let value: DBusValue?
            switch key {
            case .kind: value = .string(kind)
            case .notify: value = .boolean(false)
            case .badge: value = .int32(0)
            case .sound: value = nil
            case .timeout: value = .uint32(UInt32(clamping: rng.int(3600...Int(range(of: .timeout)?.upperBound ?? 3600))))
            case .result: value = kind == EventKind.fetch.rawValue || rng.chance(0.1) ? sample(key, &rng) : nil
            case .bytesWritten where kind == EventKind.progress.rawValue: value = .uint64(UInt64(rng.int(0...1000)))
            case .bytesExpected where kind == EventKind.progress.rawValue: value = .uint64(UInt64(rng.int(1000...2000)))
            default: value = rng.chance(0.3) ? sample(key, &rng) : nil
            }
            if let value { entries.append((key.name, value)) }
        }
        return (entries, kind != EventKind.progress.rawValue)
    }

    /// Hostile keys that are not SPEC's: deep nesting, huge arrays, odd
    /// types, look-alike names. Each key is distinct.
    static func unknownKeys(_ rng: inout SplitMix64, count: Int, depthLeft: Int) -> [Entry] {
        var entries: [Entry] = []
        var used = Set<String>()
        for n in 0..<count {
            var key = rng.chance(0.3) ? rng.pick(lookalikeKeys) : "x-fuzz-\(n)-" + HostileStrings.string(bytes: rng.skewed(0...40), &rng)
            if used.contains(key) { key = "x-fuzz-dup-\(n)" }
            used.insert(key)
            let value: DBusValue
            switch rng.int(0...199) {
            case 0...39: value = HostileValues.nested(levels: rng.int(1...depthLeft), &rng)
            case 40: value = HostileValues.huge(count: rng.chance(0.3) ? 100_000 : rng.skewed(1000...100_000), &rng)
            default: value = HostileValues.any(&rng)
            }
            entries.append((key, value))
        }
        return entries
    }

    /// An event with exactly one defect SPEC refuses (InvalidArgs), and a
    /// note naming it.
    static func invalid(_ rng: inout SplitMix64) -> (entries: [Entry], note: String) {
        var entries = valid(&rng).entries
        func set(_ key: WorkerEventKey, _ value: DBusValue) {
            entries.removeAll { $0.key == key.name }
            entries.append((key.name, value))
        }
        let all = WorkerEventKey.allCases
        switch rng.weighted([40, 16, 8, 12, 8, 8]) {
        case 0:
            let key = rng.pick(all)
            let wrong = HostileValues.any(except: dbusType(key.type), &rng)
            set(key, wrong)
            return (entries, "key '\(key.name)' as '\(wrong.signature)'")
        case 1:
            let key = rng.pick(all.filter { choices(of: $0).count > 0 })
            set(key, .string(unknownChoice(of: key, &rng)))
            return (entries, "unknown \(key.name)")
        case 2:
            let key = rng.pick(all.filter { $0.bound == .absolutePath })
            var path = rng.pick(["", "relative/file", "./x", "../x", "~/Downloads/x", " /leading-space", "file:///tmp/x", "C:\\x"])
            if rng.chance(0.3) { path = "r" + HostileStrings.string(bytes: rng.skewed(0...100), &rng) }
            set(key, .string(path))
            return (entries, "relative \(key.name)")
        case 3:
            let key = rng.pick(all.filter { $0.type == .string })
            let limit = WorkerEvent.maximumStringBytes
            let bytes = rng.chance(0.5) ? limit + 1 : rng.skewed((limit + 1)...1_000_000)
            let text = (key.bound == .absolutePath ? "/" : "x") + HostileStrings.string(bytes: bytes - 1, &rng)
            set(key, .string(text))
            return (entries, "'\(key.name)' of \(bytes) bytes")
        case 4:
            let key = rng.pick(all.filter { range(of: $0) != nil })
            let number = outOfRange(key, &rng)
            set(key, key.type == .uint64 ? .uint64(number) : .uint32(UInt32(clamping: number)))
            return (entries, "\(key.name) \(number)")
        default:
            let key = rng.pick(all)
            let first = entries.first { $0.key == key.name }?.value ?? sample(key, &rng)
            entries.removeAll { $0.key == key.name }
            entries.append((key.name, first))
            entries.append((key.name, rng.chance(0.5) ? first : sample(key, &rng)))
            return (entries, "key '\(key.name)' twice")
        }
    }

    /// A valid value for `key`, by its type and bound.
    static func sample(_ key: WorkerEventKey, _ rng: inout SplitMix64) -> DBusValue {
        switch (key.type, key.bound) {
        case (.string, .oneOf(let choices)): return .string(rng.pick(choices))
        case (.string, .absolutePath): return .string("/" + HostileStrings.string(bytes: rng.skewed(0...100), &rng))
        case (.string, _):
            let length = rng.chance(0.1) ? WorkerEvent.maximumStringBytes : rng.skewed(0...200)
            return .string(HostileStrings.string(bytes: length, &rng))
        case (.uint64, .range(let range, _)): return .uint64(UInt64.random(in: range, using: &rng))
        case (.uint64, _): return .uint64(UInt64(rng.skewed(0...1_000_000)))
        case (.uint32, .range(let range, _)): return .uint32(UInt32(clamping: UInt64.random(in: range, using: &rng)))
        case (.uint32, _): return .uint32(UInt32(rng.skewed(0...100_000)))
        case (.int32, _): return .int32(Int32(rng.int(-1000...1000)))
        case (.boolean, _): return .boolean(rng.chance(0.5))
        }
    }

    /// The entries as an `a{sv}` value, in a shuffled order.
    static func dictionary(_ entries: [Entry], _ rng: inout SplitMix64) -> DBusValue {
        var shuffled = entries
        shuffled.shuffle(using: &rng)
        return .dictionary(
            key: .string, value: .variant,
            shuffled.map { DBusDictionaryEntry(key: .string($0.key), value: .variant($0.value)) })
    }

    // MARK: The table's bounds

    static func choices(of key: WorkerEventKey) -> [String] {
        if case .oneOf(let choices) = key.bound { return choices }
        return []
    }

    static func range(of key: WorkerEventKey) -> ClosedRange<UInt64>? {
        if case .range(let range, _) = key.bound { return range }
        return nil
    }

    static func dbusType(_ type: WorkerEventKey.ValueType) -> DBusType {
        switch type {
        case .string: .string
        case .uint64: .uint64
        case .int32: .int32
        case .uint32: .uint32
        case .boolean: .boolean
        }
    }

    /// A string that is not one of the key's choices: a near miss of one
    /// (case, spacing, a separator, a letter short), or hostile text.
    private static func unknownChoice(of key: WorkerEventKey, _ rng: inout SplitMix64) -> String {
        let choices = choices(of: key)
        let base = rng.pick(choices)
        var text = rng.pick([
            base.uppercased(), String(base.prefix(1).uppercased() + base.dropFirst()), base + " ", " " + base, base + "\n",
            String(base.dropLast()), String(base.map { $0 == "-" ? "_" : $0 }), base + "?x", "", "done",
        ])
        if rng.chance(0.3) { text = HostileStrings.string(bytes: rng.skewed(0...100), &rng) }
        return choices.contains(text) ? text + "!" : text
    }

    /// A number of `key`'s type outside its range.
    private static func outOfRange(_ key: WorkerEventKey, _ rng: inout SplitMix64) -> UInt64 {
        guard let range = range(of: key) else { return 0 }
        let top: UInt64 = key.type == .uint64 ? .max : UInt64(UInt32.max)
        var candidates: [UInt64] = []
        if range.lowerBound > 0 { candidates += [0, range.lowerBound - 1] }
        if range.upperBound < top {
            candidates += [range.upperBound + 1, range.upperBound + 2, top, UInt64.random(in: (range.upperBound + 1)...top, using: &rng)]
        }
        return candidates.isEmpty ? 0 : rng.pick(candidates)
    }
}
