import Foundation
import Testing
import NotifyTesting

/// `notifyctl browser install` and `status` (the browser tests' profiles
/// get their manifests from it too).
@Suite struct BrowserInstallTests {
    let home: URL

    init() throws {
        home = try makeTemporaryDirectory(prefix: "notifyd-browser-home")
    }

    func notifyctl(_ arguments: String...) throws -> ProcessResult {
        try NotifyctlRunner(environment: [
            "HOME": home.path, "XDG_CONFIG_HOME": home.appendingPathComponent(".config").path,
        ]).run(arguments)
    }

    func manifest(_ relative: String) throws -> [String: Any] {
        let data = try Data(contentsOf: home.appendingPathComponent(relative))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func installWritesAManifestForEachBrowserFoundAndSaysHowToAddTheExtension() throws {
        _ = try requireTool("chromium", package: "chromium")
        _ = try requireTool("firefox-esr", package: "firefox-esr")
        let install = try notifyctl("browser", "install")
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
        #expect(install.stdout.contains("Firefox: wrote \(home.path)/.mozilla/native-messaging-hosts/org.notifyd.browser.json"))
        #expect(install.stdout.contains("Load unpacked, \(HeadlessBrowser.extensionDirectory.path)"), "\(install.stdout)")
        #expect(install.stdout.contains("Load Temporary Add-on"))
        #expect(!install.stdout.contains("Google Chrome"), "only browsers found are set up")

        let status = try notifyctl("browser", "status")
        #expect(status.status == 0)
        let rows = status.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
        #expect(rows.contains("Firefox yes set up -"), "\(status.stdout)")
        #expect(rows.contains("Chromium yes set up -"))
        #expect(rows.contains("Google Chrome no - -"))
    }

    /// The package's system-wide manifests (`browser/*.json`) are what
    /// `notifyctl browser install` writes for the packaged host.
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

    @Test func statusCallsAManifestWhoseHostIsGoneBroken() throws {
        let directory = home.appendingPathComponent(".config/chromium/NativeMessagingHosts")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try #"{"name": "org.notifyd.browser", "path": "/nowhere/notifyd-browser-host", "type": "stdio"}"#
            .write(to: directory.appendingPathComponent("org.notifyd.browser.json"), atomically: true, encoding: .utf8)
        let status = try notifyctl("browser", "status")
        #expect(status.stdout.contains("broken (/nowhere/notifyd-browser-host is missing)"), "\(status.stdout)")
    }

    @Test func userAndSystemTogetherIsAUsageError() throws {
        let result = try notifyctl("browser", "install", "--user", "--system")
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("notifyctl: --user and --system exclude each other"), "\(result.stderr)")
    }

    /// The manifest's `key` gives Chromium the ID the host manifests allow.
    @Test func theExtensionsKeyGivesItsChromiumID() throws {
        let script = """
            import base64, hashlib, json, sys
            key = json.load(open(sys.argv[1]))["key"]
            digest = hashlib.sha256(base64.b64decode(key)).hexdigest()[:32]
            print("".join(chr(ord("a") + int(c, 16)) for c in digest))
            """
        let result = try runProcess(
            try requireTool("python3", package: "python3"),
            ["-c", script, HeadlessBrowser.extensionDirectory.appendingPathComponent("manifest.json").path])
        #expect(result.stdout == HeadlessBrowser.chromiumExtensionID + "\n", "\(result.stderr)")
    }
}
