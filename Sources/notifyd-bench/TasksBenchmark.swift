import DBus
import Glibc
import NotifyCore
import NotifyTestingCore
import Synchronization

/// Background tasks' cost: how long from sending `BeginBackgroundTask` until
/// systemd-logind is asked for the sleep lock (`Inhibit` arriving at a
/// stand-in logind on a second private bus, notifyd's system bus), against
/// a `Peer.Ping` round trip to notifyd; then the same for the lock's
/// release after `EndBackgroundTask` (the descriptor closed in notifyd).
/// On a notifyd and two buses of its own.
struct TasksBenchmark {
    let programs: BenchPrograms
    let scratch: ScratchDirectory
    let tasks: Int

    struct Result {
        let ping: LatencySummary
        let lockTaken: LatencySummary
        let lockReleased: LatencySummary
        let tasks: Int
    }

    func run() throws(BenchFailure) -> Result {
        let directory = try scratch.subdirectory("tasks")
        let system = try programs.bus(in: try directory.subdirectory("system"))
        defer { system.stop(graceSeconds: 2) }
        let logind = try StandInLogind(address: system.address)
        defer { logind.stop() }
        let daemon = try BenchDaemon(
            programs: programs, in: try directory.subdirectory("session"), name: "The tasks notifyd",
            systemBus: .address(system.address))
        defer { daemon.stop() }
        return try daemon.measure { daemon throws(BenchFailure) in try measure(daemon.connection, logind: logind) }
    }

    private func measure(_ connection: DBusConnection, logind: StandInLogind) throws(BenchFailure) -> Result {
        var ping = LatencySamples(reservingCapacity: tasks)
        var taken = LatencySamples(reservingCapacity: tasks)
        var released = LatencySamples(reservingCapacity: tasks)
        for index in 0..<(tasks + 10) {
            let pingStart = MonotonicClock.nanoseconds()
            _ = try call(connection, "org.freedesktop.DBus.Peer", "Ping", [])
            let pingTime = MonotonicClock.nanoseconds() - pingStart
            let start = MonotonicClock.nanoseconds()
            let reply = try call(
                connection, NotifydNames.tasksInterface, "BeginBackgroundTask",
                [.string("org.notifyd.bench.Task"), .string("task \(index)")])
            guard case .uint64(let id)? = reply.first else { throw BenchFailure("BeginBackgroundTask answered \(reply)") }
            let asked = try logind.waitForCall(index + 1, seconds: 10) - start
            let endStart = MonotonicClock.nanoseconds()
            _ = try call(connection, NotifydNames.tasksInterface, "EndBackgroundTask", [.uint64(id)])
            let closed = try logind.waitUntilReleased(index, seconds: 10) - endStart
            if index >= 10 {  // the first ten warm up (and connect notifyd to the system bus)
                ping.append(pingTime)
                taken.append(asked)
                released.append(closed)
            }
        }
        return Result(ping: ping.summary(), lockTaken: taken.summary(), lockReleased: released.summary(), tasks: tasks)
    }

    private func call(
        _ connection: DBusConnection, _ interface: String, _ member: String, _ arguments: [DBusValue]
    ) throws(BenchFailure) -> [DBusValue] {
        do {
            return try connection.call(
                destination: NotifydNames.busName, path: NotifydNames.objectPath, interface: interface,
                member: member, arguments)
        } catch {
            throw BenchFailure("\(member) failed: \(error)")
        }
    }
}

/// systemd-logind's `Inhibit` on the stand-in system bus: answers each call
/// with the write end of a new pipe and keeps the read end, whose hang-up
/// says when notifyd closed its descriptor. Records when each call arrived.
final class StandInLogind: Sendable {
    private let thread: LoopThread
    private let record = Record()
    private let owned = LoopOwned<DBusConnection>()

    /// What the loop thread records and the benchmark reads.
    private final class Record: Sendable {
        let arrivals = Mutex<[UInt64]>([])
        let readEnds = Mutex<[Int32]>([])
    }

