import ArgumentParser
import Glibc
import NotifyCore

/// `notifyctl browser install|status`: the browsers' side of "Browser
/// downloads" (SPEC): the extension and the native messaging host.
struct BrowserCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "browser",
        abstract: "Say which browsers report their downloads to notifyd, and set up the others.",
        discussion: """
            Downloads in Firefox and Chromium-based browsers reach notifyd through notifyd's \
            browser extension and its native messaging host, notifyd-browser-host. With the Debian \
            package, Firefox ESR and Chromium from Debian need nothing: both are installed for every \
            user and load at the browser's next start. `status` says, for each browser found, where \
            the extension is and whether the host's manifest is sound; `install` sets up the \
            browsers the package does not cover and says what is left to do in each.

            Examples:
              notifyctl browser status
              notifyctl browser install --user
            """,
        subcommands: [BrowserInstall.self, BrowserStatus.self])
}

struct BrowserInstall: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "install",
        abstract: "Write the host manifests for the browsers found, and say how to add the extension.",
        discussion: """
            For browsers the Debian package does not cover (Firefox from Mozilla, Google Chrome, \
            Brave, Vivaldi, Microsoft Edge, or any browser when notifyd was installed from source). \
            Per user (the default) into ~/.mozilla/native-messaging-hosts/ and \
            ~/.config/BROWSER/NativeMessagingHosts/; with --system into \
            /usr/lib/mozilla/native-messaging-hosts/, /etc/chromium/native-messaging-hosts/ and \
            the like (as root). Only browsers that are installed are set up; a browser the package \
            already set up is left as it is. The host is PREFIX/lib/notifyd/notifyd-browser-host; \
            the extension, PREFIX/share/notifyd/browser/chromium and .../firefox.

            Examples:
              notifyctl browser install --user
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
            Output.line("No browser found (\(BrowserTarget.all.map(\.name).joined(separator: ", "))): nothing written.")
            return
        }
        for target in found {
            let setup = BrowserSetup(target)
            if setup.extensionState == .systemWide, case .soundFor = setup.host, setup.hostScope == "system-wide" {
                Output.line("\(target.name): nothing to do: notifyd's package set it up for every user "
                    + "(a \(target.name) that runs now picks it up at its next start).")
                continue
            }
            guard let path = target.manifestPath(system: system) else {
                Output.line("\(target.name): no system-wide directory known; run `notifyctl browser install --user` as each user.")
                continue
            }
            try ManifestFile.write(BrowserNames.hostManifest(target.family, hostPath: host), to: path)
            Output.line("\(target.name): wrote \(path)")
            Output.line("  " + Self.whatIsLeft(target, setup: setup))
        }
    }

    /// What the user must still do in `target` for the extension, in words.
    static func whatIsLeft(_ target: BrowserTarget, setup: BrowserSetup) -> String {
        if setup.extensionState == .systemWide {
            return "The extension is installed for every user: restart \(target.name) if it runs."
        }
        let directory = BrowserFiles.extensionDirectory(target.family)
        let place = directory ?? "the directory that `browser/make-extension \(target.family.rawValue) DIR` makes from notifyd's source"
        let temporary = "about:debugging#/runtime/this-firefox, Load Temporary Add-on, "
            + (directory.map { "\($0)/manifest.json" } ?? "manifest.json in \(place)")
        switch (target.family, target.systemExtension != nil) {
        case (.firefox, true):
            return "Firefox ESR loads notifyd's unsigned add-on only from its system directory, which the Debian "
                + "package fills (no step then). Until it is installed: \(temporary) (Firefox forgets it when it quits)."
        case (.firefox, false):
            return "Firefox from Mozilla installs only add-ons Mozilla signed, and notifyd's is not: for this session, "
                + "\(temporary); Firefox forgets it when it quits. Debian's Firefox ESR needs no step."
        case (.chromium, _):
            return "\(target.name) adds an extension from outside its web store only in Developer mode: open "
                + "\(target.extensionsPage), turn on Developer mode, click Load unpacked and choose \(place). "
                + "It keeps the extension across restarts."
        }
    }
}

struct BrowserStatus: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Say, for each browser found, where the extension is and whether the host is set up.",
        discussion: """
            One line per browser installed: EXTENSION is `system-wide` (Debian's package put it \
            where the browser loads it for every user), `per user` (in one of your profiles) or \
            `no`; HOST is `set up (per user)` or `set up (system-wide)` when the manifest the \
            browser reads first names a host that is there and allows notifyd's extension, \
            `broken: WHY`, or `missing`. With --json, an array of {"browser","extension",\
            "host","host_problem","host_manifest"} objects.

            Examples:
              notifyctl browser status
              notifyctl browser status --json | jq '.[] | select(.host != "set-up")'
            """)

    @OptionGroup var output: OutputOptions

    func run() throws {
        let found = BrowserTarget.all.filter(\.isInstalled).map(BrowserSetup.init)
        var rows = [["BROWSER", "EXTENSION", "HOST"]]
        rows += found.map { [$0.target.name, $0.extensionState.rawValue, $0.hostText] }
        let none = "No browser found (\(BrowserTarget.all.map(\.name).joined(separator: ", ")))."
        output.emit(text: found.isEmpty ? [none] : TextTable.lines(rows), json: .array(found.map(\.json)))
    }
}
