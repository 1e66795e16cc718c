import Testing

@testable import NotifyDaemon

/// A flood of refused worker signals must not flood the journal.
@Suite struct RefusalLogTests {
    @Test func logsTheFirstTenThenEveryThousandth() {
        var log = RefusalLog()
        let logged = (1...3000).compactMap { _ in log.shouldLog(":1.7") }
        #expect(logged == Array(1...10) + [1000, 2000, 3000])
    }

    @Test func sendersAreCountedApartAndForgotten() {
        var log = RefusalLog()
        for _ in 1...10 { _ = log.shouldLog(":1.1") }
        #expect(log.shouldLog(":1.2") == 1)
        #expect(log.shouldLog(":1.1") == nil)
        log.forget(":1.1")
        #expect(log.shouldLog(":1.1") == 1)
    }
}
