import DBus
import Glibc
import NotifyTestingCore

/// notifyd's names on the bus (SPEC "Names"), spelled out here so the
/// benchmark depends on nothing but the DBus module.
enum NotifydBusNames {
    static let busName = "org.notifyd.Notifyd1"
    static let objectPath = "/org/notifyd/Notifyd1"
    static let badgesInterface = "org.notifyd.Notifyd1.Badges"
    static let appsInterface = "org.notifyd.Notifyd1.Apps"
    static let sessionsInterface = "org.notifyd.Notifyd1.Sessions"
    static let fetchInterface = "org.notifyd.Notifyd1.Fetch"
    static let daemonInterface = "org.notifyd.Notifyd1.Daemon"
    static let tasksInterface = "org.notifyd.Notifyd1.Tasks"
}

/// The notifyd under measurement: started on the private bus with a fresh
/// state directory, its log in the scratch directory.
struct NotifydProcess {
    let process: ChildProcess
    /// Where notifyd's standard output and error go.
    let logPath: String

    var pid: pid_t { process.pid }

    /// Starts `notifyd --state-dir DIR` with the private bus as its session bus.
    init(notifyd: String, stateDirectory: String, logPath: String, environment: [String]) throws(BenchFailure) {
        self.logPath = logPath
        process = try ChildProcess.spawn(
            notifyd, ["--state-dir", stateDirectory], environment: environment, output: .file(logPath))
    }

    /// Polls `NameHasOwner` until notifyd owns its name, then checks that the
    /// owner is this process (not some other notifyd).
    func waitUntilServing(on connection: DBusConnection, timeoutSeconds: Double = 10) throws(BenchFailure) {
        let deadline = MonotonicClock.nanoseconds() + UInt64(timeoutSeconds * 1e9)
        while true {
            let owned: Bool
            do {
                owned = try connection.callBus("NameHasOwner", [.string(NotifydBusNames.busName)]).decode(0)
            } catch {
                throw BenchFailure("NameHasOwner failed on the private bus: \(error)")
            }
            if owned { break }
            if process.poll() != nil {
                throw BenchFailure("notifyd ended before it owned \(NotifydBusNames.busName).")  // The caller adds the log.
            }
            guard MonotonicClock.nanoseconds() < deadline else {
                throw BenchFailure(
                    "notifyd did not own \(NotifydBusNames.busName) within \(Int(timeoutSeconds)) s. \(logTail())")
            }
            usleep(5_000)
        }
        let ownerPID = try? connection.unixProcessID(of: NotifydBusNames.busName)
        guard ownerPID == UInt32(pid) else {
            throw BenchFailure("\(NotifydBusNames.busName) is owned by process \(ownerPID.map(String.init) ?? "?"), not by the notifyd started (\(pid)).")
        }
    }

    /// Stops notifyd: `SIGTERM`, then `SIGKILL` after 5 s.
    @discardableResult
    func stop() -> ChildProcess.Termination {
        process.terminate(graceSeconds: 5)
    }

    /// The end of notifyd's log, for error messages.
    func logTail(lines: Int = 20) -> String {
        let log = ProcReader.readFile(logPath) ?? ""
        let tail = log.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
        return tail.isEmpty ? "notifyd logged nothing." : "notifyd's log ends:\n\(tail)"
    }
}

extension DBusConnection {
    /// notifyd's `PendingHandlers` property, read over this connection.
    func notifydPendingHandlers(timeoutMilliseconds: Int32 = -1) throws(BenchFailure) -> Int {
        do {
            let value = try call(
                destination: NotifydBusNames.busName, path: NotifydBusNames.objectPath,
                interface: "org.freedesktop.DBus.Properties", member: "Get",
                [.string(NotifydBusNames.daemonInterface), .string("PendingHandlers")],
                timeoutMilliseconds: timeoutMilliseconds
            ).decode(0, as: DBusValue.self)
            guard case .uint32(let count) = value else { throw BenchFailure("PendingHandlers is not a 'u'.") }
            return Int(count)
        } catch let error as BenchFailure {
            throw error
        } catch {
            throw BenchFailure("reading the Daemon property PendingHandlers failed: \(error)")
        }
    }
}
