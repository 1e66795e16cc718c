import Foundation
import NotifyTesting
import NotifyTransfer
import Testing

extension NotifyTransferTests {
    /// Resuming from the partial file, and never splicing two versions.
    @Suite("resuming") struct Resuming {
        @Test("nginx stopped mid-transfer: retry; started again: the next attempt resumes from the partial file")
        func resumesAfterRestart() throws {
            let server = try TransferFixture.nginx()
            let directory = try TransferFixture.directory()
            let original = TransferFixture.randomBytes(3_000_000)
            try server.serve(original, at: "big.bin")
            let recorder = RecordedEngine()
            let attempt = TransferAttempt(id: 3, direction: .download, url: "\(server.httpURL)/slow/big.bin", path: directory + "/big.bin")
            recorder.engine.start(attempt)
            let first = try recorder.responded(3)
            try recorder.waitForProgress(3, atLeast: 500_000)
            server.stop()
            guard case .retry(let reason, nil) = try recorder.ended(3) else { throw TestFailure("not a retry: \(recorder.all)") }
            #expect(reason == "the connection was lost before the whole file came")
            let kept = TransferFixture.contents(TransferEngine.partialPath(for: attempt.path, id: 3))?.count ?? 0
            #expect(kept >= 500_000 && kept < original.count)
            try server.start()
            var again = attempt
            again.validator = first.validator
            let count = recorder.all.count
            #expect(try recorder.run(again) == .completed(path: attempt.path, bytes: 3_000_000))
            let second = try recorder.responded(3, after: count)
            #expect(second.resumedFrom == UInt64(kept))
            #expect(second.total == 3_000_000)
            #expect(TransferFixture.contents(attempt.path) == original)
            // At most two progress reports a second, and some while it ran.
            let times = recorder.progressTimes(3)
            #expect(!times.isEmpty)
            #expect(zip(times, times.dropFirst()).allSatisfy { $1 - $0 >= 490_000_000 })
        }

        @Test("the file replaced on the server between attempts: started over, never spliced")
        func replacedFileStartsOver() throws {
            let server = try TransferFixture.nginx()
            let directory = try TransferFixture.directory()
            try server.serve(TransferFixture.randomBytes(2_000_000), at: "v.bin")
            let recorder = RecordedEngine()
            let attempt = TransferAttempt(id: 4, direction: .download, url: "\(server.httpURL)/slow/v.bin", path: directory + "/v.bin")
            recorder.engine.start(attempt)
            let first = try recorder.responded(4)
            try recorder.waitForProgress(4, atLeast: 200_000)
            recorder.engine.stop(id: 4, discardingPartial: false)
            #expect(try recorder.ended(4) == .stopped)
            #expect(TransferFixture.exists(TransferEngine.partialPath(for: attempt.path, id: 4)))
            let second = TransferFixture.randomBytes(1_500_000)
            try server.serve(second, at: "v.bin")
            var again = attempt
            again.url = "\(server.httpURL)/v.bin"
            again.validator = first.validator
            let count = recorder.all.count
            #expect(try recorder.run(again) == .completed(path: attempt.path, bytes: 1_500_000))
            #expect(try recorder.responded(4, after: count).resumedFrom == 0)
            #expect(TransferFixture.contents(attempt.path) == second)
        }

        @Test("a 416 to the Range (the partial file already whole): started over without Range, and completed")
        func unsatisfiableRangeStartsOver() throws {
            let server = try TransferFixture.nginx()
            let directory = try TransferFixture.directory()
            let original = TransferFixture.randomBytes(50_000)
            let url = try server.serve(original, at: "r.bin")
            let recorder = RecordedEngine()
            _ = try recorder.run(TransferAttempt(id: 23, direction: .download, url: url, path: directory + "/first"))
            let validator = try recorder.responded(23).validator
            let target = directory + "/r.bin"
            try Data(original).write(to: URL(fileURLWithPath: TransferEngine.partialPath(for: target, id: 24)))
            let count = recorder.all.count
            let end = try recorder.run(TransferAttempt(id: 24, direction: .download, url: url, path: target, validator: validator))
            #expect(end == .completed(path: target, bytes: 50_000))
            #expect(try recorder.responded(24, after: count).resumedFrom == 0)
            #expect(TransferFixture.contents(target) == original)
            let log = (try? String(contentsOfFile: server.directory.path + "/logs/access.log", encoding: .utf8)) ?? ""
            #expect(log.contains("\"GET /r.bin HTTP/1.1\" 416"))
        }
    }
}
