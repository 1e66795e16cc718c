import Testing

@testable import DBus

/// ``DBusArrayWriter``: an array written element by element must read back,
/// after the wire format, as the same array written from ``DBusValue``s;
/// a value of the wrong type is refused before libdbus sees it.
@Suite struct ArrayWriterTests {
    static let row = DBusType.structure([.string, .string, .uint32, .dictionary(key: .string, value: .variant)])

    static func message() throws -> DBusMessage {
        try DBusMessage.signal(path: "/t", interface: "org.example.T", member: "M")
    }

    @Test func rowsRoundTripThroughTheWireFormat() throws {
        let message = try Self.message()
        let writer = try DBusArrayWriter(appendingTo: message, element: Self.row)
        for index in 0..<1_000 {
            try writer.append { (element) throws(DBusError) in
                try element.structure { (fields) throws(DBusError) in
                    try fields.string("session-\(index)")
                    try fields.string("héllo ✓")
                    try fields.uint32(UInt32(index))
                    try fields.vardict { (details) throws(DBusError) in
                        try details.entry("b", index % 2 == 0)
                        try details.entry("d", Double(index) / 4)
                        try details.entry("i", Int32(-index))
                        try details.entry("s", "text \(index)")
                        try details.entry("t", UInt64.max)
                        try details.entry("u", UInt32(index))
                        try details.entry("x", Int64.min)
                    }
                }
            }
        }
        #expect(writer.count == 1_000)
        let received = try writer.finish().throughWireFormat()
        func row(_ index: Int) -> DBusValue {
            var details: [String: DBusValue] = [:]
            details["b"] = .boolean(index % 2 == 0)
            details["d"] = .double(Double(index) / 4)
            details["i"] = .int32(Int32(-index))
            details["s"] = .string("text \(index)")
            details["t"] = .uint64(.max)
            details["u"] = .uint32(UInt32(index))
            details["x"] = .int64(.min)
            let fields: [DBusValue] = [
                .string("session-\(index)"), .string("héllo ✓"), .uint32(UInt32(index)), .vardict(details),
            ]
            return .structure(fields)
        }
        let expected = DBusValue.array(element: Self.row, (0..<1_000).map(row))
        #expect(received.signature == "a(ssua{sv})")
        #expect(try received.arguments() == [expected])
    }

    @Test func anEmptyArrayAndBasicElements() throws {
        let empty = try Self.message()
        #expect(try DBusArrayWriter(appendingTo: empty, element: Self.row).finish().throughWireFormat().arguments()
            == [.array(element: Self.row, [])])

        let numbers = try Self.message()
        let writer = try DBusArrayWriter(appendingTo: numbers, element: .int64)
        for value in [Int64.min, 0, .max] { try writer.append { (element) throws(DBusError) in try element.int64(value) } }
        #expect(try writer.finish().throughWireFormat().arguments() == [.array(element: .int64, [.int64(.min), .int64(0), .int64(.max)])])
    }

    @Test func followsTheArgumentsBeforeIt() throws {
        let message = try DBusMessage.signal(path: "/t", interface: "org.example.T", member: "M", arguments: [.string("first")])
        let writer = try DBusArrayWriter(appendingTo: message, element: .string)
        try writer.append { (element) throws(DBusError) in try element.string("a") }
        #expect(try writer.finish().throughWireFormat().arguments() == [.string("first"), .strings(["a"])])
    }

    /// Each mistake is refused with InvalidArgs and leaves the writer failed.
    @Test(arguments: ["wrong type", "missing field", "extra value", "NUL", "NUL key", "not a dict"])
    func refusesWhatLibdbusWouldAbortOn(_ mistake: String) throws {
        let writer = try DBusArrayWriter(appendingTo: try Self.message(), element: Self.row)
        try writer.append { (element) throws(DBusError) in
            try element.structure { (fields) throws(DBusError) in
                try fields.string("good"); try fields.string("row"); try fields.uint32(1)
                try fields.vardict { (details) throws(DBusError) in try details.entry("k", true) }
            }
        }
        let error = #expect(throws: DBusError.self) {
            try writer.append { (element) throws(DBusError) in
                try element.structure { (fields) throws(DBusError) in
                    switch mistake {
                    case "wrong type": try fields.uint32(1)
                    case "missing field": try fields.string("only one")
                    case "extra value":
                        try fields.string("a"); try fields.string("b"); try fields.uint32(1)
                        try fields.vardict { _ in }
                        try fields.string("one too many")
                    case "NUL": try fields.string("a\0b")
                    case "NUL key":
                        try fields.string("a"); try fields.string("b"); try fields.uint32(1)
                        try fields.vardict { (details) throws(DBusError) in try details.entry("k\0", 1 as UInt32) }
                    default:
                        try fields.string("a"); try fields.string("b")
                        try fields.vardict { _ in }
                    }
                }
            }
        }
        #expect(error?.name == DBusError.Name.invalidArgs)
        #expect(writer.count == 1)
        #expect(throws: DBusError.self) { try writer.finish() }
    }

    @Test func finishesOnce() throws {
        let writer = try DBusArrayWriter(appendingTo: try Self.message(), element: .string)
        _ = try writer.finish()
        #expect(throws: DBusError.self) { try writer.finish() }
        #expect(throws: DBusError.self) { try writer.append { (element) throws(DBusError) in try element.string("late") } }
    }

    /// A writer dropped before it finished abandons its array (libdbus
    /// frees what it held); the message is then only good for releasing.
    @Test func aWriterDroppedUnfinishedReleasesCleanly() throws {
        for _ in 0..<100 {
            let writer = try DBusArrayWriter(appendingTo: try Self.message(), element: .string)
            try writer.append { (element) throws(DBusError) in try element.string(String(repeating: "x", count: 10_000)) }
        }
    }
}
