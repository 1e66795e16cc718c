import DBus
import Foundation
import Glibc
import NotifyTesting
import Testing

/// Background transfers on a real notifyd against a real nginx on
/// loopback: what arrives is compared byte for byte with what was served,
/// through everything that ends a `wget` (notifyd killed, nginx stopped,
/// the file replaced on the server), and the session gets the events a
/// worker's download gives.
@Suite struct TransferEndToEndTests {
    static let transfers = "org.notifyd.Notifyd1.Transfers"
    static let app = "org.example.Fetcher"
    /// A location that sends 256 KB a second, so that a transfer is still
    /// running when the test stops something under it.
    static let slow = "location /slow/ { alias WWW/; limit_rate 256k; }"

    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    static func nginx(tls: Bool = false, extra: [String] = []) throws -> NginxServer {
        let server = try NginxServer(tls: tls)
        server.addLocations([slow.replacingOccurrences(of: "WWW", with: server.root.path)] + extra)
        server.stop()
        try server.start()
        return server
    }

    func download(_ fixture: Fixture, _ url: String, to path: String, session: String = "dl", _ options: [String: DBusValue] = [:]) throws -> UInt64 {
        try fixture.call(Self.transfers, "Download", [.string(Self.app), .string(session), .string(url), .string(path), .vardict(options)])
            .decode(0)
    }

    func details(_ fixture: Fixture, _ id: UInt64) throws -> [String: DBusValue] {
        try fixture.call(Self.transfers, "GetTransfer", [.uint64(id)]).first?.vardictEntries ?? [:]
    }

    /// Waits (bounded) for the transfer to end; its details then.
    @discardableResult
    func ended(_ fixture: Fixture, _ id: UInt64, seconds: Double = 60) throws -> [String: DBusValue] {
        var last: [String: DBusValue] = [:]
        try waitUntil("transfer \(id) ends (last seen: \(last))", seconds: seconds) {
            last = (try? details(fixture, id)) ?? last
            return [DBusValue.string("completed"), .string("failed"), .string("cancelled")].contains(last["state"] ?? .string(""))
        }
        return last
    }

    func waitForBytes(_ fixture: Fixture, _ id: UInt64, atLeast bytes: UInt64) throws {
        try waitUntil("transfer \(id) has \(bytes) bytes", seconds: 30) {
            guard case .uint64(let done)? = try details(fixture, id)["bytes-done"] else { return false }
            return done >= bytes
        }
    }

    func partialFiles(in directory: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { $0.hasSuffix(".part") }
    }

    @Test func aDownloadArrivesByteForByteAndFinishesItsSession() throws {
        let server = try Self.nginx()
        let fixture = try Fixture()
        let original = Self.randomBytes(3_000_000)
        let url = try server.serve(original, at: "data/file.bin")
        let target = fixture.bus.directory.appendingPathComponent("file.bin")
        let id = try download(fixture, url, to: target.path, ["title": .string("The file")])
        let done = try ended(fixture, id)
        #expect(done["state"] == .string("completed"), "\(done)")
        #expect(done["bytes-done"] == .uint64(3_000_000) && done["bytes-total"] == .uint64(3_000_000))
        #expect(try [UInt8](Data(contentsOf: target)) == original)
        #expect(partialFiles(in: fixture.bus.directory).isEmpty)
        try waitUntil("the finished event's handler pending") { try fixture.pending("dl") == 1 }
        #expect(try fixture.badge(Self.app) == 1)
        // The empty file too.
        let empty = try download(fixture, try server.serve([], at: "empty"), to: fixture.bus.directory.appendingPathComponent("empty").path, session: "e")
        #expect(try ended(fixture, empty)["state"] == .string("completed"))
        #expect(try Data(contentsOf: fixture.bus.directory.appendingPathComponent("empty")).isEmpty)
    }

    @Test func notifydKilledMidTransferResumesAfterItsRestart() throws {
        let server = try Self.nginx()
        let fixture = try Fixture()
        let original = Self.randomBytes(2_000_000)
        try server.serve(original, at: "big.bin")
        let target = fixture.bus.directory.appendingPathComponent("big.bin")
        let id = try download(fixture, "\(server.httpURL)/slow/big.bin", to: target.path)
        try waitForBytes(fixture, id, atLeast: 300_000)
        _ = fixture.daemon.stop(signal: SIGKILL)
        try fixture.daemon.waitForName(present: false)
        #expect(!FileManager.default.fileExists(atPath: target.path), "never at its name before it is complete")
        try fixture.daemon.start()
        let done = try ended(fixture, id)
        #expect(done["state"] == .string("completed"), "\(done)")
        #expect(try [UInt8](Data(contentsOf: target)) == original)
        #expect((done["attempts"].flatMap { if case .uint32(let n) = $0 { n } else { nil } } ?? 0) >= 2)
        let log = (try? String(contentsOf: server.directory.appendingPathComponent("logs/access.log"), encoding: .utf8)) ?? ""
        #expect(log.contains(" 206 "), "the second attempt resumed with a range: \(log.suffix(600))")
    }

