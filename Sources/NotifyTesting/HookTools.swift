import Foundation

// Tools for the end-to-end tests of the download-tool hooks of contrib/:
// finding the real tools, running them bounded, and a local web server.

/// The full path of a program on PATH, or a failure that says how to
/// install it: a test that needs a tool fails without it, it never skips.
public func requireTool(_ name: String, package: String) throws -> String {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
    for directory in path.split(separator: ":") {
        let candidate = "\(directory)/\(name)"
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    throw TestFailure("\(name) is not installed; the contrib hook tests need it (apt-get install \(package))")
}

/// Runs a program to its end in `directory` with exactly `environment`
/// (plus the sanitizer options of ``childEnvironment(_:)``), capturing its
/// output; kills it and fails when it takes more than `seconds`.
@discardableResult
public func runTool(
    _ executable: String, _ arguments: [String], environment: [String: String], in directory: URL,
    seconds: Double = 20
) throws -> ProcessResult {
    let scratch = try makeTemporaryDirectory(prefix: "notifyd-tool")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let outURL = scratch.appendingPathComponent("stdout")
    let errURL = scratch.appendingPathComponent("stderr")
    _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    var childEnvironment = environment
    if let options = ProcessInfo.processInfo.environment["NOTIFYD_CHILD_ASAN_OPTIONS"] {
        childEnvironment["ASAN_OPTIONS"] = options
    }
    process.environment = childEnvironment
    process.currentDirectoryURL = directory
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = try FileHandle(forWritingTo: outURL)
    process.standardError = try FileHandle(forWritingTo: errURL)
    try process.run()
    // Bounded: a tool that hangs is killed when the time is up.
    try? waitUntil("the tool exits", seconds: seconds, intervalMicroseconds: 10_000) { !process.isRunning }
    let timedOut = process.isRunning
    if timedOut { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
    let result = ProcessResult(
        status: process.terminationStatus,
        stdout: (try? String(contentsOf: outURL, encoding: .utf8)) ?? "",
        stderr: (try? String(contentsOf: errURL, encoding: .utf8)) ?? "")
    if timedOut {
        throw TestFailure("\(executable) \(arguments) did not end within \(seconds) s: \(result.stdout) \(result.stderr)")
    }
    return result
}

/// A port on 127.0.0.1 that nothing listens on right now.
public func freeLoopbackPort() throws -> UInt16 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw TestFailure("socket() failed") }
    defer { close(fd) }
    var address = loopbackAddress(port: 0)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    guard bound else { throw TestFailure("cannot find a free port") }
    return UInt16(bigEndian: address.sin_port)
}

/// Whether something accepts TCP connections on 127.0.0.1 at `port`.
public func loopbackAccepts(port: UInt16) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var address = loopbackAddress(port: port)
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
    }
}

private func loopbackAddress(port: UInt16) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return address
}

/// A web server on 127.0.0.1 at a port of its own choosing, serving the
/// files of a directory, with byte ranges (`206 Partial Content`), which
/// BitTorrent web seeds need, and an `ETag` for each version of a file
/// (`304 Not Modified` for `If-None-Match`; none for a URL with `?plain`):
/// Python's `http.server` with `Range` and `ETag` support.
public final class LocalHTTPServer {
    public let port: UInt16
    private let process: SpawnedProcess

    /// The server, its port written on its first line of output.
    static let script = #"""
        import functools, http.server, io, os, re, sys

        class Handler(http.server.SimpleHTTPRequestHandler):
            etag = None

            def end_headers(self):
                if self.etag:
                    self.send_header("ETag", self.etag)
                super().end_headers()

            def send_head(self):
                match = re.fullmatch(r"bytes=(\d+)-(\d*)", self.headers.get("Range", "").strip())
                path = self.translate_path(self.path)
                # An ETag for each version of a file (none with ?plain), and
                # 304 when If-None-Match names the current one.
                if os.path.isfile(path) and "plain" not in self.path.partition("?")[2].split("&"):
                    status = os.stat(path)
                    self.etag = f'"{status.st_mtime_ns:x}-{status.st_size:x}"'
                    if self.etag in [tag.strip() for tag in self.headers.get("If-None-Match", "").split(",")]:
                        self.send_response(304)
                        self.end_headers()
                        return None
                if not match or not os.path.isfile(path):
                    return super().send_head()
                size = os.path.getsize(path)
                start, end = int(match[1]), min(int(match[2] or size - 1), size - 1)
                if start > end:
                    self.send_error(416)
                    return None
                with open(path, "rb") as f:
                    f.seek(start)
                    body = f.read(end - start + 1)
                self.send_response(206)
                self.send_header("Content-Type", self.guess_type(path))
                self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                return io.BytesIO(body)

        handler = functools.partial(Handler, directory=sys.argv[1])
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """#

    /// Serves `root`; `scratch` receives the script and the request log
    /// (`http.log`).
    public init(serving root: URL, scratch: URL) throws {
        let python = try requireTool("python3", package: "python3")
        let scriptURL = scratch.appendingPathComponent("http-server.py")
        try Self.script.write(to: scriptURL, atomically: true, encoding: .utf8)
        let portURL = scratch.appendingPathComponent("http.port")
        let log = scratch.appendingPathComponent("http.log")
        let portFD = open(portURL.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        let logFD = open(log.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        defer {
            close(portFD)
            close(logFD)
        }
        guard portFD >= 0, logFD >= 0 else { throw TestFailure("cannot open \(portURL.path) or \(log.path)") }
        let process = try SpawnedProcess(
            python, [scriptURL.path, root.path], environment: ProcessInfo.processInfo.environment,
            stdoutFD: portFD, stderrFD: logFD)
        self.process = process
        let port = try waitForPrintedPort("the web server", in: portURL.path, of: process)
        guard let port, loopbackAccepts(port: port) else {
            throw TestFailure("the web server did not start: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
        }
        self.port = port
    }

    deinit { stop() }

    /// The URL of `path` (already percent-encoded where needed).
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)/\(path)" }

    public func stop() { process.kill(SIGKILL) }
}

/// `name` with every byte but unreserved ones (RFC 3986: letters, digits,
/// `-._~`) percent-encoded, for a URL path segment.
public func percentEncoded(_ name: String) -> String {
    name.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")) ?? name
}

/// The port a helper server prints as the first line of `file` (its
/// standard output), waited for (bounded); `nil` when `process` exits first.
public func waitForPrintedPort(_ what: String, in file: String, of process: SpawnedProcess, seconds: Double = 10)
    throws -> UInt16?
{
    var port: UInt16?
    try waitUntil("\(what) prints its port", seconds: seconds) {
        let text = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
        if text.hasSuffix("\n") { port = UInt16(text.trimmingCharacters(in: .whitespacesAndNewlines)) }
        return port != nil || !process.isRunning
    }
    return port
}
