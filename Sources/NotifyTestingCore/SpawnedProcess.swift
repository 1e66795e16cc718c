import Glibc
import Synchronization

/// A program started with `posix_spawn`: no shell, no `PATH` search, its
/// standard input from `/dev/null`, a clean signal state, and no
/// descriptor of the parent but those it is given. The one process helper
/// of the tests and the benchmark.
///
/// The signal state: test code runs on libdispatch worker threads, which
/// block most signals, and a child inherits the mask of the thread that
/// spawns it. A `dbus-daemon` that inherits a blocked SIGCHLD never notices
/// an activated service that exits, so every child starts with an empty
/// mask and default dispositions. The descriptors: as Foundation's
/// `Process` does, every descriptor above 2 is closed in the child, so that
/// a long-lived child (a bus, notifyd) never holds the write end of a pipe
/// another test reads to its end.
///
/// A class, so that once the child is reaped everyone sees it ended and no
/// one signals its process ID again (which may by then be another's). A
/// child still running when its last reference goes is killed.
public final class SpawnedProcess: Sendable {
    /// The child's process ID.
    public let pid: Int32
    /// The program that was started, for messages.
    public let executable: String
    /// Whether a thread of its own reaps the child (``Reaping/atOnce``).
    let reapsAtOnce: Bool
    /// How ``LiveChildren`` lists the child until it is reaped.
    let listed: Int32
    let record: Record

    /// What the parent knows of the child, shared with its reaper thread
    /// (which must not keep the ``SpawnedProcess`` alive: its release kills the child).
    final class Record: Sendable {
        let state: Mutex<State>

        struct State {
            /// The read end of the pipe the child writes to, until it is read.
            var outputPipe: Int32?
            /// How the child ended, once it has been reaped.
            var termination: Termination?
            /// The thread that reaps the child, until it is joined.
            var reaper: PosixThread?
        }

        init(outputPipe: Int32?) {
            state = Mutex(State(outputPipe: outputPipe))
        }
    }

    /// When the child is reaped.
    public enum Reaping: Sendable {
        /// As soon as it ends, by a thread of its own, as Foundation's
        /// `Process` does. A child left unreaped (a zombie) stalls
        /// swift-testing's exit-test monitor, which waits for any child
        /// (`waitid(P_ALL, ..., WNOWAIT)`) and loops on one it does not know.
        case atOnce
        /// When asked (``poll()``, ``wait()``, a stop), with no thread: for
        /// a child waited for at once, whose timing must not include a
        /// thread's start.
        case whenAsked
    }

    /// Where one of the child's standard descriptors goes.
    public enum Output: Sendable {
        /// The parent's own descriptor (the test runner's output).
        case inherited
        /// `/dev/null`.
        case nullDevice
        /// Appended to this file (created when missing).
        case file(String)
        /// A copy of this descriptor of the parent.
        case descriptor(Int32)
        /// Standard error only: wherever standard output goes.
        case standardOutput
    }

    /// Whose process group the child joins.
    public enum ProcessGroup: Sendable {
        /// A group of its own: a desktop program that signals its group on
        /// the way out must not reach the test runner.
        case own
        /// The parent's: Ctrl-C at the terminal stops the child with the
        /// parent (the benchmark's children, which it stops only at its end).
        case parents

        var isOwn: Bool { if case .own = self { true } else { false } }
    }

