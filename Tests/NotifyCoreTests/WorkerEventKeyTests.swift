import NotifyCore
import Testing

/// The one table of the event dictionary's keys, and what reads it.
@Suite struct WorkerEventKeyTests {
    /// SPEC's table ("The event dictionary"), the wire contract: a change
    /// here breaks workers.
    @Test func keysAndTypesAreSpecs() {
        let table = WorkerEventKey.allCases.map { "\($0.name) \($0.type.signature)" }
        #expect(
            table == [
                "kind s", "title s", "summary s", "body s", "path s", "uri s", "error s", "result s", "sound s",
                "bytes-written t", "bytes-expected t", "badge i", "notify b", "timeout u",
            ])
    }

    @Test func boundsComeFromTheCore() {
        #expect(WorkerEventKey.kind.bound == .oneOf(EventKind.allCases.map(\.rawValue)))
        #expect(WorkerEventKey.result.bound == .oneOf(FetchResult.allCases.map(\.rawValue)))
        #expect(WorkerEventKey.path.bound == .absolutePath)
        #expect(WorkerEventKey.timeout.bound == .range(1...86_400, unit: "seconds"))
        #expect(WorkerEventKey.allCases.filter { $0.bound != .none } == [.kind, .path, .result, .timeout])
    }

    @Test func everyKeyIsDocumented() {
        let documentation = WorkerEventKey.documentation
        for key in WorkerEventKey.allCases {
            #expect(!key.meaning.isEmpty)
            #expect(documentation.contains(key.summary), "\(key)")
            #expect(key.summary.hasPrefix("\(key.name) \(key.type.signature)"))
        }
        #expect(WorkerEventKey.timeout.summary == "timeout u (1 to 86400 seconds): the handler's deadline (30 when absent)")
        #expect(documentation.contains("at most 4096 bytes"))
        // XML comments may not hold "--"; the generator spaces it, but the text should not need it.
        #expect(!documentation.contains("--"))
    }

    /// A valid value of each key's type passes ``WorkerEventKey/check(_:)``,
    /// and the event that holds them all gives each back.
    @Test func everyKeyReadsAndWritesItsType() throws {
        let valid: [WorkerEventKey: EventValue] = [
            .kind: .string("fetch"), .title: .string("t"), .summary: .string("s"), .body: .string("b"),
            .path: .string("/p"), .uri: .string("u"), .error: .string("e"), .result: .string("no-data"),
            .sound: .string(""), .bytesWritten: .uint64(1), .bytesExpected: .uint64(2), .badge: .int32(-1),
            .notify: .boolean(false), .timeout: .uint32(5),
        ]
        #expect(Set(valid.keys) == Set(WorkerEventKey.allCases))
        for (key, value) in valid {
            #expect(value.signature == key.type.signature)
            try key.check(value)
        }
        let event = try WorkerEvent(validating: Dictionary(uniqueKeysWithValues: valid.map { ($0.key.name, $0.value) }))
        for key in WorkerEventKey.allCases { #expect(event.value(of: key) == valid[key], "\(key)") }
    }

    /// With several defects, the first key of the table is the one named.
    @Test func keysAreCheckedInTheTablesOrder() {
        let defects: [WorkerEventKey: EventValue] = [
            .timeout: .uint32(0), .badge: .string("1"), .path: .string("x"), .title: .int32(1), .kind: .string("x"),
        ]
        var fields = Dictionary(uniqueKeysWithValues: defects.map { ($0.key.name, $0.value) })
        for key in WorkerEventKey.allCases where defects[key] != nil {
            let error = #expect(throws: NotifydError.self) { try WorkerEvent(validating: fields) }
            #expect(error?.message.hasPrefix("event key '\(key.name)'") == true, "\(error?.message ?? "")")
            fields[key.name] = nil
        }
        #expect(throws: Never.self) { try WorkerEvent(validating: fields) }
    }

    @Test func rangeBoundNamesItsUnit() {
        let error = #expect(throws: NotifydError.self) { try WorkerEventKey.timeout.check(.uint32(86_401)) }
        #expect(error?.message == "event key 'timeout' must be 1 to 86400 seconds, not 86401")
        #expect(throws: Never.self) { try WorkerEventKey.timeout.check(.uint32(86_400)) }
    }
}
