import DBus
import NotifyCore
import NotifyTestingCore

/// The slow-disk section's writer: a thread with a connection of its own
/// calling `Badges.IncrementBadge(app, 1)` in a loop, each a blocking call
/// that waits for its reply (notifyd replies once the batch holding the
/// change is on disk), until ``stop()``.
///
/// Its app is its own, badge 0 at the start, so the badge notifyd holds at
/// the end must equal the increments answered.
final class BadgeWriter {
    static let appID = "org.notifyd.Bench.SlowDisk.Writer"

    /// What the thread has seen so far.
    struct Tally: Sendable {
        /// IncrementBadge calls answered with a count.
        var answered = 0
        /// Answers that were not the count before plus one.
        var wrongCounts = 0
        /// The last count answered.
        var lastCount: UInt32 = 0
        /// Error replies, by error name.
        var errors: [String: Int] = [:]
        var firstError: String?
        /// Why the thread could not start (it connects on its own).
        var setUpFailure: String?

        var errorCount: Int { errors.values.reduce(0, +) }
    }

    private let stopFlag = StopFlag()
    private let tallies = Locked(Tally())
    private let thread: ClientThreads

    /// Starts the thread on the bus at `address`.
    init(address: String) throws(BenchFailure) {
        let (stopFlag, tallies) = (self.stopFlag, self.tallies)
        thread = try ClientThreads(count: 1, onFailure: {}) { _ in
            Self.write(address: address, until: stopFlag, into: tallies)
        }
    }

    deinit { stop() }

    /// The figures so far.
    var tally: Tally { tallies.value }

    /// Waits (bounded) until `count` calls were answered: the thread has connected and writes.
    func waitForAnswers(_ count: Int, seconds: Double) throws(BenchFailure) {
        do {
            try waitUntil("the writer's first \(count) IncrementBadge calls are answered", seconds: seconds, intervalMicroseconds: 1_000) {
                let tally = tallies.value
                if let failure = tally.setUpFailure ?? tally.firstError { throw BenchFailure("the writer: \(failure)") }
                return tally.answered >= count
            }
        } catch {
            throw BenchFailure("\(error)")
        }
    }

    /// Stops the thread after its call in progress, and joins it.
    func stop() {
        stopFlag.raise()
        thread.join()
    }

    private static func write(address: String, until stopFlag: StopFlag, into tallies: Locked<Tally>) {
        let connection: DBusConnection
        do {
            connection = try DBusConnection.connect(to: .address(address), private: true)
        } catch {
            tallies.withLock { $0.setUpFailure = "cannot connect: \(error)" }
            return
        }
        while !stopFlag.isRaised {
            do {
                let count: UInt32 = try connection.call(
                    destination: NotifydNames.busName, path: NotifydNames.objectPath,
                    interface: NotifydNames.badgesInterface, member: "IncrementBadge", [.string(appID), .int32(1)]
                ).decode(0)
                tallies.withLock {
                    if count != $0.lastCount &+ 1 { $0.wrongCounts += 1 }
                    $0.answered += 1
                    $0.lastCount = count
                }
            } catch {
                tallies.withLock {
                    $0.errors[error.name, default: 0] += 1
                    if $0.firstError == nil { $0.firstError = "\(error)" }
                }
            }
        }
    }
}
