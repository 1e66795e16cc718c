import Foundation

/// The profiles: the host's manifest where each browser looks for it, the
/// extension, and preferences that save downloads without asking.
extension HeadlessBrowser {
    /// The native messaging host manifest, as `notifyctl browser install` writes it.
    static func hostManifest(for kind: Kind) -> String {
        let allowed = kind == .chromium
            ? #""allowed_origins": ["chrome-extension://\#(chromiumExtensionID)/"]"#
            : #""allowed_extensions": ["\#(firefoxExtensionID)"]"#
        return """
            {"name": "org.notifyd.browser", "description": "notifyd: browser downloads", \
            "path": "\(host)", "type": "stdio", \(allowed)}

            """
    }

    func prepareChromium() throws {
        let hosts = profile.appendingPathComponent("NativeMessagingHosts")
        try FileManager.default.createDirectory(at: hosts, withIntermediateDirectories: true)
        try Self.hostManifest(for: .chromium).write(
            to: hosts.appendingPathComponent("org.notifyd.browser.json"), atomically: true, encoding: .utf8)
        let defaultProfile = profile.appendingPathComponent("Default")
        try FileManager.default.createDirectory(at: defaultProfile, withIntermediateDirectories: true)
        // Downloads go to the test's directory without a prompt, and a page
        // may start many (the burst test).
        try """
            {"download": {"default_directory": "\(downloads.path)", "prompt_for_download": false},
             "profile": {"default_content_setting_values": {"automatic_downloads": 1}}}
            """.write(to: defaultProfile.appendingPathComponent("Preferences"), atomically: true, encoding: .utf8)
    }

    func prepareFirefox() throws {
        let hosts = home.appendingPathComponent(".mozilla/native-messaging-hosts")
        try FileManager.default.createDirectory(at: hosts, withIntermediateDirectories: true)
        try Self.hostManifest(for: .firefox).write(
            to: hosts.appendingPathComponent("org.notifyd.browser.json"), atomically: true, encoding: .utf8)
        // The extension as an unsigned add-on of the profile, named by its ID
        // (ESR installs it when signatures are not required).
        let extensions = profile.appendingPathComponent("extensions")
        try FileManager.default.createDirectory(at: extensions, withIntermediateDirectories: true)
        let xpi = extensions.appendingPathComponent("\(Self.firefoxExtensionID).xpi").path
        let zip = try runProcess(
            try requireTool("python3", package: "python3"),
            ["-c", "import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w') as z:\n"
                + "    for name in ('manifest.json', 'background.js'): z.write(sys.argv[2] + '/' + name, name)",
             xpi, Self.extensionDirectory.path])
        guard zip.status == 0 else { throw TestFailure("cannot pack the extension: \(zip.stderr)") }
        let preferences: [(String, String)] = [
            ("xpinstall.signatures.required", "false"), ("extensions.autoDisableScopes", "0"),
            ("extensions.enabledScopes", "15"), ("browser.download.folderList", "2"),
            ("browser.download.dir", "\"\(downloads.path)\""), ("browser.download.useDownloadDir", "true"),
            ("browser.download.always_ask_before_handling_new_types", "false"),
            ("browser.download.alwaysOpenPanel", "false"), ("browser.shell.checkDefaultBrowser", "false"),
            ("datareporting.policy.dataSubmissionEnabled", "false"), ("browser.aboutwelcome.enabled", "false"),
            ("app.update.enabled", "false"), ("extensions.update.enabled", "false"),
            ("toolkit.telemetry.reportingpolicy.firstRun", "false"),
            ("extensions.allowPrivateBrowsingByDefault", "true"),
        ]
        try preferences.map { "user_pref(\"\($0.0)\", \($0.1));\n" }.joined()
            .write(to: profile.appendingPathComponent("user.js"), atomically: true, encoding: .utf8)
    }
}
