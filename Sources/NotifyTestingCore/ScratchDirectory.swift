import Glibc

/// A directory for one run or one test: a bus's socket and configuration,
/// notifyd's state and logs. Made fresh under `$TMPDIR` (or `/tmp`), or
/// one that exists already (a subdirectory of another).
public struct ScratchDirectory: Sendable {
    /// The directory's absolute path.
    public let path: String

    /// Creates `PREFIX.XXXXXX` under `$TMPDIR` (or `/tmp`) with `mkdtemp`.
    ///
    /// - Throws: ``TestFailure`` when it cannot be created.
    public init(prefix: String) throws(TestFailure) {
        let base = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(base)/\(prefix).XXXXXX".utf8CString)
        guard mkdtemp(&template) != nil else {
            throw .system("cannot create a temporary directory in \(base)", errno: errno)
        }
        path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A directory that exists already (e.g. a subdirectory of the run's).
    public init(existing path: String) {
        self.path = path
    }

    /// The path of `name` inside the directory.
    public func appending(_ name: String) -> String { path + "/" + name }

    /// Creates a subdirectory and returns its path.
    public func makeSubdirectory(_ name: String) throws(TestFailure) -> String {
        let subdirectory = appending(name)
        guard mkdir(subdirectory, 0o700) == 0 else { throw .system("cannot create \(subdirectory)", errno: errno) }
        return subdirectory
    }

    /// Creates a subdirectory, as a scratch directory of its own.
    public func subdirectory(_ name: String) throws(TestFailure) -> ScratchDirectory {
        ScratchDirectory(existing: try makeSubdirectory(name))
    }

    /// Writes a whole file.
    public func write(_ text: String, to name: String) throws(TestFailure) {
        let file = appending(name)
        let descriptor = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .system("cannot create \(file)", errno: errno) }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw .system("cannot write \(file)", errno: errno) }
    }

    /// The last `lines` lines of a file in the directory (a log), or `empty`
    /// when it has none.
    public func tail(of name: String, lines: Int = 20, empty: String) -> String {
        let text = ProcReader.readFile(appending(name)) ?? ""
        let tail = text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
        return tail.isEmpty ? empty : tail
    }

    /// Removes the directory and everything in it.
    public func remove() {
        Self.removeTree(path)
    }

    private static func removeTree(_ path: String) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        if info.st_mode & S_IFMT == S_IFDIR {
            for name in ProcReader.directoryEntries(path) { removeTree(path + "/" + name) }
            rmdir(path)
        } else {
            unlink(path)
        }
    }
}

extension TestFailure {
    /// A failed C call: what was attempted and `strerror(errno)`.
    public static func system(_ what: String, errno code: Int32) -> TestFailure {
        TestFailure("\(what): \(String(cString: strerror(code)))")
    }
}
