import Foundation

/// An ntfy double on loopback, for tests of the ntfy push client:
/// `scripts/ntfy-double.py`, a small server in Python's standard library
/// that follows ntfy's published API for what notifyd uses, since no real
/// ntfy server can be installed here (ntfy is not packaged for Debian 12,
/// and this machine reaches only Debian's mirror and PyPI).
///
/// What it implements, after https://docs.ntfy.sh/publish/ and
/// https://docs.ntfy.sh/subscribe/api/ and ntfy's server code (see
/// docs/notes/unifiedpush/ntfy-double.md): publishing by POST or PUT
/// `/<topic>` (with `?up=1`, a body that is not UTF-8 is kept as base64 with
/// `"encoding":"base64"`), the JSON stream `GET /<topic>,<topic>.../json`
/// (`open` first, then what `since=<id>|all|<unix time>|<duration>` selects
/// from its cache, then live messages, `keepalive` after each
/// `keepaliveSeconds` of silence), ntfy's error JSON, and TLS with a test CA
/// made by openssl. Its cache is kept in a file, so that ``stop()`` and
/// ``start()`` are a restart of the server on the same port that keeps
/// what was published, as ntfy with a `cache-file` does. Besides ntfy's
/// API it has controls of its own for tests: cut every stream (a network
/// that goes away), refuse or drop subscriptions, write raw lines.
///
/// Packages: python3, curl (every request of the test goes through a curl
/// process, never a task of the cooperative pool), openssl for TLS.
public final class NtfyDoubleServer: @unchecked Sendable {
    // Unchecked: `process` and `starts` are changed by start() and stop(),
    // which a test calls from one thread at a time.

    /// The server's directory: its cache, logs and `pki/`.
    public let directory: URL
    /// Whether it speaks TLS (with a certificate for `localhost` and 127.0.0.1).
    public let usesTLS: Bool
    /// Seconds between keepalive events of an idle stream.
    public let keepaliveSeconds: Double
    /// The port, the same across restarts.
    public private(set) var port: UInt16 = 0
    private var process: SpawnedProcess?
    private var starts = 0

    /// The address clients are given: `https://localhost:PORT` with TLS, else `http://127.0.0.1:PORT`.
    public var baseURL: String { usesTLS ? "https://localhost:\(port)" : "http://127.0.0.1:\(port)" }
    /// The test CA that signed the server's certificate (with TLS).
    public var caFile: String? { usesTLS ? directory.appendingPathComponent("pki/ca.crt").path : nil }
    /// What the server logged: a line per subscription (`SUBSCRIBE /<topics>/json?...`), publication, cut.
    public var log: String { (try? String(contentsOf: directory.appendingPathComponent("log"), encoding: .utf8)) ?? "" }
    /// The request line of every subscription so far, oldest first.
    public var subscriptions: [String] {
        log.split(separator: "\n").filter { $0.hasPrefix("SUBSCRIBE ") }.map { String($0.dropFirst("SUBSCRIBE ".count)) }
    }

    /// Makes the directory (and the CA and certificate, with `tls`) and starts the server.
    public init(tls: Bool = false, keepaliveSeconds: Double = 45) throws {
        directory = try makeTemporaryDirectory(prefix: "notifyd-ntfy-double")
        usesTLS = tls
        self.keepaliveSeconds = keepaliveSeconds
        _ = try requireTool("curl", package: "curl")
        if tls {
            let pki = directory.appendingPathComponent("pki")
            try FileManager.default.createDirectory(at: pki, withIntermediateDirectories: true)
            try TestCertificates.makeCA(named: "notifyd ntfy test CA", in: pki, prefix: "ca")
            try TestCertificates.makeServerCertificate(in: pki)
        }
        try start()
    }

    deinit {
        process?.kill(SIGKILL)
        try? FileManager.default.removeItem(at: directory)
    }

