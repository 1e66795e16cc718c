import DBus
import Glibc
import NotifyCore

/// The work of `notifyctl task run`: a background task around one command.
///
/// Begins the task, starts the command directly (`posix_spawnp`, no shell,
/// every signal unblocked and at its default), and runs an event loop that
/// forwards SIGINT and SIGTERM to it, sends it SIGTERM on the task's
/// `BackgroundTaskExpiring`, and stops when it exits; then ends the task.
/// Without notifyd (or when it refuses the task) one warning says so and
/// the command runs all the same.
final class TaskRunner {
    private let app: String
    private let name: String
    private let command: [String]
    private let loop: EventLoop
    private var client: DaemonClient?
    private var taskID: UInt64?
    private var child: pid_t = 0
    private var status: Int32?
    private var expired = false

    init(app: String, name: String, command: [String]) throws(NotifyctlError) {
        self.app = app
        self.name = name
        self.command = command
        do {
            loop = try EventLoop()
        } catch {
            throw NotifyctlError(.daemon, "cannot start the event loop: \(error.message)")
        }
    }

    /// Runs the command to its end; returns the exit status to leave with
    /// (the command's, or 128 + the signal that ended it).
    func run() throws(NotifyctlError) -> Int32 {
        do {
            // Read from a signalfd; blocked from here on, and unblocked in the child.
            try loop.handleSignals([SIGINT, SIGTERM, SIGCHLD]) { [unowned self] signal in received(signal) }
        } catch {
            throw NotifyctlError(.daemon, "cannot watch signals: \(error.message)")
        }
        begin()
        child = try spawn()
        reap()
        if status == nil { loop.run() }
        end()
        let status = self.status ?? 0
        if (status & 0x7f) == 0 { return (status >> 8) & 0xff }
        return 128 + (status & 0x7f)
    }

    // MARK: The task

    private func begin() {
        do {
            let client = try DaemonClient.connect()
            let reply = try client.call(
                NotifydNames.tasksInterface, "BeginBackgroundTask", [.string(app), .string(name)])
            guard case .uint64(let id)? = reply.first else { throw NotifyctlError(.daemon, "notifyd answered \(reply)") }
            let connection = client.connection
            do {
                try connection.attach(to: loop)
                try connection.subscribe(
                    DBusMatchRule(sender: NotifydNames.busName, interface: NotifydNames.tasksInterface)
                ) { [unowned self] message in taskSignal(message) }
            } catch {
                Output.error(
                    "warning: cannot follow the background task (\(error)); \(command[0]) gets no SIGTERM when it expires")
            }
            self.client = client
            taskID = id
        } catch let error as NotifyctlError {
            Output.error("warning: \(error.message); running \(command[0]) without a background task")
        } catch {
            Output.error("warning: \(error); running \(command[0]) without a background task")
        }
    }

    private func taskSignal(_ message: DBusMessage) {
        guard let taskID, let arguments = try? message.arguments(), arguments.first == .uint64(taskID) else { return }
        switch message.member {
        case "BackgroundTaskExpiring":
            // The expiration handler: ask the command to finish now.
            if child > 0, status == nil { kill(child, SIGTERM) }
        case "BackgroundTaskEnded":
            if arguments.count == 3, case .string(let result) = arguments[2], result != "ended" {
                expired = true
                Output.error("warning: the background task \(result) before \(command[0]) finished")
            }
        default:
            break
        }
    }

    private func end() {
        guard let client, let taskID, !expired else { return }
        // Expired or abandoned meanwhile: nothing left to end.
        _ = try? client.call(NotifydNames.tasksInterface, "EndBackgroundTask", [.uint64(taskID)])
    }

    // MARK: The command

    private func spawn() throws(NotifyctlError) -> pid_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGCHLD, SIGPIPE, SIGHUP] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var arguments: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
        defer { for argument in arguments { free(argument) } }
        var pid: pid_t = 0
        let result = posix_spawnp(&pid, command[0], nil, &attributes, &arguments, environ)
        guard result == 0 else {
            end()
            throw NotifyctlError(
                result == ENOENT ? .commandNotFound : .commandNotRun,
                "cannot run \(command[0]): \(String(cString: strerror(result)))")
        }
        return pid
    }

    private func received(_ signal: Int32) {
        switch signal {
        case SIGCHLD: reap()
        default: if child > 0, status == nil { kill(child, signal) }
        }
    }

    /// Collects the command's status once it has exited; stops the loop.
    private func reap() {
        guard status == nil, child > 0 else { return }
        var raw: Int32 = 0
        guard waitpid(child, &raw, WNOHANG) == child else { return }
        status = raw
        loop.stop()
    }
}
