import Glibc

/// A fresh directory under `$TMPDIR` (or `/tmp`) for one run: the bus
/// socket and configuration, notifyd's state and logs. Removed at the end.
struct ScratchDirectory {
    /// The directory's absolute path.
    let path: String

    /// Creates `notifyd-bench.XXXXXX` with `mkdtemp`.
    init() throws(BenchFailure) {
        let base = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(base)/notifyd-bench.XXXXXX".utf8CString)
        guard mkdtemp(&template) != nil else {
            throw .system("cannot create a temporary directory in \(base)", errno: errno)
        }
        path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A directory that exists already (e.g. a subdirectory of the run's),
    /// for a second bus of its own.
    init(existing path: String) {
        self.path = path
    }

    /// The path of `name` inside the directory.
    func appending(_ name: String) -> String { path + "/" + name }

    /// Creates a subdirectory and returns its path.
    func makeSubdirectory(_ name: String) throws(BenchFailure) -> String {
        let subdirectory = appending(name)
        guard mkdir(subdirectory, 0o700) == 0 else { throw .system("cannot create \(subdirectory)", errno: errno) }
        return subdirectory
    }

    /// Writes a whole file.
    func write(_ text: String, to name: String) throws(BenchFailure) {
        let file = appending(name)
        let descriptor = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .system("cannot create \(file)", errno: errno) }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw .system("cannot write \(file)", errno: errno) }
    }

    /// Removes the directory and everything in it.
    func remove() {
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
