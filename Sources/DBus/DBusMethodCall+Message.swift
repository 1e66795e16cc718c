import CDBus
import Logging

extension DBusMethodCall {
    /// Answers with a reply built by the handler (for instance with a
    /// ``DBusArrayWriter``, from ``DBusMessage/methodReturn(_:)`` of
    /// ``message``), instead of from a list of values.
    ///
    /// Like ``reply(_:)``: a call answered already is not answered again
    /// (and this is logged), nothing is sent when the caller asked for no
    /// reply, and a reply that cannot be queued becomes an error reply.
    public func reply(with built: DBusMessage) {
        guard !isAnswered else {
            connection.logger.warning("\(member) answered twice; the second answer is dropped")
            return
        }
        abandon()  // marks it answered; sending is done here
        guard !message.noReplyExpected else { return }
        do {
            try connection.send(built)
        } catch {
            connection.logger.error("cannot send reply to \(member): \(error)")
            _ = try? connection.send(message.errorReply(error))
        }
    }
}

extension DBusConnection {
    /// The loop the connection is attached to, if any: where work on its
    /// behalf can be scheduled.
    public var eventLoop: EventLoop? { loopBinding?.loop }

    /// Bytes of messages queued and not yet written to the socket.
    public var outgoingBytes: Int { Int(dbus_connection_get_outgoing_size(raw)) }
}

extension DBusMessage {
    /// The message's length in the wire format, header and body (as
    /// `dbus_message_marshal` writes it). Costs a copy of the message.
    public var wireSize: Int {
        var bytes: UnsafeMutablePointer<CChar>?
        var length: Int32 = 0
        guard dbus_message_marshal(raw, &bytes, &length) != 0 else { return 0 }
        dbus_free(bytes)
        return Int(length)
    }
}
