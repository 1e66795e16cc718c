import NotifyTestingCore

/// The transfer section's rows, with the targets of the issue.
extension BenchReport {
    /// notifyd's download throughput at least this many times curl's.
    static let transferThroughputTarget = 0.9
    /// notifyd's CPU time per GiB downloaded at most this many times curl's.
    static let transferCPUTarget = 1.2
    /// Heap per queued transfer below this many bytes.
    static let queuedTransferBytesTarget = 4096.0

    mutating func addTransfer(_ result: TransferBenchmark.Result) {
        addFreshTransfer(result.fresh)
        addDownloads(result.download, mebibytes: result.settings.mebibytes)
        addQueued(result.queued)
    }

    private mutating func addFreshTransfer(_ fresh: TransferBenchmark.Fresh) {
        rows.append(
            ReportRow(
                id: "transfer_thread_fresh", figure: "\(TransferBenchmark.threadName) threads before any transfer",
                value: Double(fresh.engineThreads), unit: .count, target: .exactly(0)))
        rows.append(
            ReportRow(
                id: "transfer_thread_after", figure: "\(TransferBenchmark.threadName) threads after the first download",
                value: Double(fresh.engineThreadsAfterDownload), unit: .count, target: .exactly(1)))
        rows.append(
            ReportRow(
                id: "transfer_libcurl_fresh", figure: "libcurl mapped before any transfer (1 yes, 0 no)",
                value: fresh.libcurlBefore ? 1 : 0, unit: .count, target: .exactly(0)))
        rows.append(
            ReportRow(
                id: "transfer_libcurl_after", figure: "libcurl mapped after the downloads (1 yes, 0 no)",
                value: fresh.libcurlAfter ? 1 : 0, unit: .count, target: .exactly(1)))
        rows += ReportRow.resident(
            "transfer_fresh_rss", "resident memory (VmRSS), no transfer ever asked", fresh.memory,
            target: .below(Self.idleResidentTargetKilobytes))
        notes.append(
            "Transfer, fresh: \(NumberText.compact(TransferBenchmark.freshSettleSeconds)) s after start, threads "
                + "\(fresh.threadNames.joined(separator: ", ")); VmRSS \(fresh.memory.residentKilobytes) kB, RssAnon "
                + "\(ReportRow.anonymousText(fresh.memory)) kB.")
    }

    private mutating func addDownloads(_ downloads: TransferBenchmark.Downloads, mebibytes: Int) {
        let size = ReportRow.sizeText(mebibytes: mebibytes)
        let mib = Double(downloads.bytes) / 1_048_576
        func rate(_ runs: [TransferBenchmark.DownloadRun]) -> Double? {
            ReportRow.medianRate(mebibytes: mib, nanoseconds: runs.map(\.nanoseconds))
        }
        func rateSynced(_ runs: [TransferBenchmark.DownloadRun]) -> Double? {
            ReportRow.medianRate(mebibytes: mib, nanoseconds: runs.map { $0.nanoseconds + $0.syncNanoseconds })
        }
        func cpuPerGiB(_ runs: [TransferBenchmark.DownloadRun]) -> Double? {
            ReportRow.medianCPUPerGiB(mebibytes: mib, cpuNanoseconds: runs.map(\.cpuNanoseconds))
        }
        func wall(_ runs: [TransferBenchmark.DownloadRun]) -> Double? { ReportRow.median(runs.map { Double($0.nanoseconds) / 1e6 }) }
        let count = downloads.notifyd.count
        rows.append(
            ReportRow(
                id: "transfer_download_rate", figure: "\(size) download from nginx by notifyd, MiB a second, median",
                value: rate(downloads.notifyd), unit: .perSecond, baseline: "curl -o FILE, median",
                baselineValue: rate(downloads.curl), target: .ratioAtLeast(Self.transferThroughputTarget)))
        rows.append(
            ReportRow(
                id: "transfer_download_rate_synced", figure: "\(size) download by notifyd (synced), MiB a second, median",
                value: rate(downloads.notifyd), unit: .perSecond, baseline: "curl -o FILE, then fsync",
                baselineValue: rateSynced(downloads.curl)))
        rows.append(
            ReportRow(
                id: "transfer_download_rate_disk", figure: "\(size) download by notifyd (synced) against the disk alone",
                value: rate(downloads.notifyd), unit: .perSecond, baseline: "write from memory, then fsync",
                baselineValue: rateSynced(downloads.disk)))
        rows.append(
            ReportRow(
                id: "transfer_download_cpu", figure: "notifyd's CPU time per GiB downloaded, median",
                value: cpuPerGiB(downloads.notifyd), unit: .milliseconds, baseline: "curl's, median",
                baselineValue: cpuPerGiB(downloads.curl), target: .ratioAtMost(Self.transferCPUTarget)))
        rows.append(
            ReportRow(
                id: "transfer_download_time", figure: "\(size) download by notifyd, median", value: wall(downloads.notifyd),
                unit: .milliseconds, baseline: "curl -o FILE, median", baselineValue: wall(downloads.curl)))
        rows.append(
            ReportRow(
                id: "transfer_download_sizes", figure: "downloads of the original's size, of \(count * 2)",
                value: Double(downloads.sizesRight), unit: .count, target: .exactly(Double(count * 2))))
        rows.append(
            ReportRow(
                id: "transfer_download_sha256", figure: "first downloads (notifyd's, curl's) with the original's SHA-256",
                value: Double(downloads.digestsRight), unit: .count, target: .exactly(2)))
        func runs(_ runs: [TransferBenchmark.DownloadRun]) -> String {
            runs.map {
                "\(ReportRow.text(Double($0.nanoseconds) / 1e6, .milliseconds)) (CPU \(ReportRow.text(Double($0.cpuNanoseconds) / 1e6, .milliseconds))"
                    + ($0.syncNanoseconds > 0 ? ", then fsync \(ReportRow.text(Double($0.syncNanoseconds) / 1e6, .milliseconds)))" : ")")
            }.joined(separator: ", ")
        }
        let diskRuns = downloads.disk.map {
            "write \(ReportRow.text(Double($0.nanoseconds) / 1e6, .milliseconds)), fsync "
                + ReportRow.text(Double($0.syncNanoseconds) / 1e6, .milliseconds)
        }.joined(separator: "; ")
        notes.append(
            "Transfer, download: \(downloads.bytes) bytes (a 1 MiB pseudo-random block repeated) from nginx on loopback, "
                + "\(count) times by each client, alternating, after 1 MiB by each to warm up, into the same directory; "
                + "notifyd from Download to TransferChanged completed (synced and in place), CPU utime+stime of "
                + "/proc/PID/stat; curl -o from spawn to exit, CPU from rusage. notifyd: \(runs(downloads.notifyd)); "
                + "curl: \(runs(downloads.curl)); the disk alone (\(downloads.bytes) bytes written from memory in 1 MiB "
                + "blocks, then fsync): \(diskRuns).")
    }