    /// Starts `executable` (an absolute path) with `arguments` and exactly
    /// `environment`.
    ///
    /// - Parameters:
    ///   - standardOutput: where the child's standard output goes.
    ///   - standardError: where its standard error goes.
    ///   - pipedDescriptors: descriptors of the child (e.g. `[1, 2]`, or
    ///     `[3]` for `dbus-daemon --print-address=3`) that write to one pipe
    ///     instead, which the parent reads with ``readPipe(stopAtNewline:)``
    ///     and ``readLine()``.
    ///   - processGroup: whose process group the child joins.
    ///   - reaping: when the child is reaped.
    /// - Throws: ``TestFailure`` when the program cannot be started.
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String],
        standardOutput: Output = .inherited, standardError: Output = .inherited, pipedDescriptors: [Int32] = [],
        processGroup: ProcessGroup = .own, reaping: Reaping = .atOnce
    ) throws(TestFailure) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        Self.direct(standardOutput, to: 1, &actions)
        Self.direct(standardError, to: 2, &actions)
        var pipeEnds: [Int32] = [-1, -1]
        if !pipedDescriptors.isEmpty {
            // Close-on-exec so that no other child inherits either end.
            // (pipe2 needs _GNU_SOURCE, which Glibc's module does not set.)
            guard pipe(&pipeEnds) == 0 else { throw .system("cannot create a pipe", errno: errno) }
            for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            for descriptor in pipedDescriptors { posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], descriptor) }
        }
        let kept = Set([0, 1, 2] + pipedDescriptors)
        for descriptor in Self.openDescriptors() where !kept.contains(descriptor) {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &all)
        var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        if case .own = processGroup {
            posix_spawnattr_setpgroup(&attributes, 0)
            flags |= POSIX_SPAWN_SETPGROUP
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var child: pid_t = 0
        let result = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        if pipeEnds[1] >= 0 { close(pipeEnds[1]) }
        guard result == 0 else {
            if pipeEnds[0] >= 0 { close(pipeEnds[0]) }
            throw .system("cannot start \(executable)", errno: result)
        }
        pid = child
        let listed = processGroup.isOwn ? -child : child
        self.listed = listed
        LiveChildren.add(listed)
        self.executable = executable
        let record = Record(outputPipe: pipeEnds[0] >= 0 ? pipeEnds[0] : nil)
        self.record = record
        // Without a thread, the child is reaped when asked.
        let started = child
        let reaper = reaping == .atOnce ? try? PosixThread { Self.reap(started, listed: listed, into: record) } : nil
        record.state.withLock { $0.reaper = reaper }
        reapsAtOnce = reaper != nil
    }

    /// Starts a test's child: standard output and error to these descriptors
    /// of the parent (if given), in a process group of its own.
    public convenience init(
        _ executable: String, _ arguments: [String], environment: [String: String],
        stdoutFD: Int32? = nil, stderrFD: Int32? = nil
    ) throws(TestFailure) {
        try self.init(
            executable, arguments, environment: environment,
            standardOutput: stdoutFD.map { .descriptor($0) } ?? .inherited,
            standardError: stderrFD.map { .descriptor($0) } ?? .inherited)
    }

    deinit {
        kill(SIGKILL)
        if let descriptor = takePipe() { close(descriptor) }
    }

    /// The reaper thread's body: waits for the child's end and records it.
    private static func reap(_ pid: pid_t, listed: Int32, into record: Record) {
        var status: Int32 = 0
        var result: pid_t
        repeat { result = waitpid(pid, &status, 0) } while result == -1 && errno == EINTR
        LiveChildren.remove(listed)
        let ended = result == pid ? Termination(waitStatus: status) : .exited(-1)
        record.state.withLock { $0.termination = $0.termination ?? ended }
    }

    private static func direct(_ output: Output, to descriptor: Int32, _ actions: inout posix_spawn_file_actions_t) {
        switch output {
        case .inherited: break
        case .nullDevice: posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", O_WRONLY, 0)
        case .file(let path):
            posix_spawn_file_actions_addopen(&actions, descriptor, path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        case .descriptor(let source): posix_spawn_file_actions_adddup2(&actions, source, descriptor)
        case .standardOutput: posix_spawn_file_actions_adddup2(&actions, 1, descriptor)
        }
    }

    /// The parent's open descriptors above 2 (`/proc/self/fd`), for the
    /// child to close: glibc's `addclosefrom_np` needs `_GNU_SOURCE`.
    private static func openDescriptors() -> [Int32] {
        ProcReader.directoryEntries("/proc/self/fd").compactMap { Int32($0) }.filter { $0 > 2 }
    }
}
