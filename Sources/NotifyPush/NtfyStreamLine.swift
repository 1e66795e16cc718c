/// One line of ntfy's JSON stream (`GET /<topics>/json`: one JSON object
/// per line, https://docs.ntfy.sh/subscribe/api/#json-message-format),
/// read without I/O: the client reads every line through it, and so does
/// the fuzzer (Fuzz/Sources/fuzz-ntfy-line).
enum NtfyStreamLine: Sendable, Equatable {
    /// The stream is open (ntfy's first event); `time` is the server's clock, Unix seconds.
    case open(time: Int64)
    /// ntfy's keepalive (every 45 s by default): the connection lives.
    case keepalive
    /// An event that carries nothing for notifyd (`poll_request`, or a kind
    /// ntfy may add): the connection lives.
    case ignored(event: String)
    /// A message, its body decoded.
    case message(NtfyMessage)
    /// A line that is not what ntfy sends, and why.
    case invalid(reason: String)

    /// The longest line read; the rest of a longer one is dropped.
    static let lineLimit = 65_536
    /// The largest body taken (UnifiedPush's limit, and ntfy's default `message-size-limit`).
    static let bodyLimit = 4096

    /// Reads one line (without its `\n`).
    init(_ line: ArraySlice<UInt8>) {
        guard line.count <= Self.lineLimit else {
            self = .invalid(reason: "a line of \(line.count) bytes, more than \(Self.lineLimit)")
            return
        }
        let object: NtfyJSONObject
        do {
            object = try NtfyJSONObject(parsing: line)
        } catch {
            self = .invalid(reason: error.description)
            return
        }
        guard case .string(let event) = object["event"] else {
            self = .invalid(reason: "an object without an event")
            return
        }
        switch event {
        case "open":
            guard case .integer(let time) = object["time"] else {
                self = .invalid(reason: "an open event without a time")
                return
            }
            self = .open(time: time)
        case "keepalive": self = .keepalive
        case "message":
            do {
                self = .message(try NtfyMessage(object))
            } catch {
                self = .invalid(reason: error.description)
            }
        default: self = .ignored(event: String(event.prefix(64)))
        }
    }
}

/// A `message` event of ntfy's stream.
struct NtfyMessage: Sendable, Equatable {
    /// ntfy's id of the message (12 letters and digits), which `since=` takes.
    let id: String
    /// When the server took it, Unix seconds.
    let time: Int64
    /// The one topic it was published to.
    let topic: String
    /// The body exactly as the application server sent it: base64 decoded
    /// when ntfy said `"encoding":"base64"` (a body that was not UTF-8),
    /// else the message text's UTF-8 bytes.
    let body: [UInt8]

    init(id: String, time: Int64, topic: String, body: [UInt8]) {
        self.id = id
        self.time = time
        self.topic = topic
        self.body = body
    }

    fileprivate init(_ object: NtfyJSONObject) throws(NtfyPushError) {
        guard case .string(let id) = object["id"], Self.isMessageID(id) else {
            throw NtfyPushError("a message without an id of letters and digits")
        }
        guard case .integer(let time) = object["time"] else { throw NtfyPushError("a message without a time") }
        guard case .string(let topic) = object["topic"], NtfySettings.isTopic(topic) else {
            throw NtfyPushError("a message without a valid topic")
        }
        guard object["attachment"] == nil else {
            throw NtfyPushError("a message with an attachment, which notifyd does not fetch")
        }
        let text: String
        switch object["message"] {
        case .string(let message): text = message
        case nil: text = ""  // Go leaves an empty message out
        default: throw NtfyPushError("a message whose body is not a string")
        }
        switch object["encoding"] {
        case nil, .string(""):
            guard text.utf8.count <= NtfyStreamLine.bodyLimit else {
                throw NtfyPushError("a body of \(text.utf8.count) bytes, more than \(NtfyStreamLine.bodyLimit)")
            }
            body = Array(text.utf8)
        case .string("base64"):
            guard let decoded = Base64.decode(text.utf8, limit: NtfyStreamLine.bodyLimit) else {
                throw NtfyPushError(
                    "a base64 body that does not decode, or decodes to more than \(NtfyStreamLine.bodyLimit) bytes")
            }
            body = decoded
        default: throw NtfyPushError("a body in an encoding other than base64")
        }
        self.id = id
        self.time = time
        self.topic = topic
    }

