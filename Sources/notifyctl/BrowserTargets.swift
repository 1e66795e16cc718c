import Glibc
import NotifyCore

/// A browser `notifyctl browser` knows: where it reads the native messaging
/// host's manifest (per user, system-wide), where notifyd's package puts the
/// extension for it, and where it keeps its profiles.
struct BrowserTarget: Sendable {
    let name: String
    let family: BrowserNames.Family
    /// Programs on `PATH` that mean it is installed.
    let executables: [String]
    /// Absolute paths that mean it is installed (a browser outside `PATH`).
    var installedAt: [String] = []
    /// Host manifests per user: below `$HOME` (`~/...`) or `$XDG_CONFIG_HOME`.
    let userDirectory: String
    /// Host manifests system-wide; nil where none is known.
    let systemDirectory: String?
    /// Where the Debian package puts the extension for every user of this
    /// browser (SPEC, "Browser downloads"); nil for a browser that loads no
    /// unsigned extension from a system directory.
    var systemExtension: String? = nil
    /// Its profiles, each a directory: below `$HOME` or `$XDG_CONFIG_HOME` as above.
    let profiles: String
    /// The page listing its extensions (`chrome://extensions` and the like).
    var extensionsPage = "about:addons"

    static let firefoxSystemScope = "/usr/share/mozilla/extensions/{ec8030f7-c20a-464f-9b0e-13a3a9e97384}"
    static let chromiumExtensions = "/usr/share/chromium/extensions"

    static let all: [BrowserTarget] = [
        BrowserTarget(
            name: "Firefox ESR", family: .firefox, executables: ["firefox-esr"],
            userDirectory: "~/.mozilla/native-messaging-hosts", systemDirectory: "/usr/lib/mozilla/native-messaging-hosts",
            systemExtension: "\(firefoxSystemScope)/\(BrowserNames.firefoxExtensionID)", profiles: "~/.mozilla/firefox"),
        BrowserTarget(
            name: "Firefox", family: .firefox, executables: ["firefox.real"],
            installedAt: ["/usr/lib/firefox/firefox", "/opt/firefox/firefox"],
            userDirectory: "~/.mozilla/native-messaging-hosts", systemDirectory: "/usr/lib/mozilla/native-messaging-hosts",
            profiles: "~/.mozilla/firefox"),
        BrowserTarget(
            name: "Chromium", family: .chromium, executables: ["chromium", "chromium-browser"],
            userDirectory: "chromium/NativeMessagingHosts", systemDirectory: "/etc/chromium/native-messaging-hosts",
            systemExtension: "\(chromiumExtensions)/\(BrowserNames.hostName)", profiles: "chromium", extensionsPage: "chrome://extensions"),
        BrowserTarget(
            name: "Google Chrome", family: .chromium, executables: ["google-chrome", "google-chrome-stable"],
            userDirectory: "google-chrome/NativeMessagingHosts", systemDirectory: "/etc/opt/chrome/native-messaging-hosts",
            profiles: "google-chrome", extensionsPage: "chrome://extensions"),
        BrowserTarget(
            name: "Brave", family: .chromium, executables: ["brave-browser", "brave"],
            userDirectory: "BraveSoftware/Brave-Browser/NativeMessagingHosts", systemDirectory: nil,
            profiles: "BraveSoftware/Brave-Browser", extensionsPage: "brave://extensions"),
        BrowserTarget(
            name: "Vivaldi", family: .chromium, executables: ["vivaldi", "vivaldi-stable"],
            userDirectory: "vivaldi/NativeMessagingHosts", systemDirectory: nil, profiles: "vivaldi", extensionsPage: "vivaldi://extensions"),
        BrowserTarget(
            name: "Microsoft Edge", family: .chromium, executables: ["microsoft-edge", "microsoft-edge-stable"],
            userDirectory: "microsoft-edge/NativeMessagingHosts", systemDirectory: "/etc/opt/edge/native-messaging-hosts",
            profiles: "microsoft-edge", extensionsPage: "edge://extensions"),
    ]

    /// Whether it is installed: one of its programs on `PATH`, or at one of its paths.
    var isInstalled: Bool {
        let path = environment("PATH") ?? "/usr/bin:/bin"
        return executables.contains { name in
            path.split(separator: ":").contains { access("\($0)/\(name)", X_OK) == 0 }
        } || installedAt.contains { access(BrowserFiles.system($0), X_OK) == 0 }
    }

    func manifestPath(system: Bool) -> String? {
        let directory = system ? systemDirectory.map(BrowserFiles.system) : Self.resolved(userDirectory)
        return directory.map { "\($0)/\(BrowserNames.hostName).json" }
    }

    /// A directory below `$HOME` (`~/...`) or `$XDG_CONFIG_HOME`, resolved.
    static func resolved(_ directory: String) -> String {
        let home = environment("HOME") ?? ""
        if directory.hasPrefix("~/") { return home + directory.dropFirst() }
        let config = environment("XDG_CONFIG_HOME").flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.config"
        return config + "/" + directory
    }
}

func environment(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
}