    /// Starts the server: at first on a port of its choosing, then again on
    /// the same port, with the same cache; with `subscriptionsDown`, as
    /// ``setSubscriptionsDown(_:)`` leaves it. Waits (bounded) until it listens.
    public func start(subscriptionsDown: Bool = false) throws {
        starts += 1
        let script = Executables.repositoryRoot().appendingPathComponent("scripts/ntfy-double.py").path
        var arguments = [
            script, "--keepalive", "\(keepaliveSeconds)", "--port", "\(port)",
            "--cache", directory.appendingPathComponent("cache").path,
        ]
        if usesTLS {
            let pki = directory.appendingPathComponent("pki").path
            arguments += ["--cert", "\(pki)/localhost.crt", "--key", "\(pki)/localhost.key"]
        }
        if subscriptionsDown { arguments.append("--down") }
        let portFile = directory.appendingPathComponent("port-\(starts)").path
        let child = try SpawnedProcess(
            try requireTool("python3", package: "python3"), arguments, environment: childEnvironment(),
            standardOutput: .file(portFile), standardError: .file(directory.appendingPathComponent("log").path))
        process = child
        guard let printed = try waitForPrintedPort("the ntfy double", in: portFile, of: child) else {
            throw TestFailure("the ntfy double did not start: \(log.suffix(2000))")
        }
        port = printed
    }

    /// Stops the server (SIGKILL: every connection ends at once, as when a server dies).
    public func stop() {
        process?.kill(SIGKILL)
        process = nil
    }

    /// Publishes `body` to `topic` as an application server does (POST,
    /// with `?up=1` unless `unifiedPush` is false) and returns ntfy's id of the message.
    @discardableResult
    public func publish(_ body: [UInt8], to topic: String, unifiedPush: Bool = true) throws -> String {
        let (status, answer) = try request("POST", "/\(topic)" + (unifiedPush ? "?up=1" : ""), body: body)
        guard status == 200, let id = answer.firstMatch(of: /"id":"([A-Za-z0-9]+)"/)?.1 else {
            throw TestFailure("publishing to \(topic) answered \(status): \(answer)")
        }
        return String(id)
    }

    /// Ends every stream at once (the connection shut down mid-stream); returns how many.
    @discardableResult
    public func cutStreams() throws -> Int { try control("/_double/cut") }

    /// While down, every stream is cut and new subscriptions are closed
    /// unanswered (publishing still works): a subscriber's network gone.
    public func setSubscriptionsDown(_ down: Bool) throws { _ = try control(down ? "/_double/down" : "/_double/up") }

    /// Answers every new subscription with ntfy's error for `status`
    /// (401, 403, 404, 429, 500, 507), or normally again for `nil`.
    public func refuseSubscriptions(status: Int?) throws { _ = try control("/_double/refuse?status=\(status ?? 0)") }

    /// Writes `bytes` as they are into every open stream; returns how many.
    @discardableResult
    public func writeRaw(_ bytes: [UInt8]) throws -> Int { try control("/_double/raw", body: bytes) }

    /// How many streams are open now.
    public func openStreams() throws -> Int { try control("/_double/streams") }

    /// A CA of its own that signed nothing this server presents, as a PEM file.
    public func unrelatedCA() throws -> String { try TestCertificates.unrelatedCA(in: directory) }

    private func control(_ path: String, body: [UInt8]? = nil) throws -> Int {
        let (status, answer) = try request(body == nil ? "GET" : "POST", path, body: body)
        guard status == 200, let count = Int(answer.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw TestFailure("the ntfy double's \(path) answered \(status): \(answer)")
        }
        return count
    }

    /// One request by a curl process: its HTTP status (0 when none) and body.
    private func request(_ method: String, _ path: String, body: [UInt8]?) throws -> (Int, String) {
        let name = UUID().uuidString
        let output = directory.appendingPathComponent("answer-\(name)")
        var arguments = ["-sS", "--max-time", "10", "-o", output.path, "-w", "%{http_code}", "-X", method]
        if let caFile { arguments += ["--cacert", caFile] }
        if let body {
            let input = directory.appendingPathComponent("body-\(name)")
            try Data(body).write(to: input)
            arguments += ["-H", "Content-Type: application/octet-stream", "--data-binary", "@\(input.path)"]
        }
        let result = try runProcess(try requireTool("curl", package: "curl"), arguments + [baseURL + path])
        let answer = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(at: output)
        try? FileManager.default.removeItem(at: directory.appendingPathComponent("body-\(name)"))
        return (Int(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0, answer)
    }
}
