import DBus
import Testing

@testable import notifyctl

/// The progress of `--wait`: byte counts and durations for people, the
/// rate over the last seconds, and the lines drawn, all on a clock the
/// test moves (monotonic nanoseconds as plain numbers).
@Suite struct TransferProgressTests {
    static let second: UInt64 = 1_000_000_000
    static let mb: UInt64 = 1_000_000

    static func transfer(_ state: String, done: UInt64, total: UInt64, reason: String = "") -> TransferInfo {
        TransferInfo(
            id: 7, app: "notifyctl", session: "s",
            details: [
                "state": .string(state), "reason": .string(reason), "bytes-done": .uint64(done),
                "bytes-total": .uint64(total),
            ])
    }

    @Test(arguments: [
        (0, "0 B"), (999, "999 B"), (1000, "1.0 kB"), (1049, "1.0 kB"), (23_500_000, "23.5 MB"),
        (999_960, "1.0 MB"), (50 * mb, "50.0 MB"), (4_700_000_000, "4.7 GB"), (UInt64.max, "18.4 EB"),
    ] as [(UInt64, String)])
    func byteCounts(_ bytes: UInt64, _ text: String) {
        #expect(ByteCount.text(bytes) == text)
        #expect(ByteCount.compact(bytes) == text.replacing(" ", with: ""))
    }

    @Test(arguments: [
        (0.2, "1 s"), (6, "6 s"), (59.5, "1 min"), (61, "2 min"), (3600, "1 h"), (3900, "1 h 5 min"),
    ] as [(Double, String)])
    func durations(_ seconds: Double, _ text: String) {
        #expect(ByteCount.duration(seconds: seconds) == text)
    }

    @Test func noDurationForTheUnreasonable() {
        #expect(ByteCount.duration(seconds: .infinity) == nil)
        #expect(ByteCount.duration(seconds: 100 * 3600) == nil)
    }

    @Test func rateIsAveragedOverTheLastSeconds() {
        var rate = TransferRate()
        #expect(rate.bytesPerSecond(at: 0) == nil)
        rate.add(bytes: 0, at: 0)
        rate.add(bytes: 2 * Self.mb, at: Self.second / 2)
        #expect(rate.bytesPerSecond(at: Self.second / 2) == nil, "half a second says too little")
        // 4 MB/s for 10 seconds, a sample every half second.
        for step in 2...20 { rate.add(bytes: UInt64(step) * 2 * Self.mb, at: UInt64(step) * Self.second / 2) }
        #expect(rate.bytesPerSecond(at: 10 * Self.second) == Double(4 * Self.mb))
        #expect(rate.samples.count <= 12, "only the window is kept")
        // Then 1 MB/s: the average follows within the window.
        for step in 1...10 { rate.add(bytes: 40 * Self.mb + UInt64(step) * Self.mb, at: (10 + UInt64(step)) * Self.second) }
        #expect(rate.bytesPerSecond(at: 20 * Self.second) == Double(Self.mb))
    }

    @Test func aStallDropsTheRateToZeroAndAStartOverResetsIt() {
        var rate = TransferRate()
        for step in 0...4 { rate.add(bytes: UInt64(step) * Self.mb, at: UInt64(step) * Self.second) }
        #expect(rate.bytesPerSecond(at: 4 * Self.second) == Double(Self.mb))
        #expect((rate.bytesPerSecond(at: 6 * Self.second) ?? .infinity) < Double(Self.mb))
        #expect(rate.bytesPerSecond(at: 10 * Self.second) == 0)
        rate.add(bytes: 0, at: 11 * Self.second)
        #expect(rate.samples.count == 1 && rate.bytesPerSecond(at: 11 * Self.second) == nil)
    }

    /// Between two counts (at most two a second) the rate does not sag.
    @Test func aRecentCountStandsForNow() {
        var rate = TransferRate()
        for step in 0...4 { rate.add(bytes: UInt64(step) * Self.mb, at: UInt64(step) * Self.second) }
        #expect(rate.bytesPerSecond(at: 4 * Self.second + Self.second / 2) == Double(Self.mb))
    }