    private mutating func addQueued(_ queued: TransferBenchmark.Queued) {
        let wakeUps = queued.wakeUps
        let seconds = NumberText.compact(wakeUps.seconds)
        rows.append(
            ReportRow(
                id: "transfer_queued_waiting", figure: "downloads waiting for a network after the window, of \(queued.count)",
                value: Double(queued.waitingAfter), unit: .count, target: .exactly(Double(queued.count))))
        rows.append(
            ReportRow(
                id: "transfer_queued_wakeups",
                figure: "context switches in \(seconds) s with \(queued.count) downloads waiting for a network",
                value: Double(wakeUps.total), unit: .count, target: .atMost(0),
                note: "voluntary \(wakeUps.voluntary), nonvoluntary \(wakeUps.nonvoluntary)"))
        let added = queued.count - 1
        let anonymous = queued.before.anonymousKilobytes.flatMap { before in
            queued.after.anonymousKilobytes.map { Double($0 - before) * 1024 / Double(max(1, added)) }
        }
        let resident = Double(queued.after.residentKilobytes - queued.before.residentKilobytes) * 1024 / Double(max(1, added))
        rows.append(
            ReportRow(
                id: "transfer_queued_heap_each", figure: "heap (RssAnon) per queued download", value: anonymous, unit: .bytes,
                target: .below(Self.queuedTransferBytesTarget)))
        rows.append(
            ReportRow(id: "transfer_queued_rss_each", figure: "VmRSS per queued download", value: resident, unit: .bytes))
        let woken = wakeUps.threadsThatWoke.map { "\($0.name) (\($0.tid)): \($0.switches)" }
        notes.append(
            "Transfer, queued: a notifyd in a network namespace without a default route; \(queued.count) downloads "
                + "(1 first, then \(added) pipelined, answered in \(NumberText.fixed(queued.queueSeconds, decimals: 2)) s), "
                + "\(queued.waitingBefore) waiting for a network right after; memory per download over the \(added): VmRSS "
                + "\(queued.before.residentKilobytes) -> \(queued.after.residentKilobytes) kB, RssAnon "
                + "\(ReportRow.anonymousText(queued.before)) -> \(ReportRow.anonymousText(queued.after)) kB; idle "
                + "\(seconds) s after \(NumberText.compact(QueuedTransfers.settleSeconds)) s to settle: "
                + (woken.isEmpty ? "none woke" : "woke: \(woken.joined(separator: ", "))")
                + (wakeUps.threadsEnded.isEmpty ? "." : ", threads ended: \(wakeUps.threadsEnded.joined(separator: ", ")).")
        )
    }
}
