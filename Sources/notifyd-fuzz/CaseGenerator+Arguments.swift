import DBus
import NotifyTestingCore

/// Values for the arguments of notifyd's declared methods, by each
/// argument's name and type, so that any method can be called well-formed:
/// every argument valid but harmless (an app ID nothing is stored for, a
/// fresh session, an ID no running fetch or task has) except the one a
/// family makes hostile, which alone decides the answer.
extension CaseGenerator {
    /// A valid value for `argument`; nil when the fuzzer does not know the
    /// argument's name (its methods are then fuzzed with wrong signatures
    /// only, and `FuzzTests` says so).
    func validValue(_ argument: DBusArgument, _ index: UInt64, _ rng: inout SplitMix64) -> DBusValue? {
        switch (argument.name, argument.type) {
        case ("app_id", .string): .string(appForRefusal(&rng))
        case ("session_id", .string): .string(freshSession(index, &rng))
        case ("event", _): validEvent(&rng).0
        case ("count", .uint32): .uint32(UInt32(rng.int(0...Int(Contract.maximumBadge))))
        case ("delta", .int32): .int32(Int32(rng.int(-1000...1000)))
        case ("seconds", .uint32): .uint32(UInt32(rng.int(0...Int(Contract.longestFetchInterval))))
        case ("enabled", .boolean): .boolean(rng.chance(0.5))
        case ("name", .string): .string(validTaskName(&rng))
        case ("result", .string): .string(rng.pick(Self.fetchResults))
        case ("fetch_id", .uint64), ("task_id", .uint64): .uint64(likelyID(&rng))
        case ("transfer_id", .uint64): .uint64(unknownTransferID(&rng))
        // Transfers that could never reach out: a closed port on loopback,
        // a directory that does not exist, and a start time in 2255.
        case ("url", .string): .string(validTransferURL(index, &rng))
        case ("path", .string): .string(validTransferPath(index, &rng))
        case ("options", .dictionary(.string, .variant)): validTransferOptions(&rng)
        case ("interface_name", .string): .string(rng.pick(Contract.knownInterfaces))
        case ("property_name", .string): .string(rng.pick(Contract.daemonProperties))
        case ("value", .variant): .variant(HostileValues.any(&rng))
        default: nil
        }
    }

    /// A well-formed call of one of `methods` with `hostile` as its
    /// argument named `name` and every other argument valid; the methods
    /// are tried in a random order, and one with an argument the fuzzer
    /// does not know is passed over (nil when every one is).
    func wellFormedCall(
        _ methods: [Contract.Method], hostile: DBusValue, at name: String, _ index: UInt64, _ rng: inout SplitMix64
    ) -> (method: Contract.Method, arguments: [DBusValue])? {
        for method in methods.shuffled(using: &rng) {
            var arguments: [DBusValue] = []
            for input in method.inputs {
                guard let value = input.name == name ? hostile : validValue(input, index, &rng) else { break }
                arguments.append(value)
            }
            if arguments.count == method.inputs.count { return (method, arguments) }
        }
        return nil
    }

    /// The results `CompleteFetch` takes.
    static let fetchResults = ["new-data", "no-data", "failed"]

    /// A fetch or task ID: most often one notifyd has likely issued (IDs
    /// count up from 1, and the preparation used some), else 0, the
    /// largest, one past 32 bits, or any; never one of ``busyIDs`` (the
    /// fetches and tasks running when the run began).
    func likelyID(_ rng: inout SplitMix64) -> UInt64 {
        var id: UInt64
        switch rng.int(0...9) {
        case 0...5: id = UInt64(rng.skewed(1...1000))
        case 6: id = 0
        case 7: id = .max - UInt64(rng.int(0...1))
        case 8: id = UInt64(UInt32.max) + UInt64(rng.int(0...1))
        default: id = rng.next()
        }
        while busyIDs.contains(id) { id &+= 1 << 32 }
        return id
    }

    /// A valid task name: 1 to 255 bytes without control characters,
    /// often hostile text.
    func validTaskName(_ rng: inout SplitMix64) -> String {
        var name = rng.chance(0.5) ? rng.pick(HostileStrings.nasty) : "fuzz task"
        if rng.chance(0.1) {
            while name.utf8.count < Contract.longestTaskName { name += "x" }
        }
        return name
    }

    /// A task name `BeginBackgroundTask` refuses (InvalidArgs), and why.
    func invalidTaskName(_ rng: inout SplitMix64) -> (String, String) {
        switch rng.int(0...3) {
        case 0: return ("", "empty name")
        case 1:
            let bytes = rng.chance(0.5) ? Contract.longestTaskName + 1 : rng.skewed((Contract.longestTaskName + 1)...70_000)
            return (HostileStrings.string(bytes: bytes, &rng), "name of \(bytes) bytes")
        case 2:
            let control = String(UnicodeScalar(UInt8(rng.int(1...31))))
            return (HostileStrings.insert(control, into: validTaskName(&rng), &rng), "C0 control in the name")
        default:
            return (HostileStrings.insert("\u{7f}", into: validTaskName(&rng), &rng), "DEL in the name")
        }
    }

    /// A fetch result `CompleteFetch` refuses (InvalidArgs): a near miss,
    /// `expired` (a result only notifyd gives), or hostile text.
    func invalidFetchResult(_ rng: inout SplitMix64) -> String {
        var result = rng.pick(["expired", "newdata", "new_data", "New-Data", "", "NO-DATA", "fail", "failed ", "new-data\n"])
        if rng.chance(0.3) { result = HostileStrings.string(bytes: rng.skewed(0...100), &rng) }
        return Self.fetchResults.contains(result) ? result + "!" : result
    }
}
