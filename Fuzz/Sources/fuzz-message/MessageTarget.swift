@testable import DBus
import NotifyCore
@testable import NotifyDaemon

/// A D-Bus message from bytes, as a peer could put it on the wire: libdbus
/// demarshals and validates it (`dbus_message_demarshal`), then notifyd
/// reads its header and decodes its arguments (``MessageCodec``), and, for
/// each member of notifyd's interfaces and the worker signal, checks the
/// signature as ``DBusObject`` does and decodes every argument as the
/// member's handler does (IDs, the event dictionary, fetch results).
///
/// Also checked: the decoded arguments are written back into a new message
/// and read again, to the same bytes (what notifyd relays, it can send).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMessage(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard let message = try? DBusMessage(wireBytes: Array(UnsafeBufferPointer(start: data, count: size))) else {
        return -1  // libFuzzer keeps no such input in the corpus
    }
    _ = (message.kind, message.path, message.interface, message.member, message.sender, message.destination)
    _ = (message.errorName, message.serial, message.replySerial, message.noReplyExpected)
    _ = message.asError()
    guard let arguments = try? message.arguments() else { return 0 }
    precondition(DBusType.signature(of: arguments.map(\.type)) == message.signature, "decoded types differ")
    roundTrip(arguments)
    decodeAsNotifyd(message, arguments)
    return 0
}

/// Builds the globals the target reads before the first input, so that
/// libFuzzer's leak check (allocations an input leaves behind) does not
/// count them.
@_cdecl("LLVMFuzzerInitialize")
public func initialize(
    _ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> Int32 {
    _ = members.count
    return 0
}

/// What notifyd decodes (and may relay) it can write back, unchanged.
private func roundTrip(_ arguments: [DBusValue]) {
    guard let copy = try? DBusMessage.signal(path: "/org/notifyd/Fuzz", interface: "org.notifyd.Fuzz", member: "Copy")
    else { return }
    do {
        try copy.append(arguments)
    } catch {
        preconditionFailure("decoded arguments cannot be written back: \(error)")
    }
    guard let again = try? copy.throughWireFormat().arguments(),
        let back = try? DBusMessage.signal(
            path: "/org/notifyd/Fuzz", interface: "org.notifyd.Fuzz", member: "Copy", arguments: again)
    else { preconditionFailure("arguments written back cannot be read again") }
    // Compared as bytes: a double may be a NaN, never equal to itself.
    precondition((try? back.wireBytes()) == (try? copy.wireBytes()), "arguments changed on the way back")
}

/// The members notifyd answers, by interface and name, with their inputs.
private let members: [String: [String: [DBusArgument]]] = {
    var table: [String: [String: [DBusArgument]]] = [:]
    for interface in NotifydObject.declarations {
        for method in interface.methods { table[interface.name, default: [:]][method.name] = method.inputs }
    }
    let worker = SessionService.workerInterface
    for signal in worker.signals { table[worker.name, default: [:]][signal.name] = signal.arguments }
    return table
}()

private func decodeAsNotifyd(_ message: DBusMessage, _ arguments: [DBusValue]) {
    guard let interface = message.interface, let member = message.member,
        let inputs = members[interface]?[member]
    else { return }
    // DBusObject answers InvalidArgs before any handler runs.
    guard message.signature == DBusType.signature(of: inputs.map(\.type)) else { return }
    if inputs.contains(where: { $0.name == "event" }) {
        _ = try? EventDecoding.report(arguments: arguments)
        return
    }
    for (index, input) in inputs.enumerated() {
        switch (input.name, input.type) {
        case ("app_id", _): _ = try? AppID(arguments.decode(index, as: String.self))
        case ("session_id", _): _ = try? SessionID(arguments.decode(index, as: String.self))
        case ("result", _): _ = try? FetchCompletion(reported: arguments.decode(index, as: String.self))
        case (_, .string): _ = try? arguments.decode(index, as: String.self)
        case (_, .uint32): _ = try? arguments.decode(index, as: UInt32.self)
        case (_, .int32): _ = try? arguments.decode(index, as: Int32.self)
        case (_, .uint64): _ = try? arguments.decode(index, as: UInt64.self)
        case (_, .boolean): _ = try? arguments.decode(index, as: Bool.self)
        default: break
        }
    }
}
