import DBus

/// The families of hostile input, each with its own expected answers.
enum Family: String, CaseIterable, Sendable {
    case wrongSignature = "wrong-signature"
    case unknownMember = "unknown-member"
    case properties
    case invalidAppId = "invalid-app-id"
    case invalidSessionId = "invalid-session-id"
    case outOfRange = "out-of-range"
    case badEvent = "bad-event"
    case unknownSession = "unknown-session"
    case unknownID = "unknown-id"
    case invalidValue = "invalid-value"
    case foreignSession = "foreign-session"
    case limitExceeded = "limit-exceeded"
    case workerSignal = "worker-signal"
    case acceptedEvent = "accepted-event"
    case acceptedTransfer = "accepted-transfer"
    case benign
    case manyArguments = "many-arguments"
    case hugeMessage = "huge-message"
}

/// What the answer to a case must be.
enum Expectation: Sendable, CustomStringConvertible {
    /// An error reply with exactly this name.
    case error(String)
    /// A method return with this body signature and, when given, this first argument.
    case success(signature: String, first: DBusValue? = nil)
    /// A signal: no reply, and nothing stored.
    case noReply
    /// A valid event with hostile unknown keys: a handler ID (non-zero when the kind stores a handler).
    case stored(handler: Bool)

    var description: String {
        switch self {
        case .error(let name): name
        case .success(let signature, let first): "return '\(signature)'" + (first.map { " \(Describe.value($0))" } ?? "")
        case .noReply: "no reply"
        case .stored(let handler): handler ? "return 't' (a handler ID)" : "return 't' 0"
        }
    }
}

/// One hostile message and what notifyd must answer.
struct FuzzCase: Sendable {
    enum Kind: Sendable { case call, signal }

    let index: UInt64
    let family: Family
    let kind: Kind
    /// Object path; for calls the destination is notifyd.
    let path: String
    let interface: String?
    let member: String
    let arguments: [DBusValue]
    let expectation: Expectation
    /// An accepted event whose kind stores a completion handler.
    var storesHandler = false
    /// For signals: also address the signal to notifyd (a unicast signal).
    var unicast = false
    /// For a call answered with a transfer ID: these methods of Transfers
    /// are then called with it, in order, each expecting its declared reply.
    var followUps: [String] = []
    /// A short human note on what is hostile about it.
    let note: String

    /// The message to send.
    func message(notifydUniqueName: String?) throws(DBusError) -> DBusMessage {
        switch kind {
        case .call:
            return try DBusMessage.methodCall(
                destination: Contract.busName, path: path, interface: interface, member: member, arguments: arguments)
        case .signal:
            return try DBusMessage.signal(
                path: path, interface: interface ?? Contract.worker, member: member, arguments: arguments,
                destination: unicast ? notifydUniqueName : nil)
        }
    }

    /// One line: index, family, the call with its arguments abridged, the expectation.
    var description: String {
        let target = "\(interface ?? "<no interface>").\(member)"
        let args = arguments.map(Describe.value).joined(separator: ", ")
        let how = kind == .signal ? "signal\(unicast ? " (unicast)" : "")" : "call"
        let then = followUps.isEmpty ? "" : ", then " + followUps.joined(separator: ", ")
        return "#\(index) [\(family.rawValue)] \(how) \(path) \(target)(\(args)) -> \(expectation)\(then) ; \(note)"
    }
}

/// Abridged, printable renderings of values for reports.
enum Describe {
    static func value(_ value: DBusValue) -> String {
        switch value {
        case .string(let s): return string(s)
        case .objectPath(let s): return "o:" + string(s)
        case .signature(let s): return "g:" + string(s)
        case .variant(let inner): return "<" + Self.value(inner) + ">"
        case .array(let element, let items):
            if items.count > 4 { return "a\(element)[\(items.count) items]" }
            return "[" + items.map(Self.value).joined(separator: ", ") + "]"
        case .dictionary(_, _, let entries):
            if entries.count > 8 { return "\(value.signature){\(entries.count) entries}" }
            return "{" + entries.map { Self.value($0.key) + ": " + Self.value($0.value) }.joined(separator: ", ") + "}"
        case .structure(let fields): return "(" + fields.map(Self.value).joined(separator: ", ") + ")"
        case .byte(let v): return "y:\(v)"
        case .boolean(let v): return "\(v)"
        case .int16(let v): return "n:\(v)"
        case .uint16(let v): return "q:\(v)"
        case .int32(let v): return "i:\(v)"
        case .uint32(let v): return "u:\(v)"
        case .int64(let v): return "x:\(v)"
        case .uint64(let v): return "t:\(v)"
        case .double(let v): return "d:\(v)"
        case .unixFD: return "h:fd"
        }
    }

    /// A string quoted with control and non-ASCII characters escaped, cut
    /// after 40 scalars with its length in bytes.
    static func string(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars.prefix(40) {
            switch scalar.value {
            case 0x20..<0x7f where scalar != "\"" && scalar != "\\": out.unicodeScalars.append(scalar)
            default: out += "\\u{\(String(scalar.value, radix: 16))}"
            }
        }
        out += "\""
        let bytes = text.utf8.count
        return text.unicodeScalars.count > 40 ? out + "…(\(bytes) bytes)" : out
    }
}

/// Judges the answer to a call against the case's expectation.
enum ReplyCheck {
    struct Verdict {
        var matches: Bool
        /// What came back, for the report.
        var got: String
        /// An accepted event answered with a non-zero handler ID.
        var storedHandler = false
        /// Whether notifyd answered at all (not a time-out or a lost connection).
        var answered = true
    }

    static func judge(_ testCase: FuzzCase, _ result: Result<DBusMessage, DBusError>) -> Verdict {
        switch result {
        case .failure(let error):
            let got = "error \(error.name): \(Describe.string(error.message))"
            if error.name == DBusError.Name.noReply || error.name == DBusError.Name.disconnected {
                return Verdict(matches: false, got: "NO REPLY (\(got))", answered: false)
            }
            if case .error(let name) = testCase.expectation { return Verdict(matches: name == error.name, got: got) }
            return Verdict(matches: false, got: got)
        case .success(let reply):
            let arguments = (try? reply.arguments()) ?? []
            let got = "return '\(reply.signature)' " + arguments.prefix(1).map(Describe.value).joined()
            switch testCase.expectation {
            case .success(let signature, let first):
                let valueMatches = first.map { arguments.first == $0 } ?? true
                return Verdict(matches: reply.signature == signature && valueMatches, got: got)
            case .stored(let handler):
                guard reply.signature == "t", case .uint64(let id) = arguments.first else { return Verdict(matches: false, got: got) }
                return Verdict(matches: (id != 0) == handler, got: got, storedHandler: id != 0)
            case .error, .noReply:
                return Verdict(matches: false, got: got)
            }
        }
    }
}
