import DBus
import NotifyTestingCore

/// The arguments of `Download` and `Upload` that notifyd refuses with
/// `InvalidArgs` before storing anything (TransferRequest's rules): URLs
/// that are not `http` or `https` or hold a space or control character,
/// paths that are relative or have a `.` or `..` part or a control
/// character, options of the wrong type or value, malformed headers, and
/// anything over 4096 bytes. A NUL cannot cross D-Bus in a string, so no
/// case holds one.
extension CaseGenerator {
    /// One refused argument: its name, the value, why, and whether only
    /// `Upload` refuses it (an upload's path may not name a directory).
    struct TransferInput {
        var argument: String
        var value: DBusValue
        var why: String
        var uploadOnly = false
    }

    /// One refused argument of case `index`: a third of them options
    /// (``invalidTransferOption(_:)``), the rest URLs and paths.
    func invalidTransferInput(_ index: UInt64, _ rng: inout SplitMix64) -> TransferInput {
        let longest = Contract.longestTransferText
        switch rng.int(0...11) {
        case 0:
            let url = rng.pick([
                "file:///etc/passwd", "ftp://127.0.0.1:9/f", "gopher://127.0.0.1:9/", "javascript:alert(1)", "", "data:text/plain,x",
                "ws://127.0.0.1:9/", "httpx://127.0.0.1:9/", "http:/127.0.0.1:9/", "http:127.0.0.1", "//127.0.0.1:9/x", "127.0.0.1:9/x",
                " http://127.0.0.1:9/", "http://", "https://", "file:", "ftp://user:secret@127.0.0.1:9/", "\u{FEFF}http://127.0.0.1:9/",
            ])
            return TransferInput(argument: "url", value: .string(url), why: "URL \(Describe.string(url))")
        case 1:
            let bad = String(UnicodeScalar(rng.pick([0x20, 0x7f, 0x01, 0x09, 0x0a, 0x0d, 0x1b, UInt8(rng.int(1...31))])))
            let url = HostileStrings.insert(bad, into: validTransferURL(index, &rng), &rng)
            return TransferInput(argument: "url", value: .string(url), why: "URL with a space or control character")
        case 2:
            let url = "http://127.0.0.1:9/" + String(repeating: "u", count: rng.skewed(longest - 18...70_000))
            return TransferInput(argument: "url", value: .string(url), why: "URL of \(url.utf8.count) bytes")
        case 3:
            let path = rng.pick(["relative/file", "", "./file", "~/file", "file", " /x", "\\x", "nonexistent-notifyd-fuzz/f", "\u{2215}x"])
            return TransferInput(argument: "path", value: .string(path), why: "relative path \(Describe.string(path))")
        case 4:
            let path = rng.pick(["/tmp/../etc/passwd", "/tmp/./x", "/a/b/..", "/.", "/..", "/x/./", "//..//x", "/x/../", "/./"])
            return TransferInput(argument: "path", value: .string(path), why: "path \(Describe.string(path))")
        case 5:
            let control = String(UnicodeScalar(rng.chance(0.2) ? 0x7f : UInt8(rng.int(1...31))))
            let path = HostileStrings.insert(control, into: validTransferPath(index, &rng), &rng)
            return TransferInput(argument: "path", value: .string(path.hasPrefix("/") ? path : "/" + path), why: "control character in the path")
        case 6:
            let path = Legit.transferDirectory + "/" + String(repeating: "p", count: rng.skewed(longest - 25...70_000))
            return TransferInput(argument: "path", value: .string(path), why: "path of \(path.utf8.count) bytes")
        case 7:
            let path = validTransferPath(index, &rng).prefix(longest - 96) + "/"
            return TransferInput(argument: "path", value: .string(String(path)), why: "an upload to a directory", uploadOnly: true)
        default:
            let (key, value, why) = invalidTransferOption(&rng)
            var entries = validTransferOptionEntries(&rng)
            entries[key] = value
            return TransferInput(argument: "options", value: .vardict(entries), why: why)
        }
    }

