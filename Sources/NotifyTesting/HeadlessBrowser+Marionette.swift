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

    /// Cancels every download, as the Downloads panel's Cancel does.
    public func cancelAllDownloads() throws {
        _ = try chromeScript("""
            const { Downloads } = ChromeUtils.importESModule("resource://gre/modules/Downloads.sys.mjs");
            Downloads.getList(Downloads.ALL).then(list => list.getAll())
                .then(downloads => Promise.all(downloads.map(download => download.cancel().then(() => download.removePartialData()))))
                .then(() => resolve(true), error => resolve(String(error)));
            """)
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
