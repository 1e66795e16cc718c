import Foundation
import NotifyTesting
import NotifyTransfer
import Testing

extension NotifyTransferTests {
    /// Where a download may land: never over a file unless told, never
    /// through a symbolic link, a safe name in a directory, http(s) only.
    @Suite("destinations") struct Destinations {
        @Test("an existing destination: failed and untouched without overwrite, replaced with it")
        func existingDestination() throws {
            let server = try TransferFixture.nginx()
            let directory = try TransferFixture.directory()
            let url = try server.serve([1, 2, 3], at: "three")
            let target = directory + "/three"
            try Data([9, 9]).write(to: URL(fileURLWithPath: target))
            let recorder = RecordedEngine()
            #expect(
                try recorder.run(TransferAttempt(id: 10, direction: .download, url: url, path: target))
                    == .failed(reason: "a file already exists at the destination"))
            #expect(TransferFixture.contents(target) == [9, 9])
            #expect(try recorder.run(TransferAttempt(id: 11, direction: .download, url: url, path: target, overwrite: true))
                == .completed(path: target, bytes: 3))
            #expect(TransferFixture.contents(target) == [1, 2, 3])
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["three"])
        }

        @Test("a symbolic link in the directory path, or at the destination: failed, nothing written")
        func symbolicLinks() throws {
            let server = try TransferFixture.nginx()
            let directory = try TransferFixture.directory()
            let url = try server.serve([1, 2, 3], at: "three")
            let real = directory + "/real"
            try FileManager.default.createDirectory(atPath: real, withIntermediateDirectories: false)
            try FileManager.default.createSymbolicLink(atPath: directory + "/link", withDestinationPath: real)
            try FileManager.default.createSymbolicLink(atPath: real + "/to-passwd", withDestinationPath: "/etc/passwd")
            let recorder = RecordedEngine()
            #expect(
                try recorder.run(TransferAttempt(id: 12, direction: .download, url: url, path: directory + "/link/three"))
                    == .failed(reason: "the destination folder is reached through a symbolic link, which notifyd does not follow"))
            #expect(
                try recorder.run(TransferAttempt(id: 13, direction: .download, url: url, path: directory + "/link/"))
                    == .failed(reason: "the destination folder is reached through a symbolic link, which notifyd does not follow"))
            #expect(
                try recorder.run(
                    TransferAttempt(id: 14, direction: .download, url: url, path: real + "/to-passwd", overwrite: true))
                    == .failed(reason: "the destination is a symbolic link, which notifyd does not follow"))
            // A link where the partial file goes is not followed either.
            try FileManager.default.createSymbolicLink(
                atPath: TransferEngine.partialPath(for: real + "/p", id: 15), withDestinationPath: real + "/elsewhere")
            #expect(
                try recorder.run(TransferAttempt(id: 15, direction: .download, url: url, path: real + "/p"))
                    == .failed(reason: "a symbolic link is in the way of the partial file"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: real).sorted() == ["p.15.part", "to-passwd"])
        }

        @Test("into a directory: Content-Disposition ../../.bashrc becomes bashrc inside it; filename* in UTF-8 wins")
        func safeNames() throws {
            let server = try TransferFixture.nginx()
            let directory = try TransferFixture.directory() + "/"
            let recorder = RecordedEngine()
            #expect(
                try recorder.run(TransferAttempt(id: 16, direction: .download, url: "\(server.httpURL)/named", path: directory))
                    == .completed(path: directory + "bashrc", bytes: 6))
            #expect(
                try recorder.run(TransferAttempt(id: 17, direction: .download, url: "\(server.httpURL)/utf8name", path: directory))
                    == .completed(path: directory + "résumé.pdf", bytes: 3))
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == ["bashrc", "résumé.pdf"])
        }

        @Test("into a directory: taken names become \"name (1).ext\", \"name (2).ext\"; the name is the redirect's target's")
        func nameCollisions() throws {
            let server = try TransferFixture.nginx()
            let directory = try TransferFixture.directory() + "/"
            try server.serve([7], at: "data/report.pdf")
            try Data([0]).write(to: URL(fileURLWithPath: directory + "report.pdf"))
            let recorder = RecordedEngine()
            for (id, name) in [(UInt64(18), "report (1).pdf"), (19, "report (2).pdf")] {
                #expect(
                    try recorder.run(TransferAttempt(id: id, direction: .download, url: "\(server.httpURL)/moved", path: directory))
                        == .completed(path: directory + name, bytes: 1))
            }
            #expect(TransferFixture.contents(directory + "report.pdf") == [0])
            #expect(TransferFixture.contents(directory + "report (2).pdf") == [7])
        }

        @Test("a redirect to file: or round in circles fails in words; nothing is written")
        func redirects() throws {
            let server = try TransferFixture.nginx()
            let directory = try TransferFixture.directory()
            let recorder = RecordedEngine()
            #expect(
                try recorder.run(TransferAttempt(id: 20, direction: .download, url: "\(server.httpURL)/tofile", path: directory + "/passwd"))
                    == .failed(reason: "the server redirected to an address that is neither http nor https"))
            #expect(
                try recorder.run(TransferAttempt(id: 21, direction: .download, url: "\(server.httpURL)/loop", path: directory + "/loop"))
                    == .failed(reason: "the server redirected more than 10 times"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
        }

        @Test("a Content-Length larger than the disk's free space fails at once, in words", .enabled(if: ScratchMount.unavailableReason == nil))
        func largerThanTheDisk() throws {
            let server = try TransferFixture.nginx()
            let disk = try ScratchMount.tmpfs(kilobytes: 1_024)
            let sparse = server.root.appendingPathComponent("huge.iso").path
            #expect(FileManager.default.createFile(atPath: sparse, contents: nil))
            #expect(truncate(sparse, 5_000_000_000) == 0)
            let target = disk.directory.path + "/huge.iso"
            let end = try RecordedEngine().run(TransferAttempt(id: 22, direction: .download, url: "\(server.httpURL)/huge.iso", path: target))
            #expect(end == .failed(reason: "the download needs 5.0 GB but the disk has only 1.0 MB free"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: disk.directory.path).isEmpty)
        }
    }
}
