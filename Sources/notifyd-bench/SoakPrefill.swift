import DBus
import NotifyCore
import NotifyTestingCore

/// Fills the stores notifyd keeps bounded, for the soak's apps, to their
/// caps: each app's activation history (the newest 1000), its fetch
/// history (the newest 100) and the finished sessions kept (1000), all
/// through the bus. A soak that began with them empty would see them fill
/// (a rise that levels off by design) and could not tell a leak from it.
struct SoakPrefill {
    let address: String
    let apps: [String]
    let threads: Int

    /// The caps, read from NotifyCore (the books that keep them).
    static let activationsPerApp = AppBook.activationsKeptPerApp
    static let fetchesPerApp = FetchBook.historyKeptPerApp
    static let sessions = SessionBook.finishedSessionsKept

    struct Result {
        let calls: Int
        let seconds: Double
    }

    func run() throws(BenchFailure) -> Result {
        let failures = Locked<[String]>([])
        let calls = Locked(0)
        let (apps, threadCount, address) = (apps, threads, address)
        let started = MonotonicClock.nanoseconds()
        let workers = try ClientThreads(count: threads, onFailure: {}) { index in
            do {
                let made = try Self.fill(
                    apps: stride(from: index, to: apps.count, by: threadCount).map { apps[$0] },
                    sessions: Self.sessions / threadCount + 1, thread: index, address: address)
                calls.withLock { $0 += made }
            } catch {
                failures.withLock { $0.append("prefill thread \(index + 1): \(error)") }
            }
        }
        workers.join()
        if let failure = failures.withLock({ $0.first }) { throw BenchFailure(failure) }
        return Result(
            calls: calls.value, seconds: Double(MonotonicClock.nanoseconds() - started) / 1e9)
    }

    private static func fill(apps: [String], sessions: Int, thread: Int, address: String) throws -> Int {
        let connection = try DBusConnection.connect(to: .address(address), private: true)
        var made = 0
        func call(_ interface: String, _ member: String, _ arguments: [DBusValue]) throws -> [DBusValue] {
            made += 1
            return try connection.call(
                destination: NotifydNames.busName, path: NotifydNames.objectPath, interface: interface,
                member: member, arguments)
        }
        for app in apps {
            for _ in 0..<activationsPerApp {
                _ = try call(NotifydNames.appsInterface, "DidBecomeActive", [.string(app)])
            }
            _ = try call(NotifydNames.appsInterface, "WillResignActive", [.string(app)])
            for _ in 0..<fetchesPerApp {
                let id: UInt64 = try call(NotifydNames.fetchInterface, "FetchNow", [.string(app)]).decode(0)
                _ = try call(NotifydNames.fetchInterface, "CompleteFetch", [.uint64(id), .string("no-data")])
            }
        }
        guard let app = apps.first else { return made }
        for number in 0..<sessions {
            let session = "soak-prefill-\(thread)-\(number)"
            let event: [String: DBusValue] = ["title": .string("prefill.iso"), "notify": .boolean(false)]
            _ = try call(NotifydNames.sessionsInterface, "HandleEventsForBackgroundSession", [.string(session), .string(app), .vardict(event)])
            _ = try call(NotifydNames.sessionsInterface, "CompleteSession", [.string(session)])
        }
        _ = try call(NotifydNames.badgesInterface, "ClearAllBadges", [])
        return made
    }
}
