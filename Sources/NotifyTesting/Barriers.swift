import DBus
import Foundation

// Barriers on what the bus carries, in place of fixed pauses.

extension DBusMonitor {
    /// Waits (bounded) until the bus has routed a message that satisfies
    /// `predicate`; returns it. Messages before it are dropped.
    ///
    /// Once the bus has routed a message, everything a connection sends
    /// after it reaches each receiver after it: a barrier on ordering.
    @discardableResult
    public func waitFor(_ what: String, seconds: Double = 5, _ predicate: (DBusMessage) -> Bool) throws -> DBusMessage {
        let deadline = Date(timeIntervalSinceNow: seconds)
        while true {
            let left = Int32(max(0, deadline.timeIntervalSinceNow) * 1000)
            guard let message = try next(timeoutMilliseconds: left) else {
                throw TestFailure("the bus did not carry \(what) within \(seconds) s")
            }
            if predicate(message) { return message }
        }
    }
}

/// Barrier for a ``SignalRecorder``: `connection` emits `marker` (a signal
/// the recorder's rules match) and the recorder waits for it. Each
/// connection's messages reach the recorder in the order the bus routed
/// them, so every signal the bus routed before (such as one a daemon sent
/// before answering a call `connection` made) has then been recorded.
public func drain(
    _ recorder: SignalRecorder, with connection: DBusConnection,
    marker: (path: String, interface: String, member: String, arguments: [DBusValue]), seconds: Double = 5
) throws {
    try connection.emitSignal(path: marker.path, interface: marker.interface, member: marker.member, marker.arguments)
    connection.flush()
    guard recorder.wait(seconds: seconds, until: {
        $0.interface == marker.interface && $0.member == marker.member && $0.arguments == marker.arguments
    }) != nil else {
        throw TestFailure("the recorder did not see the marker \(marker.member)\(marker.arguments) within \(seconds) s")
    }
}
