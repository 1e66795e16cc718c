import DBus
import NotifyTestingCore

/// Generators of identifiers and strings, valid and invalid by SPEC's
/// rules. Each invalid one is invalid by construction, for one stated
/// reason, so the expected error never depends on notifyd's own checks.
enum HostileStrings {
    static let appIDChars = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")
    static let alphanumerics = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

    /// Printable text that is hostile but has no control character: quotes,
    /// format strings, SQL, paths, scripts, non-Latin scripts and emoji.
    static let nasty = [
        "'; DROP TABLE badges; --", "%s%s%n%x", "../../etc/passwd", "$(reboot)", "`id`", "<b>x</b>&amp;",
        "\"quoted\"", "\\\\backslash", "日本語のファイル", "عربى", "עברית", "😀🔥💾", "e\u{301}", "Ω≈ç√",
        " leading space", "trailing space ", "a b c", "/", "..", "*", "?", "#", "@", "{\"json\":1}",
        "\u{2028}", "\u{FFFD}", "\u{10FFFF}", "NUL? no", "x\u{00A0}y", "ǅ", "İ",
    ]

    /// A valid app ID: 1 to `maxLength` bytes of `[A-Za-z0-9._-]`, starting
    /// alphanumeric, with no `..`.
    static func validAppID(_ rng: inout SplitMix64, maxLength: Int = 60) -> String {
        let length = rng.skewed(1...maxLength)
        var out = String(rng.pick(alphanumerics))
        while out.utf8.count < length {
            let c = rng.pick(appIDChars)
            if c == "." && out.last == "." { continue }
            out.append(c)
        }
        return out
    }

    /// A valid app ID under the rejected namespace (nothing may be stored for it).
    static func rejectedAppID(_ rng: inout SplitMix64) -> String {
        Legit.rejectedPrefix + "." + validAppID(&rng, maxLength: 40)
    }

    /// An invalid app ID and why it is invalid.
    static func invalidAppID(_ rng: inout SplitMix64) -> (String, String) {
        let base = validAppID(&rng, maxLength: 40)
        switch rng.int(0...11) {
        case 0: return ("", "empty")
        case 1:
            let length = rng.chance(0.7) ? 256 : rng.skewed(256...70_000)
            let chunk = String((0..<16).map { _ in rng.pick(alphanumerics) })
            let long = String(String(repeating: chunk, count: length / 16 + 1).prefix(length))
            return (long, "\(length) bytes")
        case 2: return ("." + base, "leading dot")
        case 3: return ("-" + base, "leading dash")
        case 4: return (insert("..", into: base, &rng), "contains ..")
        case 5: return (insert(String(UnicodeScalar(UInt8(rng.int(1...31)))), into: base, &rng), "C0 control")
        case 6: return (insert(rng.pick([" ", "\t", "\u{7f}"]), into: base, &rng), "space, tab or DEL")
        case 7: return (insert(rng.pick(["/", "\\", "~", ":", "*", "@", "+", ",", "=", "'", "\""]), into: base, &rng), "punctuation")
        case 8: return (insert(rng.pick(["é", "日", "😀", "\u{85}", "\u{200B}", "\u{FF0E}", "ı"]), into: base, &rng), "non-ASCII")
        case 9: return (base + ".desktop/../x", "path-like")
        case 10: return (rng.pick(nasty.filter { !isValidAppID($0) }), "nasty text")
        default: return (insert(rng.pick(["..", ".", "-"]), into: "", &rng) + base, "bad start")
        }
    }

    /// A valid, hostile-looking session ID (1 to 255 bytes, no control
    /// character), unique to the case with `tag`.
    static func validSessionID(_ rng: inout SplitMix64, tag: String) -> String {
        var out = tag
        for _ in 0..<rng.int(0...3) {
            let piece = rng.pick(nasty)
            if out.utf8.count + piece.utf8.count <= 255 { out += piece }
        }
        if rng.chance(0.1) {
            // exactly 255 bytes: the boundary
            while out.utf8.count < 255 { out += "x" }
        }
        return out
    }

    /// An invalid session ID and why.
    static func invalidSessionID(_ rng: inout SplitMix64) -> (String, String) {
        let base = "fuzz-bad-" + validAppID(&rng, maxLength: 20)
        switch rng.int(0...6) {
        case 0: return ("", "empty")
        case 1:
            let length = rng.chance(0.7) ? 256 : rng.skewed(256...70_000)
            return (String(repeating: "s", count: length), "\(length) bytes")
        case 2:
            // 128 two-byte characters: 128 characters but 256 bytes
            return (String(repeating: "é", count: 128 + rng.int(0...20)), "over 255 bytes in fewer characters")
        case 3: return (insert(String(UnicodeScalar(UInt8(rng.int(1...31)))), into: base, &rng), "C0 control")
        case 4: return (insert("\u{7f}", into: base, &rng), "DEL")
        case 5:
            let c1 = Character(UnicodeScalar(UInt32(rng.int(0x80...0x9f)))!)
            return (insert(String(c1), into: base, &rng), "C1 control")
        default: return (rng.pick(["\n", "\r\n", "\t", "a\u{1b}[31m", "\u{85}", "\u{9b}2J"]), "controls only")
        }
    }

    /// SPEC's app ID rule, for checking the generators.
    static func isValidAppID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard (1...255).contains(bytes.count), bytes[0] != UInt8(ascii: "."), bytes[0] != UInt8(ascii: "-") else { return false }
        guard !text.contains("..") else { return false }
        return bytes.allSatisfy { appIDChars.contains(Character(UnicodeScalar($0))) }
    }

    /// SPEC's session ID rule (control: Unicode Cc, i.e. C0, DEL and C1).
    static func isValidSessionID(_ text: String) -> Bool {
        (1...255).contains(text.utf8.count)
            && !text.unicodeScalars.contains { $0.value < 0x20 || (0x7f...0x9f).contains($0.value) }
    }

    /// Whether report arguments `(s session, s app, a{sv} event)` have an
    /// invalid identifier (events are not judged: only IDs are).
    static func hasDefect(_ arguments: [DBusValue]) -> Bool {
        guard arguments.count == 3, case .string(let session) = arguments[0], case .string(let app) = arguments[1] else { return true }
        return !isValidSessionID(session) || !isValidAppID(app)
    }

    /// `piece` inserted at a random place of `text`.
    static func insert(_ piece: String, into text: String, _ rng: inout SplitMix64) -> String {
        var scalars = Array(text.unicodeScalars)
        let at = rng.int(0...scalars.count)
        scalars.insert(contentsOf: piece.unicodeScalars, at: at)
        var out = ""
        out.unicodeScalars.append(contentsOf: scalars)
        return out
    }

    /// A string of exactly `bytes` UTF-8 bytes, of one- to four-byte
    /// characters: a random piece of up to 64 bytes, repeated, then padded.
    static func string(bytes: Int, _ rng: inout SplitMix64) -> String {
        let pieces = ["a", "é", "日", "😀", " ", "/", "x"]
        var chunk = ""
        var size = 0
        while size < min(bytes, 64) {
            let piece = rng.pick(pieces)
            guard size + piece.utf8.count <= bytes else { break }
            chunk += piece
            size += piece.utf8.count
        }
        guard size > 0 else { return String(repeating: "b", count: bytes) }
        let copies = bytes / size
        return String(repeating: chunk, count: copies) + String(repeating: "b", count: bytes - copies * size)
    }
}
