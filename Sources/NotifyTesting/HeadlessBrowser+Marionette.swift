import Foundation

/// Firefox's own remote protocol (Marionette), in its chrome context: what
/// a person does in the browser's interface (cancel a download, open a
/// private window), done by script.
extension HeadlessBrowser {
    /// A Marionette client: connects to PORT, runs SCRIPT (asynchronous:
    /// it calls `resolve(value)`) in the chrome context, prints the value
    /// as JSON.
    static let marionetteClient = #"""
        import json, socket, sys, time
        port, script = int(sys.argv[1]), sys.argv[2]
        deadline = time.time() + 30
        while True:
            try:
                connection = socket.create_connection(("127.0.0.1", port))
                break
            except OSError:
                if time.time() > deadline:
                    sys.exit("Marionette does not answer on port %d" % port)
                time.sleep(0.2)
        stream = connection.makefile("rb")
        def read():
            length = b""
            while not length.endswith(b":"):
                byte = stream.read(1)
                if not byte:
                    sys.exit("Marionette closed the connection")
                length += byte
            return json.loads(stream.read(int(length[:-1])))
        read()
        def command(number, name, parameters):
            data = json.dumps([0, number, name, parameters]).encode()
            connection.sendall(str(len(data)).encode() + b":" + data)
            reply = read()
            if reply[2]:
                sys.exit("%s: %s" % (name, reply[2].get("message")))
            return reply[3]
        command(1, "WebDriver:NewSession", {})
        command(2, "Marionette:SetContext", {"value": "chrome"})
        body = "const resolve = arguments[arguments.length - 1];\n" + script
        print(json.dumps(command(3, "WebDriver:ExecuteAsyncScript", {"script": body, "args": []})["value"]))
        """#

    /// Runs `script` in Firefox's chrome context (it ends by calling
    /// `resolve(value)`) and returns the value as JSON text.
    public func chromeScript(_ script: String) throws -> String {
        guard kind == .firefox, let port = marionettePort else { throw TestFailure("Marionette is Firefox's") }
        let result = try runProcess(
            try requireTool("python3", package: "python3"), ["-c", Self.marionetteClient, String(port), script])
        guard result.status == 0 else { throw TestFailure("Marionette: \(result.stderr)") }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Cancels every running download: in Firefox as its Downloads panel's
    /// Cancel does, in Chromium with `downloads.cancel` (what its Cancel
    /// button calls).
    public func cancelAllDownloads() throws {
        if kind == .chromium {
            _ = try extensionScript("""
                chrome.downloads.search({ state: "in_progress" })
                    .then(downloads => Promise.all(downloads.map(download => chrome.downloads.cancel(download.id))))
                """)
            return
        }
        _ = try chromeScript("""
            const { Downloads } = ChromeUtils.importESModule("resource://gre/modules/Downloads.sys.mjs");
            Downloads.getList(Downloads.ALL).then(list => list.getAll())
                .then(downloads => Promise.all(downloads.map(download => download.cancel().then(() => download.removePartialData()))))
                .then(() => resolve(true), error => resolve(String(error)));
            """)
    }

    /// Lets the extension run in private windows (as its Details page's
    /// "Run in Private Windows" does) and opens `url` in a new private window.
    public func openPrivateWindow(_ url: String) throws {
        let result = try chromeScript("""
            (async () => {
                const { ExtensionPermissions } = ChromeUtils.importESModule("resource://gre/modules/ExtensionPermissions.sys.mjs");
                const { AddonManager } = ChromeUtils.importESModule("resource://gre/modules/AddonManager.sys.mjs");
                await ExtensionPermissions.add("\(Self.firefoxExtensionID)", { permissions: ["internal:privateBrowsingAllowed"], origins: [] });
                await (await AddonManager.getAddonByID("\(Self.firefoxExtensionID)")).reload();
                const window = OpenBrowserWindow({ private: true });
                await new Promise(loaded => window.addEventListener("load", loaded, { once: true }));
                await window.delayedStartupPromise;
                window.gBrowser.loadURI(Services.io.newURI("\(url)"),
                    { triggeringPrincipal: Services.scriptSecurityManager.getSystemPrincipal() });
                return true;
            })().then(resolve, error => resolve(String(error)));
            """)
        guard result == "true" else { throw TestFailure("cannot open a private window: \(result)") }
    }

    /// Opens a new browser window and gives it the focus, as a person
    /// switching to the browser does.
    public func focusNewWindow() throws {
        if kind == .chromium {
            _ = try extensionScript(#"chrome.windows.create({ url: "about:blank", focused: true }).then(window => window.id)"#)
            return
        }
        let result = try chromeScript("""
            const window = OpenBrowserWindow();
            window.addEventListener("load", () => { window.focus(); resolve(true); }, { once: true });
            """)
        guard result == "true" else { throw TestFailure("cannot focus a window: \(result)") }
    }

    /// A free loopback port for Marionette.
    static func freePort() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, size) == 0 && getsockname(fd, $0, &size) == 0
            }
        }
        guard bound else { throw TestFailure("no free port") }
        return UInt16(bigEndian: address.sin_port)
    }
}
