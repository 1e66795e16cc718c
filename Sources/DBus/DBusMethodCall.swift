import Logging

/// A method call received by an exported object, with the means to answer
/// it now or later (a deferred reply).
///
/// Each call is answered exactly once; a second answer is ignored and
/// logged. A call dropped without an answer is answered with
/// `org.freedesktop.DBus.Error.Failed` so the caller never hangs.
public final class DBusMethodCall {
    /// The received message.
    public let message: DBusMessage
    /// Its arguments, already checked against the method's signature.
    public let arguments: [DBusValue]
    /// The connection it came in on.
    public let connection: DBusConnection
    private var answered = false

    init(message: DBusMessage, arguments: [DBusValue], connection: DBusConnection) {
        self.message = message
        self.arguments = arguments
        self.connection = connection
    }

    deinit {
        if !answered {
            connection.logger.error("method call dropped without a reply", metadata: ["member": "\(member)"])
            fail(DBusError.failed("\(member) was not answered"))
        }
    }

    /// The caller's unique bus name.
    public var sender: String { message.sender ?? "" }
    /// `Interface.Member`, for messages.
    public var member: String { "\(message.interface ?? "").\(message.member ?? "")" }
    /// Whether the call is still waiting for its answer.
    public var isAnswered: Bool { answered }

    /// Decodes argument `index` as a Swift type (`InvalidArgs` on mismatch).
    public func argument<T: DBusRepresentable>(_ index: Int, as type: T.Type = T.self) throws(DBusError) -> T {
        try arguments.decode(index, as: type)
    }

    /// Answers with values.
    public func reply(_ values: [DBusValue] = []) {
        guard markAnswered() else { return }
        do {
            try connection.send(message.methodReturn(values))
        } catch {
            connection.logger.error("cannot send reply to \(member): \(error)")
            _ = try? connection.send(message.errorReply(error))
        }
    }

    /// Answers with an error: a ``DBusErrorConvertible`` goes out under its
    /// own name; anything else as `Failed`, and is logged.
    public func fail(_ error: any Error) {
        guard markAnswered() else { return }
        let dbusError: DBusError
        if let convertible = error as? any DBusErrorConvertible {
            dbusError = DBusError(convertible.dbusErrorName, convertible.dbusErrorMessage)
        } else {
            connection.logger.error("\(member) failed: \(error)")
            dbusError = .failed("\(member) failed: \(error)")
        }
        do {
            try connection.send(message.errorReply(dbusError))
        } catch {
            connection.logger.error("cannot send error reply to \(member): \(error)")
        }
    }

    /// Gives up on a call whose caller has left the bus: nothing is sent.
    public func abandon() {
        answered = true
    }

    private func markAnswered() -> Bool {
        guard !answered else {
            connection.logger.warning("\(member) answered twice; the second answer is dropped")
            return false
        }
        answered = true
        return !message.noReplyExpected
    }
}
