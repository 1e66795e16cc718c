import Foundation

/// A loopback web server for browser downloads: pages that start
/// downloads a moment after they load, and files sent slowly in chunks,
/// cut off on demand (Tests/BrowserTests).
///
/// - `/page?to=URL[,URL...]&delay=MS`: clicks a download link to each URL,
///   the first `MS` ms after it loads, the others 250 ms apart (a download opened at the browser's launch
///   would begin before the extension listens);
/// - `/file/NAME?size=N&chunks=K&gap=MS[&cut=M]`: `N` bytes as an
///   attachment named `NAME`, in `K` chunks `MS` ms apart; with `cut`, the
///   connection is closed after `M` bytes.
public final class SlowDownloadServer: @unchecked Sendable {
    public let port: UInt16
    private let process: SpawnedProcess

    static let script = #"""
        import http.server, socket, sys, time, urllib.parse

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format, *args):
                sys.stderr.write(format % args + "\n")
                sys.stderr.flush()

            def do_GET(self):
                url = urllib.parse.urlsplit(self.path)
                query = {key: values[-1] for key, values in urllib.parse.parse_qs(url.query).items()}
                if url.path == "/page":
                    links = "".join(f'<a href="{to}" download>{to}</a>' for to in query.get("to", "").split(","))
                    delay = int(query.get("delay", "1000"))
                    # One click every 250 ms: Chromium drops some of the downloads a
                    # page starts at the same moment.
                    body = (f"<!doctype html><title>downloads</title><body>{links}<script>"
                            f"document.querySelectorAll('a').forEach((a, i) => setTimeout(() => a.click(), {delay} + 250 * i));"
                            "</script></body>").encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "text/html")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                    return
                if not url.path.startswith("/file/"):
                    self.send_error(404)
                    return
                name = url.path[len("/file/"):]
                size = int(query.get("size", "65536"))
                chunks = max(1, int(query.get("chunks", "4")))
                gap = int(query.get("gap", "500")) / 1000
                cut = int(query["cut"]) if "cut" in query else None
                self.send_response(200)
                self.send_header("Content-Type", "application/octet-stream")
                self.send_header("Content-Disposition", f'attachment; filename="{name}"')
                self.send_header("Content-Length", str(size))
                self.end_headers()
                sent, step = 0, (size + chunks - 1) // chunks
                while sent < size:
                    count = min(step, size - sent)
                    if cut is not None and sent + count > cut:
                        self.wfile.write(b"x" * (cut - sent))
                        self.wfile.flush()
                        time.sleep(gap)
                        self.connection.shutdown(socket.SHUT_RDWR)
                        self.close_connection = True
                        return
                    self.wfile.write(b"x" * count)
                    self.wfile.flush()
                    sent += count
                    if sent < size:
                        time.sleep(gap)

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """#

    /// Starts the server; `scratch` receives the script, its port and its log.
    public init(scratch: URL) throws {
        let python = try requireTool("python3", package: "python3")
        let scriptURL = scratch.appendingPathComponent("download-server.py")
        try Self.script.write(to: scriptURL, atomically: true, encoding: .utf8)
        let portURL = scratch.appendingPathComponent("download-server.port")
        let portFD = open(portURL.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        let logFD = open(scratch.appendingPathComponent("download-server.log").path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        defer {
            close(portFD)
            close(logFD)
        }
        guard portFD >= 0, logFD >= 0 else { throw TestFailure("cannot open the download server's files in \(scratch.path)") }
        let process = try SpawnedProcess(
            python, [scriptURL.path], environment: ProcessInfo.processInfo.environment, stdoutFD: portFD, stderrFD: logFD)
        self.process = process
        guard let port = try waitForPrintedPort("the download server", in: portURL.path, of: process) else { throw TestFailure("the download server did not start") }
        self.port = port
    }

    deinit { process.kill(SIGKILL) }

    /// A file of `size` bytes named `name`, sent in `chunks` chunks `gapMilliseconds` apart.
    public func file(_ name: String, size: Int, chunks: Int = 4, gapMilliseconds: Int = 500, cutAfter: Int? = nil) -> String {
        var url = "http://127.0.0.1:\(port)/file/\(name)?size=\(size)&chunks=\(chunks)&gap=\(gapMilliseconds)"
        if let cutAfter { url += "&cut=\(cutAfter)" }
        return url
    }

    /// A page that starts downloading `files` `delayMilliseconds` after it loads.
    public func page(downloading files: [String], delayMilliseconds: Int = 1500) -> String {
        let list = files.joined(separator: ",").addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        return "http://127.0.0.1:\(port)/page?delay=\(delayMilliseconds)&to=\(list)"
    }
}
