import Glibc
import NotifyCore

/// A browser whose native messaging host manifest `notifyctl browser`
/// writes: where it looks for manifests, per user and system-wide.
struct BrowserTarget: Sendable {
    let name: String
    let family: BrowserNames.Family
    /// Executables that mean it is installed.
    let executables: [String]
    /// Below `$XDG_CONFIG_HOME` (Chromium-based) or `$HOME` (Firefox).
    let userDirectory: String
    /// nil where the browser reads no system-wide directory known here.
    let systemDirectory: String?

    static let all: [BrowserTarget] = [
        BrowserTarget(
            name: "Firefox", family: .firefox, executables: ["firefox", "firefox-esr"],
            userDirectory: "~/.mozilla/native-messaging-hosts", systemDirectory: "/usr/lib/mozilla/native-messaging-hosts"),
        BrowserTarget(
            name: "Chromium", family: .chromium, executables: ["chromium", "chromium-browser"],
            userDirectory: "chromium/NativeMessagingHosts", systemDirectory: "/etc/chromium/native-messaging-hosts"),
        BrowserTarget(
            name: "Google Chrome", family: .chromium, executables: ["google-chrome", "google-chrome-stable"],
            userDirectory: "google-chrome/NativeMessagingHosts", systemDirectory: "/etc/opt/chrome/native-messaging-hosts"),
        BrowserTarget(
            name: "Brave", family: .chromium, executables: ["brave-browser", "brave"],
            userDirectory: "BraveSoftware/Brave-Browser/NativeMessagingHosts", systemDirectory: nil),
        BrowserTarget(
            name: "Vivaldi", family: .chromium, executables: ["vivaldi", "vivaldi-stable"],
            userDirectory: "vivaldi/NativeMessagingHosts", systemDirectory: nil),
        BrowserTarget(
            name: "Microsoft Edge", family: .chromium, executables: ["microsoft-edge", "microsoft-edge-stable"],
            userDirectory: "microsoft-edge/NativeMessagingHosts", systemDirectory: "/etc/opt/edge/native-messaging-hosts"),
    ]

    /// The per-user directory, resolved.
    var resolvedUserDirectory: String {
        let home = environment("HOME") ?? ""
        if userDirectory.hasPrefix("~/") { return home + userDirectory.dropFirst() }
        let config = environment("XDG_CONFIG_HOME").flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.config"
        return config + "/" + userDirectory
    }

    /// Whether it is installed: one of its executables on `PATH`.
    var isInstalled: Bool {
        let path = environment("PATH") ?? "/usr/bin:/bin"
        return executables.contains { name in
            path.split(separator: ":").contains { access("\($0)/\(name)", X_OK) == 0 }
        }
    }

    func manifestPath(system: Bool) -> String? {
        (system ? systemDirectory : resolvedUserDirectory).map { "\($0)/\(BrowserNames.hostName).json" }
    }
}

func environment(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
}

/// Where the host and the extension are: next to notifyctl in a build
/// tree, or below its prefix when installed (`PREFIX/lib/notifyd/`,
/// `PREFIX/share/notifyd/browser/`).
enum BrowserFiles {
    static func executableDirectory() -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return "/usr/bin" }
        let path = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
    }

    static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// The host's absolute path, or nil when it is not installed.
    static func host() -> String? {
        if let override = environment("NOTIFYD_BROWSER_HOST"), override.hasPrefix("/") { return override }
        let directory = executableDirectory()
        let prefix = String(directory[..<(directory.lastIndex(of: "/") ?? directory.endIndex)])
        return ["\(prefix)/lib/notifyd/notifyd-browser-host", "\(directory)/notifyd-browser-host"].first(where: exists)
    }

    /// The extension's directory (its `manifest.json`), or nil.
    static func extensionDirectory() -> String? {
        var directory = executableDirectory()
        while !directory.isEmpty {
            for candidate in ["\(directory)/share/notifyd/browser/extension", "\(directory)/browser/extension"]
            where exists("\(candidate)/manifest.json") {
                return candidate
            }
            directory = String(directory[..<(directory.lastIndex(of: "/") ?? directory.startIndex)])
        }
        return nil
    }
}
