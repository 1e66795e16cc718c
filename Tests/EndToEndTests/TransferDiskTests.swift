import DBus
import Foundation
import Glibc
import NotifyTesting
import Testing

/// A download that cannot fit: refused at once when the server's
/// `Content-Length` says so (a 10 GB sparse file), failed as "the disk is
/// full" when the disk fills up under it; either way no partial file is
/// left and the reason is in words. The destination is a small tmpfs.
@Suite struct TransferDiskTests {
    @Test func aFileLargerThanTheDiskFailsAtOnceAndAFullDiskMidTransferFailsInWords() throws {
        if let reason = ScratchMount.unavailableReason {
            Issue.record("cannot test a full disk here: \(reason)")
            return
        }
        let disk = try ScratchMount.tmpfs(kilobytes: 2048)
        let server = try TransferEndToEndTests.nginx()
        // 10 GB that take no room on the server's disk.
        let huge = server.root.appendingPathComponent("huge.iso")
        _ = FileManager.default.createFile(atPath: huge.path, contents: nil)
        let handle = try FileHandle(forWritingTo: huge)
        try handle.truncate(atOffset: 10_000_000_000)
        try handle.close()
        try server.serve(TransferEndToEndTests.randomBytes(1_500_000), at: "mid.bin")
        let fixture = try Fixture()
        let test = TransferEndToEndTests()

        let tooBig = try test.download(fixture, "\(server.httpURL)/huge.iso", to: disk.directory.appendingPathComponent("huge.iso").path)
        let refused = try test.ended(fixture, tooBig)
        #expect(refused["state"] == .string("failed") && refused["attempts"] == .uint32(1), "\(refused)")
        #expect("\(refused["reason"] ?? .string(""))".contains("the download needs 10.0 GB"), "\(refused)")
        #expect(test.partialFiles(in: disk.directory).isEmpty)

        let id = try test.download(fixture, "\(server.httpURL)/slow/mid.bin", to: disk.directory.appendingPathComponent("mid.bin").path, session: "mid")
        try test.waitForBytes(fixture, id, atLeast: 200_000)
        // Something else fills the disk meanwhile.
        let filler = disk.directory.appendingPathComponent("filler")
        _ = try runProcess("/bin/dd", ["if=/dev/zero", "of=\(filler.path)", "bs=64k"], environment: [:])
        let full = try test.ended(fixture, id)
        #expect(full["state"] == .string("failed") && full["reason"] == .string("the disk is full"), "\(full)")
        #expect(test.partialFiles(in: disk.directory).isEmpty, "no partial file left")
        #expect(!FileManager.default.fileExists(atPath: disk.directory.appendingPathComponent("mid.bin").path))
    }
}
