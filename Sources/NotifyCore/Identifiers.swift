/// A desktop entry ID without `.desktop`, e.g. `org.gnome.Nautilus`.
///
/// 1 to 255 bytes of `[A-Za-z0-9._-]`, not starting with `.` or `-`, and
/// without `..`.
public struct AppID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The ID as given.
    public let rawValue: String

    /// Validates an app ID, or throws `InvalidAppId` saying what is wrong.
    public init(_ rawValue: String) throws(NotifydError) {
        func fail(_ why: String) -> NotifydError {
            NotifydError(.invalidAppId, "invalid app ID '\(AppID.printable(rawValue))': \(why)")
        }
        // The length first (O(1) for native strings): an ID of megabytes is
        // refused without reading it.
        let length = rawValue.utf8.count
        guard length <= 255 else { throw fail("it is \(length) bytes long, the limit is 255") }
        // One pass over the bytes: this runs for every call and event.
        var count = 0
        var previous: UInt8 = 0
        var doubleDot = false
        for byte in rawValue.utf8 {
            guard Self.isAllowed(byte) else {
                throw fail(
                    "byte 0x\(String(byte, radix: 16)) is not one of A-Z a-z 0-9 . _ -; "
                        + "use the desktop file's name without .desktop")
            }
            if count == 0 && (byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")) {
                throw fail("it may not start with '.' or '-'")
            }
            if byte == UInt8(ascii: ".") && previous == UInt8(ascii: ".") { doubleDot = true }
            previous = byte
            count += 1
        }
        guard count > 0 else { throw fail("it is empty") }
        guard count <= 255 else { throw fail("it is \(count) bytes long, the limit is 255") }
        guard !doubleDot else { throw fail("it may not contain '..'") }
        self.rawValue = rawValue
    }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
            true
        default:
            false
        }
    }

    public var description: String { rawValue }
    public static func < (lhs: AppID, rhs: AppID) -> Bool { lhs.rawValue < rhs.rawValue }

    /// A short form of untrusted text for error messages: control
    /// characters escaped, cut at 64 characters.
    public static func printable(_ text: String) -> String {
        var out = ""
        var scalars = text.unicodeScalars.makeIterator()
        for _ in 0..<64 {
            guard let scalar = scalars.next() else { return out }
            out += scalar.value < 0x20 || scalar.value == 0x7f ? scalar.escaped(asASCII: true) : String(scalar)
        }
        // Only whether there is more is read, not how much (IDs may be megabytes).
        return scalars.next() == nil ? out : out + "…"
    }
}

/// A background session ID: 1 to 255 bytes of UTF-8 with no control
/// characters.
public struct SessionID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: String

    /// Validates a session ID, or throws `InvalidSessionId`.
    public init(_ rawValue: String) throws(NotifydError) {
        func fail(_ why: String) -> NotifydError {
            NotifydError(.invalidSessionId, "invalid session ID '\(AppID.printable(rawValue))': \(why)")
        }
        let length = rawValue.utf8.count
        guard length > 0 else { throw fail("it is empty") }
        guard length <= 255 else { throw fail("it is \(length) bytes long, the limit is 255") }
        // C0 controls, DEL and C1 controls (Unicode general category Cc).
        if rawValue.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7f...0x9f).contains($0.value) }) {
            throw fail("it contains a control character")
        }
        self.rawValue = rawValue
    }

    public var description: String { rawValue }
    public static func < (lhs: SessionID, rhs: SessionID) -> Bool { lhs.rawValue < rhs.rawValue }
}
