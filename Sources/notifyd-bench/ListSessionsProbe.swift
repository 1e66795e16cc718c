import DBus
import Glibc
import NotifyCore
import NotifyTestingCore
import Synchronization

/// Another caller of notifyd while `ListSessions` runs: a thread with a
/// connection of its own making `GetBadge` calls one after another, timing
/// each. The slowest of them is as long as notifyd's loop was held at once
/// (plus a round trip): a call that arrives while the loop works waits for
/// the piece of work in progress.
final class ListSessionsProbe: Sendable {
    /// The app whose badge the probe reads (it has none: the badge is 0).
    static let appID = "org.notifyd.BenchList.Probe"

    private let address: String
    private let stopRequested = Atomic<Bool>(false)
    private let calls = Atomic<Int>(0)
    private let samples = Mutex<[UInt64]>([])
    private let failure = Mutex<String?>(nil)
    private let threads = Mutex<ClientThreadsBox?>(nil)

    init(address: String) {
        self.address = address
    }

    /// Starts the thread; it calls until ``stop()``, or `limit` calls.
    func start(limit: Int = .max) throws(BenchFailure) {
        let thread = try ClientThreads(count: 1, onFailure: {}) { [self] _ in run(limit: limit) }
        threads.withLock { $0 = ClientThreadsBox(thread) }
    }

    /// Calls made so far.
    var callCount: Int { calls.load(ordering: .relaxed) }

    /// Stops and joins the thread; the round trips, in nanoseconds, in order.
    func stop() throws(BenchFailure) -> [UInt64] {
        stopRequested.store(true, ordering: .relaxed)
        threads.withLock { $0?.threads.join() }
        if let failure = failure.withLock({ $0 }) { throw BenchFailure("the probe's GetBadge failed: \(failure)") }
        return samples.withLock { $0 }
    }

    /// Waits until the thread has made `count` calls (it has connected and warmed up).
    func waitForCalls(_ count: Int) {
        while callCount < count && failure.withLock({ $0 }) == nil { usleep(1_000) }
    }

    private func run(limit: Int) {
        let connection: DBusConnection
        let message: () throws(DBusError) -> DBusMessage = {
            try DBusMessage.methodCall(
                destination: NotifydNames.busName, path: NotifydNames.objectPath,
                interface: NotifydNames.badgesInterface, member: "GetBadge", arguments: [.string(Self.appID)])
        }
        do {
            connection = try DBusConnection.connect(to: .address(address), private: true)
        } catch {
            failure.withLock { $0 = "cannot connect: \(error)" }
            return
        }
        var taken: [UInt64] = []
        taken.reserveCapacity(100_000)
        while !stopRequested.load(ordering: .relaxed) && taken.count < limit {
            do {
                let call = try message()  // built before the clock starts
                let start = MonotonicClock.nanoseconds()
                _ = try connection.call(call, timeoutMilliseconds: 60_000)
                taken.append(MonotonicClock.nanoseconds() - start)
                calls.add(1, ordering: .relaxed)
            } catch {
                failure.withLock { $0 = "\(error)" }
                break
            }
        }
        let result = taken
        samples.withLock { $0 = result }
    }
}

/// Lets the probe keep its thread handle (joined from the main thread).
final class ClientThreadsBox: @unchecked Sendable {
    // @unchecked: created and joined by the main thread only.
    let threads: ClientThreads

    init(_ threads: ClientThreads) {
        self.threads = threads
    }
}
