import Glibc

/// An exclusive `flock` on `<directory>/state.lock`, held while this object
/// lives, so that two daemons never write one state directory.
///
/// The holder writes its pid into the file so that a refused daemon can say
/// who has it. The lock belongs to the open file description: a second lock
/// attempt in the same process is refused too.
final class StateDirectoryLock {
    /// The lock file.
    let path: String
    private let descriptor: Int32

    /// Takes the lock without waiting; throws a ``StoreError`` of code
    /// `.locked` if another holder has it.
    init(directory: String) throws {
        path = FileSystem.join(directory, StateStore.lockFileName)
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        try FileSystem.check(descriptor, path: path, action: "opening the lock file")
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
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