    /// Whether `text` can be a message id (ntfy's are 12 of `[A-Za-z0-9]`;
    /// 1 to 64 are taken): it goes into the `since=` of a URL as it is.
    static func isMessageID(_ text: String) -> Bool {
        (1...64).contains(text.utf8.count) && text.utf8.allSatisfy(Base64.isAlphanumeric)
    }
}

/// Cuts the bytes of ntfy's stream, as they arrive in pieces of any size,
/// into lines of at most ``NtfyStreamLine/lineLimit`` bytes: a longer line
/// is dropped whole (reported once), and the stream goes on at the next
/// `\n`. Pure, so that the fuzzer feeds it too.
struct NtfyLineBuffer {
    private var pending: [UInt8] = []
    /// Inside a line that was too long: bytes are dropped until its end.
    private var discarding = false

    /// Takes `chunk`: calls `line` with each complete line (without its
    /// `\n`, nor a `\r` before it), and `overlong` once for each line dropped.
    mutating func take(
        _ chunk: UnsafeRawBufferPointer, line: (ArraySlice<UInt8>) -> Void, overlong: () -> Void
    ) {
        var rest = chunk[...]
        while !rest.isEmpty {
            let end = rest.firstIndex(of: 0x0A)
            let piece = rest[..<(end ?? rest.endIndex)]
            rest = end.map { rest[($0 + 1)...] } ?? rest[rest.endIndex...]
            if discarding {
                discarding = end == nil
                continue
            }
            if pending.count + piece.count > NtfyStreamLine.lineLimit {
                pending.removeAll(keepingCapacity: false)
                discarding = end == nil
                overlong()
                continue
            }
            pending.append(contentsOf: piece)
            guard end != nil else { return }
            var complete = pending[...]
            if complete.last == 0x0D { complete = complete.dropLast() }
            line(complete)
            pending.removeAll(keepingCapacity: true)
        }
    }

    /// Bytes of a line not yet ended.
    var pendingCount: Int { pending.count }
}

/// Standard base64 with padding, as Go's `base64.StdEncoding` writes it.
enum Base64 {
    /// `text` decoded, when it is canonical padded base64 of at most `limit` bytes.
    static func decode(_ text: some Collection<UInt8>, limit: Int) -> [UInt8]? {
        let count = text.count
        guard count % 4 == 0, count / 4 * 3 <= limit + 2 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(count / 4 * 3)
        var group: UInt32 = 0
        var filled = 0
        var padding = 0
        for byte in text {
            let value: UInt8
            if byte == UInt8(ascii: "=") {
                padding += 1
                value = 0
            } else {
                guard padding == 0, let decoded = sextet(byte) else { return nil }
                value = decoded
            }
            group = group << 6 | UInt32(value)
            filled += 1
            if filled == 4 {
                output.append(UInt8(truncatingIfNeeded: group >> 16))
                output.append(UInt8(truncatingIfNeeded: group >> 8))
                output.append(UInt8(truncatingIfNeeded: group))
                group = 0
                filled = 0
            }
        }
        // At most two '=', only at the end; the bits they leave unused
        // (which fall in the bytes removed) must be zero, as Go writes them.
        guard padding <= 2, output.suffix(padding).allSatisfy({ $0 == 0 }) else { return nil }
        output.removeLast(padding)
        return output.count <= limit ? output : nil
    }

    private static func sextet(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x41...0x5A: byte - 0x41
        case 0x61...0x7A: byte - 0x61 + 26
        case 0x30...0x39: byte - 0x30 + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }

    /// `[A-Za-z0-9]`.
    static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }
}
