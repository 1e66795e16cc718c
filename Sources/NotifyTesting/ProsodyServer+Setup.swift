import Foundation

/// The server's files: certificates, the patched module, the configuration.
extension ProsodyServer {
    /// Where Debian's prosody-modules puts the module.
    static let stockModule = "/usr/lib/prosody/modules/mod_unified_push/mod_unified_push.lua"

    /// Copies Debian's module into `modules/` and applies the fixes: 404
    /// where the stock module answers 500, 503 where it answers 201 and
    /// drops the push.
    func patchModule() throws {
        guard FileManager.default.fileExists(atPath: Self.stockModule) else {
            throw TestFailure("\(Self.stockModule) is missing (apt-get install prosody-modules)")
        }
        let module = directory.appendingPathComponent("modules/mod_unified_push")
        try FileManager.default.createDirectory(at: module, withIntermediateDirectories: true)
        let copy = module.appendingPathComponent("mod_unified_push.lua")
        try FileManager.default.copyItem(atPath: Self.stockModule, toPath: copy.path)
        let patch = Executables.repositoryRoot()
            .appendingPathComponent("docs/notes/unifiedpush/mod_unified_push-0.12-fixes.patch")
        try Self.tool("patch", ["--quiet", "--forward", copy.path, patch.path])
    }

    /// Two free loopback ports (free when asked: another process may take
    /// one before Prosody binds it, which start() then reports).
    static func freePorts() throws -> (UInt16, UInt16) {
        var sockets: [Int32] = []
        defer { sockets.forEach { close($0) } }
        var ports: [UInt16] = []
        for _ in 0..<2 {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw TestFailure("cannot open a socket") }
            sockets.append(fd)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                    bind(fd, address, length) == 0 && getsockname(fd, address, &length) == 0
                }
            }
            guard bound else { throw TestFailure("cannot bind a loopback port") }
            ports.append(UInt16(bigEndian: address.sin_port))
        }
        return (ports[0], ports[1])
    }

    /// `prosody.cfg.lua`: loopback only, no s2s, STARTTLS required, the
    /// patched module first, registrations valid an hour.
    func writeConfiguration() throws {
        let d = directory.path
        let config = """
            -- private test instance (NotifyTesting's ProsodyServer)
            run_as_root = true -- matters only as uid 0: prosodyctl would otherwise switch to the prosody user
            pidfile = "\(d)/prosody.pid"
            certificates = "\(d)/pki"
            data_path = "\(d)/data"
            plugin_paths = { "\(d)/modules", "/usr/lib/prosody/modules" }
            log = { debug = "\(d)/prosody.log"; error = "\(d)/prosody.err" }
            interfaces = { "127.0.0.1" }
            local_interfaces = { "127.0.0.1" }
            c2s_ports = { \(clientPort) }
            c2s_interfaces = { "127.0.0.1" }
            c2s_direct_tls_ports = { }
            s2s_ports = { }
            http_ports = { \(httpPort) }
            http_interfaces = { "127.0.0.1" }
            https_ports = { }
            modules_disabled = { "s2s", "offline" }
            modules_enabled = { "roster"; "saslauth"; "tls"; "disco"; "ping"; "posix"; "smacks"; "unified_push" }
            authentication = "internal_hashed"
            storage = "internal"
            c2s_require_encryption = true
            allow_registration = false
            unified_push_backend = "storage"
            unified_push_registration_ttl = \(registrationSeconds)
            VirtualHost "localhost"
              ssl = { certificate = "\(d)/pki/localhost.crt"; key = "\(d)/pki/localhost.key"; }

            """
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("data"), withIntermediateDirectories: true)
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
    }
}
