import DBus
import NotifyTestingCore

/// Valid values for the Transfers interface (SPEC "Background transfers"),
/// chosen so that nothing a case queues ever starts or reaches out: URLs
/// of a closed port on loopback, paths in a directory that does not exist,
/// and a start time in 2255 (`not-before`); and the accepted-transfer
/// family, whose transfers are cancelled once answered.
extension CaseGenerator {
    /// An `http` or `https` URL of port 9 (discard, closed) or 1 on
    /// loopback, with credentials, odd case, encoded or raw hostile text,
    /// a query, a fragment, or near the 4096-byte limit.
    func validTransferURL(_ index: UInt64, _ rng: inout SplitMix64) -> String {
        var url = rng.pick([
            "http://127.0.0.1:9", "https://127.0.0.1:9", "http://[::1]:9", "HTTP://127.0.0.1:9", "hTTps://127.0.0.1:1",
            "http://fuzz:secret@127.0.0.1:9", "https://user%40x:p%3Ass@[::1]:9",
        ]) + "/fuzz-\(index)"
        if rng.chance(0.5) { url += "/" + Self.urlText(rng.pick(HostileStrings.nasty), raw: rng.chance(0.3)) }
        if rng.chance(0.3) { url += "?q=" + Self.urlText(rng.pick(HostileStrings.nasty), raw: false) + "#frag" }
        if rng.chance(0.05) { url += "/" + String(repeating: "u", count: Contract.longestTransferText - url.utf8.count - 1) }
        return url
    }

    /// Text for a URL: percent-encoded, or raw without the space and control
    /// characters notifyd refuses (anything else, non-ASCII too, it takes).
    static func urlText(_ text: String, raw: Bool) -> String {
        if raw { return String(String.UnicodeScalarView(text.unicodeScalars.filter { $0.value > 0x20 && $0.value != 0x7f })) }
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
        let hex = Array("0123456789ABCDEF")
        return text.utf8.map { unreserved.contains($0) ? String(UnicodeScalar($0)) : "%\(hex[Int($0 >> 4)])\(hex[Int($0 & 15)])" }.joined()
    }

    /// An absolute path under ``Legit/transferDirectory`` (which does not
    /// exist): no `.` or `..` part, no control character, hostile names,
    /// sometimes near the 4096-byte limit.
    func validTransferPath(_ index: UInt64, _ rng: inout SplitMix64) -> String {
        var name = "f\(index)"
        if rng.chance(0.5) {
            name += "-" + String(String.UnicodeScalarView(rng.pick(HostileStrings.nasty).unicodeScalars.filter {
                $0.value >= 0x20 && $0.value != 0x7f && $0 != "/"
            }))
        }
        var path = Legit.transferDirectory + "/" + (rng.chance(0.3) ? "deep/er//" : "") + name
        if rng.chance(0.05) { path += "/" + String(repeating: "p", count: Contract.longestTransferText - path.utf8.count - 1) }
        return path
    }

    /// Valid options: always the start time in 2255 (nothing starts, nothing
    /// reaches out), often more valid keys, and sometimes hostile unknown
    /// ones, which SPEC says are ignored.
    func validTransferOptions(_ rng: inout SplitMix64, unknownKeys: Int? = nil) -> DBusValue {
        var entries = validTransferOptionEntries(&rng)
        let count = unknownKeys ?? (rng.chance(0.3) ? 1 : 0)
        for (key, value) in EventGenerator.unknownKeys(&rng, count: count, depthLeft: HostileValues.maximumDepth - 3)
        where entries[key] == nil && !Self.transferOptionKeys.contains(key) {
            entries[key] = value
        }
        return .vardict(entries)
    }

    /// The option keys notifyd reads.
    static let transferOptionKeys: Set<String> = [
        "title", "headers", "method", "sha256", "allow-metered", "discretionary", "not-before", "overwrite", "notify", "sound",
        "badge", "timeout",
    ]

