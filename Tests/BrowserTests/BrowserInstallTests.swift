import Foundation
import Testing
import NotifyTesting

/// `notifyctl browser install` and `status` (the browser tests' profiles
/// get their manifests from it too). `NOTIFYD_BROWSER_ROOT` stands for `/`
/// where a test needs the package's files; `NOTIFYD_BROWSER_EXTENSIONS`
/// names the extension built from this tree.
@Suite struct BrowserInstallTests {
    let home: URL
    let scratch: URL

    init() throws {
        home = try makeTemporaryDirectory(prefix: "notifyd-browser-home")
        scratch = try makeTemporaryDirectory(prefix: "notifyd-browser-scratch")
    }

    var extensions: URL { scratch.appendingPathComponent("extensions") }

    func notifyctl(_ arguments: String..., root: URL? = nil) throws -> ProcessResult {
        var environment = [
            "HOME": home.path, "XDG_CONFIG_HOME": home.appendingPathComponent(".config").path,
            "NOTIFYD_BROWSER_EXTENSIONS": extensions.path,
        ]
        environment["NOTIFYD_BROWSER_ROOT"] = root?.path
        return try NotifyctlRunner(environment: environment).run(arguments)
    }

    func manifest(_ relative: String) throws -> [String: Any] {
        let data = try Data(contentsOf: home.appendingPathComponent(relative))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// The status table's rows, spaces squeezed.
    func rows(_ output: String) -> [String] {
        output.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
    }

    func write(_ text: String, to relative: String, below base: URL) throws {
        let file = base.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: file, atomically: true, encoding: .utf8)
    }

    /// A root laid out as the Debian package lays out `/` (the extension in
    /// both browsers' system directories, the host manifests), its
    /// manifests naming the host built here.
    func packagedRoot() throws -> URL {
        let root = scratch.appendingPathComponent("root")
        let chromium = root.appendingPathComponent("usr/share/chromium/extensions/org.notifyd.browser")
        let firefox = root.appendingPathComponent(
            "usr/share/mozilla/extensions/{ec8030f7-c20a-464f-9b0e-13a3a9e97384}/browser@notifyd.org")
        _ = try HeadlessBrowser.buildExtension(.chromium, into: chromium)
        _ = try HeadlessBrowser.buildExtension(.firefox, into: firefox)
        for (family, directory) in [("firefox", "usr/lib/mozilla/native-messaging-hosts"), ("chromium", "etc/chromium/native-messaging-hosts")] {
            let packaged = try String(
                contentsOf: Executables.repositoryRoot().appendingPathComponent("browser/org.notifyd.browser.\(family).json"),
                encoding: .utf8)
            try write(packaged.replacingOccurrences(of: "/usr/lib/notifyd/notifyd-browser-host", with: HeadlessBrowser.host),
                      to: "\(directory)/org.notifyd.browser.json", below: root)
        }
        return root
    }

