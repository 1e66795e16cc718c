import DBus
import Foundation
import Testing
import NotifyTesting

/// ``DBusMonitor`` on a private bus: it sees what two other connections
/// exchange, in the order the bus routed it, and never takes part.
@Suite(.serialized) struct DBusMonitorTests {
    /// A client calls `Emit` on ``BusTests/testObject(connection:loop:)``,
    /// served from a loop thread: the call, the `Said` signal the handler
    /// emits, then the reply.
    @Test func seesACallItsSignalAndItsReplyInOrder() throws {
        let bus = try TestBus()
        let server = try LoopThread()
        defer { server.stop() }
        let address = bus.address
        let held = HeldConnection()
        let serverName = try server.sync { () -> String in
            let connection = try DBusConnection.connect(to: .address(address))
            try connection.attach(to: server.loop)
            try connection.export(BusTests.testObject(connection: connection, loop: server.loop))
            held.connection = connection
            return connection.uniqueName ?? ""
        }
        defer { try? server.sync { held.connection = nil } }  // released on its loop's thread
        let client = try DBusConnection.connect(to: .address(address))
        let clientName = try #require(client.uniqueName)
        let monitor = try DBusMonitor(bus: .address(address), rules: ["sender='\(clientName)'", "sender='\(serverName)'"])

        let reply = try client.call(
            destination: serverName, path: BusTests.path, interface: "org.example.Test", member: "Emit", [.string("hello")])
        #expect(reply.isEmpty)

        var seen: [DBusMessage] = []
        while seen.count < 3, let message = try monitor.next(timeoutMilliseconds: 5000) { seen.append(message) }
        try #require(seen.count == 3, "\(seen.map(\.kind))")
        let (call, signal, methodReturn) = (seen[0], seen[1], seen[2])

        #expect(call.kind == .methodCall)
        #expect(call.sender == clientName && call.destination == serverName)
        #expect(call.interface == "org.example.Test" && call.member == "Emit")
        #expect(try call.arguments() == [.string("hello")])

        #expect(signal.kind == .signal)
        #expect(signal.sender == serverName && signal.destination == nil)
        #expect(signal.path == BusTests.path && signal.member == "Said")
        #expect(try signal.arguments() == [.string("hello")])

        #expect(methodReturn.kind == .methodReturn)
        #expect(methodReturn.sender == serverName && methodReturn.destination == clientName)
        #expect(methodReturn.replySerial == call.serial && call.serial != 0)
        #expect(methodReturn.signature == "")
    }

    /// Nothing matching: `next` gives up after its time-out, and the bus
    /// keeps the monitor (it has sent nothing).
    @Test func nextIsBoundedAndTheMonitorStays() throws {
        let bus = try TestBus()
        let monitor = try DBusMonitor(bus: .address(bus.address), rules: ["interface='org.example.Nobody'"])
        let client = try DBusConnection.connect(to: .address(bus.address))
        _ = try client.callBus("ListNames")
        let start = ContinuousClock.now
        #expect(try monitor.next(timeoutMilliseconds: 100) == nil)
        let waited = ContinuousClock.now - start
        #expect(waited >= .milliseconds(100) && waited < .seconds(5), "\(waited)")
        #expect(monitor.isConnected)
    }

    /// When the bus goes away, `next` says so instead of waiting.
    @Test func aLostBusEndsTheMonitor() throws {
        let bus = try TestBus()
        let monitor = try DBusMonitor(bus: .address(bus.address))
        bus.stop()
        #expect(throws: DBusError.self) {
            while try monitor.next(timeoutMilliseconds: 5000) != nil {}
        }
    }
}

/// The server's connection, kept alive (and released) on its loop thread.
private final class HeldConnection: @unchecked Sendable {
    var connection: DBusConnection?
}
