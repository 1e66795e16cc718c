import DBus
import NotifyCore

/// `Download` and `Upload`'s arguments, decoded and checked without
/// touching the disk (the loop never waits for it): the URL's scheme, an
/// absolute path with no `.` or `..` part, the options' types and values,
/// the headers' form. What only the disk can say (a symbolic link in the
/// way, a file already there) the engine checks at each attempt, and the
/// transfer fails with the reason in words.
enum TransferRequest {
    /// Longest URL or path accepted.
    static let maximumBytes = 4096
    /// At most this many extra headers, each at most ``maximumBytes``.
    static let maximumHeaders = 64

    /// The URL, or `InvalidArgs`: `http` or `https`, no space or control
    /// character. The message never repeats a user name or password.
    static func url(_ text: String) throws(NotifydError) -> String {
        let shown = TransferRecord.withoutCredentials(text)
        guard text.utf8.count <= maximumBytes else {
            throw NotifydError(.invalidArgs, "the URL is \(text.utf8.count) bytes; at most \(maximumBytes)")
        }
        let lowered = text.lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else {
            let scheme = shown.split(separator: ":", maxSplits: 1).first.map(String.init) ?? shown
            throw NotifydError(
                .invalidArgs, "only http and https URLs can be transferred; '\(AppID.printable(scheme))' is not one")
        }
        guard text.utf8.count > lowered.prefix(while: { $0 != ":" }).utf8.count + 3,
            !text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7f })
        else {
            throw NotifydError(.invalidArgs, "'\(AppID.printable(shown))' is not a URL (no host, or a space or control character)")
        }
        return text
    }

    /// The path, or `InvalidArgs`: absolute, no `.` or `..` part, no
    /// control character. A download's path may end in `/`: the directory
    /// in which notifyd names the file.
    static func path(_ text: String, download: Bool) throws(NotifydError) -> String {
        guard text.hasPrefix("/") else {
            throw NotifydError(.invalidArgs, "the path must be absolute; '\(AppID.printable(text))' is not")
        }
        guard text.utf8.count <= maximumBytes,
            !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f })
        else { throw NotifydError(.invalidArgs, "the path is too long or has a control character") }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        guard !parts.contains(where: { $0 == "." || $0 == ".." }) else {
            throw NotifydError(.invalidArgs, "the path may not have a '.' or '..' part; give it as it is: '\(AppID.printable(text))'")
        }
        if text.hasSuffix("/") && !download {
            throw NotifydError(.invalidArgs, "an upload's path names a file, not a directory")
        }
        return text
    }

    /// The options, or `InvalidArgs` for a known key with the wrong type or value.
    static func options(_ value: DBusValue?, download: Bool) throws(NotifydError) -> TransferOptions {
        guard let value, let entries = value.vardictEntries else {
            throw NotifydError(.invalidArgs, "the options must be an a{sv}")
        }
        var options = TransferOptions()
        options.title = try text(entries, "title")
        options.sha256 = try text(entries, "sha256")?.lowercased()
        if let sha256 = options.sha256, sha256.utf8.count != 64 || !sha256.utf8.allSatisfy(isHexDigit) {
            throw NotifydError(.invalidArgs, "'sha256' must be 64 hexadecimal digits")
        }
        if let method = try text(entries, "method") {
            guard method == "PUT" || method == "POST" else {
                throw NotifydError(.invalidArgs, "'method' is PUT or POST, not '\(AppID.printable(method))'")
            }
            options.method = method
        }
        options.allowMetered = try flag(entries, "allow-metered") ?? false
        options.discretionary = try flag(entries, "discretionary") ?? false
        options.overwrite = try flag(entries, "overwrite") ?? false
        options.notify = try flag(entries, "notify") ?? true
        options.sound = try text(entries, "sound")
        switch entries["not-before"] {
        case .int64(let time)?: options.notBefore = time
        case nil: break
        case let other?: throw wrongType("not-before", "x (Unix µs)", other)
        }
        switch entries["badge"] {
        case .int32(let badge)?: options.badge = badge
        case nil: break
        case let other?: throw wrongType("badge", "i", other)
        }
        switch entries["timeout"] {
        case .uint32(let seconds)? where WorkerEvent.timeoutRange.contains(seconds): options.timeout = seconds
        case .uint32?: throw NotifydError(.invalidArgs, "'timeout' is 1 to 86400 seconds")
        case nil: break
        case let other?: throw wrongType("timeout", "u", other)
        }
        options.headers = try headers(entries["headers"])
        return options
    }

    /// `headers` (`a{ss}`) as `Name: value` lines: a name of token
    /// characters, a value with no line break or NUL.
    static func headers(_ value: DBusValue?) throws(NotifydError) -> [String] {
        guard let value else { return [] }
        guard case .dictionary(.string, .string, let entries) = value else { throw wrongType("headers", "a{ss}", value) }
        guard entries.count <= maximumHeaders else {
            throw NotifydError(.invalidArgs, "at most \(maximumHeaders) headers")
        }
        var lines: [String] = []
        for entry in entries {
            guard case .string(let name) = entry.key, case .string(let text) = entry.value else { continue }
            guard !name.isEmpty, name.utf8.allSatisfy(isTokenByte) else {
                throw NotifydError(.invalidArgs, "'\(AppID.printable(name))' is not a header name")
            }
            guard !text.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }),
                name.utf8.count + text.utf8.count <= maximumBytes
            else {
                // The value may be a secret: never repeated.
                throw NotifydError(.invalidArgs, "the value of header '\(name)' has a line break or NUL, or is too long")
            }
            lines.append("\(name): \(text)")
        }
        return lines
    }

    private static func text(_ entries: [String: DBusValue], _ key: String) throws(NotifydError) -> String? {
        switch entries[key] {
        case .string(let text)?:
            guard text.utf8.count <= WorkerEvent.maximumStringBytes else {
                throw NotifydError(.invalidArgs, "'\(key)' is over \(WorkerEvent.maximumStringBytes) bytes")
            }
            return text
        case nil: return nil
        case let other?: throw wrongType(key, "s", other)
        }
    }

    private static func flag(_ entries: [String: DBusValue], _ key: String) throws(NotifydError) -> Bool? {
        switch entries[key] {
        case .boolean(let flag)?: return flag
        case nil: return nil
        case let other?: throw wrongType(key, "b", other)
        }
    }

    private static func wrongType(_ key: String, _ expected: String, _ value: DBusValue) -> NotifydError {
        NotifydError(.invalidArgs, "'\(key)' must be \(expected), not '\(value.signature)'")
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte)
    }

    /// RFC 9110's token characters.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5a).contains(byte) || (0x61...0x7a).contains(byte)
            || Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
    }
}
