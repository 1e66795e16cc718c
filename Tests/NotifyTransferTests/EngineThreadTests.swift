import Foundation
import NotifyCore
import NotifyTesting
import NotifyTransfer
import Testing

extension NotifyTransferTests {
    /// The engine's thread: started late, silent when idle, joined at shutdown.
    @Suite("the engine's thread") struct EngineThread {
        @Test("no thread before the first start; none of its wake-ups while idle; shutdown joins it, a start makes another")
        func idleThread() throws {
            let server = try TransferFixture.nginx()
            let directory = try TransferFixture.directory()
            let url = try server.serve(TransferFixture.randomBytes(1_000), at: "small")
            let recorder = RecordedEngine()
            #expect(recorder.engine.threadID == 0)
            #expect(try recorder.run(TransferAttempt(id: 40, direction: .download, url: url, path: directory + "/a"))
                == .completed(path: directory + "/a", bytes: 1_000))
            let thread = recorder.engine.threadID
            #expect(thread != 0)
            // A kept-alive connection to nginx stays in libcurl's cache: it
            // must not wake the thread either.
            #expect(try ThreadWakeups(thread: thread).during(seconds: 2) == 0)
            recorder.engine.shutdown()
            recorder.engine.shutdown()
            #expect(recorder.engine.threadID == 0)
            #expect(!FileManager.default.fileExists(atPath: "/proc/self/task/\(thread)"))
            #expect(try recorder.run(TransferAttempt(id: 41, direction: .download, url: url, path: directory + "/b"))
                == .completed(path: directory + "/b", bytes: 1_000))
        }

        @Test("shutdown ends a running transfer with no event and keeps its partial file")
        func shutdownKeepsPartial() throws {
            let server = try TransferFixture.nginx()
            let directory = try TransferFixture.directory()
            try server.serve(TransferFixture.randomBytes(2_000_000), at: "slow.bin")
            let recorder = RecordedEngine()
            let target = directory + "/slow.bin"
            recorder.engine.start(TransferAttempt(id: 42, direction: .download, url: "\(server.httpURL)/slow/slow.bin", path: target))
            try recorder.waitForProgress(42, atLeast: 100_000)
            recorder.engine.shutdown()
            #expect(!recorder.all.contains { if case .ended = $0 { true } else { false } })
            #expect((TransferFixture.contents(TransferEngine.partialPath(for: target, id: 42))?.count ?? 0) >= 100_000)
        }

        @Test("the User-Agent carries notifyd's version")
        func userAgent() {
            #expect(TransferEngine.userAgent == "notifyd/\(NotifydNames.version)")
        }

        @Test("partial files sit beside the destination")
        func partialPaths() {
            #expect(TransferEngine.partialPath(for: "/home/u/file.iso", id: 7) == "/home/u/file.iso.7.part")
            #expect(TransferEngine.partialPath(for: "/home/u/Downloads/", id: 7) == "/home/u/Downloads/download.7.part")
        }
    }
}