    @Test func terminalLineWhileRunning() {
        let running = Self.transfer("running", done: 23_500_000, total: 50 * Self.mb)
        #expect(
            ProgressLine.terminalLine(running, rate: 4_200_000, width: 79)
                == "[#########...........] 47%  23.5 MB / 50.0 MB  4.2 MB/s  7 s left")
        #expect(ProgressLine.terminalLine(running, rate: nil, width: 79) == "[#########...........] 47%  23.5 MB / 50.0 MB")
        #expect(ProgressLine.terminalLine(running, rate: 0, width: 79).hasSuffix("50.0 MB  stalled"))
        let unknown = Self.transfer("running", done: 1_500, total: 0)
        #expect(ProgressLine.terminalLine(unknown, rate: 1_000, width: 79) == "1.5 kB  1.0 kB/s")
    }

    @Test func terminalLineOtherwise() {
        let waiting = Self.transfer("waiting", done: 0, total: 0, reason: "waiting for a network that is not metered")
        #expect(ProgressLine.terminalLine(waiting, rate: nil, width: 79) == "waiting: waiting for a network that is not metered")
        let suspended = Self.transfer("suspended", done: 5 * Self.mb, total: 10 * Self.mb)
        #expect(ProgressLine.terminalLine(suspended, rate: nil, width: 79) == "[##########..........] 50%  suspended")
        let done = Self.transfer("completed", done: 50 * Self.mb, total: 50 * Self.mb)
        #expect(ProgressLine.terminalLine(done, rate: nil, width: 79) == "[####################] 100%  50.0 MB  completed")
        // 99.9% is not 100% until it has completed.
        #expect(Self.transfer("running", done: 999, total: 1000).percentText == "99%")
    }

    @Test func terminalLineIsCutToTheWidthAndMadePrintable() {
        let failed = Self.transfer("failed", done: 0, total: 0, reason: "Not found (HTTP 404)\u{1B}[2J and more words")
        let line = ProgressLine.terminalLine(failed, rate: nil, width: 30)
        #expect(line == "failed: Not found (HTTP 404)\\…")
        #expect(line.count == 30)
    }

    @Test func plainLines() {
        let running = Self.transfer("running", done: 23_500_000, total: 50 * Self.mb)
        #expect(ProgressLine.plainLine(running, rate: 4_200_000) == "running  47%  23.5 MB / 50.0 MB  4.2 MB/s  7 s left")
        let waiting = Self.transfer("waiting", done: 0, total: 0, reason: "retrying in 40 s after: connection reset")
        #expect(ProgressLine.plainLine(waiting, rate: nil) == "waiting  retrying in 40 s after: connection reset")
        #expect(ProgressLine.plainLine(Self.transfer("queued", done: 0, total: 0), rate: nil) == "queued")
    }

    /// Not a terminal: a line on every change of state or reason, and at
    /// most one a second while the state stays the same.
    @Test func plainDisplayIsThrottled() {
        var written: [String] = []
        let display = TransferDisplay(mode: .plain, write: { written.append($0) }, columns: { 80 })
        display.show(Self.transfer("queued", done: 0, total: 0), rate: nil, at: 0)
        display.show(Self.transfer("queued", done: 0, total: 0), rate: nil, at: 1)
        display.show(Self.transfer("running", done: 1, total: 100), rate: nil, at: 2)
        display.show(Self.transfer("running", done: 2, total: 100), rate: nil, at: Self.second / 2)
        display.show(Self.transfer("running", done: 3, total: 100), rate: 1, at: Self.second + 2)
        display.show(Self.transfer("running", done: 3, total: 100), rate: 1, at: 3 * Self.second)
        display.show(Self.transfer("completed", done: 100, total: 100), rate: nil, at: 3 * Self.second + 1)
        display.end()
        #expect(
            written == [
                "queued\n", "running  1%  1 B / 100 B\n", "running  3%  3 B / 100 B  1 B/s  2 min left\n",
                "completed\n",
            ])
    }

    /// A reason that changes while running, or one that says the state
    /// again, adds no line that reads the same.
    @Test func plainDisplaySaysNothingTwice() {
        var written: [String] = []
        let display = TransferDisplay(mode: .plain, write: { written.append($0) }, columns: { 80 })
        display.show(Self.transfer("queued", done: 0, total: 0, reason: "queued"), rate: nil, at: 0)
        display.show(Self.transfer("running", done: 0, total: 10, reason: "connecting"), rate: nil, at: 1)
        display.show(Self.transfer("running", done: 0, total: 10, reason: "transferring"), rate: nil, at: 2)
        #expect(written == ["queued\n", "running  0%  0 B / 10 B\n"])
    }

    @Test func terminalDisplayRedrawsInPlace() {
        var written: [String] = []
        let display = TransferDisplay(mode: .terminal, write: { written.append($0) }, columns: { 60 })
        display.show(Self.transfer("running", done: 1, total: 2), rate: nil, at: 0)
        display.redraw(rate: 0, at: 10 * Self.second)
        display.end()
        display.end()
        #expect(
            written == [
                "\r[##########..........] 50%  1 B / 2 B\u{1B}[K", "\r[##########..........] 50%  1 B / 2 B  stalled\u{1B}[K",
                "\n",
            ])
    }

    @Test func silentDisplayWritesNothing() {
        var written: [String] = []
        let display = TransferDisplay(mode: .silent, write: { written.append($0) }, columns: { 80 })
        display.show(Self.transfer("running", done: 1, total: 2), rate: nil, at: 0)
        display.redraw(rate: nil, at: Self.second)
        display.end()
        #expect(written.isEmpty)
    }
}
