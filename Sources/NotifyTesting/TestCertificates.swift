import Foundation

/// A test CA and the certificates it signs, made with openssl: for the
/// private servers of the tests (ProsodyServer, NtfyDoubleServer) and the
/// unrelated CA that must make a client refuse them.
public enum TestCertificates {
    /// A self-signed CA: `prefix.crt` and `prefix.key` in `directory`.
    public static func makeCA(named name: String, in directory: URL, prefix: String) throws {
        let path = directory.path
        try openssl([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(path)/\(prefix).key",
            "-out", "\(path)/\(prefix).crt", "-days", "2", "-subj", "/CN=\(name)",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        ])
    }

    /// `localhost.crt` and `.key`, for `localhost` and 127.0.0.1, signed by the CA in `directory`.
    public static func makeServerCertificate(in directory: URL) throws {
        let path = directory.path
        try openssl([
            "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(path)/localhost.key",
            "-out", "\(path)/localhost.csr", "-subj", "/CN=localhost",
        ])
        try """
            basicConstraints=CA:FALSE
            keyUsage=critical,digitalSignature,keyEncipherment
            extendedKeyUsage=serverAuth
            subjectAltName=DNS:localhost,IP:127.0.0.1

            """.write(toFile: "\(path)/ext.cnf", atomically: true, encoding: .utf8)
        try openssl([
            "x509", "-req", "-in", "\(path)/localhost.csr", "-CA", "\(path)/ca.crt", "-CAkey", "\(path)/ca.key",
            "-CAcreateserial", "-out", "\(path)/localhost.crt", "-days", "2", "-extfile", "\(path)/ext.cnf",
        ])
    }

    /// A self-signed CA of its own in a new directory under `directory`,
    /// which signed nothing: its `ca.crt`.
    public static func unrelatedCA(in directory: URL) throws -> String {
        let other = directory.appendingPathComponent("other-ca")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        try makeCA(named: "unrelated CA", in: other, prefix: "ca")
        return other.appendingPathComponent("ca.crt").path
    }

    private static func openssl(_ arguments: [String]) throws {
        let result = try runProcess(try requireTool("openssl", package: "openssl"), arguments)
        if result.status != 0 {
            throw TestFailure("openssl \(arguments.joined(separator: " ")) failed (\(result.status)): \(result.stderr)")
        }
    }
}
