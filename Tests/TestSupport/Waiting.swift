import Foundation

/// Waits (bounded) until `condition` holds, checking every 20 ms: a
/// barrier on what the test can observe, never a fixed sleep.
///
/// - Throws: ``TestFailure`` naming `what` when `seconds` pass first.
public func waitUntil(_ what: String, seconds: Double = 20, _ condition: () throws -> Bool) throws {
    let deadline = Date(timeIntervalSinceNow: seconds)
    while try !condition() {
        guard Date() < deadline else { throw TestFailure("timed out waiting until \(what)") }
        usleep(20_000)
    }
}