    @Test func installWritesAManifestForEachBrowserFoundAndSaysWhatIsLeft() throws {
        _ = try requireTool("chromium", package: "chromium")
        _ = try requireTool("firefox-esr", package: "firefox-esr")
        let install = try notifyctl("browser", "install", "--user")
        #expect(install.status == 0, "\(install.stderr)")
        let firefox = try manifest(".mozilla/native-messaging-hosts/org.notifyd.browser.json")
        let chromium = try manifest(".config/chromium/NativeMessagingHosts/org.notifyd.browser.json")
        let host = URL(fileURLWithPath: HeadlessBrowser.host).resolvingSymlinksInPath().path
        for manifest in [firefox, chromium] {
            #expect(manifest["name"] as? String == "org.notifyd.browser")
            #expect(manifest["type"] as? String == "stdio")
            #expect((manifest["path"] as? String).map { URL(fileURLWithPath: $0).resolvingSymlinksInPath().path } == host)
        }
        #expect(firefox["allowed_extensions"] as? [String] == ["browser@notifyd.org"])
        #expect(chromium["allowed_origins"] as? [String] == ["chrome-extension://\(HeadlessBrowser.chromiumExtensionID)/"])
        #expect(install.stdout.contains("Firefox ESR: wrote \(home.path)/.mozilla/native-messaging-hosts/org.notifyd.browser.json"))
        #expect(install.stdout.contains("Load unpacked and choose \(extensions.path)/chromium."), "\(install.stdout)")
        #expect(install.stdout.contains("Load Temporary Add-on, \(extensions.path)/firefox/manifest.json"), "\(install.stdout)")
        #expect(install.stdout.contains("which the Debian package fills"), "says what would make it need no step")
        #expect(!install.stdout.contains("Google Chrome"), "only browsers found are set up")

        let status = try notifyctl("browser", "status")
        #expect(status.status == 0)
        #expect(rows(status.stdout) == ["BROWSER EXTENSION HOST", "Firefox ESR no set up (per user)", "Chromium no set up (per user)"],
                "\(status.stdout)")
    }

    /// With the package's files, Debian's browsers need nothing: status
    /// says so, and install leaves them alone.
    @Test func withThePackagesFilesStatusSaysSystemWideAndInstallHasNothingToDo() throws {
        _ = try requireTool("chromium", package: "chromium")
        _ = try requireTool("firefox-esr", package: "firefox-esr")
        let root = try packagedRoot()
        let status = try notifyctl("browser", "status", root: root)
        #expect(rows(status.stdout) == [
            "BROWSER EXTENSION HOST", "Firefox ESR system-wide set up (system-wide)", "Chromium system-wide set up (system-wide)",
        ], "\(status.stdout)")
        let install = try notifyctl("browser", "install", "--user", root: root)
        #expect(install.status == 0, "\(install.stderr)")
        #expect(install.stdout.contains("Chromium: nothing to do: notifyd's package set it up for every user"), "\(install.stdout)")
        #expect(install.stdout.contains("Firefox ESR: nothing to do"), "\(install.stdout)")
        #expect(!FileManager.default.fileExists(atPath: home.appendingPathComponent(".config/chromium/NativeMessagingHosts").path))
        let json = try notifyctl("browser", "status", "--json", root: root)
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(parsed.map { $0["extension"] as? String } == ["system-wide", "system-wide"])
        #expect(parsed.map { $0["host"] as? String } == ["set-up", "set-up"])
    }

    /// An extension added to a profile by hand (Load unpacked; Firefox's
    /// add-on manager) is `per user`.
    @Test func anExtensionInAProfileIsPerUser() throws {
        _ = try requireTool("chromium", package: "chromium")
        _ = try requireTool("firefox-esr", package: "firefox-esr")
        try write(#"{"extensions":{"settings":{"\#(HeadlessBrowser.chromiumExtensionID)":{"location":4}}}}"#,
                  to: ".config/chromium/Profile 1/Preferences", below: home)
        try write(#"{"schemaVersion":36,"addons":[{"id":"browser@notifyd.org","location":"app-profile","active":true}]}"#,
                  to: ".mozilla/firefox/abc.default-esr/extensions.json", below: home)
        let status = try notifyctl("browser", "status")
        #expect(rows(status.stdout) == ["BROWSER EXTENSION HOST", "Firefox ESR per user missing", "Chromium per user missing"],
                "\(status.stdout)")
    }

    /// The packaged manifests (`browser/*.json`) are what `notifyctl
    /// browser install` writes for the packaged host.
    @Test func thePackagedManifestsAreWhatInstallWrites() throws {
        _ = try requireTool("chromium", package: "chromium")
        _ = try requireTool("firefox-esr", package: "firefox-esr")
        let result = try runProcess(Executables.notifyctl, ["browser", "install"], environment: [
            "HOME": home.path, "XDG_CONFIG_HOME": home.appendingPathComponent(".config").path,
            "NOTIFYD_BROWSER_HOST": "/usr/lib/notifyd/notifyd-browser-host",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let browser = Executables.repositoryRoot().appendingPathComponent("browser")
        for (packaged, written) in [
            ("org.notifyd.browser.firefox.json", ".mozilla/native-messaging-hosts/org.notifyd.browser.json"),
            ("org.notifyd.browser.chromium.json", ".config/chromium/NativeMessagingHosts/org.notifyd.browser.json"),
        ] {
            let expected = try String(contentsOf: browser.appendingPathComponent(packaged), encoding: .utf8)
            #expect(try String(contentsOf: home.appendingPathComponent(written), encoding: .utf8) == expected, "\(packaged)")
        }
    }

    @Test func statusCallsAManifestWhoseHostIsGoneOrThatAllowsAnotherExtensionBroken() throws {
        _ = try requireTool("chromium", package: "chromium")
        try write(#"{"name": "org.notifyd.browser", "path": "/nowhere/notifyd-browser-host", "type": "stdio"}"#,
                  to: ".config/chromium/NativeMessagingHosts/org.notifyd.browser.json", below: home)
        let gone = try notifyctl("browser", "status")
        #expect(gone.stdout.contains("broken: /nowhere/notifyd-browser-host is missing (named by \(home.path)/.config/chromium"),
                "\(gone.stdout)")
        try write(#"{"name": "org.notifyd.browser", "path": "\#(HeadlessBrowser.host)", "allowed_origins": ["chrome-extension://abc/"]}"#,
                  to: ".config/chromium/NativeMessagingHosts/org.notifyd.browser.json", below: home)
        let other = try notifyctl("browser", "status")
        #expect(other.stdout.contains("org.notifyd.browser.json does not allow notifyd's extension"), "\(other.stdout)")
    }

    @Test func userAndSystemTogetherIsAUsageError() throws {
        let result = try notifyctl("browser", "install", "--user", "--system")
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("notifyctl: --user and --system exclude each other"), "\(result.stderr)")
    }
}
