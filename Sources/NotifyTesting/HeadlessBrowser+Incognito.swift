import Foundation

/// Chromium's incognito window, headless, with the extension allowed in
/// it (as a person allows it on chrome://extensions; the profile's
/// preference, see ``prepareChromium()``).
///
/// Headless Chromium asks where to save a download made in incognito
/// (`Download.PathGenerationEvent` says "use the last prompt directory",
/// whatever `prompt_for_download` is) and, with no dialog to ask in, the
/// download ends `USER_CANCELED` at once. The tab's own download behaviour
/// (`Page.setDownloadBehavior`, set before the page loads) saves it without
/// asking, as the regular profile's preference does.
extension HeadlessBrowser {
    /// Waits for the extension's worker (its `chrome` bindings ready) and
    /// the incognito tab, lets the tab save downloads to DOWNLOADS, loads
    /// URL in it, writes `true` to READY, and stays attached (the tab's
    /// download behaviour ends with the client that set it).
    static let incognitoNavigator = devToolsConnection + "\n" + #"""
        url, downloads = sys.argv[2], sys.argv[3]
        default = call("Target.getBrowserContexts", {})["defaultBrowserContextId"]
        worker = page = None
        for _ in range(150):
            targets = call("Target.getTargets", {})["targetInfos"]
            worker = next((t for t in targets if t["type"] == "service_worker" and t["url"].startswith("chrome-extension://")), None)
            page = next((t for t in targets if t["type"] == "page"), None)
            if worker and page: break
            time.sleep(0.2)
        if not (worker and page): sys.exit("no extension worker or no tab: %s" % targets)
        if page.get("browserContextId") == default: sys.exit("the tab is not incognito")
        session = call("Target.attachToTarget", {"targetId": worker["targetId"], "flatten": True})["sessionId"]
        for _ in range(150):
            ready = call("Runtime.evaluate", {"expression": "typeof chrome === 'object' && !!chrome.downloads && chrome.extension.isAllowedIncognitoAccess()", "awaitPromise": True, "returnByValue": True}, session)
            if ready.get("result", {}).get("value") is True: break
            time.sleep(0.2)
        else: sys.exit("the extension is not allowed in incognito")
        tab = call("Target.attachToTarget", {"targetId": page["targetId"], "flatten": True})["sessionId"]
        call("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": downloads}, tab)
        call("Page.navigate", {"url": url}, tab)
        # The tab keeps its download behaviour only while this client stays
        # attached: say so, then stay until the browser ends.
        with open(sys.argv[4], "w") as ready: ready.write("true")
        while True: receive()
        """#

    /// Starts Chromium in an incognito window and loads `url` there, once
    /// the extension listens and the tab saves downloads to ``downloads``.
    public func openIncognito(_ url: String, busAddress: String) throws {
        guard kind == .chromium else { throw TestFailure("incognito is Chromium's; Firefox has openPrivateWindow") }
        try open("about:blank", busAddress: busAddress, incognito: true)
        guard let port = devToolsPort else { throw TestFailure("no DevTools port") }
        let ready = directory.appendingPathComponent("incognito-ready")
        let log = Glibc.open(directory.appendingPathComponent("devtools.log").path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        defer { close(log) }
        let client = try SpawnedProcess(
            try requireTool("python3", package: "python3"),
            ["-c", Self.incognitoNavigator, String(port), url, downloads.path, ready.path], environment: childEnvironment([:]), stdoutFD: log, stderrFD: log)
        devToolsClient = client
        try waitUntil("the incognito tab loads the page", seconds: 60) {
            guard client.isRunning else {
                let said = (try? String(contentsOf: directory.appendingPathComponent("devtools.log"), encoding: .utf8)) ?? ""
                throw TestFailure("cannot open an incognito tab: \(said)\n\(self.log)")
            }
            return FileManager.default.fileExists(atPath: ready.path)
        }
    }
}
