import ArgumentParser
import DBus
import Glibc

/// The flags `download` and `upload` share: whose transfer it is, extra
/// request headers, and `--wait`.
struct TransferOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp("The app the transfer is for (a desktop entry ID; default: notifyctl).", valueName: "app"))
    var app: String = TransferOptions.defaultApp

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The background session to report to (default: a new one, e.g. download-1790000000000000-4242).",
            valueName: "session"))
    var session: String?

    /// Read as text and parsed in `validate()`: ArgumentParser's own
    /// message for a bad value would repeat it, and it may be a secret.
    @Option(
        name: .customLong("header"), parsing: .singleValue,
        help: ArgumentHelp("An extra request header, 'NAME: VALUE'; may be repeated.", valueName: "name: value"))
    var headerLines: [String] = []

    @Flag(name: .long, help: "Follow the transfer to its end: progress, then the file (exit 0) or why it failed (exit 1).")
    var wait = false

    /// The app of transfers that name none: notifyctl itself, as a user's
    /// own downloads are nobody else's.
    static let defaultApp = "notifyctl"

    /// The `--header` options, parsed (`validate()` has checked them).
    var headers: [HTTPHeader] {
        headerLines.compactMap { try? HTTPHeader(parsing: $0) }
    }

    func validate() throws {
        for line in headerLines { _ = try HTTPHeader(parsing: line) }
        var seen: Set<String> = []
        for header in headers where !seen.insert(header.name.lowercased()).inserted {
            throw ValidationError("--header '\(header.name)' is given twice; give each header once")
        }
    }

    /// The session to use: `--session`, else a new one, `KIND-<Unix µs>-<pid>`.
    func sessionID(kind: String) -> String {
        session ?? "\(kind)-\(Timestamp.now())-\(getpid())"
    }

    /// The options shared by both directions: `headers` (`a{ss}`) when given.
    var dictionary: [String: DBusValue] {
        guard !headers.isEmpty else { return [:] }
        var entries: [String: String] = [:]
        for header in headers { entries[header.name] = header.value }
        return ["headers": entries.dbusValue]
    }
}

/// One `--header 'NAME: VALUE'`: a name of RFC 9110 token characters, and
/// a value (spaces around it dropped) without a line break or NUL.
struct HTTPHeader: Equatable, Sendable {
    let name: String
    let value: String

    /// Parses `NAME: VALUE`; a `ValidationError` (exit 2) otherwise. The
    /// value is never repeated in the message: it may be a secret.
    init(parsing text: String) throws {
        guard let colon = text.firstIndex(of: ":") else {
            throw ValidationError("--header needs the form 'NAME: VALUE' (a colon after the name)")
        }
        let name = String(text[..<colon])
        guard !name.isEmpty, name.utf8.allSatisfy(Self.isTokenByte) else {
            throw ValidationError(
                "--header: '\(Output.printable(name))' is not a header name (letters, digits and !#$%&'*+-.^_`|~ only)")
        }
        let value = text[text.index(after: colon)...].trimmingSpaces()
        guard !value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
            throw ValidationError("--header \(name): the value may not have a line break or NUL")
        }
        self.name = name
        self.value = value
    }

    /// RFC 9110's token characters.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5a).contains(byte) || (0x61...0x7a).contains(byte)
            || "!#$%&'*+-.^_`|~".utf8.contains(byte)
    }
}

/// The checks notifyctl makes of a URL before asking notifyd: `http` or
/// `https`, a host, no space or control character.
enum TransferURL {
    /// Nothing when `text` can be transferred; else a `ValidationError`
    /// (exit 2) saying why, without any password the URL carries.
    static func validate(_ text: String) throws {
        let lowered = text.lowercased()
        let scheme = lowered.prefix { $0 != ":" }
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else {
            let named = scheme.count < lowered.count ? "'\(Output.printable(String(scheme)))' URLs" : "'\(Output.printable(text))'"
            throw ValidationError("only http and https URLs can be transferred, not \(named)")
        }
        let rest = text.dropFirst(scheme.count + 3)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let host = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? authority
        guard !host.isEmpty, !host.hasPrefix(":") else {
            throw ValidationError("the URL has no host: give it as http(s)://HOST/...")
        }
        guard !text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7f }) else {
            throw ValidationError("the URL has a space or a control character; encode it as %20 and the like")
        }
    }
}

extension Substring {
    /// The text without the spaces and tabs around it.
    fileprivate func trimmingSpaces() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