    /// A known option key with a value notifyd refuses, and why.
    func invalidTransferOption(_ rng: inout SplitMix64) -> (String, DBusValue, String) {
        let wrongTypes: [String: [DBusValue]] = [
            "s": [.uint32(1), .boolean(true), .objectPath("/x"), .variant(.string("x")), .strings(["x"]), .signature("s")],
            "b": [.string("true"), .uint32(1), .int32(0), .byte(1), .variant(.boolean(true))],
            "x": [.uint64(1), .int32(1), .string("9000000000000000"), .double(9e15), .variant(.int64(1))],
            "i": [.uint32(1), .int64(1), .int16(1), .string("1")],
            "u": [.int32(60), .uint64(60), .uint16(60), .string("60"), .double(60)],
        ]
        let types = [
            "title": "s", "method": "s", "sha256": "s", "sound": "s", "allow-metered": "b", "discretionary": "b", "overwrite": "b",
            "notify": "b", "not-before": "x", "badge": "i", "timeout": "u",
        ]
        switch rng.int(0...7) {
        case 0, 1:
            let key = rng.pick(types.keys.sorted())
            let value = rng.pick(wrongTypes[types[key] ?? "s"] ?? [])
            return (key, value, "'\(key)' of type '\(value.signature)'")
        case 2:
            let digest = rng.pick([
                "", "abc", String(repeating: "g", count: 64), String(repeating: "a", count: 65), String(repeating: "a", count: 63),
                "0x" + String(repeating: "a", count: 62), String(repeating: "a", count: 63) + " ", String(repeating: "é", count: 32),
            ])
            return ("sha256", .string(digest), "sha256 \(Describe.string(digest))")
        case 3:
            let method = rng.pick(["GET", "put", "Post", "DELETE", "", "PUT ", "PATCH", "POST\n", "CONNECT"])
            return ("method", .string(method), "method \(Describe.string(method))")
        case 4:
            let timeout = rng.pick([UInt32(0), 86_401, .max, UInt32(rng.int(86_401...Int(UInt32.max)))])
            return ("timeout", .uint32(timeout), "timeout \(timeout)")
        case 5:
            let key = rng.pick(["title", "sound", "method"])
            return (key, .string(String(repeating: "t", count: rng.skewed(Contract.longestTransferText + 1...70_000))), "'\(key)' too long")
        default:
            let (headers, why) = invalidHeaders(&rng)
            return ("headers", headers, why)
        }
    }

    /// `headers` notifyd refuses: a value with a line break, a name that is
    /// not a token, one over 4096 bytes, more than 64, or not `a{ss}`.
    func invalidHeaders(_ rng: inout SplitMix64) -> (DBusValue, String) {
        func headers(_ pairs: [(String, String)]) -> DBusValue {
            .dictionary(key: .string, value: .string, pairs.map { DBusDictionaryEntry(key: .string($0.0), value: .string($0.1)) })
        }
        switch rng.int(0...4) {
        case 0:
            let value = rng.pick(["a\r\nX-Evil: 1", "a\nb", "a\rb", "\r\n", "ok\r\n\r\nGET / HTTP/1.1"])
            return (headers([("X-Ok", "v"), ("X-Fuzz", value)]), "a header value with a line break")
        case 1:
            let name = rng.pick(["", "Bad Name", "X:Y", "X\u{1}", "Ü", "(x)", "a\"b", "X-Fuzz\r\n", "a/b", "{x}", "X\u{7f}"])
            return (headers([(name, "v")]), "header name \(Describe.string(name))")
        case 2:
            return (headers([("X-Fuzz", String(repeating: "v", count: rng.skewed(Contract.longestTransferText - 5...70_000)))]), "a header too long")
        case 3:
            return (headers((0..<rng.int(Contract.mostTransferHeaders + 1...300)).map { ("X-Fuzz-\($0)", "v") }), "more than 64 headers")
        default:
            let value = rng.pick([
                DBusValue.vardict(["X-Fuzz": .string("v")]), .strings(["X-Fuzz: v"]), .string("X-Fuzz: v"),
                .dictionary(key: .string, value: .int32, [DBusDictionaryEntry(key: .string("X-Fuzz"), value: .int32(1))]),
            ])
            return (value, "headers of type '\(value.signature)'")
        }
    }
}
