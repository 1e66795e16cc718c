import Glibc
import NotifyCore

/// Writing and reading the host manifests of `notifyctl browser`.
enum ManifestFile {
    /// Writes `text` to `path` (its directories made as needed) through a
    /// temporary file renamed into place, so a browser never reads half of it.
    static func write(_ text: String, to path: String) throws(NotifyctlError) {
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        try makeDirectories(directory)
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw failure("cannot write \(temporary)") }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd) == 0
        close(fd)
        guard written == bytes.count, synced, rename(temporary, path) == 0 else {
            let error = failure("cannot write \(path)")
            unlink(temporary)
            throw error
        }
    }

    private static func makeDirectories(_ directory: String) throws(NotifyctlError) {
        var current = ""
        for part in directory.split(separator: "/") {
            current += "/" + part
            if mkdir(current, 0o755) != 0 && errno != EEXIST { throw failure("cannot create \(current)") }
        }
    }

    private static func failure(_ what: String) -> NotifyctlError {
        let reason = String(cString: strerror(errno))
        let hint = errno == EACCES || errno == EPERM || errno == EROFS ? " (--system needs root: use sudo)" : ""
        return NotifyctlError(.daemon, "\(what): \(reason)\(hint)")
    }

    /// What a host manifest is worth to a browser.
    enum State: Equatable {
        /// It names notifyd's host, which is there, and allows notifyd's extension.
        case soundFor(host: String)
        case broken(String)
        case missing
    }

    /// The state of the manifest at `path`, read as a browser of `family` reads it.
    static func state(_ path: String?, family: BrowserNames.Family) -> State {
        guard let path, let text = BrowserFiles.text(path, limit: 65536) else { return .missing }
        guard let host = hostPath(in: text) else { return .broken("no \"path\" in \(path)") }
        guard access(host, X_OK) == 0 else { return .broken("\(host) is missing (named by \(path))") }
        let allowed = switch family {
        case .firefox: "\"\(BrowserNames.firefoxExtensionID)\""
        case .chromium: "\"chrome-extension://\(BrowserNames.chromiumExtensionID)/\""
        }
        guard text.contains(allowed) else { return .broken("\(path) does not allow notifyd's extension") }
        return .soundFor(host: host)
    }

    /// The `"path"` member of a manifest (a string without escapes, as
    /// paths are), wherever it is in the text.
    static func hostPath(in manifest: String) -> String? {
        let bytes = Array(manifest.utf8)
        let key = Array("\"path\"".utf8)
        func skipSpaces(_ index: inout Int) {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }
        var index = 0
        while index + key.count <= bytes.count {
            defer { index += 1 }
            guard Array(bytes[index..<index + key.count]) == key else { continue }
            var cursor = index + key.count
            skipSpaces(&cursor)
            guard cursor < bytes.count, bytes[cursor] == UInt8(ascii: ":") else { continue }
            cursor += 1
            skipSpaces(&cursor)
            guard cursor < bytes.count, bytes[cursor] == UInt8(ascii: "\"") else { return nil }
            let start = cursor + 1
            guard let end = bytes[start...].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
            return String(decoding: bytes[start..<end], as: UTF8.self)
        }
        return nil
    }
}