    @Test func aServerThatStopsMidTransferIsRetriedAndAChangedFileStartsOver() throws {
        let server = try Self.nginx()
        let fixture = try Fixture()
        let first = Self.randomBytes(1_500_000)
        try server.serve(first, at: "v.bin")
        let target = fixture.bus.directory.appendingPathComponent("v.bin")
        let id = try download(fixture, "\(server.httpURL)/slow/v.bin", to: target.path)
        try waitForBytes(fixture, id, atLeast: 300_000)
        server.stop()
        try waitUntil("the transfer waits to retry", seconds: 30) {
            try details(fixture, id)["state"] == .string("waiting")
        }
        let reason = try details(fixture, id)["reason"]
        #expect(reason.map { "\($0)".contains("retrying in") } == true, "\(String(describing: reason))")
        // A new version while it waits: never spliced with the old one.
        let second = Self.randomBytes(1_200_000)
        try server.serve(second, at: "v.bin")
        try server.start()
        let done = try ended(fixture, id)
        #expect(done["state"] == .string("completed"), "\(done)")
        #expect(try [UInt8](Data(contentsOf: target)) == second)
    }

    @Test func failuresEndTheTransferWithTheReasonAndNoPartialFile() throws {
        let server = try Self.nginx(extra: ["location /gone { return 404; }", "location /tofile { return 302 file:///etc/passwd; }"])
        let fixture = try Fixture()
        let target = fixture.bus.directory.appendingPathComponent("gone.bin")
        let id = try download(fixture, "\(server.httpURL)/gone", to: target.path)
        let done = try ended(fixture, id)
        #expect(done["state"] == .string("failed"))
        #expect(done["reason"] == .string("Not found (HTTP 404)"), "\(done)")
        #expect(partialFiles(in: fixture.bus.directory).isEmpty && !FileManager.default.fileExists(atPath: target.path))
        try waitUntil("the failed event's handler pending") { try fixture.pending("dl") == 1 }

        let bad = try download(
            fixture, try server.serve([1, 2, 3], at: "three"), to: fixture.bus.directory.appendingPathComponent("three").path,
            session: "sum", ["sha256": .string(String(repeating: "0", count: 64))])
        let mismatch = try ended(fixture, bad)
        #expect(mismatch["state"] == .string("failed") && "\(mismatch["reason"] ?? .string(""))".contains("SHA-256"), "\(mismatch)")
        #expect(partialFiles(in: fixture.bus.directory).isEmpty)

        let existing = fixture.bus.directory.appendingPathComponent("kept")
        try Data("mine".utf8).write(to: existing)
        let over = try download(fixture, "\(server.httpURL)/three", to: existing.path, session: "over")
        #expect(try ended(fixture, over)["state"] == .string("failed"))
        #expect(try String(contentsOf: existing, encoding: .utf8) == "mine", "never over an existing file without overwrite")

        let redirected = try ended(fixture, try download(
            fixture, "\(server.httpURL)/tofile", to: fixture.bus.directory.appendingPathComponent("passwd").path, session: "redirect"))
        #expect(redirected["state"] == .string("failed"), "a redirect to file: is not followed: \(redirected)")
        #expect(!FileManager.default.fileExists(atPath: fixture.bus.directory.appendingPathComponent("passwd").path))

        // A directory reached through a symbolic link: nothing written through it.
        let real = fixture.bus.directory.appendingPathComponent("real")
        try FileManager.default.createDirectory(at: real, withIntermediateDirectories: true)
        let link = fixture.bus.directory.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: real)
        let linked = try ended(fixture, try download(fixture, "\(server.httpURL)/three", to: link.path + "/three", session: "link"))
        #expect(linked["state"] == .string("failed") && "\(linked["reason"] ?? .string(""))".contains("symbolic link"), "\(linked)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: real.path).isEmpty, "nothing written through the link")
    }

    @Test func cancelLeavesNothingAndSuspendKeepsTheBytes() throws {
        let server = try Self.nginx()
        let fixture = try Fixture()
        try server.serve(Self.randomBytes(2_000_000), at: "c.bin")
        let id = try download(fixture, "\(server.httpURL)/slow/c.bin", to: fixture.bus.directory.appendingPathComponent("c.bin").path)
        try waitForBytes(fixture, id, atLeast: 200_000)
        try fixture.call(Self.transfers, "SuspendTransfer", [.uint64(id)])
        #expect(try details(fixture, id)["state"] == .string("suspended"))
        try waitUntil("the partial file kept") { partialFiles(in: fixture.bus.directory).count == 1 }
        try fixture.call(Self.transfers, "ResumeTransfer", [.uint64(id)])
        try waitUntil("running again") { try details(fixture, id)["state"] == .string("running") }
        try fixture.call(Self.transfers, "CancelTransfer", [.uint64(id)])
        #expect(try details(fixture, id)["state"] == .string("cancelled"))
        try waitUntil("no partial file left") { partialFiles(in: fixture.bus.directory).isEmpty }
        #expect(try fixture.badge(Self.app) == 0, "no badge for a cancelled transfer")
        #expect(fixture.error(Self.transfers, "CancelTransfer", [.uint64(id)])?.name == Fixture.errorPrefix + "UnknownTransfer")
    }

    @Test func anUploadReachesTheServerByteForByte() throws {
        let server = try Self.nginx()
        let fixture = try Fixture()
        let original = Self.randomBytes(1_000_000)
        let source = fixture.bus.directory.appendingPathComponent("report.pdf")
        try Data(original).write(to: source)
        let id: UInt64 = try fixture.call(
            Self.transfers, "Upload",
            [.string(Self.app), .string("up"), .string(source.path), .string("\(server.httpURL)/dav/report.pdf"), .vardict([:])]
        ).decode(0)
        let done = try ended(fixture, id)
        #expect(done["state"] == .string("completed"), "\(done)")
        #expect(try [UInt8](Data(contentsOf: server.davDirectory.appendingPathComponent("report.pdf"))) == original)
    }

    /// HTTPS against a CA made for the test (`CURL_CA_BUNDLE`, as curl
    /// reads it); a URL's password is never shown, logged or signalled.
    @Test func httpsWithTheTestCAAndNoSecretShown() throws {
        let server = try Self.nginx(tls: true)
        let fixture = try Fixture(extraEnvironment: ["CURL_CA_BUNDLE": try #require(server.caFile)])
        let original = Self.randomBytes(500_000)
        try server.serve(original, at: "s.bin")
        let httpsURL = try #require(server.httpsURL)
        let url = httpsURL.replacingOccurrences(of: "https://", with: "https://alice:hunter2@") + "/s.bin"
        let target = fixture.bus.directory.appendingPathComponent("s.bin")
        let id = try download(
            fixture, url, to: target.path,
            ["headers": .dictionary(key: .string, value: .string, [DBusDictionaryEntry(key: .string("Authorization"), value: .string("Bearer t0ken"))])])
        let done = try ended(fixture, id)
        #expect(done["state"] == .string("completed"), "\(done)")
        #expect(try [UInt8](Data(contentsOf: target)) == original)
        #expect(done["url"] == .string("\(httpsURL)/s.bin"))
        let listing = try fixture.call(Self.transfers, "ListTransfers")
        for text in [fixture.daemon.log, "\(listing)", "\(done)"] {
            #expect(!text.contains("hunter2") && !text.contains("t0ken"), "a secret shown")
        }
    }

    /// A server whose certificate no trusted CA signed: failed at once, in words.
    @Test func anUntrustedCertificateFailsWithoutRetrying() throws {
        let server = try Self.nginx(tls: true)
        let fixture = try Fixture(extraEnvironment: ["CURL_CA_BUNDLE": try server.unrelatedCA()])
        try server.serve([1], at: "x")
        let id = try download(fixture, "\(try #require(server.httpsURL))/x", to: fixture.bus.directory.appendingPathComponent("x").path)
        let done = try ended(fixture, id)
        #expect(done["state"] == .string("failed") && done["attempts"] == .uint32(1), "\(done)")
        #expect("\(done["reason"] ?? .string(""))".lowercased().contains("certificate"), "\(done)")
    }

    /// A directory path: notifyd names the file from Content-Disposition,
    /// safely (never `../../.bashrc`), and never over an existing one.
    @Test func aDirectoryDownloadIsNamedSafelyAndNeverOverAnExistingFile() throws {
        let header = #"location /named { alias WWW/n.txt; add_header Content-Disposition 'attachment; filename="../../.bashrc"'; }"#
        let server = try NginxServer()
        server.addLocations([header.replacingOccurrences(of: "WWW", with: server.root.path)])
        server.stop()
        try server.start()
        try server.serve(Array("hello".utf8), at: "n.txt")
        try server.serve(Array("report".utf8), at: "report.txt")
        let fixture = try Fixture()
        let folder = fixture.bus.directory.appendingPathComponent("Downloads")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let named = try ended(fixture, try download(fixture, "\(server.httpURL)/named", to: folder.path + "/"))
        let path = "\(named["path"] ?? .string(""))"
        #expect(named["state"] == .string("completed") && path.contains(folder.path + "/"), "\(named)")
        #expect(!FileManager.default.fileExists(atPath: fixture.bus.directory.appendingPathComponent(".bashrc").path))
        let first = try ended(fixture, try download(fixture, "\(server.httpURL)/report.txt", to: folder.path + "/", session: "r1"))
        let second = try ended(fixture, try download(fixture, "\(server.httpURL)/report.txt", to: folder.path + "/", session: "r2"))
        #expect(first["path"] == .string(folder.path + "/report.txt"))
        #expect(second["path"] == .string(folder.path + "/report (1).txt"))
    }
}
