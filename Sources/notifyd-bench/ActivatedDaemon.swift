import DBus
import Glibc
import NotifyCore
import NotifyTestingCore

/// The notifyd a bus started by D-Bus activation for the cold-start
/// section: calls to it (with or without auto-start), and stopping it.
///
/// It is not the benchmark's child but the bus's (through dbus-daemon's
/// babysitter process), so it is found by the process ID the bus gives for
/// the name's owner, and stopped by signalling that process.
final class ActivatedDaemon {
    let connection: DBusConnection
    /// Where the bus, and so the notifyd it starts, writes its output.
    let busLog: String
    /// The running notifyd, once a call reached it.
    private(set) var pid: pid_t?

    init(connection: DBusConnection, busLog: String) {
        self.connection = connection
        self.busLog = busLog
    }

    /// Calls a Badges method of notifyd, timing only the blocking call (its
    /// message is built before the clock starts), and hands over the reply's
    /// arguments. With `autoStart` the bus starts notifyd if it is not running.
    func timedCall(
        _ member: String, _ arguments: [DBusValue], autoStart: Bool, answer: ([DBusValue]) -> Void
    ) throws(BenchFailure) -> UInt64 {
        let message: DBusMessage
        do {
            message = try DBusMessage.methodCall(
                destination: NotifydNames.busName, path: NotifydNames.objectPath,
                interface: NotifydNames.badgesInterface, member: member, arguments: arguments)
        } catch {
            throw BenchFailure("cannot build the \(member) message: \(error)")
        }
        message.setAutoStart(autoStart)
        let start = MonotonicClock.nanoseconds()
        let reply: DBusMessage
        do {
            reply = try connection.call(message, timeoutMilliseconds: Int32(ColdStartBenchmark.timeoutSeconds * 1000))
        } catch {
            throw BenchFailure("\(member) \(autoStart ? "with" : "without") auto-start failed: \(error). \(logTail())")
        }
        let elapsed = MonotonicClock.nanoseconds() - start
        answer((try? reply.arguments()) ?? [])
        if pid == nil {
            do {
                pid = pid_t(try connection.unixProcessID(of: NotifydNames.busName))
            } catch {
                throw BenchFailure("cannot tell which process answered on the cold-start bus: \(error)")
            }
        }
        return elapsed
    }

    /// An untimed call.
    func call(_ member: String, _ arguments: [DBusValue], autoStart: Bool) throws(BenchFailure) -> [DBusValue] {
        var values: [DBusValue] = []
        _ = try timedCall(member, arguments, autoStart: autoStart) { values = $0 }
        return values
    }

    /// Sends SIGTERM to the running notifyd, waits until its name is gone
    /// from the bus and then until the process has ended. Returns the time
    /// from the signal to the name gone.
    @discardableResult
    func stop(timeoutSeconds: Double) throws(BenchFailure) -> UInt64 {
        guard let pid else { throw BenchFailure("no activated notifyd to stop.") }
        let start = MonotonicClock.nanoseconds()
        let deadline = start + UInt64(timeoutSeconds * 1e9)
        kill(pid, SIGTERM)
        while try nameHasOwner() {
            guard MonotonicClock.nanoseconds() < deadline else {
                throw BenchFailure("the activated notifyd (\(pid)) kept its name \(Int(timeoutSeconds)) s after SIGTERM.")
            }
            usleep(500)
        }
        let gone = MonotonicClock.nanoseconds() - start
        while Self.isRunning(pid) {
            guard MonotonicClock.nanoseconds() < deadline else {
                throw BenchFailure("the activated notifyd (\(pid)) left the bus but did not end within \(Int(timeoutSeconds)) s.")
            }
            usleep(500)
        }
        self.pid = nil
        return gone
    }

    /// For the end of the section whatever happened: SIGTERM, then SIGKILL
    /// after 5 s, to the notifyd still running, if any.
    func stopIfRunning() {
        guard let pid else { return }
        self.pid = nil
        kill(pid, SIGTERM)
        let deadline = MonotonicClock.nanoseconds() + 5_000_000_000
        while Self.isRunning(pid) && MonotonicClock.nanoseconds() < deadline { usleep(1_000) }
        if Self.isRunning(pid) { kill(pid, SIGKILL) }
    }

    private func nameHasOwner() throws(BenchFailure) -> Bool {
        do {
            return try connection.callBus("NameHasOwner", [.string(NotifydNames.busName)]).decode(0)
        } catch {
            throw BenchFailure("NameHasOwner failed on the cold-start bus: \(error)")
        }
    }

    /// Whether the process exists and is not a zombie waiting to be reaped.
    static func isRunning(_ pid: pid_t) -> Bool {
        guard let stat = ProcReader.readFile("/proc/\(pid)/stat"), let close = stat.lastIndex(of: ")") else { return false }
        let state = stat[stat.index(after: close)...].split(separator: " ").first
        return state != "Z" && state != "X"
    }

    /// The end of the cold-start bus's log (notifyd's output goes there too).
    func logTail(lines: Int = 20) -> String {
        let log = ProcReader.readFile(busLog) ?? ""
        let tail = log.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
        return tail.isEmpty ? "The cold-start bus logged nothing." : "The cold-start bus's log ends:\n\(tail)"
    }
}
