import DBus
import Glibc
import NotifyCore
import NotifyTestingCore

/// The limits section's clients: connections of their own to the section's
/// bus, each driven by a thread of its own with blocking calls, so that
/// notifyd's group commit answers many calls per `fdatasync`, as it does
/// for many apps at once.
///
/// The connections stay open between phases (a task belongs to the
/// connection that began it, an app state to the one that reported it)
/// until ``close()``.
final class LimitsClients: @unchecked Sendable {
    /// `@unchecked Sendable`: during ``run(_:count:build:)`` connection `i`
    /// is used by thread `i` alone; between runs, by the caller's thread alone.
    private var connections: [DBusConnection] = []

    /// What a run of calls gave: how many were answered, the replies'
    /// first `t` arguments where there is one (by index), the errors.
    struct Outcome {
        var answered = 0
        var errors: [String: Int] = [:]
        var errorExample: String?
        var numbers: [Int: UInt64] = [:]
        var nanoseconds: UInt64 = 0

        var rate: Double { nanoseconds > 0 ? Double(answered) / (Double(nanoseconds) / 1e9) : 0 }
    }

    init(count: Int, address: String) throws(BenchFailure) {
        for index in 0..<count {
            do {
                connections.append(try DBusConnection.connect(to: .address(address), private: true))
            } catch {
                close()
                throw BenchFailure("limits client \(index + 1) of \(count) cannot connect: \(error)")
            }
        }
    }

    /// Makes call `build(i)` for every `i` in `0..<count`, spread over the
    /// connections (`i` modulo their number, in order on each), and waits
    /// for every reply. A reply's first argument is kept when it is a `t`
    /// (handler, fetch and task IDs) and `keepNumbers` is set.
    func run(
        _ what: String, count: Int, keepNumbers: Bool = false,
        build: @escaping @Sendable (Int) throws -> DBusMessage
    ) throws(BenchFailure) -> Outcome {
        try runEach(what, count: count) { connection, index in
            let reply = try connection.call(try build(index), timeoutMilliseconds: 120_000)
            guard keepNumbers, case .uint64(let number)? = try reply.arguments().first else { return nil }
            return number
        }
    }

    /// Runs `perform(connection, i)` for every `i` in `0..<count` on the
    /// connection of index `i` modulo their number, in order on each, each
    /// connection on a thread of its own; waits for all. A number `perform`
    /// returns is kept by `i`.
    func runEach(
        _ what: String, count: Int, perform: @escaping @Sendable (DBusConnection, Int) throws -> UInt64?
    ) throws(BenchFailure) -> Outcome {
        let threads = min(connections.count, max(1, count))
        let results = ResultSlots(count: threads)
        let start = MonotonicClock.nanoseconds()
        var started: [PosixThread] = []
        for thread in 0..<threads {
            let connection = UncheckedConnection(connections[thread])
            do {
                started.append(
                    try PosixThread {
                        var outcome = Outcome()
                        var index = thread
                        while index < count {
                            do {
                                if let number = try perform(connection.value, index) { outcome.numbers[index] = number }
                                outcome.answered += 1
                            } catch {
                                let name = (error as? DBusError)?.name ?? "\(type(of: error))"
                                outcome.errors[name, default: 0] += 1
                                if outcome.errorExample == nil { outcome.errorExample = "\(what) #\(index): \(error)" }
                            }
                            index += threads
                        }
                        results.store(outcome, at: thread)
                    })
            } catch {
                for thread in started { thread.join() }
                throw BenchFailure("cannot start a limits client thread: \(error)")
            }
        }
        for thread in started { thread.join() }
        var total = Outcome()
        total.nanoseconds = MonotonicClock.nanoseconds() - start
        for outcome in results.all() {
            total.answered += outcome.answered
            total.numbers.merge(outcome.numbers) { first, _ in first }
            for (name, count) in outcome.errors { total.errors[name, default: 0] += count }
            if total.errorExample == nil { total.errorExample = outcome.errorExample }
        }
        return total
    }

    /// Closes every connection: notifyd sees the clients leave the bus.
    func close() {
        for connection in connections { connection.close() }
        connections = []
    }

    /// A method call on notifyd's object.
    static func call(_ interface: String, _ member: String, _ arguments: [DBusValue]) throws -> DBusMessage {
        try DBusMessage.methodCall(
            destination: NotifydNames.busName, path: NotifydNames.objectPath, interface: interface,
            member: member, arguments: arguments)
    }
}

/// A connection handed to one client thread.
private struct UncheckedConnection: @unchecked Sendable {
    let value: DBusConnection
    init(_ value: DBusConnection) { self.value = value }
}

/// One outcome per client thread, written by that thread, read after the join.
private final class ResultSlots: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var slots: [LimitsClients.Outcome?]

    init(count: Int) {
        slots = Array(repeating: nil, count: count)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func store(_ outcome: LimitsClients.Outcome, at index: Int) {
        pthread_mutex_lock(mutex)
        slots[index] = outcome
        pthread_mutex_unlock(mutex)
    }

    func all() -> [LimitsClients.Outcome] {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return slots.compactMap { $0 }
    }
}