    init(address: String) throws(BenchFailure) {
        do {
            thread = try LoopThread(name: "bench-logind")
            let record = self.record, owned = self.owned, loop = thread.loop
            try thread.sync {
                let connection = try DBusConnection.connect(to: .address(address), private: true)
                try connection.attach(to: loop)
                let inhibit = DBusMethod(
                    "Inhibit", inputs: [.init("what", .string), .init("who", .string), .init("why", .string), .init("mode", .string)],
                    outputs: [.init("fd", .unixFD)]
                ) { _ in
                    var ends: [Int32] = [0, 0]
                    guard pipe(&ends) == 0 else { throw DBusError.failed("pipe failed") }
                    for fd in ends { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
                    record.readEnds.withLock { $0.append(ends[0]) }
                    record.arrivals.withLock { $0.append(MonotonicClock.nanoseconds()) }
                    return .reply([.unixFD(DBusFileDescriptor(ends[1], owned: true))])
                }
                try connection.export(DBusObject(
                    path: "/org/freedesktop/login1",
                    interfaces: [DBusInterface("org.freedesktop.login1.Manager", methods: [inhibit])]))
                guard try connection.requestName("org.freedesktop.login1") == .primaryOwner else {
                    throw DBusError.failed("org.freedesktop.login1 is taken")
                }
                owned.value = connection
            }
        } catch {
            throw BenchFailure("cannot start the stand-in logind: \(error)")
        }
    }

    /// When the `count`-th Inhibit arrived, waiting (bounded) for it.
    func waitForCall(_ count: Int, seconds: Double) throws(BenchFailure) -> UInt64 {
        var arrived: UInt64?
        do {
            try waitUntil("Inhibit call \(count) arrives", seconds: seconds, intervalMicroseconds: 20) {
                arrived = record.arrivals.withLock { $0.count >= count ? $0[count - 1] : nil }
                return arrived != nil
            }
        } catch {
            throw BenchFailure("\(error)")
        }
        return arrived ?? 0
    }

    /// When lock `index` was seen released (its pipe hung up), waiting (bounded).
    func waitUntilReleased(_ index: Int, seconds: Double) throws(BenchFailure) -> UInt64 {
        guard let fd = record.readEnds.withLock({ index < $0.count ? $0[index] : nil }) else {
            throw BenchFailure("no lock \(index) was handed out")
        }
        do {
            try waitUntil("lock \(index) is released", seconds: seconds, intervalMicroseconds: 20) {
                var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                return poll(&entry, 1, 0) > 0 && entry.revents & Int16(POLLHUP) != 0
            }
        } catch {
            throw BenchFailure("\(error)")
        }
        return MonotonicClock.nanoseconds()
    }

    func stop() {
        let owned = self.owned
        try? thread.sync { owned.value = nil }
        thread.stop()
        for fd in record.readEnds.withLock({ $0 }) { close(fd) }
    }
}

extension BenchReport {
    mutating func addTasks(_ result: TasksBenchmark.Result) {
        rows += ReportRow.latencies(
            "task_lock_taken", "BeginBackgroundTask to Inhibit at logind", result.lockTaken, against: "Peer.Ping",
            result.ping, [.p50, .p99])
        rows += ReportRow.latencies(
            "task_lock_released", "EndBackgroundTask to the lock closed", result.lockReleased, against: "Peer.Ping",
            result.ping, [.p50])
        notes.append(
            "Tasks: \(result.tasks) tasks begun and ended one after another (after 10 to warm up), on a notifyd whose "
                + "system bus is a second private bus with a stand-in logind; taken = from sending BeginBackgroundTask "
                + "to Inhibit arriving at logind (the lock is held once logind answers it); released = from sending "
                + "EndBackgroundTask to the descriptor's pipe hanging up at logind (polled every 20 µs).")
    }
}
