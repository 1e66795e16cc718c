import Glibc

/// A failure while preparing a test, not of the code under test.
struct TestSetupError: Error, CustomStringConvertible {
    let description: String
}

/// Runs `body` with the path of a fresh, empty directory (from `mkdtemp`)
/// and removes the directory and everything in it afterwards.
func withTemporaryDirectory<Result>(_ body: (String) throws -> Result) throws -> Result {
    let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
    var template = Array("\(base)/notifystore-tests.XXXXXX".utf8CString)
    guard mkdtemp(&template) != nil else {
        throw TestSetupError(description: "mkdtemp failed: \(String(cString: strerror(errno)))")
    }
    let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    defer { removeTree(path) }
    return try body(path)
}

/// Removes `path` and everything below it, like `rm -rf`, without following links.
func removeTree(_ path: String) {
    var info = stat()
    guard lstat(path, &info) == 0 else { return }
    if (info.st_mode & S_IFMT) == S_IFDIR, let directory = opendir(path) {
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        closedir(directory)
        for name in names { removeTree(path + "/" + name) }
        rmdir(path)
    } else {
        unlink(path)
    }
}

/// The permission bits of the file at `path`, or `nil` if it does not exist.
func permissions(of path: String) -> mode_t? {
    var info = stat()
    return stat(path, &info) == 0 ? info.st_mode & 0o7777 : nil
}

/// Writes `bytes` to a new file at `path`, replacing any existing one.
func writeFile(_ path: String, _ bytes: [UInt8]) throws {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard descriptor >= 0 else { throw TestSetupError(description: "cannot create \(path)") }
    defer { close(descriptor) }
    let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    guard written == bytes.count else { throw TestSetupError(description: "cannot write \(path)") }
}
