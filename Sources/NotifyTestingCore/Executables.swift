import Glibc

/// Finds the programs the tests and the benchmark start: the project's
/// executables where `swift build` put them (a debug build's next to the
/// test bundle, a static release build's next to the benchmark), and
/// system programs on `PATH`, found once, before any timing (so no spawn
/// pays for a `PATH` search). The one executable locator of both.
public enum Executables {
    /// Where `notifyd` and `notifyctl` were built: `$NOTIFYD_BIN_DIR` if
    /// set, else the nearest directory at or above the running executable
    /// (the test runner is `<build>/notifydPackageTests.xctest`) that holds
    /// a `notifyd`.
    public static var directoryPath: String {
        if let override = getenv("NOTIFYD_BIN_DIR").map({ String(cString: $0) }), !override.isEmpty {
            return override
        }
        var directory = directoryName(of: running() ?? CommandLine.arguments[0])
        while !isExecutableFile(directory + "/notifyd"), directory != "/" {
            directory = directoryName(of: directory)
        }
        return directory
    }

    /// The `notifyd` the tests run.
    public static var notifyd: String { path("notifyd", in: directoryPath) }
    /// The `notifyctl` the tests run.
    public static var notifyctl: String { path("notifyctl", in: directoryPath) }

    /// The running executable (`/proc/self/exe`, with every link resolved);
    /// nil if `/proc` cannot tell.
    public static func running() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        return String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `name` in `directory`, if it is an executable file there.
    public static func find(_ name: String, in directory: String) -> String? {
        let candidate = path(name, in: directory)
        return isExecutableFile(candidate) ? candidate : nil
    }

    /// The first executable `name` in the directories of `$PATH`.
    public static func inSearchPath(_ name: String) -> String? {
        let searchPath = getenv("PATH").map { String(cString: $0) } ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in searchPath.split(separator: ":") where !directory.isEmpty {
            if let found = find(name, in: String(directory)) { return found }
        }
        return nil
    }

    /// Whether `path` is a regular file this process may execute.
    public static func isExecutableFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG && access(path, X_OK) == 0
    }

    /// Everything before the last `/` (`/` for a top-level file, `.` for a bare name).
    public static func directoryName(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Everything after the last `/`.
    public static func baseName(of path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    private static func path(_ name: String, in directory: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }
}
