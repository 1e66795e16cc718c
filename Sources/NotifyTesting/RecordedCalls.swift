import Foundation

/// Calls a fake peer recorded on its loop thread, read by the test's
/// thread, with a bounded wait for a count: the part every fake service of
/// the tests needs.
public final class RecordedCalls<Call: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var recorded: [Call] = []

    public init() {}

    /// Records a call and wakes the waiters.
    public func append(_ call: Call) {
        condition.lock()
        recorded.append(call)
        condition.broadcast()
        condition.unlock()
    }

    /// Every call so far, in order.
    public var all: [Call] {
        condition.lock()
        defer { condition.unlock() }
        return recorded
    }

    /// Waits until `count` calls were recorded (at most `seconds`), then
    /// returns them all; throws naming `peer` and what it got otherwise.
    @discardableResult
    public func wait(count: Int, seconds: Double = 20, peer: String) throws -> [Call] {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while recorded.count < count {
            guard condition.wait(until: deadline) else {
                throw TestFailure("\(peer) got \(recorded.count) call(s), not \(count), within \(seconds) s: \(recorded)")
            }
        }
        return recorded
    }
}
