import NotifyCore

/// Which browser started the host, as its app ID (desktop entry ID, so
/// docks badge the browser's icon), and which of its profiles.
///
/// Chromium-based browsers pass the extension's origin
/// (`chrome-extension://ID/`), Firefox the manifest's path and the
/// extension's ID; the browser's own executable (the host's parent) names
/// which one it is.
public struct BrowserIdentity: Equatable, Sendable {
    public var app: String
    public var profile: String

    /// App IDs by the file name of the browser's executable.
    static let appsByExecutable: [String: String] = [
        "chromium": "chromium", "chromium-browser": "chromium",
        "chrome": "google-chrome", "google-chrome": "google-chrome",
        "brave": "brave-browser", "brave-browser": "brave-browser",
        "vivaldi-bin": "vivaldi-stable", "vivaldi": "vivaldi-stable",
        "msedge": "microsoft-edge", "microsoft-edge": "microsoft-edge",
        "firefox-esr": "firefox-esr", "firefox": "firefox", "firefox-bin": "firefox",
        "librewolf": "librewolf",
    ]

    /// - Parameters:
    ///   - arguments: the host's arguments, without its own name.
    ///   - parentExecutable: the path of the parent's executable, if known.
    ///   - parentArguments: the parent's command line (for its profile).
    ///   - override: `NOTIFYD_BROWSER_APP_ID`, for a browser this table
    ///     does not know (or one in a sandbox).
    public static func resolve(
        arguments: [String], parentExecutable: String?, parentArguments: [String], override: String?
    ) -> BrowserIdentity {
        let name = parentExecutable?.split(separator: "/").last.map(String.init) ?? ""
        let app: String
        if let override, (try? AppID(override)) != nil {
            app = override
        } else if let known = appsByExecutable[name] {
            app = known
        } else if arguments.first?.hasPrefix("chrome-extension://") == true {
            app = "chromium"
        } else {
            app = "firefox"
        }
        return BrowserIdentity(app: app, profile: profileKey(parentArguments))
    }

    /// A short, stable key of the profile named on the browser's command
    /// line (`--user-data-dir=DIR`, `--profile DIR`, `-P NAME`), or
    /// `default`.
    static func profileKey(_ arguments: [String]) -> String {
        var named: String?
        for (index, argument) in arguments.enumerated() {
            for option in ["--user-data-dir=", "--profile-directory="] where argument.hasPrefix(option) {
                named = (named ?? "") + argument
            }
            if ["--profile", "-profile", "-P", "--user-data-dir"].contains(argument), index + 1 < arguments.count {
                named = (named ?? "") + argument + "=" + arguments[index + 1]
            }
        }
        guard let named else { return "default" }
        // FNV-1a, 64 bits: stable across runs (Hasher is seeded per process).
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in named.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
