import Glibc

/// The push server's password when no Secret Service keeps it: one file,
/// `push-password`, in notifyd's configuration directory
/// (`$XDG_CONFIG_HOME/notifyd`), mode 0600 in a 0700 directory, never
/// through a symbolic link (SPEC: never in the state database). Written
/// whole or not at all (a temporary file, synced, renamed).
public struct PushPasswordFile: Sendable {
    /// The file's name in the configuration directory.
    public static let name = "push-password"
    /// The longest password read back (SPEC's passwords are at most 1,024 bytes).
    static let maximumBytes = 1_024

    /// The configuration directory.
    public let directory: String

    public init(directory: String) {
        self.directory = directory
    }

    /// The file's path.
    public var path: String { FileSystem.join(directory, Self.name) }

    /// Writes `password` (creating the directory, 0700, if missing).
    public func write(_ password: String) throws {
        try FileSystem.createDirectories(directory)
        let temporary = path + ".new"
        _ = unlink(temporary)
        let descriptor = try FileSystem.check(
            open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600), path: temporary,
            action: "creating the password file")
        var failure: (any Error)?
        do {
            try FileSystem.check(fchmod(descriptor, 0o600), path: temporary, action: "making the password file private")
            var bytes = Array(password.utf8)[...]
            while !bytes.isEmpty {
                let count = try FileSystem.check(
                    Int32(truncatingIfNeeded: bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }),
                    path: temporary, action: "writing the password file", fallback: .ioError)
                bytes = bytes.dropFirst(Int(count))
            }
            try FileSystem.check(fsync(descriptor), path: temporary, action: "syncing the password file", fallback: .ioError)
        } catch {
            failure = error
        }
        close(descriptor)
        if let failure {
            _ = unlink(temporary)
            throw failure
        }
        try FileSystem.check(rename(temporary, path), path: path, action: "putting the password file in place", fallback: .ioError)
    }

    /// The password; nil when there is no file.
    public func read() throws -> String? {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        if descriptor == -1 && errno == ENOENT { return nil }
        try FileSystem.check(descriptor, path: path, action: "opening the password file")
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: Self.maximumBytes + 1)
        var length = 0
        while length < buffer.count {
            let count = try FileSystem.check(
                Int32(truncatingIfNeeded: buffer.withUnsafeMutableBytes {
                    Glibc.read(descriptor, $0.baseAddress! + length, $0.count - length)
                }), path: path, action: "reading the password file", fallback: .ioError)
            if count == 0 { break }
            length += Int(count)
        }
        return String(decoding: buffer[..<length], as: UTF8.self)
    }

    /// Removes the file, if there is one.
    public func remove() throws {
        if unlink(path) == -1 && errno != ENOENT {
            throw FileSystem.error(errno, path: path, action: "removing the password file", fallback: .ioError)
        }
    }
}
