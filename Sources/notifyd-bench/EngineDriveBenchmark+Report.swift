/// The transfer-drive section's rows: the engine's thread against an event
/// loop, as issue 31 asked to measure before choosing.
extension BenchReport {
    mutating func addEngineDrive(_ result: EngineDriveBenchmark.Result) {
        let mib = Double(result.bytes) / 1_048_576
        let size = ReportRow.sizeText(mebibytes: result.settings.mebibytes)
        func rate(_ runs: [EngineDriveBenchmark.Run]) -> Double? {
            ReportRow.medianRate(mebibytes: mib, nanoseconds: runs.map(\.nanoseconds))
        }
        func cpu(_ runs: [EngineDriveBenchmark.Run]) -> Double? {
            ReportRow.medianCPUPerGiB(mebibytes: mib, cpuNanoseconds: runs.map(\.cpuNanoseconds))
        }
        func stall(_ runs: [EngineDriveBenchmark.Run]) -> Double? { runs.map { Double($0.stallNanoseconds) / 1e6 }.max() }
        rows.append(
            ReportRow(
                id: "drive_rate", figure: "\(size) download, libcurl on a thread of its own (the engine), MiB a second",
                value: rate(result.thread), unit: .perSecond, baseline: "libcurl on an event loop", baselineValue: rate(result.loop)))
        rows.append(
            ReportRow(
                id: "drive_cpu", figure: "CPU time per GiB, libcurl on a thread of its own", value: cpu(result.thread),
                unit: .milliseconds, baseline: "on an event loop", baselineValue: cpu(result.loop)))
        rows.append(
            ReportRow(
                id: "drive_stall", figure: "longest wait of work posted to the bus loop during a download",
                value: stall(result.thread), unit: .milliseconds, baseline: "libcurl on that loop",
                baselineValue: stall(result.loop)))
        rows.append(
            ReportRow(
                id: "drive_idle_thread", figure: "wake-ups of the engine's thread idle \(NumberText.compact(result.settings.idleSeconds)) s, connection kept",
                value: Double(result.threadIdleSwitches), unit: .count, target: .atMost(0)))
        rows.append(
            ReportRow(
                id: "drive_idle_loop", figure: "wake-ups of the event loop idle \(NumberText.compact(result.settings.idleSeconds)) s, connection kept",
                value: Double(result.loopIdleSwitches), unit: .count))
        rows.append(
            ReportRow(
                id: "drive_sizes", figure: "downloads of the original's size, of \(result.thread.count + result.loop.count)",
                value: Double(result.sizesRight), unit: .count, target: .exactly(Double(result.thread.count + result.loop.count))))
        func runs(_ runs: [EngineDriveBenchmark.Run]) -> String {
            runs.map {
                "\(ReportRow.text(Double($0.nanoseconds) / 1e6, .milliseconds)) (CPU \(ReportRow.text(Double($0.cpuNanoseconds) / 1e6, .milliseconds)), "
                    + "stall \(ReportRow.text(Double($0.stallNanoseconds) / 1e6, .milliseconds)))"
            }.joined(separator: ", ")
        }
        notes.append(
            "Transfer drive: \(result.bytes) bytes from nginx on loopback into the bench's own process, 3 times each, alternating. "
                + "Thread: NotifyTransfer.TransferEngine (curl_multi_poll on notifyd-transfer), a separate loop probed as the bus; "
                + "loop: curl_multi_socket_action on an EventLoop's epoll and timers, that loop probed (a no-op posted every 5 ms), "
                + "the file written, streamed out every 16 MiB and synced on it. Thread: \(runs(result.thread)); loop: \(runs(result.loop)).")
    }
}
