import Foundation
import NotifyTesting
import NotifyTransfer
import Testing

extension NotifyTransferTests {
    /// Uploads to nginx's WebDAV, and HTTPS with a test CA.
    @Suite("uploads and TLS") struct UploadsAndTLS {
        @Test("PUT to WebDAV arrives byte for byte; a POST nginx refuses fails in words; a symbolic link is not sent")
        func uploads() throws {
            let server = try TransferFixture.nginx()
            let directory = try TransferFixture.directory()
            let original = TransferFixture.randomBytes(3_000_000)
            let source = directory + "/report.pdf"
            try Data(original).write(to: URL(fileURLWithPath: source))
            let recorder = RecordedEngine()
            let put = TransferAttempt(id: 30, direction: .upload, url: "\(server.httpURL)/dav/in/report.pdf", path: source)
            #expect(try recorder.run(put) == .completed(path: source, bytes: 3_000_000))
            #expect(TransferFixture.contents(server.davDirectory.path + "/in/report.pdf") == original)
            #expect(try recorder.responded(30).total == 3_000_000)
            let post = TransferAttempt(
                id: 31, direction: .upload, url: "\(server.httpURL)/static.txt", path: source, method: "POST")
            try server.serve([1], at: "static.txt")
            // nginx weighs the body (client_max_body_size, 1 MB) before the method.
            #expect(try recorder.run(post) == .failed(reason: "Content too large (HTTP 413)"))
            try FileManager.default.createSymbolicLink(atPath: directory + "/link.pdf", withDestinationPath: source)
            var linked = put
            linked.id = 32
            linked.path = directory + "/link.pdf"
            #expect(
                try recorder.run(linked)
                    == .failed(reason: "the file to upload is a symbolic link, which notifyd does not follow"))
        }

        @Test("HTTPS over HTTP/2 with the test CA from CURL_CA_BUNDLE; refused with an unrelated CA")
        func tls() throws {
            let server = try TransferFixture.nginx(tls: true)
            let directory = try TransferFixture.directory()
            let original = TransferFixture.randomBytes(500_000)
            try server.serve(original, at: "s.bin")
            let url = try #require(server.httpsURL) + "/s.bin"
            defer { unsetenv("CURL_CA_BUNDLE") }
            setenv("CURL_CA_BUNDLE", try #require(server.caFile), 1)
            let recorder = RecordedEngine()
            #expect(
                try recorder.run(TransferAttempt(id: 33, direction: .download, url: url, path: directory + "/s.bin"))
                    == .completed(path: directory + "/s.bin", bytes: 500_000))
            #expect(TransferFixture.contents(directory + "/s.bin") == original)
            let log = (try? String(contentsOfFile: server.directory.path + "/logs/access.log", encoding: .utf8)) ?? ""
            #expect(log.contains("\"GET /s.bin HTTP/2.0\" 200"))
            #expect(log.contains("notifyd/"))

            setenv("CURL_CA_BUNDLE", try server.unrelatedCA(), 1)
            let end = try recorder.run(TransferAttempt(id: 34, direction: .download, url: url, path: directory + "/refused"))
            guard case .failed(let reason) = end else { throw TestFailure("not refused: \(end)") }
            #expect(reason.hasPrefix("the server's certificate is not trusted: "))
            #expect(!TransferFixture.exists(directory + "/refused"))
            #expect(!TransferFixture.exists(TransferEngine.partialPath(for: directory + "/refused", id: 34)))
        }

        @Test("reasons never show the URL's user name or password, nor a header's value")
        func noSecretsInReasons() throws {
            let server = try TransferFixture.nginx()
            let directory = try TransferFixture.directory()
            let recorder = RecordedEngine()
            let url = "http://alice:s3cretpw@127.0.0.1:\(server.httpPort)/missing"
            let attempt = TransferAttempt(
                id: 35, direction: .download, url: url, path: directory + "/m", headers: ["Authorization: Bearer tok3n"])
            let end = try recorder.run(attempt)
            #expect(end == .failed(reason: "Not found (HTTP 404)"))
            // Nothing listens on port 1: refused.
            let refused = try recorder.run(
                TransferAttempt(id: 36, direction: .download, url: "http://bob:pw0rd@127.0.0.1:1/x", path: directory + "/r"))
            #expect(refused == .retry(reason: "connection refused by the server", retryAfter: nil))
            let reasons = recorder.all.map { "\($0)" }.joined()
            for secret in ["alice", "s3cretpw", "tok3n", "bob", "pw0rd"] { #expect(!reasons.contains(secret)) }
        }
    }
}
