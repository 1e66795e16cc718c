import DBus
import NotifyTestingCore

/// Values for the Transfers interface (SPEC "Background transfers"): valid
/// options that never let a transfer start, and the URLs, paths and
/// options notifyd must refuse with `InvalidArgs` (TransferRequest's rules).
extension CaseGenerator {
    /// Valid options: a start time far away (nothing starts, nothing
    /// reaches out), often with more valid keys and hostile unknown ones,
    /// which SPEC says are ignored.
    func validTransferOptions(_ rng: inout SplitMix64) -> DBusValue {
        var entries: [String: DBusValue] = ["not-before": .int64(9_000_000_000_000_000)]
        if rng.chance(0.5) { entries["title"] = .string(rng.pick(HostileStrings.nasty)) }
        if rng.chance(0.3) { entries["allow-metered"] = .boolean(rng.chance(0.5)) }
        if rng.chance(0.3) { entries["sha256"] = .string(String(repeating: "a", count: 64)) }
        if rng.chance(0.3) { entries["timeout"] = .uint32(UInt32(rng.int(1...86_400))) }
        if rng.chance(0.3) {
            entries["headers"] = .dictionary(key: .string, value: .string, [
                DBusDictionaryEntry(key: .string("X-Fuzz"), value: .string(rng.pick(HostileStrings.nasty).filter { $0 != "\r" && $0 != "\n" && $0 != "\0" })),
            ])
        }
        if rng.chance(0.3) { entries["fuzz-\(rng.int(0...99))"] = HostileValues.any(&rng) }
        return .vardict(entries)
    }

    /// An argument of Download or Upload that notifyd refuses with
    /// `InvalidArgs`: its name, the value, and why.
    func invalidTransferArgument(_ rng: inout SplitMix64) -> (String, DBusValue, String) {
        let start: DBusValue = .int64(9_000_000_000_000_000)
        switch rng.int(0...9) {
        case 0:
            let url = rng.pick(["file:///etc/passwd", "ftp://example.org/f", "gopher://example.org/", "javascript:alert(1)", "", "http:/x", "https://"])
            return ("url", .string(url), "URL \(Describe.string(url))")
        case 1:
            let url = "http://127.0.0.1:9/" + rng.pick([" space", "\u{7f}", "\n", "\t"])
            return ("url", .string(url), "URL with a space or control character")
        case 2:
            let path = rng.pick(["relative/file", "", "./file", "~/file"])
            return ("path", .string(path), "relative path \(Describe.string(path))")
        case 3:
            let path = rng.pick(["/tmp/../etc/passwd", "/tmp/./x", "/a/b/..", "/tmp/x\u{1}"])
            return ("path", .string(path), "path \(Describe.string(path))")
        case 4:
            let key = rng.pick(["title", "method", "sha256", "sound"])
            return ("options", .vardict(["not-before": start, key: .uint32(1)]), "'\(key)' of the wrong type")
        case 5:
            let key = rng.pick(["allow-metered", "discretionary", "overwrite", "notify"])
            return ("options", .vardict(["not-before": start, key: .string("true")]), "'\(key)' of the wrong type")
        case 6:
            let digest = rng.pick(["", "abc", String(repeating: "g", count: 64), String(repeating: "a", count: 65)])
            return ("options", .vardict(["not-before": start, "sha256": .string(digest)]), "sha256 \(Describe.string(digest))")
        case 7:
            let timeout = rng.pick([UInt32(0), 86_401, .max])
            return ("options", .vardict(["not-before": start, "timeout": .uint32(timeout)]), "timeout \(timeout)")
        case 8:
            let value = rng.pick(["a\r\nX-Evil: 1", "a\nb", "a\rb"])
            let headers = DBusValue.dictionary(key: .string, value: .string, [DBusDictionaryEntry(key: .string("X-Fuzz"), value: .string(value))])
            return ("options", .vardict(["not-before": start, "headers": headers]), "a header value with a line break")
        default:
            let name = rng.pick(["", "Bad Name", "X:Y", "X\u{1}"])
            let headers = rng.chance(0.5)
                ? DBusValue.dictionary(key: .string, value: .string, [DBusDictionaryEntry(key: .string(name), value: .string("v"))])
                : .vardict(["X-Fuzz": .string("v")])
            return ("options", .vardict(["not-before": start, "headers": headers]), "headers \(Describe.string(name)) or of the wrong type")
        }
    }
}
