import CDBus

/// `org.freedesktop.DBus.Peer`, answered by this module rather than by
/// libdbus: libdbus answers Ping and GetMachineId without checking their
/// arguments, so a call with a wrong signature would get a normal reply
/// instead of `InvalidArgs`. Connections that export objects route Peer
/// messages here (``DBusConnection/export(_:)``), on every path.
enum PeerInterface {
    /// Answers a Peer method call; false if the message is not one.
    static func answer(_ message: DBusMessage, on connection: DBusConnection) -> Bool {
        guard message.kind == .methodCall, message.interface == StandardInterfaces.peerName,
            let member = message.member
        else { return false }
        let reply: DBusMessage?
        switch member {
        case "Ping" where message.signature.isEmpty:
            reply = try? message.methodReturn()
        case "GetMachineId" where message.signature.isEmpty:
            reply = try? message.methodReturn([.string(machineID)])
        case "Ping", "GetMachineId":
            reply = try? message.errorReply(
                .invalidArgs("\(member) takes no arguments, but was called with '\(message.signature)'."))
        default:
            reply = try? message.errorReply(.unknownMethod("Unknown method \(member) of \(StandardInterfaces.peerName)."))
        }
        if let reply, !message.noReplyExpected { _ = try? connection.send(reply) }
        return true
    }

    /// The machine's D-Bus ID (`/etc/machine-id` or libdbus's fallback).
    static let machineID: String = {
        guard let raw = dbus_get_local_machine_id() else { return "" }
        defer { dbus_free(raw) }
        return String(cString: raw)
    }()
}
