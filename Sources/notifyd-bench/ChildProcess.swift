import Glibc
import NotifyTestingCore

/// A program started with `posix_spawn`: no shell, no `PATH` search, its
/// standard input from `/dev/null`.
///
/// A class, so that once the child is reaped everyone sees it ended and
/// no one signals its process ID again (which may by then be another's).
final class ChildProcess {
    /// The child's process ID.
    let pid: pid_t
    /// The program that was started, for messages.
    let executable: String
    /// The read end of the pipe the child writes to, if it was given one.
    private let outputPipe: Int32?
    /// How the child ended, once it has been reaped.
    private(set) var termination: Termination?

    private init(pid: pid_t, executable: String, outputPipe: Int32?) {
        self.pid = pid
        self.executable = executable
        self.outputPipe = outputPipe
    }

    /// Where the child's standard output and standard error go.
    enum Output {
        /// `/dev/null`.
        case nullDevice
        /// Appended to this file (created when missing).
        case file(String)
    }

    /// How a child ended.
    enum Termination: Equatable, CustomStringConvertible {
        case exited(Int32)
        case signaled(Int32)

        var isSuccess: Bool { self == .exited(0) }

        var description: String {
            switch self {
            case .exited(let code): "exit status \(code)"
            case .signaled(let signal): "killed by signal \(signal)"
            }
        }

        /// Decodes a `waitpid` status (the `WIFEXITED` macros do not import).
        init(waitStatus status: Int32) {
            self = status & 0x7f == 0 ? .exited((status >> 8) & 0xff) : .signaled(status & 0x7f)
        }
    }

    /// Starts `executable` (an absolute path) with `arguments` and exactly
    /// `environment` (`NAME=value` entries).
    ///
    /// - Parameter pipedDescriptors: descriptors of the child (e.g. `[1, 2]`,
    ///   or `[3]` for `dbus-daemon --print-address=3`) that write to one pipe
    ///   instead, which the parent reads with ``readPipe(stopAtNewline:)``.
    static func spawn(
        _ executable: String, _ arguments: [String], environment: [String],
        output: Output = .nullDevice, pipedDescriptors: [Int32] = []
    ) throws(BenchFailure) -> ChildProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        switch output {
        case .nullDevice:
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        case .file(let path):
            posix_spawn_file_actions_addopen(&actions, 1, path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        }
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var pipeEnds: [Int32] = [-1, -1]
        if !pipedDescriptors.isEmpty {
            // Close-on-exec so that no other child inherits either end.
            // (pipe2 needs _GNU_SOURCE, which Glibc's module does not set.)
            guard pipe(&pipeEnds) == 0 else { throw .system("cannot create a pipe", errno: errno) }
            for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            for descriptor in pipedDescriptors { posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], descriptor) }
        }

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        if pipeEnds[1] >= 0 { close(pipeEnds[1]) }
        guard result == 0 else {
            if pipeEnds[0] >= 0 { close(pipeEnds[0]) }
            throw .system("cannot start \(executable)", errno: result)
        }
        return ChildProcess(pid: pid, executable: executable, outputPipe: pipeEnds[0] >= 0 ? pipeEnds[0] : nil)
    }

    /// Starts a program, waits for it, and returns how it ended with what
    /// it wrote (standard output and error together).
    static func run(
        _ executable: String, _ arguments: [String], environment: [String]
    ) throws(BenchFailure) -> (termination: Termination, output: String) {
        let child = try spawn(executable, arguments, environment: environment, pipedDescriptors: [1, 2])
        let output = child.readPipe()
        return (child.wait(), output)
    }

    /// Blocks until the child ends.
    func wait() -> Termination {
        if let termination { return termination }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let ended = Termination(waitStatus: status)
        termination = ended
        return ended
    }

    /// How the child ended, or nil if it is still running.
    func poll() -> Termination? {
        if let termination { return termination }
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return nil }
        let ended = Termination(waitStatus: status)
        termination = ended
        return ended
    }

    /// Reads the child's pipe until it is closed (or up to the first
    /// newline), then closes it. Empty when the child has no pipe. Call it once.
    func readPipe(stopAtNewline: Bool = false) -> String {
        guard let outputPipe else { return "" }
        defer { close(outputPipe) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !(stopAtNewline && bytes.contains(UInt8(ascii: "\n"))) {
            let count = buffer.withUnsafeMutableBytes { read(outputPipe, $0.baseAddress, $0.count) }
            if count > 0 {
                bytes += buffer[0..<count]
            } else if count == 0 || errno != EINTR {
                break
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Reads one line of the child's pipe (without its newline) and leaves
    /// the rest unread, for a child that says when it is ready; nil at the
    /// end of the pipe. Byte by byte, so nothing after the line is consumed.
    func readLine() -> String? {
        guard let outputPipe else { return nil }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = read(outputPipe, &byte, 1)
            if count == 1 {
                if byte == UInt8(ascii: "\n") { break }
                bytes.append(byte)
            } else if count == 0 || errno != EINTR {
                guard !bytes.isEmpty else { return nil }
                break
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Stops the child: `SIGTERM`, then `SIGKILL` if it is still running
    /// after `graceSeconds`. Returns how it ended.
    @discardableResult
    func terminate(graceSeconds: Double = 5) -> Termination {
        if let ended = poll() { return ended }
        kill(pid, SIGTERM)
        let deadline = MonotonicClock.nanoseconds() + UInt64(graceSeconds * 1e9)
        while MonotonicClock.nanoseconds() < deadline {
            if let ended = poll() { return ended }
            usleep(1_000)
        }
        kill(pid, SIGKILL)
        return wait()
    }
}
