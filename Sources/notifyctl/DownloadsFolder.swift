import Glibc

/// Where `notifyctl download` puts a file when no `-o` is given: the
/// user's Downloads folder as `xdg-user-dir DOWNLOAD` names it.
///
/// The reading is a pure function of the file's text, `$HOME` and which
/// directories exist, so it is tested without touching the real ones.
enum DownloadsFolder {
    /// `XDG_DOWNLOAD_DIR` of `user-dirs.dirs`, if it names a directory
    /// that exists; else `~/Downloads` if it exists; else `$HOME`.
    static func resolve(userDirs: String?, home: String, isDirectory: (String) -> Bool) -> String {
        if let userDirs, let configured = downloadDirectory(in: userDirs, home: home), isDirectory(configured) {
            return configured
        }
        let fallback = LocalPath.joined(home, "Downloads")
        return isDirectory(fallback) ? fallback : home
    }

    /// The `XDG_DOWNLOAD_DIR` line of a `user-dirs.dirs` text, read as
    /// GLib and `xdg-user-dir` read it: `XDG_DOWNLOAD_DIR="$HOME/Downloads"`
    /// or an absolute path in double quotes, `\` escaping the next
    /// character; the last such line wins; `#` lines are comments.
    static func downloadDirectory(in text: String, home: String) -> String? {
        var found: String?
        for rawLine in text.split(whereSeparator: \.isNewline) {
            var line = rawLine.drop { $0 == " " || $0 == "\t" }
            guard line.hasPrefix("XDG_DOWNLOAD_DIR") else { continue }
            line = line.dropFirst("XDG_DOWNLOAD_DIR".count).drop { $0 == " " || $0 == "\t" }
            guard line.first == "=" else { continue }
            line = line.dropFirst().drop { $0 == " " || $0 == "\t" }
            guard line.first == "\"" else { continue }
            line = line.dropFirst()
            var value = ""
            var escaped = false
            var closed = false
            for character in line {
                if escaped {
                    value.append(character)
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    closed = true
                    break
                } else {
                    value.append(character)
                }
            }
            guard closed else { continue }
            if value == "$HOME" || value.hasPrefix("$HOME/") {
                found = LocalPath.joined(home, String(value.dropFirst("$HOME".count)))
            } else if value.hasPrefix("/") {
                found = LocalPath.normalized(value)
            }
        }
        return found
    }

    /// The folder for this user now: `$XDG_CONFIG_HOME/user-dirs.dirs`
    /// (default `~/.config`) read as above.
    static func current() throws(NotifyctlError) -> String {
        guard let home = LocalPath.home() else {
            throw NotifyctlError(.usage, "cannot find your Downloads folder: HOME is not set; give -o PATH")
        }
        var config = getenv("XDG_CONFIG_HOME").map { String(cString: $0) } ?? ""
        if !config.hasPrefix("/") { config = LocalPath.joined(home, ".config") }
        let text = LocalPath.contents(of: LocalPath.joined(config, "user-dirs.dirs"))
        return resolve(userDirs: text, home: home, isDirectory: LocalPath.isDirectory)
    }
}

/// Local paths as notifyd wants them: absolute, with no `.` or `..` part.
enum LocalPath {
    /// `path` made absolute against `directory` (when relative) and
    /// normalized; a trailing `/` is kept.
    static func absolute(_ path: String, from directory: String) -> String {
        let full = path.hasPrefix("/") ? path : directory + "/" + path
        let normal = normalized(full)
        let trailing = path.hasSuffix("/") || path.hasSuffix("/.") || path == "." || path.hasSuffix("/..")
            || path == ".."
        return trailing && normal != "/" ? normal + "/" : normal
    }

    /// `/a/./b//c/../d` as `/a/b/d`: `.` and empty parts dropped, `..`
    /// taking away the part before it (never above `/`), no trailing `/`.
    static func normalized(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/") {
            switch part {
            case ".": continue
            case "..": _ = parts.popLast()
            default: parts.append(part)
            }
        }
        return "/" + parts.joined(separator: "/")
    }

    /// `directory/name`, normalized.
    static func joined(_ directory: String, _ name: String) -> String {
        normalized(directory + "/" + name)
    }

    /// The current directory; a usage error when it is gone.
    static func currentDirectory() throws(NotifyctlError) -> String {
        guard let pointer = getcwd(nil, 0) else {
            throw NotifyctlError(
                .usage,
                "cannot make the path absolute: the current directory is unavailable "
                    + "(\(String(cString: strerror(errno)))); give an absolute path")
        }
        defer { free(pointer) }
        return String(cString: pointer)
    }

    /// `$HOME`, else the home of the user in the password database.
    static func home() -> String? {
        if let home = getenv("HOME").map({ String(cString: $0) }), home.hasPrefix("/") { return home }
        guard let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir else { return nil }
        return String(cString: directory)
    }

    /// Whether `path` is a directory (following symbolic links).
    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// The text of a small file (at most 64 KiB read), or nil.
    static func contents(of path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var bytes = [UInt8](repeating: 0, count: 65_536)
        let count = fread(&bytes, 1, bytes.count, file)
        return String(decoding: bytes[..<count], as: UTF8.self)
    }
}
