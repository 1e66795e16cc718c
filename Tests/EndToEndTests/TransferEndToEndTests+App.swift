import DBus
import Foundation
import NotifyTesting
import Testing

extension TransferEndToEndTests {
    /// The README's app, as written there: it hands a download to notifyd
    /// and quits; when the download is done, notifyd wakes it by D-Bus
    /// activation (`ActivateAction("background-session", [session])`), and
    /// it calls the session's completion handler.
    @Test func theReadmeAppHandsADownloadOverQuitsAndIsWokenWhenItIsDone() throws {
        let server = try Self.nginx()
        let original = Self.randomBytes(400_000)
        let url = try server.serve(original, at: "nightly.tar")
        let fixture = try Fixture()
        let readme = try String(contentsOf: Executables.repositoryRoot().appendingPathComponent("README.md"), encoding: .utf8)
        let start = try #require(readme.range(of: "An app that hands a download to notifyd"))
        let block = try #require(readme.range(of: "```python\n", range: start.upperBound..<readme.endIndex))
        let end = try #require(readme.range(of: "```", range: block.upperBound..<readme.endIndex))
        let example = fixture.bus.directory.appendingPathComponent("fetcher.py")
        try String(readme[block.upperBound..<end.lowerBound]).write(to: example, atomically: true, encoding: .utf8)
        try fixture.bus.installService(name: Self.app, executable: "/usr/bin/python3", arguments: [example.path])
        let folder = fixture.bus.directory.appendingPathComponent("Downloads")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)

        let handed = try runProcess("/usr/bin/python3", [example.path, url, folder.path + "/"], environment: fixture.daemon.environment)
        #expect(handed.status == 0, "\(handed.stderr)")
        let file = folder.appendingPathComponent("nightly.tar")
        try waitUntil("the download in place", seconds: 60) { FileManager.default.fileExists(atPath: file.path) }
        #expect(try [UInt8](Data(contentsOf: file)) == original)
        // Woken, the app completed the session: its handler invoked.
        try waitUntil("the woken app completes the session", seconds: 30) {
            guard let session = try fixture.sessions()["nightly"] else { return false }
            return session.pending == 0 && session.details["last-result"] == .string("completed")
        }
        #expect(fixture.daemon.log.contains("took ActivateAction(background-session)"), "\(fixture.daemon.log.suffix(2000))")
    }
}
