import DBus
import Foundation

/// Records signals from a bus on a loop thread of its own, for tests that
/// check what really went out (and that nothing else did).
public final class SignalRecorder: @unchecked Sendable {
    /// One received signal.
    public struct Signal: Sendable, CustomStringConvertible {
        public var sender: String
        public var path: String
        public var interface: String
        public var member: String
        public var arguments: [DBusValue]
        public var signature: String
        public var description: String { "\(interface).\(member)\(arguments) from \(sender)" }
    }

    private let thread: LoopThread
    private let condition = NSCondition()
    private var signals: [Signal] = []
    private var connection: DBusConnection?

    /// Subscribes to every rule on a new connection to `address`.
    public init(address: String, rules: [DBusMatchRule]) throws {
        thread = try LoopThread()
        try thread.sync {
            let connection = try DBusConnection.connect(to: .address(address))
            try connection.attach(to: self.thread.loop)
            for rule in rules {
                try connection.subscribe(rule) { [weak self] message in self?.record(message) }
            }
            self.connection = connection
        }
    }

    deinit {
        try? thread.sync { self.connection = nil }
        thread.stop()
    }

    private func record(_ message: DBusMessage) {
        let signal = Signal(
            sender: message.sender ?? "", path: message.path ?? "", interface: message.interface ?? "",
            member: message.member ?? "", arguments: (try? message.arguments()) ?? [], signature: message.signature)
        condition.lock()
        signals.append(signal)
        condition.broadcast()
        condition.unlock()
    }

    /// Everything received so far.
    public var received: [Signal] {
        condition.lock()
        defer { condition.unlock() }
        return signals
    }

    /// Waits (bounded) until a signal satisfies `predicate`; returns
    /// everything received up to and including it, or nil on time-out.
    /// `predicate` must not keep state: it is asked again of every signal
    /// at each arrival (count with ``wait(seconds:forCount:of:)``).
    public func wait(seconds: Double = 5, until predicate: (Signal) -> Bool) -> [Signal]? {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let index = signals.firstIndex(where: predicate) { return Array(signals[...index]) }
            guard condition.wait(until: deadline) else { return nil }
        }
    }

    /// Waits (bounded) until `count` signals satisfy `predicate`; returns
    /// those (in the order received), or nil on time-out. `predicate` must
    /// not keep state: it is asked again of every signal at each arrival.
    public func wait(seconds: Double = 5, forCount count: Int, of predicate: (Signal) -> Bool) -> [Signal]? {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while true {
            let matching = signals.filter(predicate)
            if matching.count >= count { return Array(matching.prefix(count)) }
            guard condition.wait(until: deadline) else { return nil }
        }
    }

    /// Forgets what was received.
    public func reset() {
        condition.lock()
        signals.removeAll()
        condition.unlock()
    }
}
