/// The ntfy server an ``NtfyPushClient`` follows its topics on.
///
/// The address is `https://host[:port][/path]` (a server behind a reverse
/// proxy may live under a path); `http://` only to a server on a loopback
/// address, as ``XMPPPushSettings/isLoopback(_:)`` decides: anywhere else
/// the messages, and the topics that are the endpoints' only secret, would
/// travel in clear.
public struct NtfySettings: Sendable, Equatable {
    /// The server's address, without a `/` at its end.
    public let baseURL: String
    /// The host of the address (an IPv6 literal without its brackets).
    public let host: String
    /// Whether the address is `https`.
    public let isTLS: Bool
    /// A PEM file of CAs trusted besides the system's (a server with a
    /// certificate of one's own CA).
    public let caFile: String?
    /// How long the stream may bring no byte at all before it is taken
    /// for dead and opened again: a little more than three of ntfy's
    /// keepalives (45 s apart unless the server's `keepalive-interval`
    /// says otherwise), so the only wake-ups of an idle client are the
    /// server's keepalives.
    public let stallTimeout: Duration

    /// The default ``stallTimeout``: 150 s.
    public static let defaultStallTimeout: Duration = .seconds(150)

    /// Checks and keeps the settings.
    ///
    /// - Throws: ``NtfyPushError`` saying what is wrong with the address.
    public init(baseURL: String, caFile: String? = nil, stallTimeout: Duration = defaultStallTimeout)
        throws(NtfyPushError)
    {
        let lowered = baseURL.lowercased()
        let isTLS: Bool
        let rest: Substring
        if lowered.hasPrefix("https://") {
            isTLS = true
            rest = baseURL.dropFirst("https://".count)
        } else if lowered.hasPrefix("http://") {
            isTLS = false
            rest = baseURL.dropFirst("http://".count)
        } else {
            throw NtfyPushError("the ntfy server's address must start with https:// (or http:// on this machine): \(baseURL)")
        }
        guard rest.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }), !rest.contains("?"), !rest.contains("#") else {
            throw NtfyPushError("the ntfy server's address must be scheme://host[:port][/path], without spaces, a query or a fragment: \(baseURL)")
        }
        let authority = rest.prefix { $0 != "/" }
        guard !authority.contains("@") else {
            throw NtfyPushError("the ntfy server's address must not hold a user name or password: \(baseURL)")
        }
        guard let host = Self.host(of: authority) else {
            throw NtfyPushError("the ntfy server's address has no valid host or port: \(baseURL)")
        }
        guard isTLS || XMPPPushSettings.isLoopback(host) else {
            throw NtfyPushError(
                "plain http is allowed only to an ntfy server on this machine (a loopback address); use https:// for \(host)")
        }
        if let caFile, caFile.isEmpty || caFile.utf8.contains(0) {
            throw NtfyPushError("the CA file's path must not be empty")
        }
        guard stallTimeout >= .seconds(1) else { throw NtfyPushError("the stall timeout must be at least a second") }
        var trimmed = Substring(baseURL)
        while trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        self.baseURL = String(trimmed)
        self.host = host
        self.isTLS = isTLS
        self.caFile = caFile
        self.stallTimeout = stallTimeout
    }

    /// Whether the server is on a loopback address.
    public var isLoopback: Bool { XMPPPushSettings.isLoopback(host) }

    /// The host of `host[:port]` or `[v6][:port]`, when the port (if any) is 1 to 65535.
    private static func host(of authority: Substring) -> String? {
        var host = authority
        var port: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                port = after.dropFirst()
            }
        } else if let colon = authority.firstIndex(of: ":") {
            host = authority[..<colon]
            port = authority[authority.index(after: colon)...]
        }
        if let port {
            guard let number = Int(port), (1...65535).contains(number) else { return nil }
        }
        guard !host.isEmpty else { return nil }
        return String(host)
    }

    /// Whether `name` is an ntfy topic: 1 to 64 of `[-_A-Za-z0-9]`.
    public static func isTopic(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count)
            && name.utf8.allSatisfy { Base64.isAlphanumeric($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }
    }
}
