import DBus
import Foundation
import Testing
import NotifyTesting

/// The extension as the package installs it: connected to its host from
/// the browser's start, and loaded by Debian's Chromium wrapper from
/// `/usr/share/chromium/extensions/` beside other extensions.
extension BrowserDownloadTests {
    /// An MV3 worker runs only when an event wakes it: the extension
    /// connects to its host at `runtime.onInstalled` (a new profile) and
    /// `runtime.onStartup` (each start after), before any download.
    @Test(arguments: HeadlessBrowser.Kind.allCases)
    func theHostStartsWithTheBrowserAndAgainAfterARestart(_ kind: HeadlessBrowser.Kind) throws {
        let run = try BrowserRun(kind)
        for start in ["first start", "restart"] {
            try run.browser.open("about:blank", busAddress: run.bus.address)
            try waitUntil("the browser starts its host at its \(start), with no download:\n\(run.browser.log)", seconds: 60) {
                !run.browser.hostProcesses(busAddress: run.bus.address).isEmpty
            }
            run.browser.stop()
            try waitUntil("the host ends with the browser", seconds: 20) {
                run.browser.hostProcesses(busAddress: run.bus.address).isEmpty
            }
        }
        try run.download([run.web.file("after-restart.bin", size: 30_000, chunks: 1, gapMilliseconds: 0)])
        let event = try #require(try run.reportedEvents(count: 1).first)
        #expect(event["path"] == .string(run.browser.downloads.appendingPathComponent("after-restart.bin").path))
        try waitUntil("the badge counts it", seconds: 10) { try run.badge() == 1 }
    }

    /// Debian's `/etc/chromium.d/extensions`, run as the wrapper runs it on
    /// a directory as long as `/usr/share/chromium/extensions`: it joins the
    /// directories with `ls -m`, and the wrapper splits its flags at spaces.
    /// The package's long name keeps the two directories apart; a short one
    /// would not (Chromium would take the second for a page to open).
    @Test func debiansWrapperLoadsTheExtensionBesideAShortDirectory() throws {
        let snippet = try String(contentsOfFile: "/etc/chromium.d/extensions", encoding: .utf8)
        let run = try BrowserRun(.chromium)
        var template = Array("/tmp/notifyd-chromium-XXXXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }.map { String(cString: $0) }
        let base = try #require(made, "mkdtemp")
        defer { try? FileManager.default.removeItem(atPath: base) }
        #expect(base.count == "/usr/share/chromium/extensions".count)
        let script = URL(fileURLWithPath: base + ".sh")
        defer { try? FileManager.default.removeItem(at: script) }
        try snippet.replacingOccurrences(of: "/usr/share/chromium/extensions", with: base)
            .write(to: script, atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: "\(base)/x", withIntermediateDirectories: true)
        try #"{"manifest_version": 3, "name": "x", "version": "1"}"#.write(toFile: "\(base)/x/manifest.json", atomically: true, encoding: .utf8)
        /// The flags the wrapper passes, split at spaces as its unquoted `$CHROMIUM_FLAGS` is.
        func wrapperFlags(extensionName: String) throws -> [String] {
            try? FileManager.default.removeItem(atPath: "\(base)/\(extensionName)")
            try FileManager.default.createSymbolicLink(atPath: "\(base)/\(extensionName)", withDestinationPath: run.browser.extensionDirectory.path)
            defer { try? FileManager.default.removeItem(atPath: "\(base)/\(extensionName)") }
            let flags = try runProcess("/bin/sh", ["-c", ". \"$1\"; printf %s \"$CHROMIUM_FLAGS\"", "sh", script.path], environment: ["COLUMNS": ""])
            return flags.stdout.split(separator: " ").map(String.init)
        }
        let short = try wrapperFlags(extensionName: "nd")
        #expect(short.contains { !$0.hasPrefix("--") }, "a short name is split into a stray argument: \(short)")
        let flags = try wrapperFlags(extensionName: "org.notifyd.browser")
        #expect(flags.allSatisfy { $0.hasPrefix("--") }, "\(flags)")
        #expect(flags.contains("--load-extension=\(base)/org.notifyd.browser,\(base)/x"), "\(flags)")

        try FileManager.default.createSymbolicLink(atPath: "\(base)/org.notifyd.browser", withDestinationPath: run.browser.extensionDirectory.path)
        run.browser.extensionArguments = flags.filter { $0.hasPrefix("--load-extension=") }
        try run.download([run.web.file("beside-another.bin", size: 30_000, chunks: 1, gapMilliseconds: 0)])
        let event = try #require(try run.reportedEvents(count: 1).first)
        #expect(event["path"] == .string(run.browser.downloads.appendingPathComponent("beside-another.bin").path))
        let popup = try #require(try run.popups(count: 1).last)
        #expect(popup.summary == "Download complete" && popup.actions.contains("open"), "\(popup.summary) \(popup.actions)")
        try waitUntil("the badge is on chromium", seconds: 10) { try run.badge(of: "chromium") == 1 }
    }
}
