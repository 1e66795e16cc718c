import Foundation

/// The profiles: the host's manifest where each browser looks for it, the
/// extension, and preferences that save downloads without asking.
extension HeadlessBrowser {
    /// Writes the host manifests with `notifyctl browser install`, as a
    /// user would (into this browser's home), and returns what it printed.
    func installHostManifests() throws -> String {
        let result = try runProcess(Executables.notifyctl, ["browser", "install"], environment: [
            "HOME": home.path, "XDG_CONFIG_HOME": home.appendingPathComponent(".config").path,
        ])
        guard result.status == 0 else { throw TestFailure("notifyctl browser install failed: \(result.stderr)") }
        return result.stdout
    }

    func prepareChromium() throws {
        _ = try installHostManifests()
        let defaultProfile = profile.appendingPathComponent("Default")
        try FileManager.default.createDirectory(at: defaultProfile, withIntermediateDirectories: true)
        // Downloads go to the test's directory without a prompt, a page may
        // start many (the burst test), and the extension runs in incognito
        // windows too (as when a person allows it there).
        try """
            {"download": {"default_directory": "\(downloads.path)", "prompt_for_download": false},
             "profile": {"default_content_setting_values": {"automatic_downloads": 1}},
             "extensions": {"settings": {"\(Self.chromiumExtensionID)": {"incognito": true}}}}
            """.write(to: defaultProfile.appendingPathComponent("Preferences"), atomically: true, encoding: .utf8)
    }

    func prepareFirefox() throws {
        let port = try Self.freePort()
        marionettePort = port
        _ = try installHostManifests()
        // The extension as an unsigned add-on of the profile, named by its ID
        // (ESR installs it when signatures are not required).
        let extensions = profile.appendingPathComponent("extensions")
        try FileManager.default.createDirectory(at: extensions, withIntermediateDirectories: true)
        let xpi = extensions.appendingPathComponent("\(Self.firefoxExtensionID).xpi").path
        let zip = try runProcess(
            try requireTool("python3", package: "python3"),
            ["-c", "import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w') as z:\n"
                + "    for name in ('manifest.json', 'background.js'): z.write(sys.argv[2] + '/' + name, name)",
             xpi, extensionDirectory.path])
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
            ("extensions.allowPrivateBrowsingByDefault", "true"), ("marionette.port", String(port)),
        ]
        try preferences.map { "user_pref(\"\($0.0)\", \($0.1));\n" }.joined()
            .write(to: profile.appendingPathComponent("user.js"), atomically: true, encoding: .utf8)
    }
}
