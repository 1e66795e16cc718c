import DBus
import Glibc
import NotifyCore
import NotifyTestingCore

/// Cold start by D-Bus activation, to the first reply, against the same
/// call on the running daemon.
///
/// It runs on a bus of its own (a third `dbus-daemon`, same configuration
/// plus a service directory), so that the notifyd the other sections
/// measure keeps running. The service directory holds an activation file
/// for `org.notifyd.Notifyd1` whose `Exec` is this build's notifyd with a
/// state directory of the section's own: the same one for every run, made
/// by an untimed first activation that creates the database and sets the
/// badge read, so each timed start opens an existing database as a
/// desktop's notifyd does at log-in.
///
/// Each run: the name has no owner; `GetBadge` is sent with auto-start and
/// timed from the send to its reply (the bus starts notifyd, notifyd
/// connects, registers its object, takes the name, the bus hands it the
/// call); then, after a pause for notifyd's own start-up work, the same call
/// is timed on the now running daemon; then notifyd is stopped with SIGTERM
/// and the run waits until the name is gone and the process has ended.
///
/// The bus's environment, which activated services inherit, is the
/// benchmark's without a bus address of its own: the bus gives them its
/// own address, as a session bus does.
struct ColdStartBenchmark {
    let programs: BenchPrograms
    let scratch: ScratchDirectory
    let runs: Int

    /// Calls timed on the running daemon after each cold start (after one untimed).
    static let warmCallsPerRun = 10
    /// The pause between the first reply and the calls on the running daemon.
    static let settleSeconds = 0.25
    /// How long a start or a stop may take.
    static let timeoutSeconds = 30.0

    struct Result {
        /// Send to reply of the call that started notifyd.
        let cold: LatencySummary
        /// The same call on the running daemon.
        let warm: LatencySummary
        /// SIGTERM to the name gone from the bus.
        let stop: LatencySummary
        /// The untimed first activation, which created the database.
        let firstStart: UInt64
        let stateDirectory: String
    }

    func run() throws(BenchFailure) -> Result {
        let directory = try scratch.subdirectory("cold-start")
        let state = try directory.makeSubdirectory("state")
        let bus = try programs.bus(in: directory, services: true)
        defer { bus.stop(graceSeconds: 2) }
        try bus.installService(name: NotifydNames.busName, executable: programs.notifyd, arguments: ["--state-dir", state])
        let connection: DBusConnection
        do {
            connection = try DBusConnection.connect(to: .address(bus.address), private: true)
        } catch {
            throw BenchFailure("cannot connect to the cold-start bus: \(error)")
        }
        let activated = ActivatedDaemon(connection: connection, busLog: bus.logPath)
        defer { activated.stopIfRunning() }

        let firstStart = try MonotonicClock.measure { () throws(BenchFailure) in
            _ = try activated.call("SetBadge", [.string(BenchRun.appID), .uint32(BenchRun.badge)], autoStart: true)
        }
        try activated.stop(timeoutSeconds: Self.timeoutSeconds)
        var cold = LatencySamples(reservingCapacity: runs)
        var warm = LatencySamples(reservingCapacity: runs * Self.warmCallsPerRun)
        var stops = LatencySamples(reservingCapacity: runs)
        for _ in 0..<runs {
            cold.append(try timeGetBadge(activated, autoStart: true))
            MonotonicClock.sleep(seconds: Self.settleSeconds)
            _ = try timeGetBadge(activated, autoStart: false)
            for _ in 0..<Self.warmCallsPerRun { warm.append(try timeGetBadge(activated, autoStart: false)) }
            stops.append(try activated.stop(timeoutSeconds: Self.timeoutSeconds))
        }
        return Result(
            cold: cold.summary(), warm: warm.summary(), stop: stops.summary(), firstStart: firstStart,
            stateDirectory: state)
    }

    /// One GetBadge, its message built before the clock starts; checks the answer.
    private func timeGetBadge(_ activated: ActivatedDaemon, autoStart: Bool) throws(BenchFailure) -> UInt64 {
        var answer: [DBusValue] = []
        let elapsed = try activated.timedCall("GetBadge", [.string(BenchRun.appID)], autoStart: autoStart) { answer = $0 }
        guard answer == [.uint32(BenchRun.badge)] else {
            throw BenchFailure("GetBadge(\(BenchRun.appID)) on the activated notifyd answered \(answer), not \(BenchRun.badge).")
        }
        return elapsed
    }
}
