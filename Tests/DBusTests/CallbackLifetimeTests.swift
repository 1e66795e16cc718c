import DBus
import Foundation
import Testing
import NotifyTesting

/// What libdbus holds for a connection (its timeouts, the loop binding, the
/// exported objects) outlives neither libdbus's own objects nor the
/// connection: a timeout is never handled after libdbus removed it, and a
/// connection released from inside one of its own callbacks is not touched
/// afterwards. Run under AddressSanitizer (`scripts/test-asan`), a
/// violation is reported as an invalid access; without it, a timeout
/// handled after libdbus freed it jumps through freed memory (the fuzzer's
/// one-off crash in RELIABILITY.md).
@Suite(.serialized) struct CallbackLifetimeTests {
    /// How long the calls to the silent peer may wait, in milliseconds.
    static let timeoutMilliseconds: Int32 = 20

    /// Calls to a peer that never answers time out: libdbus removes each
    /// call's timeout when it fires and frees it with the call. The loop
    /// used to arm such a timeout again and, one interval later, hand the
    /// freed timeout back to libdbus.
    @Test func aTimedOutCallLeavesNoTimerBehind() throws {
        let bus = try TestBus()
        // Reads nothing and answers nothing: every call to it times out.
        let silent = try DBusConnection.connect(to: .address(bus.address))
        let target = try #require(silent.uniqueName)
        let thread = try LoopThread()
        let calls = 16
        let outcome = Outcome()
        let address = bus.address
        try thread.sync {
            let loop = thread.loop
            let connection = try DBusConnection.connect(to: .address(address))
            try connection.attach(to: loop)
            var left = calls
            for _ in 0..<calls {
                let ping = try DBusMessage.methodCall(
                    destination: target, path: "/", interface: "org.freedesktop.DBus.Peer", member: "Ping")
                try connection.callAsync(ping, timeoutMilliseconds: Self.timeoutMilliseconds) { result in
                    if case .failure(let error) = result { outcome.record(error.name) }
                    left -= 1
                    guard left == 0 else { return }
                    outcome.record("timers after the last reply: \(loop.pendingTimers)")
                    // Keep the loop (and the connection) running for many
                    // intervals: a timer armed again would fire by then.
                    loop.scheduleTimer(afterNanoseconds: UInt64(Self.timeoutMilliseconds) * 10_000_000) {
                        outcome.record("timers later: \(loop.pendingTimers)")
                        withExtendedLifetime(connection) {}
                        outcome.finish()
                    }
                }
            }
        }
        #expect(outcome.wait(seconds: 20), "the calls never ended")
        thread.stop()
        let lines = outcome.lines
        #expect(lines.filter { $0 == DBusError.Name.noReply }.count == calls, "\(lines)")
        #expect(lines.contains("timers after the last reply: 0"), "\(lines)")
        #expect(lines.contains("timers later: 0"), "\(lines)")
        withExtendedLifetime(silent) {}
    }

    /// The last reference to a connection is dropped by the completion of
    /// one of its own calls, in the middle of its dispatch.
    @Test func aConnectionReleasedByItsOwnReplyIsNotUsedAfter() throws {
        let bus = try TestBus()
        let thread = try LoopThread()
        let outcome = Outcome()
        let address = bus.address
        for _ in 0..<20 {
            try thread.sync {
                let holder = Holder()
                let connection = try DBusConnection.connect(to: .address(address))
                try connection.attach(to: thread.loop)
                holder.connection = connection
                // Two calls: the second's reply is still queued when the first releases the connection.
                for _ in 0..<2 {
                    let call = try DBusMessage.methodCall(
                        destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                        interface: "org.freedesktop.DBus", member: "GetId")
                    try connection.callAsync(call) { result in
                        if case .success = result { outcome.record("answered") }
                        holder.connection = nil
                    }
                }
            }
        }
        try settle(thread)
        #expect(outcome.lines.count >= 20, "\(outcome.lines)")
        thread.stop()
    }

    /// The last reference is dropped by a disconnect handler, run from the
    /// connection's filter.
    @Test func aConnectionReleasedWhenItIsClosedIsNotUsedAfter() throws {
        let bus = try TestBus()
        let thread = try LoopThread()
        let outcome = Outcome()
        let address = bus.address
        for _ in 0..<20 {
            try thread.sync {
                let holder = Holder()
                let connection = try DBusConnection.connect(to: .address(address))
                try connection.attach(to: thread.loop)
                holder.connection = connection
                connection.onDisconnect {
                    outcome.record("disconnected")
                    holder.connection = nil
                }
                let call = try DBusMessage.methodCall(
                    destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                    interface: "org.freedesktop.DBus", member: "GetId")
                try connection.callAsync(call) { _ in }
                connection.close()
            }
        }
        try settle(thread)
        #expect(outcome.lines.filter { $0 == "disconnected" }.count == 20, "\(outcome.lines)")
        thread.stop()
    }

    /// The last reference is dropped by a method handler of an object the
    /// connection exports (the object and the connection are then
    /// unregistered from inside libdbus's call to that object).
    @Test func aConnectionReleasedByItsOwnObjectIsNotUsedAfter() throws {
        let bus = try TestBus()
        let thread = try LoopThread()
        let client = try DBusConnection.connect(to: .address(bus.address))
        for round in 0..<10 {
            let name = try thread.sync {
                let holder = Holder()
                let connection = try DBusConnection.connect(to: .address(bus.address))
                try connection.attach(to: thread.loop)
                let leave = DBusMethod("Leave", outputs: [DBusArgument("round", .int32)]) { call in
                    holder.connection = nil
                    return .reply([.int32(Int32(round))])
                }
                try connection.export(DBusObject(
                    path: "/org/example/Leaving", interfaces: [DBusInterface("org.example.Leaving", methods: [leave])]))
                holder.connection = connection
                return connection.uniqueName ?? ""
            }
            let reply = try client.call(
                destination: name, path: "/org/example/Leaving", interface: "org.example.Leaving", member: "Leave",
                timeoutMilliseconds: 5000)
            #expect(reply == [.int32(Int32(round))])
        }
        try settle(thread)
        thread.stop()
    }

    /// Lets the loop run a few turns, then returns.
    private func settle(_ thread: LoopThread) throws {
        let done = DispatchSemaphore(value: 0)
        _ = try thread.sync {
            thread.loop.scheduleTimer(afterNanoseconds: 100_000_000) { done.signal() }
        }
        #expect(done.wait(timeout: .now() + 20) == .success)
    }
}

/// Keeps a connection until a callback drops it.
private final class Holder {
    var connection: DBusConnection?
}

/// What the loop thread saw, read by the test thread once it is done.
private final class Outcome: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [String] = []
    private let done = DispatchSemaphore(value: 0)

    func record(_ line: String) { lock.withLock { recorded.append(line) } }
    func finish() { done.signal() }
    func wait(seconds: Double) -> Bool { done.wait(timeout: .now() + seconds) == .success }
    var lines: [String] { lock.withLock { recorded } }
}
