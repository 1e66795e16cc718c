import NotifyCore
import Testing

@Suite struct WorkerEventDictionaryTests {
    static let samples: [EventValue] = [
        .string("x"), .boolean(true), .int32(1), .uint32(1), .uint64(1), .other(signature: "x"),
        .other(signature: "as"),
    ]

    static func invalid(_ fields: [String: EventValue]) -> NotifydError? {
        let error = #expect(throws: NotifydError.self) { try WorkerEvent(validating: fields) }
        #expect(error?.code == .invalidArgs)
        return error
    }

    @Test func readsEveryKey() throws {
        let event = try WorkerEvent(validating: [
            "kind": .string("fetch"), "title": .string("t"), "summary": .string("s"), "body": .string("b"),
            "path": .string("/p"), "uri": .string("https://x"), "error": .string("e"), "result": .string("no-data"),
            "sound": .string("bell"), "bytes-written": .uint64(3), "bytes-expected": .uint64(4),
            "badge": .int32(-7), "notify": .boolean(false), "timeout": .uint32(60),
        ])
        #expect(
            event
                == WorkerEvent(
                    kind: .fetch, title: "t", summary: "s", body: "b", path: "/p", uri: "https://x", error: "e",
                    sound: "bell", result: .noData, bytesWritten: 3, bytesExpected: 4, badge: -7, notify: false,
                    timeout: 60))
    }

    @Test(arguments: WorkerEventKey.allCases.map { ($0.name, $0.type.signature) })
    func everyWrongTypeIsRefused(key: String, signature: String) {
        for value in Self.samples where value.signature != signature {
            let error = Self.invalid([key: value])
            #expect(error?.message.contains("event key '\(key)' must be ") == true)
            #expect(error?.message.hasSuffix("('\(signature)'), not '\(value.signature)'") == true)
        }
    }

    @Test func wrongTypeMessageNamesBothTypes() {
        #expect(Self.invalid(["badge": .uint32(1)])?.message == "event key 'badge' must be an int32 ('i'), not 'u'")
        #expect(
            Self.invalid(["title": .other(signature: "as")])?.message
                == "event key 'title' must be a string ('s'), not 'as'")
    }

    @Test func unknownKindAndResultAreRefused() {
        let kind = Self.invalid(["kind": .string("done")])
        #expect(kind?.message == "event key 'kind' must be one of finished, failed, progress, fetch, not 'done'")
        let result = Self.invalid(["kind": .string("fetch"), "result": .string("NewData")])
        #expect(result?.message == "event key 'result' must be one of new-data, no-data, failed, not 'NewData'")
        #expect(Self.invalid(["kind": .string("")]) != nil)
    }

    @Test(arguments: ["relative/file", "", "~/file", "./file"])
    func relativePathIsRefused(_ path: String) {
        #expect(Self.invalid(["path": .string(path)])?.message.contains("'path'") == true)
    }

    @Test func absolutePathIsKept() throws {
        #expect(try WorkerEvent(validating: ["path": .string("/home/u/f.iso")]).path == "/home/u/f.iso")
    }

    @Test(arguments: ["title", "summary", "body", "path", "uri", "error", "sound"])
    func stringsUpTo4096BytesAreAccepted(_ key: String) throws {
        let atLimit = "/" + String(repeating: "é", count: 2047) + "a"  // 4096 bytes of UTF-8
        #expect(atLimit.utf8.count == 4096)
        _ = try WorkerEvent(validating: [key: .string(atLimit)])
        let error = Self.invalid([key: .string(atLimit + "b")])
        #expect(error?.message == "event key '\(key)' is 4097 bytes long, the limit is 4096")
    }

    @Test(arguments: ["kind", "result"])
    func overlongChoicesAreRefusedForTheirLength(_ key: String) {
        let error = Self.invalid([key: .string(String(repeating: "x", count: 4097))])
        #expect(error?.message.contains("4097 bytes") == true)
    }

    @Test(arguments: [(UInt32(0), false), (1, true), (86_400, true), (86_401, false), (.max, false)])
    func timeoutRange(seconds: UInt32, valid: Bool) throws {
        if valid {
            #expect(try WorkerEvent(validating: ["timeout": .uint32(seconds)]).timeout == seconds)
        } else {
            #expect(
                Self.invalid(["timeout": .uint32(seconds)])?.message
                    == "event key 'timeout' must be 1 to 86400 seconds, not \(seconds)")
        }
    }

    @Test func unknownKeysAreIgnored() throws {
        let event = try WorkerEvent(validating: [
            "Title": .int32(3), "x-custom": .other(signature: "a{sv}"), "progress": .string("half"),
            "huge": .string(String(repeating: "x", count: 10_000)),
        ])
        #expect(event == WorkerEvent())
    }

    @Test func badgeNotifyAndResultDefaults() throws {
        #expect(try WorkerEvent(validating: ["kind": .string("progress")]).badge == 0)
        #expect(try WorkerEvent(validating: ["kind": .string("fetch")]).result == .newData)
        #expect(try WorkerEvent(validating: ["kind": .string("fetch"), "result": .string("failed")]).badge == 0)
        #expect(try WorkerEvent(validating: ["badge": .int32(0)]).badge == 0)
        #expect(try WorkerEvent(validating: ["notify": .boolean(false)]).notify == false)
    }

    @Test func errorsAreTheSameWhateverTheDictionaryOrder() {
        let fields: [String: EventValue] = ["timeout": .uint32(0), "badge": .string("1"), "kind": .string("x")]
        for _ in 0..<5 { #expect(Self.invalid(fields)?.message.contains("'kind'") == true) }
    }

    @Test func fieldsRoundTrip() throws {
        let events = [
            WorkerEvent(),
            WorkerEvent(kind: .failed, title: "a.iso", error: "disk full", sound: "", badge: 3, timeout: 5),
            WorkerEvent(kind: .progress, bytesWritten: 1, bytesExpected: 2, notify: false),
            WorkerEvent(kind: .fetch, summary: "S", body: "B", path: "/x", uri: "u", result: .noData),
        ]
        for event in events { #expect(try WorkerEvent(validating: event.fields) == event) }
        #expect(WorkerEvent().fields == ["kind": .string("finished"), "badge": .int32(1), "notify": .boolean(true)])
    }
}
