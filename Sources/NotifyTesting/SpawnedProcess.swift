import Foundation

/// A child process started with posix_spawn and a clean signal state.
///
/// Foundation's `Process` hands the child the signal mask of the spawning
/// thread, and test code runs on libdispatch worker threads, which block
/// most signals. A `dbus-daemon` that inherits a blocked SIGCHLD never
/// notices an activated service that exits, so bus processes are started
/// here with an empty mask and default dispositions.
public final class SpawnedProcess: @unchecked Sendable {
    public let pid: pid_t
    private var exitStatus: Int32?

    /// Starts `executable`; `stdoutFD` and `stderrFD` (if given) become the
    /// child's standard output and error.
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String],
        stdoutFD: Int32? = nil, stderrFD: Int32? = nil
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if let stdoutFD { posix_spawn_file_actions_adddup2(&actions, stdoutFD, 1) }
        if let stderrFD { posix_spawn_file_actions_adddup2(&actions, stderrFD, 2) }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &all)
        // A process group of its own: a desktop program that signals its
        // group on the way out must not reach the test runner.
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var child: pid_t = 0
        let result = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        guard result == 0 else { throw TestFailure("cannot start \(executable): \(String(cString: strerror(result)))") }
        pid = child
    }

    deinit {
        kill(SIGKILL)
    }

    /// Whether the process has not been reaped yet.
    public var isRunning: Bool {
        guard exitStatus == nil else { return false }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid {
            exitStatus = status
            return false
        }
        return true
    }

    /// Sends a signal (if still running) and waits for the end.
    public func kill(_ signal: Int32) {
        guard exitStatus == nil else { return }
        Foundation.kill(pid, signal)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        exitStatus = status
    }
}
