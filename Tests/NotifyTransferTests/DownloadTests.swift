import Foundation
import NotifyTesting
import NotifyTransfer
import Testing

extension NotifyTransferTests {
    /// Downloads: whole, resumed, started over, refused, checked.
    @Suite("downloads") struct Downloads {
        @Test("a 4 MB file arrives byte for byte, SHA-256 checked, with no partial file left")
        func wholeFile() throws {
            let server = try TransferFixture.nginx()
            let directory = try TransferFixture.directory()
            let original = TransferFixture.randomBytes(4_000_000)
            let url = try server.serve(original, at: "data/file.bin")
            let recorder = RecordedEngine()
            #expect(recorder.engine.threadID == 0)
            let target = directory + "/file.bin"
            let digest = try TransferFixture.sha256(original, scratch: directory)
            let end = try recorder.run(TransferAttempt(id: 1, direction: .download, url: url, path: target, sha256: digest))
            #expect(end == .completed(path: target, bytes: 4_000_000))
            #expect(TransferFixture.contents(target) == original)
            #expect(!TransferFixture.exists(TransferEngine.partialPath(for: target, id: 1)))
            let answer = try recorder.responded(1)
            #expect(answer.resumedFrom == 0 && answer.total == 4_000_000)
            #expect(answer.validator?.hasPrefix("\"") == true)  // nginx's strong ETag
            // The kernel keeps 15 bytes of a thread's name.
            #expect(ProcReader.readFile("/proc/self/task/\(recorder.engine.threadID)/comm") == "notifyd-transfe\n")
        }

        @Test("an empty file completes as an empty file")
        func emptyFile() throws {
            let server = try TransferFixture.nginx()
            let directory = try TransferFixture.directory()
            let url = try server.serve([], at: "empty")
            let end = try RecordedEngine().run(TransferAttempt(id: 2, direction: .download, url: url, path: directory + "/empty"))
            #expect(end == .completed(path: directory + "/empty", bytes: 0))
            #expect(TransferFixture.contents(directory + "/empty") == [])
        }

        @Test("networkChanged ends a stalled transfer at once, worth an immediate retry; a moving one goes on")
        func networkChangedEndsStalled() throws {
            let server = try TransferFixture.nginx()
            let directory = try TransferFixture.directory()
            try server.serve(TransferFixture.randomBytes(3_000_000), at: "n.bin")
            let recorder = RecordedEngine()
            let target = directory + "/n.bin"
            recorder.engine.start(TransferAttempt(id: 25, direction: .download, url: "\(server.httpURL)/slow/n.bin", path: target))
            try recorder.waitForProgress(25, atLeast: 100_000)
            recorder.engine.networkChanged()
            server.freeze()
            defer { server.freeze(false) }
            let count = recorder.all.count
            usleep(3_500_000)  // the engine's stall threshold is 3 s: a measurement window, not a wait for a condition
            #expect(!recorder.all.dropFirst(count).contains { if case .ended = $0 { true } else { false } })
            recorder.engine.networkChanged()
            #expect(
                try recorder.ended(25, seconds: 5)
                    == .retry(reason: "the network changed while the transfer was stalled", retryAfter: .zero))
            #expect(TransferFixture.exists(TransferEngine.partialPath(for: target, id: 25)))
        }

        @Test("404 fails in words with no partial file; 503 with Retry-After is a retry after 2 s")
        func httpRefusals() throws {
            let server = try TransferFixture.nginx()
            let directory = try TransferFixture.directory()
            let recorder = RecordedEngine()
            let missing = directory + "/missing"
            #expect(
                try recorder.run(TransferAttempt(id: 5, direction: .download, url: "\(server.httpURL)/missing", path: missing))
                    == .failed(reason: "Not found (HTTP 404)"))
            #expect(!TransferFixture.exists(TransferEngine.partialPath(for: missing, id: 5)))
            #expect(
                try recorder.run(TransferAttempt(id: 6, direction: .download, url: "\(server.httpURL)/busy", path: directory + "/busy"))
                    == .retry(reason: "Service unavailable (HTTP 503)", retryAfter: .seconds(2)))
            #expect(!TransferFixture.exists(directory + "/busy"))
        }

        @Test("a SHA-256 mismatch fails, and no partial file is left")
        func checksumMismatch() throws {
            let server = try TransferFixture.nginx()
            let directory = try TransferFixture.directory()
            let url = try server.serve(TransferFixture.randomBytes(100_000), at: "c.bin")
            let target = directory + "/c.bin"
            let end = try RecordedEngine().run(
                TransferAttempt(id: 7, direction: .download, url: url, path: target, sha256: String(repeating: "0", count: 64)))
            #expect(end == .failed(reason: "the downloaded file's SHA-256 checksum does not match the one expected"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
        }

        @Test("stop discarding the partial file removes it; keeping it leaves it")
        func stopKeepsOrDiscards() throws {
            let server = try TransferFixture.nginx()
            let directory = try TransferFixture.directory()
            try server.serve(TransferFixture.randomBytes(2_000_000), at: "s.bin")
            let recorder = RecordedEngine()
            for (id, discarding) in [(UInt64(8), true), (9, false)] {
                let target = directory + "/s\(id).bin"
                let count = recorder.all.count
                recorder.engine.start(TransferAttempt(id: id, direction: .download, url: "\(server.httpURL)/slow/s.bin", path: target))
                try recorder.waitForProgress(id, atLeast: 100_000, after: count)
                recorder.engine.stop(id: id, discardingPartial: discarding)
                #expect(try recorder.ended(id, after: count) == .stopped)
                #expect(TransferFixture.exists(TransferEngine.partialPath(for: target, id: id)) == !discarding)
                #expect(!TransferFixture.exists(target))
            }
            TransferEngine.removePartial(for: directory + "/s9.bin", id: 9)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
        }
    }
}
