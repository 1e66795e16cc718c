import DBus
import NotifyTestingCore

/// Event dictionaries (`a{sv}`): valid ones, ones with exactly one defect
/// SPEC refuses, and hostile unknown keys SPEC says to ignore.
enum EventGenerator {
    typealias Entry = (key: String, value: DBusValue)

    /// Keys that look like known ones but are not: they must be ignored.
    static let lookalikeKeys = [
        "Kind", "KIND", "kind ", " kind", "kind\u{200B}", "kínd", "badge\u{0301}", "Badge", "timeout_", "time-out",
        "notify?", "path/", "bytes_written", "bytes-Written", "tïtle", "x-kind", "kind.finished", "",
    ]

    /// A valid, quiet event (no popup, no badge, a long deadline) of a random kind.
    static func valid(_ rng: inout SplitMix64) -> (entries: [Entry], storesHandler: Bool) {
        let kind = rng.pick(Contract.kinds)
        var entries: [Entry] = [
            ("kind", .string(kind)), ("notify", .boolean(false)), ("badge", .int32(0)),
            ("timeout", .uint32(UInt32(rng.int(3600...86400)))),
        ]
        if kind == "fetch" || rng.chance(0.1) { entries.append(("result", .string(rng.pick(Contract.results)))) }
        for key in ["title", "summary", "body", "uri", "error"] where rng.chance(0.3) {
            let length = rng.chance(0.1) ? Contract.maximumEventString : rng.skewed(0...200)
            entries.append((key, .string(HostileStrings.string(bytes: length, &rng))))
        }
        if rng.chance(0.3) {
            let tail = HostileStrings.string(bytes: rng.skewed(0...100), &rng)
            entries.append(("path", .string("/" + tail)))
        }
        if kind == "progress" || rng.chance(0.1) {
            entries.append(("bytes-written", .uint64(UInt64(rng.int(0...1000)))))
            entries.append(("bytes-expected", .uint64(UInt64(rng.int(1000...2000)))))
        }
        return (entries, kind != "progress")
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
        var note: String
        func set(_ key: String, _ value: DBusValue) {
            entries.removeAll { $0.key == key }
            entries.append((key, value))
        }
        switch rng.weighted([40, 8, 8, 8, 12, 8, 8]) {
        case 0:
            let (key, signature) = rng.pick(Contract.eventKeys)
            let wrong = HostileValues.any(except: try! DBusType.parseSingle(signature), &rng)
            set(key, wrong)
            note = "key '\(key)' as '\(wrong.signature)'"
        case 1:
            var kind = rng.pick(["Finished", "finished ", "", "done", "progress\n", "FETCH", "finishe", "failed?x"])
            if rng.chance(0.3) { kind = HostileStrings.string(bytes: rng.skewed(0...100), &rng) }
            if Contract.kinds.contains(kind) { kind += "!" }
            set("kind", .string(kind))
            note = "unknown kind"
        case 2:
            var result = rng.pick(["newdata", "new_data", "", "NO-DATA", "fail", "new-data "])
            if rng.chance(0.3) { result = HostileStrings.string(bytes: rng.skewed(0...100), &rng) }
            if Contract.results.contains(result) { result += "!" }
            set("result", .string(result))
            note = "unknown result"
        case 3:
            var path = rng.pick(["", "relative/file", "./x", "../x", "~/Downloads/x", " /leading-space", "file:///tmp/x", "C:\\x"])
            if rng.chance(0.3) { path = "r" + HostileStrings.string(bytes: rng.skewed(0...100), &rng) }
            set("path", .string(path))
            note = "relative path"
        case 4:
            let key = rng.pick(["kind", "title", "summary", "body", "path", "uri", "error", "result", "sound"])
            let bytes = rng.chance(0.5) ? Contract.maximumEventString + 1 : rng.skewed((Contract.maximumEventString + 1)...1_000_000)
            var text = HostileStrings.string(bytes: bytes - 1, &rng)
            text = (key == "path" ? "/" : "x") + text
            set(key, .string(text))
            note = "'\(key)' of \(bytes) bytes"
        case 5:
            let timeout: UInt32 = rng.pick([0, 86401, 86402, 100_000, .max, UInt32(rng.int(86401...Int(UInt32.max)))])
            set("timeout", .uint32(timeout))
            note = "timeout \(timeout)"
        default:
            let (key, signature) = rng.pick(Contract.eventKeys)
            let first = entries.first { $0.key == key }?.value ?? sample(signature, key: key)
            entries.removeAll { $0.key == key }
            entries.append((key, first))
            entries.append((key, rng.chance(0.5) ? first : sample(signature, key: key)))
            note = "key '\(key)' twice"
        }
        return (entries, note)
    }

    /// A valid value for a known key.
    static func sample(_ signature: String, key: String) -> DBusValue {
        switch key {
        case "kind": return .string("failed")
        case "result": return .string("no-data")
        case "path": return .string("/tmp/x")
        case "timeout": return .uint32(3600)
        case "badge": return .int32(0)
        case "notify": return .boolean(false)
        default: return signature == "t" ? .uint64(5) : .string("s")
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
}
