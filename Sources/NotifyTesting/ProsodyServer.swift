import Foundation

/// A private Prosody 0.12 on loopback with `mod_unified_push`, for tests of
/// the XMPP push client: its own test CA and `localhost` certificate
/// (openssl), one account, the module patched as Debian 12 needs
/// (`docs/notes/unifiedpush/mod_unified_push-0.12-fixes.patch`, loaded
/// first through `plugin_paths`), run as the current user. Stopped when
/// released.
///
/// Packages: prosody, prosody-modules, openssl, curl, patch.
public final class ProsodyServer: @unchecked Sendable {
    // Unchecked: `process` is set by start() and stop(), which the test
    // calls from one task at a time.

    /// The account's user name and password.
    public static let user = "alice"
    public static let password = "s3cret"
    /// The virtual host, which the certificate names.
    public static let domain = "localhost"

    /// The server's directory: configuration, data, logs and `pki/`.
    public let directory: URL
    /// The client-to-server port (STARTTLS) and the HTTP port of the push endpoints.
    public let clientPort: UInt16
    public let httpPort: UInt16
    /// How long an endpoint lives (`unified_push_registration_ttl`).
    public let registrationSeconds: Int
    private var process: SpawnedProcess?

    /// The bare JID of the account.
    public var jid: String { "\(Self.user)@\(Self.domain)" }
    /// The test CA that signed the server's certificate.
    public var caFile: String { directory.appendingPathComponent("pki/ca.crt").path }

    /// Makes the CA, certificate, configuration and account, and starts
    /// the server; its endpoints live `registrationSeconds`.
    public init(registrationSeconds: Int = 3_600) throws {
        self.registrationSeconds = registrationSeconds
        directory = try makeTemporaryDirectory(prefix: "notifyd-prosody")
        (clientPort, httpPort) = try Self.freePorts()
        for tool in ["prosody", "prosodyctl", "openssl", "curl", "patch"] {
            _ = try requireTool(tool, package: tool == "prosodyctl" ? "prosody" : tool)
        }
        let pki = directory.appendingPathComponent("pki")
        try FileManager.default.createDirectory(at: pki, withIntermediateDirectories: true)
        try TestCertificates.makeCA(named: "notifyd test CA", in: pki, prefix: "ca")
        try TestCertificates.makeServerCertificate(in: pki)
        try patchModule()
        try writeConfiguration()
        try tool("prosodyctl", ["--config", configPath, "register", Self.user, Self.domain, Self.password])
        try start()
    }

    deinit {
        process?.terminate()
        try? FileManager.default.removeItem(at: directory)
    }

    var configPath: String { directory.appendingPathComponent("prosody.cfg.lua").path }

    /// Starts the server (again, with the same ports and data) and waits,
    /// bounded, until its push endpoint answers.
    public func start() throws {
        let log = directory.appendingPathComponent("console.out").path
        let child = try SpawnedProcess(
            try requireTool("prosody", package: "prosody"), ["--config", configPath, "-F"],
            environment: childEnvironment(), standardOutput: .file(log), standardError: .standardOutput)
        process = child
        try waitUntil("Prosody answers on http://localhost:\(httpPort)/push/", seconds: 20, intervalMicroseconds: 50_000) {
            guard child.isRunning else {
                let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                throw TestFailure("Prosody exited: \(output.suffix(2000))")
            }
            return (try? get("http://localhost:\(httpPort)/push/")) == 200
        }
    }

    /// Freezes the server (SIGSTOP), as a host that stopped answering:
    /// connections stay open and nothing is read; `false` thaws it.
    public func freeze(_ frozen: Bool = true) {
        if let pid = process?.pid { _ = Glibc.kill(pid, frozen ? SIGSTOP : SIGCONT) }
    }

    /// Stops the server (SIGTERM, then SIGKILL after 10 seconds).
    public func stop() {
        process?.terminate(graceSeconds: 10)
        process = nil
    }

    /// Starts a POST of `body` to `endpoint`, as an application server
    /// does (``StartedPost``): the server answers only once the client
    /// answered the push, which the test makes happen meanwhile.
    public func startPost(_ body: [UInt8], to endpoint: String, seconds: Int = 30) throws -> StartedPost {
        try StartedPost(body, to: endpoint, scratch: directory, seconds: seconds)
    }

    /// The HTTP status of a GET of `url`.
    public func get(_ url: String) throws -> Int {
        let result = try tool("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "5", url], mustSucceed: false)
        return Int(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    /// A CA of its own that signed nothing this server presents, as a PEM file.
    public func unrelatedCA() throws -> String { try TestCertificates.unrelatedCA(in: directory) }

    @discardableResult
    private func tool(_ name: String, _ arguments: [String], mustSucceed: Bool = true) throws -> ProcessResult {
        try Self.tool(name, arguments, mustSucceed: mustSucceed)
    }

    @discardableResult
    static func tool(_ name: String, _ arguments: [String], mustSucceed: Bool = true) throws -> ProcessResult {
        let result = try runProcess(try requireTool(name, package: name), arguments)
        if mustSucceed && result.status != 0 {
            throw TestFailure("\(name) \(arguments.joined(separator: " ")) failed (\(result.status)): \(result.stderr)")
        }
        return result
    }
}

/// A POST of an application server under way, by a `curl` process of its
/// own: a process, not a task, since a test that blocks its thread while
/// waiting for the push must not also need a thread of the (two-thread)
/// cooperative pool.
public struct StartedPost: Sendable {
    let curl: SpawnedProcess
    let bodyFile: URL

    /// Starts POSTing `body` to `endpoint` (its file in `scratch`), at most `seconds`.
    public init(_ body: [UInt8], to endpoint: String, scratch: URL, seconds: Int = 30) throws {
        let file = scratch.appendingPathComponent("body-\(UUID().uuidString)")
        try Data(body).write(to: file)
        curl = try SpawnedProcess(
            try requireTool("curl", package: "curl"),
            ["-sS", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "\(seconds)",
             "-H", "Content-Type: application/octet-stream", "--data-binary", "@\(file.path)", endpoint],
            environment: childEnvironment(), pipedDescriptors: [1, 2], reaping: .whenAsked)
        bodyFile = file
    }

    /// Waits for the server's answer (curl's `--max-time` bounds it) and
    /// returns its HTTP status, 0 when there was none.
    public func status() throws -> Int {
        let output = curl.readPipe()
        _ = curl.wait()
        try? FileManager.default.removeItem(at: bodyFile)
        return Int(output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }
}
