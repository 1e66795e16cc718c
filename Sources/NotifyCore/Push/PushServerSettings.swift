/// The push server notifyd's distributor uses (`SetServer`): which kind,
/// its address, where to connect, and the password, kept apart from
/// everything shown.
public struct PushServerSettings: Sendable, Hashable {
    /// The push servers notifyd speaks to.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// An XMPP account on a server with `mod_unified_push`.
        case xmpp
        /// An ntfy server.
        case ntfy
    }

    public let kind: Kind
    /// The JID (`user@example.org`) or the ntfy base URL.
    public let address: String
    /// The host to connect to instead of the address's own.
    public let host: String?
    /// The port to connect to instead of the default.
    public let port: UInt16?
    /// A PEM file of CAs to verify the server's certificate with.
    public let caFile: String?
    /// The account's password (XMPP); never shown, never logged. Nil in a
    /// state restored while the Secret Service or the file keeps it.
    public private(set) var password: PushSecret?
    /// Where the password is kept (never in the state database).
    public private(set) var passwordPlace: PasswordPlace

    /// Where a push server's password is kept.
    public enum PasswordPlace: String, Sendable, Hashable {
        /// Only in memory: given with `SetServer`, not kept yet.
        case memory
        /// The Secret Service (`org.freedesktop.secrets`).
        case secretService
        /// A file in notifyd's configuration directory that only the user can read.
        case file
    }

    /// Whether the Secret Service keeps the password.
    public var passwordInSecretService: Bool { passwordPlace == .secretService }

    /// At most this many bytes of address, host or CA file path.
    public static let maximumFieldBytes = 1_024

    /// Checks the settings, or throws `InvalidArgs` saying what is wrong:
    /// an XMPP address must be `user@domain` with a password (or one the
    /// Secret Service keeps); an ntfy address an `http` or `https` URL
    /// without a query.
    public init(
        kind: Kind, address: String, host: String? = nil, port: UInt16? = nil, caFile: String? = nil,
        password: PushSecret? = nil, passwordPlace: PasswordPlace = .memory
    ) throws(NotifydError) {
        for (name, value) in [("address", address), ("host", host ?? "x"), ("ca-file", caFile ?? "/")] {
            guard !value.isEmpty, value.utf8.count <= Self.maximumFieldBytes,
                !value.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7f })
            else {
                throw NotifydError(
                    .invalidArgs, "the push server's \(name) must be 1 to \(Self.maximumFieldBytes) bytes without spaces or control characters")
            }
        }
        if let caFile, !caFile.hasPrefix("/") {
            throw NotifydError(.invalidArgs, "'ca-file' must be an absolute path: \(caFile)")
        }
        if port == 0 { throw NotifydError(.invalidArgs, "'port' must be 1 to 65535") }
        switch kind {
        case .xmpp:
            let parts = address.split(separator: "@", omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty, !address.contains("/") else {
                throw NotifydError(.invalidArgs, "an XMPP address is user@domain, without a resource: \(address)")
            }
            guard password != nil || passwordPlace != .memory else {
                throw NotifydError(.invalidArgs, "an XMPP account needs its password ('password')")
            }
        case .ntfy:
            guard address.hasPrefix("https://") || address.hasPrefix("http://"), !address.contains("?"),
                !address.contains("#")
            else {
                throw NotifydError(.invalidArgs, "an ntfy server is an http or https URL without a query: \(address)")
            }
        }
        self.kind = kind
        self.address = address
        self.host = host
        self.port = port
        self.caFile = caFile
        self.password = password
        self.passwordPlace = passwordPlace
    }

    /// The same settings, the password kept in `place` (and, when given,
    /// `password` in memory).
    public func keepingPassword(in place: PasswordPlace, password: PushSecret? = nil) -> PushServerSettings {
        var copy = self
        copy.password = password ?? self.password
        copy.passwordPlace = place
        return copy
    }
}

/// A password, whose description never shows it.
public struct PushSecret: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    public let rawValue: String

    /// Checks that the password is 1 to 1024 bytes without NUL, or throws `InvalidArgs`.
    public init(_ rawValue: String) throws(NotifydError) {
        guard !rawValue.isEmpty, rawValue.utf8.count <= 1_024, !rawValue.utf8.contains(0) else {
            throw NotifydError(.invalidArgs, "a push server's password is 1 to 1024 bytes without NUL")
        }
        self.rawValue = rawValue
    }

    public var description: String { "(secret)" }
    public var debugDescription: String { "(secret)" }
}

/// notifyd's own name for a registration at the push server: 32 random
/// bytes, made when the app first registers and kept (an XMPP push names
/// the registration it is for by them; an ntfy topic is made of them).
public struct PushServerKey: Sendable, Hashable, Comparable {
    public let bytes: [UInt8]

    public static let length = 32

    /// Keeps `bytes`, or throws `InvalidArgs` unless there are 32.
    public init(_ bytes: [UInt8]) throws(NotifydError) {
        guard bytes.count == Self.length else {
            throw NotifydError(.invalidArgs, "a push server key is \(Self.length) bytes, not \(bytes.count)")
        }
        self.bytes = bytes
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.bytes.lexicographicallyPrecedes(rhs.bytes) }
}
