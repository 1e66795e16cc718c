import Glibc

/// The account an ``XMPPPushClient`` logs in with, and where it connects.
///
/// The resource is always ``resource`` (`notifyd`): the push server binds
/// each endpoint to the full JID that registered it, so a fixed resource
/// keeps endpoints valid across reconnections.
public struct XMPPPushSettings: Sendable, Equatable {
    /// The resource every connection binds.
    public static let resource = "notifyd"

    /// The bare JID, `user@domain`.
    public let jid: String
    /// The account's password.
    public let password: String
    /// The host to connect to instead of the domain's SRV records.
    public let host: String?
    /// The port to connect to (the default, 5222, when `nil`).
    public let port: UInt16?
    /// A PEM file of CAs trusted besides the system's.
    public let caFile: String?

    /// Checks and keeps the settings.
    ///
    /// - Throws: ``XMPPPushError`` when the JID is not `user@domain` or the
    ///   password is empty.
    public init(jid: String, password: String, host: String? = nil, port: UInt16? = nil, caFile: String? = nil)
        throws(XMPPPushError)
    {
        let parts = jid.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty, !jid.contains("/"),
            !jid.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7f })
        else {
            throw XMPPPushError("the XMPP address must be user@domain, without a resource or spaces: \(jid)")
        }
        guard !password.isEmpty, !password.utf8.contains(0) else {
            throw XMPPPushError("the XMPP password must not be empty")
        }
        if let host, host.isEmpty || host.utf8.contains(0) {
            throw XMPPPushError("the XMPP host to connect to must not be empty")
        }
        self.jid = jid
        self.password = password
        self.host = host
        self.port = port
        self.caFile = caFile
    }

    /// The domain part of the JID.
    public var domain: String { String(jid.split(separator: "@")[1]) }

    /// The full JID connections bind: `user@domain/notifyd`.
    public var fullJID: String { "\(jid)/\(Self.resource)" }

    /// Whether the server is reached on a loopback address (the host given,
    /// else the domain): only then may the connection be plain text.
    public var isLoopback: Bool { Self.isLoopback(host ?? domain) }

    /// Whether `name` is `localhost` or a literal loopback address
    /// (127.0.0.0/8, ::1).
    public static func isLoopback(_ name: String) -> Bool {
        if name.lowercased() == "localhost" { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, name, &v4) == 1 {
            return UInt32(bigEndian: v4.s_addr) >> 24 == 127
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, name, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { bytes in bytes.prefix(15).allSatisfy { $0 == 0 } && bytes[15] == 1 }
        }
        return false
    }
}

/// Why the XMPP push client could not do what it was asked, in words.
public struct XMPPPushError: Error, Equatable, CustomStringConvertible {
    /// One sentence a person can act on.
    public let description: String

    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}
