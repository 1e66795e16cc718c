import ArgumentParser
import Glibc
import NotifyCore

/// `notifyctl browser install|status`: the browsers' side of "Browser
/// downloads" (SPEC): the native messaging host manifests.
struct BrowserCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "browser",
        abstract: "Set up browsers to report their downloads to notifyd.",
        discussion: """
            Downloads in Firefox and Chromium-based browsers reach notifyd through notifyd's \
            browser extension and its native messaging host, notifyd-browser-host. `install` \
            writes the host's manifest where each browser looks for it and says how to add the \
            extension; `status` says which browsers are set up.

            Examples:
              notifyctl browser install
              sudo notifyctl browser install --system
              notifyctl browser status
            """,
        subcommands: [BrowserInstall.self, BrowserStatus.self])
}

struct BrowserInstall: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "install",
        abstract: "Write the host manifests for the browsers found, and say how to add the extension.",
        discussion: """
            Per user (the default) into ~/.mozilla/native-messaging-hosts/ and \
            ~/.config/BROWSER/NativeMessagingHosts/; with --system into \
            /usr/lib/mozilla/native-messaging-hosts/, /etc/chromium/native-messaging-hosts/ and \
            the like (as root). Only browsers whose program is on PATH are set up. The host is \
            PREFIX/lib/notifyd/notifyd-browser-host; the extension, PREFIX/share/notifyd/browser/extension.

            Examples:
              notifyctl browser install
              sudo notifyctl browser install --system
            """)

    @Flag(name: .customLong("user"), help: "Set up the browsers for this user (the default).")
    var user = false

    @Flag(name: .customLong("system"), help: "Set up the browsers for every user of the machine.")
    var system = false

    func validate() throws {
        if user && system { throw ValidationError("--user and --system exclude each other") }
    }

    func run() throws {
        guard let host = BrowserFiles.host() else {
            throw NotifyctlError(.daemon, "notifyd-browser-host is not installed next to notifyctl")
        }
        let found = BrowserTarget.all.filter(\.isInstalled)
        guard !found.isEmpty else {
            Output.line("No browser found on PATH (\(BrowserTarget.all.map(\.name).joined(separator: ", "))): nothing written.")
            return
        }
        let extensionDirectory = BrowserFiles.extensionDirectory() ?? "/usr/share/notifyd/browser/extension"
        for target in found {
            guard let path = target.manifestPath(system: system) else {
                Output.line("\(target.name): no system-wide directory known; run `notifyctl browser install` as each user.")
                continue
            }
            try ManifestFile.write(BrowserNames.hostManifest(target.family, hostPath: host), to: path)
            Output.line("\(target.name): wrote \(path)")
            Output.line("  " + Self.howToAddTheExtension(target, extensionDirectory: extensionDirectory))
        }
    }

    /// The packaged extension for Firefox, next to its directory.
    static func xpi(_ extensionDirectory: String) -> String {
        String(extensionDirectory[..<(extensionDirectory.lastIndex(of: "/") ?? extensionDirectory.endIndex)])
            + "/notifyd-browser.xpi"
    }

    static func howToAddTheExtension(_ target: BrowserTarget, extensionDirectory: String) -> String {
        switch target.family {
        case .firefox:
            "then add the extension: about:debugging#/runtime/this-firefox, Load Temporary Add-on, "
                + "\(extensionDirectory)/manifest.json (until Firefox restarts)"
                + (BrowserFiles.exists(xpi(extensionDirectory))
                    ? "; for good, in Firefox ESR or Developer Edition with xpinstall.signatures.required=false: "
                        + "about:addons, Install Add-on From File, \(xpi(extensionDirectory))" : "")
        case .chromium:
            "then add the extension: chrome://extensions, turn on Developer mode, Load unpacked, \(extensionDirectory)"
        }
    }
}

struct BrowserStatus: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Say which browsers have the host set up, per user and system-wide.",
        discussion: """
            One line per browser notifyd knows: whether its program is on PATH, and whether its \
            host manifest is set up for this user and for the machine (`broken` when the manifest \
            names a host that is not there, `-` when there is none).

            Examples:
              notifyctl browser status
            """)

    func run() throws {
        var rows = [["BROWSER", "INSTALLED", "USER", "SYSTEM"]]
        for target in BrowserTarget.all {
            rows.append([
                target.name, target.isInstalled ? "yes" : "no",
                ManifestFile.state(target.manifestPath(system: false)),
                ManifestFile.state(target.manifestPath(system: true)),
            ])
        }
        TextTable.lines(rows).forEach(Output.line)
    }
}
