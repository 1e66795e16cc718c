import Glibc
import NotifyCore

/// Where the host and the extension are: next to notifyctl in a build
/// tree, or below its prefix when installed (`PREFIX/lib/notifyd/`,
/// `PREFIX/share/notifyd/browser/chromium|firefox`).
enum BrowserFiles {
    static func executableDirectory() -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return "/usr/bin" }
        let path = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
    }

    static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// A system-wide path as this machine has it; `NOTIFYD_BROWSER_ROOT`
    /// (tests) stands for `/`.
    static func system(_ path: String) -> String {
        (environment("NOTIFYD_BROWSER_ROOT").flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "") + path
    }

    /// The host's absolute path, or nil when it is not installed.
    static func host() -> String? {
        if let override = environment("NOTIFYD_BROWSER_HOST"), override.hasPrefix("/") { return override }
        let directory = executableDirectory()
        let prefix = String(directory[..<(directory.lastIndex(of: "/") ?? directory.endIndex)])
        return ["\(prefix)/lib/notifyd/notifyd-browser-host", "\(directory)/notifyd-browser-host"].first(where: exists)
    }

    /// The extension built for `family` (the directory of its
    /// `manifest.json`), or nil. `NOTIFYD_BROWSER_EXTENSIONS` names a
    /// directory holding `chromium/` and `firefox/` (a source tree's
    /// `browser/make-extension` output).
    static func extensionDirectory(_ family: BrowserNames.Family) -> String? {
        if let override = environment("NOTIFYD_BROWSER_EXTENSIONS"), override.hasPrefix("/") {
            return "\(override)/\(family.rawValue)"
        }
        var directory = executableDirectory()
        while !directory.isEmpty {
            let candidate = "\(directory)/share/notifyd/browser/\(family.rawValue)"
            if exists("\(candidate)/manifest.json") { return candidate }
            directory = String(directory[..<(directory.lastIndex(of: "/") ?? directory.startIndex)])
        }
        return nil
    }

    /// The first `limit` bytes of the file at `path`, as text; nil when it cannot be read.
    static func text(_ path: String, limit: Int = 4 << 20) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while bytes.count < limit {
            let got = fread(&chunk, 1, chunk.count, file)
            if got <= 0 { break }
            bytes += chunk[..<got]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The names in directory `path` (without `.` and `..`); empty when it cannot be read.
    static func entries(_ path: String) -> [String] {
        guard let directory = opendir(path) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }
}
