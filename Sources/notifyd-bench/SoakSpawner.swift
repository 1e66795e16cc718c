import Glibc
import NotifyCore
import NotifyTestingCore

/// The short-lived callers of the soak section: one process after another
/// (each waited for), as hooks and scripts call notifyd, each leaving the
/// bus right after its message, so that every one is a new connection
/// notifyd must identify and then forget:
/// - `gdbus emit` of a worker event (its handler left to expire after 10 s;
///   no badge, so that no LauncherEntry connection comes and goes),
/// - `busctl call GetBadge`,
/// - `busctl call BeginBackgroundTask`, whose task is abandoned when
///   busctl leaves,
/// - `gdbus call DidBecomeActive`, whose state ends when gdbus leaves.
struct SoakSpawner {
    let gdbus: String?
    let busctl: String?
    let environment: [String: String]

    /// Apps the spawned callers act for.
    static let apps = (0..<4).map { "org.notifyd.Soak.Spawned.A\($0)" }

    struct Counts: Sendable {
        var spawned = 0
        /// Exited with a status other than 0 (or could not start), by program.
        var failed: [String: Int] = [:]
        var example: String?
    }

    /// Runs callers until `stop` is set, at most one every `interval` seconds.
    func run(interval: Double, stop: StopFlag, counts: Locked<Counts>) {
        var number = 0
        while !stop.isRaised {
            let started = MonotonicClock.nanoseconds()
            number += 1
            if let (program, arguments) = command(number) {
                let status: String?
                do {
                    let (termination, output) = try BenchPrograms.run(program, arguments, environment: environment)
                    status = termination == .exited(0) ? nil : "\(termination): \(output.prefix(300))"
                } catch {
                    status = "\(error)"
                }
                counts.withLock { counts in
                    counts.spawned += 1
                    if let status {
                        let name = String(program.split(separator: "/").last ?? "")
                        counts.failed[name, default: 0] += 1
                        counts.example = counts.example ?? "\(name) \(arguments.joined(separator: " ")): \(status)"
                    }
                }
            }
            let elapsed = Double(MonotonicClock.nanoseconds() - started) / 1e9
            if elapsed < interval { MonotonicClock.sleep(seconds: interval - elapsed) }
        }
    }

    /// The `number`th caller; nil when its program is not installed.
    private func command(_ number: Int) -> (String, [String])? {
        let app = Self.apps[number % Self.apps.count]
        let (bus, path) = (NotifydNames.busName, NotifydNames.objectPath)
        switch number % 4 {
        case 0:
            return gdbus.map {
                (
                    $0,
                    [
                        "emit", "--session", "--object-path", "/org/notifyd/SoakWorker", "--signal",
                        "org.notifyd.Notifyd1.Worker.EventsForBackgroundSession", "soak-spawned-\(number)", app,
                        "{'title': <'spawned-\(number).iso'>, 'timeout': <uint32 10>, 'notify': <false>, 'badge': <0>}",
                    ]
                )
            }
        case 1:
            return busctl.map { ($0, ["--user", "call", bus, path, NotifydNames.badgesInterface, "GetBadge", "s", app]) }
        case 2:
            return busctl.map {
                ($0, ["--user", "call", bus, path, NotifydNames.tasksInterface, "BeginBackgroundTask", "ss", app, "hook"])
            }
        default:
            return gdbus.map {
                (
                    $0,
                    [
                        "call", "--session", "--dest", bus, "--object-path", path, "--method",
                        "\(NotifydNames.appsInterface).DidBecomeActive", app,
                    ]
                )
            }
        }
    }
}
