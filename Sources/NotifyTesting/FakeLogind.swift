import DBus
import Foundation
import Glibc

/// systemd-logind's `Inhibit` on a ``TestBus`` standing in for the system
/// bus (give its address as `DBUS_SYSTEM_BUS_ADDRESS`, or as the daemon's
/// `sleepLockBus`). Each call is answered with the write end of a new pipe,
/// passed as a Unix file descriptor; the fake keeps the read end, so it can
/// tell whether the caller still holds the lock (once every copy of the
/// write end is closed, the read end reports a hang-up).
public final class FakeLogind: @unchecked Sendable {
    /// One `Inhibit` call.
    public struct Call: Sendable, Hashable {
        public var what: String
        public var who: String
        public var why: String
        public var mode: String
        /// Whether each earlier lock was still held when this call came.
        public var earlierHeld: [Bool]
    }

    private let thread: LoopThread
    private let condition = NSCondition()
    private var recorded: [Call] = []
    /// The read end of each lock's pipe, in call order.
    private var readEnds: [Int32] = []
    private var refusal: String?
    private var connection: DBusConnection?

    /// Takes `org.freedesktop.login1` on the bus at `address`.
    public init(address: String) throws {
        thread = try LoopThread()
        try thread.sync {
            let connection = try DBusConnection.connect(to: .address(address))
            try connection.attach(to: self.thread.loop)
            try connection.export(DBusObject(path: "/org/freedesktop/login1", interfaces: [self.interface()]))
            guard try connection.requestName("org.freedesktop.login1") == .primaryOwner else {
                throw TestFailure("org.freedesktop.login1 is already taken on \(address)")
            }
            self.connection = connection
        }
    }

    deinit {
        try? thread.sync { self.connection = nil }
        thread.stop()
        for fd in readEnds where fd >= 0 { close(fd) }
    }

    /// Refuse every later call with `org.freedesktop.DBus.Error.AccessDenied`
    /// (polkit saying no), or accept again (nil).
    public func refuse(_ message: String?) { locked { refusal = message } }

    /// Every call so far.
    public var calls: [Call] { locked { recorded } }

    /// Whether the caller still holds lock `index` (0 is the first call's).
    public func isHeld(_ index: Int) -> Bool {
        guard let fd = locked({ index < readEnds.count ? readEnds[index] : nil }) else { return false }
        return Self.isOpen(readEnd: fd)
    }

    /// The indexes of the locks held now.
    public var held: [Int] { (0..<locked { readEnds.count }).filter { isHeld($0) } }

    /// Waits (bounded) for `count` calls; returns them.
    @discardableResult
    public func waitForCalls(count: Int, seconds: Double = 20) throws -> [Call] {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while recorded.count < count {
            guard condition.wait(until: deadline) else {
                throw TestFailure("logind got \(recorded.count) Inhibit call(s), not \(count), within \(seconds) s")
            }
        }
        return recorded
    }

    /// Waits (bounded) until exactly the locks `indexes` are held.
    public func waitUntilHeld(_ indexes: [Int], seconds: Double = 20) throws {
        try waitUntil("exactly locks \(indexes) are held (held: \(held))", seconds: seconds) { held == indexes }
    }

    private static func isOpen(readEnd fd: Int32) -> Bool {
        guard fd >= 0 else { return false }
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&entry, 1, 0) >= 0 else { return false }
        return entry.revents & Int16(POLLHUP) == 0
    }

    private func locked<T>(_ body: () -> T) -> T {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        return body()
    }

    private func interface() -> DBusInterface {
        DBusInterface(
            "org.freedesktop.login1.Manager",
            methods: [
                DBusMethod(
                    "Inhibit",
                    inputs: [.init("what", .string), .init("who", .string), .init("why", .string), .init("mode", .string)],
                    outputs: [.init("fd", .unixFD)]
                ) { [unowned self] call in try self.inhibit(call) },
                DBusMethod(
                    "ListInhibitors",
                    outputs: [.init("inhibitors", .array(.structure([.string, .string, .string, .string, .uint32, .uint32])))]
                ) { [unowned self] _ in
                    // The locks held now, as logind lists them (`systemd-inhibit --list` reads this).
                    let calls = self.calls
                    let rows: [DBusValue] = self.held.map { index in
                        let call = calls[index]
                        return .structure([
                            .string(call.what), .string(call.who), .string(call.why), .string(call.mode),
                            .uint32(getuid()), .uint32(UInt32(getpid())),
                        ])
                    }
                    return .reply([.array(element: .structure([.string, .string, .string, .string, .uint32, .uint32]), rows)])
                },
            ])
    }

    private func inhibit(_ call: DBusMethodCall) throws -> DBusMethodResult {
        let earlier = (0..<locked { readEnds.count }).map { isHeld($0) }
        let made = Call(
            what: try call.argument(0), who: try call.argument(1), why: try call.argument(2),
            mode: try call.argument(3), earlierHeld: earlier)
        if let refusal = locked({ refusal }) {
            // No lock: -1 keeps the locks' indexes those of the calls.
            locked {
                recorded.append(made)
                readEnds.append(-1)
            }
            throw DBusError("org.freedesktop.DBus.Error.AccessDenied", refusal)
        }
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw DBusError.failed("pipe: \(String(cString: strerror(errno)))") }
        // Children the tests start must not keep a lock open by inheriting it.
        for fd in ends { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        locked {
            readEnds.append(ends[0])
            recorded.append(made)
        }
        // libdbus sends a duplicate; this one closes when the value goes.
        return .reply([.unixFD(DBusFileDescriptor(ends[1], owned: true))])
    }
}
