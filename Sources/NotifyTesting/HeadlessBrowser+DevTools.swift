import Foundation

/// Chromium's DevTools protocol, in the extension's own service worker:
/// what a person does in the browser (cancel a download, switch to a
/// window), done through the browser's extension API there.
extension HeadlessBrowser {
    /// The DevTools connection, in Python: waits for the browser endpoint
    /// on the port of argv[1], connects to it over a WebSocket and defines
    /// `call(method, params, session)` (flat sessions).
    static let devToolsConnection = #"""
        import base64, json, os, socket, struct, sys, time, urllib.request
        port = int(sys.argv[1])
        deadline = time.time() + 30
        while True:
            try:
                version = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/version", timeout=2))
                break
            except OSError:
                if time.time() > deadline: sys.exit("no DevTools on port %d" % port)
                time.sleep(0.2)
        path = version["webSocketDebuggerUrl"].split(str(port), 1)[1]
        s = socket.create_connection(("127.0.0.1", port))
        key = base64.b64encode(os.urandom(16)).decode()
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode())
        f = s.makefile("rb")
        while f.readline() not in (b"\r\n", b""): pass
        def send(obj):
            data = json.dumps(obj).encode(); mask = os.urandom(4)
            header = bytes([0x81]) + (bytes([0x80 | len(data)]) if len(data) < 126 else bytes([0x80 | 126]) + struct.pack(">H", len(data)) if len(data) < 65536 else bytes([0x80 | 127]) + struct.pack(">Q", len(data)))
            s.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))
        def receive():
            first, second = f.read(2)
            n = second & 0x7f
            if n == 126: n = struct.unpack(">H", f.read(2))[0]
            elif n == 127: n = struct.unpack(">Q", f.read(8))[0]
            return json.loads(f.read(n))
        calls = [0]
        def call(method, params, session=None):
            calls[0] += 1; message = {"id": calls[0], "method": method, "params": params}
            if session: message["sessionId"] = session
            send(message)
            while True:
                reply = receive()
                if reply.get("id") == calls[0]:
                    if "error" in reply: sys.exit(f"{method}: {reply['error']}")
                    return reply["result"]
        """#

    /// A DevTools client: connects to PORT, attaches to the extension's
    /// service worker, evaluates EXPRESSION (a promise) and prints its value
    /// as JSON.
    static let devToolsClient = devToolsConnection + "\n" + #"""
        expression = sys.argv[2]
        worker = None
        for _ in range(50):
            targets = call("Target.getTargets", {})["targetInfos"]
            worker = next((t for t in targets if t["type"] == "service_worker" and t["url"].startswith("chrome-extension://")), None)
            if worker: break
            time.sleep(0.2)
        if not worker: sys.exit("the extension's service worker is not running: %s" % targets)
        session = call("Target.attachToTarget", {"targetId": worker["targetId"], "flatten": True})["sessionId"]
        result = call("Runtime.evaluate", {"expression": expression, "awaitPromise": True, "returnByValue": True}, session)
        print(json.dumps(result.get("result", {}).get("value")))
        """#

    /// Evaluates `expression` (a promise) in the extension's service worker
    /// and returns its value as JSON text.
    public func extensionScript(_ expression: String) throws -> String {
        guard kind == .chromium, let port = devToolsPort else { throw TestFailure("DevTools is Chromium's") }
        let result = try runProcess(
            try requireTool("python3", package: "python3"), ["-c", Self.devToolsClient, String(port), expression])
        guard result.status == 0 else { throw TestFailure("DevTools: \(result.stderr)") }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
