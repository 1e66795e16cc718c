public import DBus
import Foundation
import NotifyTestingCore

/// One connection that sends calls without waiting for their replies, as a
/// client with several calls in flight does, on a loop thread of its own;
/// each call's reply is read later (``PendingReply``).
///
/// Its messages reach notifyd in the order sent, and notifyd handles a
/// sender's messages in that order: a call answered at once, sent after
/// others (``decided(seconds:)``), proves those were decided, even while
/// their replies wait for the disk.
public final class AsyncCaller: Sendable {
    private let thread: LoopThread
    private let connection = LoopOwned<DBusConnection>()

    /// Connects to the bus at `address`.
    public init(address: String) throws {
        let connection = self.connection
        thread = try LoopThread(name: "async-caller") { loop in
            let opened = try DBusConnection.connect(to: .address(address), private: true)
            try opened.attach(to: loop)
            connection.value = opened
            return loop
        }
    }

    deinit {
        // The connection is released on its loop's thread, then the loop ends.
        let connection = self.connection
        try? thread.sync { connection.value = nil }
        thread.stop()
    }

    /// Sends a call to notifyd's object; its reply arrives in the result.
    public func start(_ interface: String, _ member: String, _ arguments: [DBusValue] = []) throws -> PendingReply {
        let pending = PendingReply("\(member)(\(arguments))")
        let connection = self.connection
        try thread.sync {
            guard let opened = connection.value else { throw TestFailure("the async caller's connection is gone") }
            let message = try DBusMessage.methodCall(
                destination: "org.notifyd.Notifyd1", path: "/org/notifyd/Notifyd1", interface: interface, member: member,
                arguments: arguments)
            try opened.callAsync(message, timeoutMilliseconds: 120_000) { result in
                pending.finish(result.flatMap { reply in Result { try reply.arguments() }.mapError { $0 as? DBusError ?? .failed("\($0)") } })
            }
        }
        return pending
    }

    /// Sends a call and waits (bounded) for its reply.
    @discardableResult
    public func call(_ interface: String, _ member: String, _ arguments: [DBusValue] = [], seconds: Double = 20) throws
        -> [DBusValue]
    {
        try start(interface, member, arguments).values(seconds: seconds)
    }

    /// Waits until notifyd has handled every call sent before this one:
    /// `Introspect`, which notifyd answers at once, in the sender's order.
    public func decided(seconds: Double = 20) throws {
        try call("org.freedesktop.DBus.Introspectable", "Introspect", seconds: seconds)
    }
}

/// The reply of a call sent by an ``AsyncCaller``, once it arrives.
public final class PendingReply: @unchecked Sendable {
    // Unchecked: `result` is behind `condition`.
    private let condition = NSCondition()
    private var result: Result<[DBusValue], DBusError>?
    private let what: String

    init(_ what: String) { self.what = what }

    func finish(_ result: Result<[DBusValue], DBusError>) {
        condition.lock()
        self.result = result
        condition.broadcast()
        condition.unlock()
    }

    /// Whether the reply (or an error) has arrived.
    public var isAnswered: Bool {
        condition.lock()
        defer { condition.unlock() }
        return result != nil
    }

    /// Waits (bounded) for the reply or the error.
    public func outcome(seconds: Double) throws -> Result<[DBusValue], DBusError> {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let result { return result }
            guard condition.wait(until: deadline) else { throw TestFailure("\(what) got no answer in \(seconds) s") }
        }
    }

    /// Waits (bounded) for the reply; an error reply is thrown.
    public func values(seconds: Double) throws -> [DBusValue] {
        try outcome(seconds: seconds).get()
    }
}
