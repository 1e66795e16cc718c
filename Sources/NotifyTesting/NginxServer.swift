import Foundation

/// A private nginx on loopback, for tests of the background transfers: a
/// static root `www/` (Range, If-Range and ETag as nginx does them by
/// default), WebDAV PUT under `/dav/` (into `dav/`), and raw `location`
/// blocks a test adds (a 503 with Retry-After, a redirect elsewhere, a slow
/// `limit_rate`). HTTP on one port and, with `tls`, HTTPS with HTTP/2 on
/// another, for `localhost` and 127.0.0.1, signed by a test CA (openssl).
///
/// Everything is in its temporary directory (configuration, pid file, logs,
/// temporary paths), run as the current user (as root, its workers too:
/// nginx's `user` directive, which it heeds only as root). ``stop()`` and
/// ``start()`` restart it on the same ports, as a server that goes away in
/// the middle of a transfer and comes back. Stopped when released.
///
/// Packages: nginx-light (or any nginx with http_dav_module, ssl and http2), openssl.
public final class NginxServer: @unchecked Sendable {
    // Unchecked: `process` and `locations` are changed by start(), stop()
    // and addLocations(_:), which a test calls from one thread at a time.

    /// The server's directory: `www/`, `dav/`, `pki/`, logs, configuration.
    public let directory: URL
    /// The plain HTTP port, the same across restarts.
    public let httpPort: UInt16
    /// The HTTPS port (HTTP/2 offered by ALPN), when made with `tls`.
    public let httpsPort: UInt16?
    private var locations: [String]
    private var process: SpawnedProcess?

    /// The files served at `/`.
    public var root: URL { directory.appendingPathComponent("www") }
    /// Where `PUT /dav/NAME` writes `NAME`.
    public var davDirectory: URL { directory.appendingPathComponent("dav") }
    /// `http://127.0.0.1:PORT`.
    public var httpURL: String { "http://127.0.0.1:\(httpPort)" }
    /// `https://localhost:PORT`, when made with `tls`.
    public var httpsURL: String? { httpsPort.map { "https://localhost:\($0)" } }
    /// The test CA that signed the server's certificate, when made with `tls`.
    public var caFile: String? { httpsPort == nil ? nil : directory.appendingPathComponent("pki/ca.crt").path }
    /// What nginx wrote to its standard error (its error log), for messages.
    public var errorLog: String {
        (try? String(contentsOf: directory.appendingPathComponent("nginx.out"), encoding: .utf8)) ?? ""
    }

    /// Makes the directory (and with `tls` the CA and certificate) and starts
    /// the server with the raw `location` blocks of `locations`.
    public init(tls: Bool = false, locations: [String] = []) throws {
        _ = try requireTool("nginx", package: "nginx-light")
        directory = try makeTemporaryDirectory(prefix: "notifyd-nginx")
        let ports = try ProsodyServer.freePorts()
        httpPort = ports.0
        httpsPort = tls ? ports.1 : nil
        self.locations = locations
        for name in ["www", "dav", "tmp", "logs"] {
            try FileManager.default.createDirectory(
                at: directory.appendingPathComponent(name), withIntermediateDirectories: true)
        }
        if tls {
            let pki = directory.appendingPathComponent("pki")
            try FileManager.default.createDirectory(at: pki, withIntermediateDirectories: true)
            try TestCertificates.makeCA(named: "notifyd nginx test CA", in: pki, prefix: "ca")
            try TestCertificates.makeServerCertificate(in: pki)
        }
        try start()
    }

    deinit {
        // One process (`master_process off`): nothing is left behind, even by SIGKILL.
        _ = process?.kill(SIGKILL)
        try? FileManager.default.removeItem(at: directory)
    }

    /// Adds raw `location` blocks, in effect from the next ``start()``.
    public func addLocations(_ blocks: [String]) { locations += blocks }

    /// Writes the configuration and starts nginx (again, on the same
    /// ports); waits, bounded, until each port accepts connections.
    public func start() throws {
        let configuration = directory.appendingPathComponent("nginx.conf")
        try configurationText().write(to: configuration, atomically: true, encoding: .utf8)
        let output = directory.appendingPathComponent("nginx.out").path
        let child = try SpawnedProcess(
            try requireTool("nginx", package: "nginx-light"),
            ["-p", directory.path + "/", "-c", configuration.path, "-e", "stderr", "-g", "daemon off;"],
            environment: childEnvironment(), standardOutput: .file(output), standardError: .standardOutput)
        process = child
        for port in [httpPort] + (httpsPort.map { [$0] } ?? []) {
            try waitUntil("nginx accepts connections on port \(port)", seconds: 20) {
                guard child.isRunning else { throw TestFailure("nginx exited: \(errorLog.suffix(2000))") }
                return Self.accepts(port: port)
            }
        }
    }

    /// Stops the server: SIGTERM (nginx's fast shutdown: every connection
    /// ends at once), then SIGKILL after 5 seconds.
    public func stop() {
        _ = process?.terminate(graceSeconds: 5)
        process = nil
    }

    /// Freezes the server (SIGSTOP), as a host that stopped answering:
    /// connections stay open and nothing moves; `false` thaws it.
    public func freeze(_ frozen: Bool = true) {
        if let pid = process?.pid { _ = Glibc.kill(pid, frozen ? SIGSTOP : SIGCONT) }
    }

    /// A CA of its own that signed nothing this server presents, as a PEM file.
    public func unrelatedCA() throws -> String { try TestCertificates.unrelatedCA(in: directory) }

    /// Writes `bytes` to `www/NAME` (directories made as needed) and returns its URL over HTTP.
    @discardableResult
    public func serve(_ bytes: [UInt8], at name: String) throws -> String {
        let file = root.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: file)
        return "\(httpURL)/\(name)"
    }

    private func configurationText() -> String {
        let d = directory.path
        // As root, workers would otherwise become nobody, who cannot read the directory.
        var user = ""
        if getuid() == 0 {
            let group = getgrgid(getgid()).map { String(cString: $0.pointee.gr_name) } ?? "root"
            user = "user root \(group);"
        }
        var tls = ""
        if let httpsPort {
            tls = """
                    listen 127.0.0.1:\(httpsPort) ssl http2;
                    ssl_certificate \(d)/pki/localhost.crt;
                    ssl_certificate_key \(d)/pki/localhost.key;
                """
        }
        return """
            # private test instance (NotifyTesting's NginxServer)
            \(user)
            master_process off;
            worker_processes 1;
            pid \(d)/nginx.pid;
            error_log stderr notice;
            events { worker_connections 256; }
            http {
                access_log \(d)/logs/access.log;
                client_body_temp_path \(d)/tmp/body;
                proxy_temp_path \(d)/tmp/proxy;
                fastcgi_temp_path \(d)/tmp/fastcgi;
                uwsgi_temp_path \(d)/tmp/uwsgi;
                scgi_temp_path \(d)/tmp/scgi;
                default_type application/octet-stream;
                sendfile on;
                server {
                    listen 127.0.0.1:\(httpPort);
            \(tls)
                    server_name localhost;
                    root \(d)/www;
                    location /dav/ {
                        root \(d);
                        dav_methods PUT DELETE MKCOL;
                        create_full_put_path on;
                        client_max_body_size 0;
                    }
            \(locations.joined(separator: "\n"))
                }
            }

            """
    }

    /// Whether a TCP connection to 127.0.0.1:`port` is accepted.
    static func accepts(port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
