import Glibc

/// Finds the programs the benchmark starts, once, before any timing (so no
/// spawn pays for a `PATH` search).
enum ExecutableLocator {
    /// The directory of the running benchmark executable (the dirname of
    /// `/proc/self/exe`), where `swift build` also puts notifyd and notifyctl.
    static func benchDirectory() -> String? {
        benchExecutable().map(directoryName(of:))
    }

    /// The running benchmark executable (`/proc/self/exe`), which also
    /// serves as the bare signal receiver of the events section.
    static func benchExecutable() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        return String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `name` in `directory`, if it is an executable file there.
    static func executable(_ name: String, in directory: String) -> String? {
        let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
        return isExecutableFile(path) ? path : nil
    }

    /// The first executable `name` in the directories of `$PATH`.
    static func inSearchPath(_ name: String) -> String? {
        let searchPath = getenv("PATH").map { String(cString: $0) } ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in searchPath.split(separator: ":") where !directory.isEmpty {
            if let path = executable(name, in: String(directory)) { return path }
        }
        return nil
    }

    static func isExecutableFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG && access(path, X_OK) == 0
    }

    /// Everything before the last `/` (`/` for a top-level file).
    static func directoryName(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Everything after the last `/`.
    static func baseName(of path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }
}
