import Glibc
import Synchronization

/// How a child ends: waiting for it, signalling it, reaping it.
extension SpawnedProcess {
    /// How a child ended.
    public enum Termination: Equatable, Sendable, CustomStringConvertible {
        case exited(Int32)
        case signaled(Int32)

        public var isSuccess: Bool { self == .exited(0) }

        /// The exit code, or the signal's number (as Foundation's
        /// `Process.terminationStatus`).
        public var status: Int32 {
            switch self {
            case .exited(let code), .signaled(let code): code
            }
        }

        public var description: String {
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

    /// How the child ended, once it has been reaped (by ``poll()``,
    /// ``wait()`` or a stop); nil before.
    public var termination: Termination? { record.state.withLock { $0.termination } }

    /// Whether the process has not been reaped yet.
    public var isRunning: Bool { poll() == nil }

    /// The exit code, or the signal that ended it; -1 while it runs.
    public var terminationStatus: Int32 { poll()?.status ?? -1 }

    /// How the child ended, or nil if it is still running.
    @discardableResult
    public func poll() -> Termination? {
        reap(blocking: false)
    }

    /// Blocks until the child ends.
    @discardableResult
    public func wait() -> Termination {
        reap(blocking: true) ?? .exited(-1)
    }

    /// Sends `signal` (if the child is still running) and waits for its end.
    @discardableResult
    public func kill(_ signal: Int32) -> Termination {
        if poll() == nil { Glibc.kill(pid, signal) }
        return wait()
    }

    /// Stops the child: SIGTERM, then SIGKILL if it is still running after
    /// `graceSeconds`. Returns how it ended.
    @discardableResult
    public func terminate(graceSeconds: Double = 5) -> Termination {
        if let ended = poll() { return ended }
        Glibc.kill(pid, SIGTERM)
        let deadline = MonotonicClock.nanoseconds() + UInt64(max(0, graceSeconds) * 1e9)
        while MonotonicClock.nanoseconds() < deadline {
            if let ended = poll() { return ended }
            usleep(1_000)
        }
        return kill(SIGKILL)
    }

    /// Reaps the child, outside the lock (a blocking wait must not hold up
    /// ``isRunning`` on another thread). When another thread reaped it
    /// first (`ECHILD`), its record is awaited briefly. With a reaper
    /// thread, only its record is read (and the thread joined once it is).
    private func reap(blocking: Bool) -> Termination? {
        if reapsAtOnce {
            while true {
                let (ended, reaper) = record.state.withLock { state in
                    guard let ended = state.termination else { return (nil as Termination?, nil as PosixThread?) }
                    defer { state.reaper = nil }
                    return (ended, state.reaper)
                }
                reaper?.join()
                if ended != nil || !blocking { return ended }
                usleep(200)
            }
        }
        if let ended = termination { return ended }
        var status: Int32 = 0
        var result: pid_t
        repeat { result = waitpid(pid, &status, blocking ? 0 : WNOHANG) } while result == -1 && errno == EINTR
        if result == pid {
            LiveChildren.remove(listed)
            let ended = Termination(waitStatus: status)
            return record.state.withLock { state in
                if state.termination == nil { state.termination = ended }
                return state.termination
            }
        }
        guard result == -1 else { return nil }
        let deadline = MonotonicClock.nanoseconds() + 100_000_000
        while MonotonicClock.nanoseconds() < deadline {
            if let ended = termination { return ended }
            usleep(100)
        }
        // Not (or no longer) our child: it cannot be waited for.
        LiveChildren.remove(listed)
        return record.state.withLock { state in
            if state.termination == nil { state.termination = .exited(-1) }
            return state.termination
        }
    }

    /// Takes the read end of the child's pipe (nil when it has none, or it
    /// was taken): whoever takes it reads and closes it.
    func takePipe() -> Int32? {
        record.state.withLock { state in
            defer { state.outputPipe = nil }
            return state.outputPipe
        }
    }

    /// Gives back a pipe only partly read (by ``readLine()``).
    func returnPipe(_ descriptor: Int32) {
        record.state.withLock { $0.outputPipe = descriptor }
    }
}
