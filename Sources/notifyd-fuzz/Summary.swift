import NotifyCore

/// What a run did and found, as text for people or one JSON object.
struct Summary {
    var seed: UInt64
    var families: [Family: Tally.Counts]
    var coverage: MemberCoverage
    var total: Tally.Counts
    var seconds: Double
    var stoppedByTime: Bool
    var acceptedHandlers: Int
    var mismatches: [Tally.Mismatch]
    var failures: [String]
    var snapshotLines: Int
    var notifyd: DaemonWatch
    var resourcesBefore: (descriptors: Int, residentKiB: Int)?
    var resourcesAfter: (descriptors: Int, residentKiB: Int)?

    var passed: Bool { failures.isEmpty }
    /// Calls answered out of calls that expected an answer.
    var expectedReplies: Int { total.sent - total.signals - total.abandoned }

    var text: String {
        var out = "notifyd-fuzz: seed \(seed), \(total.sent) messages in \(format(seconds)) s"
        out += " (\(Int(Double(total.sent) / max(seconds, 0.001))) per second)\(stoppedByTime ? ", stopped by time" : "")\n"
        out += "  calls \(expectedReplies), replies \(total.replies), signals \(total.signals), abandoned \(total.abandoned), mismatches \(total.mismatches)\n"
        out += "  notifyd \(notifyd.uniqueName) pid \(notifyd.pid); state: \(snapshotLines) lines compared; accepted handlers: \(acceptedHandlers)\n"
        if let before = resourcesBefore, let after = resourcesAfter {
            out += "  notifyd resources: \(before.descriptors) -> \(after.descriptors) descriptors, \(before.residentKiB) -> \(after.residentKiB) KiB resident\n"
        }
        out += "  family               sent   replies  signals  abandoned  mismatches\n"
        for family in Family.allCases {
            guard let c = families[family] else { continue }
            out += "  " + [family.rawValue.padded(18), "\(c.sent)".leftPadded(8), "\(c.replies)".leftPadded(9), "\(c.signals)".leftPadded(8),
                           "\(c.abandoned)".leftPadded(10), "\(c.mismatches)".leftPadded(11)].joined(separator: " ") + "\n"
        }
        out += "  interface                            member                             kind        sent  well-formed\n"
        for line in coverage.lines { out += "  " + line + "\n" }
        for gap in coverage.gaps { out += "  NOT REACHED \(gap)\n" }
        for mismatch in mismatches { out += "MISMATCH \(mismatch)\n" }
        for failure in failures { out += "FAIL \(failure)\n" }
        out += passed ? "PASS\n" : "FAIL (replay one case with --seed \(seed) --case N)\n"
        return out
    }

    var json: String {
        var fields: [String] = [
            "\"seed\": \(seed)", "\"messages\": \(total.sent)", "\"calls\": \(expectedReplies)", "\"replies\": \(total.replies)",
            "\"signals\": \(total.signals)", "\"abandoned\": \(total.abandoned)", "\"mismatches\": \(total.mismatches)",
            "\"seconds\": \(format(seconds))", "\"stoppedByTime\": \(stoppedByTime)", "\"acceptedHandlers\": \(acceptedHandlers)",
            "\"notifydPid\": \(notifyd.pid)", "\"notifydUniqueName\": \(JSONString.quoted(notifyd.uniqueName))", "\"passed\": \(passed)",
        ]
        if let before = resourcesBefore, let after = resourcesAfter {
            fields.append("\"descriptors\": [\(before.descriptors), \(after.descriptors)]")
            fields.append("\"residentKiB\": [\(before.residentKiB), \(after.residentKiB)]")
        }
        let perFamily = Family.allCases.compactMap { family -> String? in
            guard let c = families[family] else { return nil }
            return "\(JSONString.quoted(family.rawValue)): {\"sent\": \(c.sent), \"replies\": \(c.replies), \"signals\": \(c.signals), \"abandoned\": \(c.abandoned), \"mismatches\": \(c.mismatches)}"
        }
        fields.append("\"families\": {\(perFamily.joined(separator: ", "))}")
        let perMember = Contract.members.sorted().map { member in
            let count = coverage.counts[member] ?? MemberCoverage.Count()
            return "\(JSONString.quoted("\(member.interface).\(member.name) \(member.kind.rawValue)")): {\"sent\": \(count.cases), \"wellFormed\": \(count.wellFormed)}"
        }
        fields.append("\"members\": {\(perMember.joined(separator: ", "))}")
        fields.append("\"membersNotReached\": [\(coverage.gaps.map(JSONString.quoted).joined(separator: ", "))]")
        fields.append("\"failures\": [\(failures.map(JSONString.quoted).joined(separator: ", "))]")
        fields.append("\"mismatchCases\": [\(mismatches.map { JSONString.quoted($0.description) }.joined(separator: ", "))]")
        return "{" + fields.joined(separator: ", ") + "}"
    }

    private func format(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}

extension String {
    func padded(_ width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
    func leftPadded(_ width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}
