import Glibc

/// The few file-system calls the store needs, with `errno` turned into ``StoreError``.
enum FileSystem {
    /// The one funnel for POSIX calls that return -1 and set `errno`: passes any
    /// other result through, and turns -1 into a ``StoreError`` naming `path`.
    @discardableResult
    static func check(
        _ result: Int32, path: String, action: String,
        fallback: StoreError.Code = .cannotOpen
    ) throws -> Int32 {
        guard result == -1 else { return result }
        throw error(errno, path: path, action: action, fallback: fallback)
    }

    /// The ``StoreError`` for an `errno` value.
    static func error(
        _ number: Int32, path: String, action: String,
        fallback: StoreError.Code = .cannotOpen
    ) -> StoreError {
        StoreError(
            errno: number, detail: String(cString: strerror(number)),
            path: path, action: action, fallback: fallback)
    }

    /// Whether `path` names a directory (following symbolic links).
    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Creates `path` and any missing parents with mode 0700, like `mkdir -p`.
    /// Directories that already exist keep their mode.
    static func createDirectories(_ path: String) throws {
        if path.isEmpty || isDirectory(path) { return }
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += component
            defer { prefix += "/" }
            if mkdir(prefix, 0o700) == 0 { continue }
            let number = errno
            if number == EEXIST && isDirectory(prefix) { continue }
            throw error(
                number == EEXIST ? ENOTDIR : number, path: prefix,
                action: "creating the directory")
        }
    }

    /// The directory part of `path`: `"a/b"` for `"a/b/c"`, `"/"` for `"/c"`, `""` for `"c"`.
    static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        let parent = path[..<slash]
        return parent.isEmpty ? "/" : String(parent)
    }

    /// Creates an empty file with `mode` if nothing exists at `path`; an
    /// existing file is left as it is.
    static func createFileIfMissing(_ path: String, mode: mode_t) throws {
        let descriptor = open(path, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        if descriptor == -1 && errno == EEXIST { return }
        try check(descriptor, path: path, action: "creating the file")
        close(descriptor)
    }
}

extension FileSystem {
    /// `directory/name`, without doubling a slash.
    static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    /// `path` without trailing slashes (but `/` stays `/`).
    static func trimmingTrailingSlashes(_ path: String) -> String {
        var path = Substring(path)
        while path.count > 1 && path.hasSuffix("/") { path = path.dropLast() }
        return String(path)
    }
}
