import DBus
import NotifyCore
import NotifyTesting
import Testing

extension FetchInterfaceTests {
    /// Scheduled fetches back off after failures (the interval doubled for
    /// each in a row), come back to the interval after new data, and never
    /// run for an app the user switched off: the clock moved by hand, each
    /// fetch started no earlier than planned.
    @Test func fetchesBackOffAfterFailuresAndComeBackAfterNewData() throws {
        let off = "org.example.Off"
        _ = try call("SetFetchEnabled", [.string(off), .boolean(false)])
        _ = try call("SetFetchInterval", [.string(off), .uint32(3600)])
        _ = try call("SetFetchInterval", [.string(app), .uint32(3600)])
        var gap = 2 * Self.hour
        for (occurrence, result) in [(1, "failed"), (2, "failed"), (3, "new-data")] {
            let perform = try signal("PerformFetch", occurrence: occurrence)
            #expect(perform.first == .string(app))
            guard case .uint64(let id) = perform[1], case .int64(let deadline) = perform[2] else {
                throw TestFailure("\(perform)")
            }
            let started = deadline - 30 * Self.second
            _ = try call("CompleteFetch", [.uint64(id), .string(result)])
            let after = try schedule()
            #expect(after["last-run"] == .int64(started))
            let expected = result == "failed" ? gap : Self.hour
            #expect(after["next"] == .int64(started + expected), "after fetch \(occurrence) (\(result)): \(after)")
            // One second early: nothing; then it starts.
            daemon.clock.advance(by: expected - Self.second)
            try daemon.sync()
            #expect(recorder.received.filter { $0.member == "PerformFetch" }.count == occurrence, "not early")
            daemon.clock.advance(by: Self.second)
            gap *= 2
        }
        _ = try signal("PerformFetch", occurrence: 4)
        #expect(!recorder.received.contains { $0.member == "PerformFetch" && $0.arguments.first == .string(off) })
        #expect(try schedule(off)["reason"] == .string("no fetch is planned: background fetch is switched off for this app"))
    }
}