    /// Valid option entries, each key of the right type and value.
    func validTransferOptionEntries(_ rng: inout SplitMix64) -> [String: DBusValue] {
        var entries: [String: DBusValue] = ["not-before": .int64(Legit.farFuture)]
        if rng.chance(0.5) { entries["title"] = .string(rng.pick(HostileStrings.nasty)) }
        if rng.chance(0.2) { entries["method"] = .string(rng.pick(["PUT", "POST"])) }
        if rng.chance(0.3) { entries["sha256"] = .string(rng.pick(["a", "F", "0"]) + String(repeating: rng.pick(["e", "B", "9"]), count: 63)) }
        for key in ["allow-metered", "discretionary", "overwrite", "notify"] where rng.chance(0.2) { entries[key] = .boolean(rng.chance(0.5)) }
        if rng.chance(0.2) { entries["sound"] = .string(rng.pick(["", "message-new-instant", "../../x"])) }
        if rng.chance(0.2) { entries["badge"] = .int32(Int32(rng.int(-1...5))) }
        if rng.chance(0.3) { entries["timeout"] = .uint32(rng.pick([1, 86_400, UInt32(rng.int(1...86_400))])) }
        if rng.chance(0.3) {
            let names = ["X-Fuzz", "Authorization", "If-Range", "Range", "a!#$%&'*+-.^_`|~z", "Content-Length"]
            let headers = (0..<rng.int(0...3)).map { n in
                // A value may hold anything but a line break or a NUL.
                let value = String(String.UnicodeScalarView(rng.pick(HostileStrings.nasty).unicodeScalars.filter { !"\r\n\0".unicodeScalars.contains($0) }))
                return DBusDictionaryEntry(key: .string(rng.pick(names) + "\(n)"), value: .string(value))
            }
            entries["headers"] = .dictionary(key: .string, value: .string, headers)
        }
        return entries
    }

    /// A transfer ID no transfer has: never one listed when the run began
    /// (``busyIDs``), and above ``highestTransferID`` only from 2^40 on,
    /// out of reach of the run's own transfers.
    func unknownTransferID(_ rng: inout SplitMix64) -> UInt64 {
        let id = likelyID(&rng)
        return id > highestTransferID && id < 1 << 40 ? id | 1 << 40 : id
    }

    /// A valid Download or Upload for the accepted-transfer app, with
    /// hostile unknown option keys: answered with a transfer ID, which the
    /// flood then suspends, resumes, reads and at last cancels (so that no
    /// run nears the limit of 10,000 transfers); the run settles what is
    /// left and its snapshots leave these apps out.
    func acceptedTransfer(_ index: UInt64, _ rng: inout SplitMix64) -> FuzzCase {
        let target = Legit.acceptedTransfer(index)
        let upload = rng.chance(0.3)
        let url = DBusValue.string(validTransferURL(index, &rng))
        // A download's path may be a directory, in which notifyd names the file.
        var file = validTransferPath(index, &rng)
        if !upload, rng.chance(0.2), file.utf8.count < Contract.longestTransferText { file += "/" }
        let path = DBusValue.string(file)
        let unknown = rng.int(0...4)
        let options = validTransferOptions(&rng, unknownKeys: unknown)
        let member = upload ? "Upload" : "Download"
        var made = call(
            index, .acceptedTransfer, Contract.transfers, member,
            [.string(target.app), .string(target.session)] + (upload ? [path, url] : [url, path]) + [options],
            .success(signature: Contract.method(Contract.transfers, member)?.outputSignature ?? "t"),
            note: "valid \(member.lowercased()), \(unknown) hostile unknown keys")
        made.followUps = rng.pick([
            ["CancelTransfer"], ["GetTransfer", "CancelTransfer"], ["SuspendTransfer", "SuspendTransfer", "GetTransfer", "CancelTransfer"],
            ["ResumeTransfer", "SuspendTransfer", "ResumeTransfer", "CancelTransfer"], ["SuspendTransfer", "CancelTransfer"],
        ])
        return made
    }
}
