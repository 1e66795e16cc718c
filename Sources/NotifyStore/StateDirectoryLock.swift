import Glibc

/// An exclusive `flock` on `<directory>/state.lock`, held while this object
/// lives, so that two daemons never write one state directory.
///
/// The holder writes its pid into the file so that a refused daemon can say
/// who has it. The lock belongs to the open file description: a second lock
/// attempt in the same process is refused too.
///
/// A lock held elsewhere is tried again for up to ``patience`` before it is
/// refused: the open file description is shared with any child forked
/// while the lock was held, until that child execs (the descriptor is
/// close-on-exec), so a store closed while another thread spawns a process,
/// or a daemon that is just exiting, holds it a moment longer than its
/// owner.
final class StateDirectoryLock {
    /// The lock file.
    let path: String
    private let descriptor: Int32

    /// How long a lock held elsewhere is tried again before it is refused.
    static let patience: Double = 2

    /// Takes the lock, trying again for up to ``patience`` seconds; throws
    /// a ``StoreError`` of code `.locked` if another holder keeps it.
    init(directory: String) throws {
        path = FileSystem.join(directory, StateStore.lockFileName)
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        try FileSystem.check(descriptor, path: path, action: "opening the lock file")
        guard Self.lock(descriptor) == 0 else {
            let number = errno
            let holder = Self.recordedHolder(in: descriptor).map { " (pid \($0))" } ?? ""
            close(descriptor)
            guard number == EWOULDBLOCK else {
                throw FileSystem.error(number, path: path, action: "locking", fallback: .failed)
            }
            throw StoreError(
                code: .locked, path: directory,
                message: """
                    \(directory): another notifyd\(holder) is already using this state \
                    directory (\(path) is locked). Stop it first, or give this one \
                    another state directory.
                    """)
        }
        self.descriptor = descriptor
        // The pid is only a hint for error messages: failing to write it is
        // no reason to refuse to start.
        let pid = Array("\(getpid())\n".utf8)
        if ftruncate(descriptor, 0) == 0 {
            _ = pid.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        }
    }

    /// `flock(LOCK_EX | LOCK_NB)`, tried again every 20 ms while another
    /// holder has it, for up to ``patience``; 0, or -1 with `errno` set.
    private static func lock(_ descriptor: Int32) -> Int32 {
        var waited: Double = 0
        while true {
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return 0 }
            guard errno == EWOULDBLOCK || errno == EINTR, waited < patience else { return -1 }
            usleep(20_000)
            waited += 0.02
        }
    }

    deinit {
        close(descriptor)  // closing the last descriptor releases the lock
    }

    /// The pid the current holder wrote into the lock file, if readable.
    private static func recordedHolder(in descriptor: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 16)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        let text = String(decoding: buffer[..<count], as: UTF8.self)
        return Int32(text.prefix { $0.isNumber })
    }
}
