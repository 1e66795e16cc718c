import DBus
import Foundation
import Glibc
import NotifyTesting
import Testing

/// `h` values over a real bus, both ways: a descriptor sent in a call
/// arrives as a working duplicate, and one returned in a reply too (how
/// systemd-logind hands out its inhibitor locks). Each side closes its
/// own copy; the other end of the pipe shows when every copy is closed.
@Suite struct UnixFDTests {
    static let name = "org.example.FD"

    /// A server on its own loop: `Echo(h)` writes "echo" into the
    /// descriptor it got; `Give()` returns the write end of a new pipe,
    /// whose read end it keeps in `kept`.
    final class Server: @unchecked Sendable {
        let thread: LoopThread
        var kept: Int32 = -1
        let owned = LoopOwned<DBusConnection>()

        init(address: String) throws {
            thread = try LoopThread()
            try thread.sync {
                let connection = try DBusConnection.connect(to: .address(address))
                try connection.attach(to: self.thread.loop)
                let echo = DBusMethod("Echo", inputs: [.init("fd", .unixFD)]) { call in
                    guard case .unixFD(let descriptor) = try call.argument(0, as: DBusValue.self) else {
                        throw DBusError.invalidArgs("not a descriptor")
                    }
                    let written = "echo".withCString { write(descriptor.fd, $0, 4) }
                    guard written == 4 else { throw DBusError.failed("write failed") }
                    return .reply([])
                }
                let give = DBusMethod("Give", outputs: [.init("fd", .unixFD)]) { [unowned self] _ in
                    var ends: [Int32] = [0, 0]
                    guard pipe(&ends) == 0 else { throw DBusError.failed("pipe failed") }
                    kept = ends[0]
                    return .reply([.unixFD(DBusFileDescriptor(ends[1], owned: true))])
                }
                try connection.export(
                    DBusObject(path: "/fd", interfaces: [DBusInterface("org.example.FD", methods: [echo, give])]))
                _ = try connection.requestName(UnixFDTests.name)
                self.owned.value = connection
            }
        }

        deinit {
            try? thread.sync { self.owned.value = nil }
            thread.stop()
            if kept >= 0 { close(kept) }
        }
    }

    static func hungUp(_ fd: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) > 0 && entry.revents & Int16(POLLHUP) != 0
    }

    @Test func aDescriptorSentInACallIsAWorkingDuplicate() throws {
        let bus = try TestBus()
        let server = try Server(address: bus.address)
        let client = try DBusConnection.connect(to: .address(bus.address))
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]) }
        do {
            let sent = DBusFileDescriptor(ends[1], owned: true)
            _ = try client.call(destination: Self.name, path: "/fd", interface: "org.example.FD", member: "Echo", [.unixFD(sent)])
        }
        var buffer = [UInt8](repeating: 0, count: 8)
        #expect(read(ends[0], &buffer, 8) == 4)
        #expect(String(decoding: buffer.prefix(4), as: UTF8.self) == "echo")
        // Every copy is closed now: ours with its value, the server's with the message.
        try waitUntil("the pipe hangs up", seconds: 10) { Self.hungUp(ends[0]) }
        withExtendedLifetime(server) {}
    }

    @Test func aDescriptorReturnedInAReplyIsHeldUntilReleased() throws {
        let bus = try TestBus()
        let server = try Server(address: bus.address)
        let client = try DBusConnection.connect(to: .address(bus.address))
        var reply: [DBusValue]? = try client.call(destination: Self.name, path: "/fd", interface: "org.example.FD", member: "Give")
        guard case .unixFD(let received)? = reply?.first else { throw TestFailure("no descriptor: \(String(describing: reply))") }
        #expect("held".withCString { write(received.fd, $0, 4) } == 4)
        var buffer = [UInt8](repeating: 0, count: 8)
        #expect(read(server.kept, &buffer, 8) == 4)
        #expect(!Self.hungUp(server.kept), "held while the value lives")
        reply = nil
        _ = consume received
        try waitUntil("the lock's pipe hangs up once released", seconds: 10) { Self.hungUp(server.kept) }
    }
}
