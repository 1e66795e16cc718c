import DBus
import NotifyTestingCore

/// The burst of worker signals the events section sends, to notifyd and to
/// the bare receiver alike: `count` times
/// `org.notifyd.Notifyd1.Worker.EventsForBackgroundSession("bench-N", APP, {"title": <"file-N">})`
/// (kind `finished` by default: one handler, one badge and one popup
/// each), from one connection, as fast as it can.
struct EventBurst {
    static let workerInterface = "org.notifyd.Notifyd1.Worker"
    static let member = "EventsForBackgroundSession"
    /// The object path the signals come from (any path will do, SPEC "Names").
    static let path = "/org/notifyd/Bench"
    /// The one app every event is for.
    static let appID = "org.notifyd.BenchEvents"
    /// The match rule notifyd subscribes with, and so the receiver too.
    static let matchRule = DBusMatchRule(interface: workerInterface, member: member)

    /// Signals sent, 1 to 10,000 (notifyd keeps at most 10,000 pending handlers per app).
    let count: Int

    /// When a burst was sent, in `MonotonicClock` nanoseconds.
    struct Timing {
        /// Just before the first message was queued.
        let start: UInt64
        /// When `flush` returned: every message was written to the bus.
        let flushed: UInt64

        var sendNanoseconds: UInt64 { flushed - start }
    }

    /// The messages, each new (libdbus locks a sent message), built before
    /// any clock starts so that the timing covers sending only.
    func messages() throws(BenchFailure) -> [DBusMessage] {
        var messages: [DBusMessage] = []
        messages.reserveCapacity(count)
        for index in 1...count {
            do {
                messages.append(
                    try DBusMessage.signal(
                        path: Self.path, interface: Self.workerInterface, member: Self.member,
                        arguments: [
                            .string("bench-\(index)"), .string(Self.appID), .vardict(["title": .string("file-\(index)")]),
                        ]))
            } catch {
                throw BenchFailure("cannot build the worker signal: \(error)")
            }
        }
        return messages
    }

    /// A connection of its own for sending, to the bus at `address`.
    static func sender(address: String) throws(BenchFailure) -> DBusConnection {
        do {
            return try DBusConnection.connect(to: .address(address), private: true)
        } catch {
            throw BenchFailure("cannot connect a sender to \(address): \(error)")
        }
    }

    /// Queues every message on `connection` (libdbus writes what the socket
    /// takes at once and queues the rest), then flushes.
    static func send(_ messages: [DBusMessage], on connection: DBusConnection) throws(BenchFailure) -> Timing {
        let start = MonotonicClock.nanoseconds()
        for message in messages {
            do {
                try connection.send(message)
            } catch {
                throw BenchFailure("cannot send a worker signal: \(error)")
            }
        }
        connection.flush()
        return Timing(start: start, flushed: MonotonicClock.nanoseconds())
    }
}
