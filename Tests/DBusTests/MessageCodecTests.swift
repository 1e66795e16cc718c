import Testing

@testable import DBus

/// Every D-Bus type, written into a message, sent through the wire format
/// and read back.
@Suite struct MessageCodecTests {
    static let samples: [DBusValue] = [
        .byte(0), .byte(255), .boolean(true), .boolean(false),
        .int16(.min), .uint16(.max), .int32(-7), .uint32(.max), .int64(.min), .uint64(.max),
        .double(3.25), .double(-0.0), .string(""), .string("héllo ✓"), .objectPath("/org/notifyd/Notifyd1"),
        .signature("a{sv}"), .variant(.uint32(5)), .variant(.variant(.string("deep"))),
        .array(element: .string, []), .array(element: .int32, [.int32(1), .int32(2)]),
        .dictionary(key: .string, value: .variant, []),
        .vardict(["count": .int64(3), "count-visible": .boolean(true), "nested": .vardict(["x": .strings(["a"])])]),
        .dictionary(key: .uint32, value: .array(.byte), [DBusDictionaryEntry(key: .uint32(1), value: .array(element: .byte, [.byte(9)]))]),
        .structure([.string("a"), .uint32(1), .vardict([:])]),
        .array(element: .structure([.string, .string, .uint32]), [.structure([.string("app"), .string("active"), .uint32(2)])]),
    ]

    @Test(arguments: samples)
    func roundTripsThroughTheWireFormat(_ value: DBusValue) throws {
        let message = try DBusMessage.signal(path: "/t", interface: "org.example.T", member: "M", arguments: [value])
        let received = try message.throughWireFormat()
        #expect(received.signature == value.signature)
        #expect(try received.arguments() == [value])
    }

    @Test func roundTripsDeepNesting() throws {
        var value = DBusValue.string("core")
        for _ in 0..<31 { value = .array(element: value.type, [value]) }
        let message = try DBusMessage.signal(path: "/t", interface: "org.example.T", member: "M", arguments: [value])
        #expect(try message.throughWireFormat().arguments() == [value])
    }

    @Test func roundTripsAFileDescriptor() throws {
        let descriptor = DBusFileDescriptor(0, owned: false)
        let message = try DBusMessage.signal(path: "/t", interface: "org.example.T", member: "M", arguments: [.unixFD(descriptor)])
        #expect(message.signature == "h")
        guard case .unixFD(let received)? = try message.arguments().first else {
            Issue.record("no descriptor read back")
            return
        }
        #expect(received.fd >= 0)
    }

    /// Found by fuzz-message (Fuzz/Corpus/message/unix-fd-index-past-the-descriptors):
    /// libdbus validates a message whose Unix FD argument indexes a
    /// descriptor it does not carry, and reads it as -1. Decoded as a
    /// descriptor, it could not be written into any message again.
    @Test func refusesAUnixFDIndexWithoutADescriptor() throws {
        let message = try DBusMessage.signal(path: "/t", interface: "org.example.T", member: "M", arguments: [.uint32(60)])
        var bytes = try message.wireBytes()
        // The signature header field (8, 'g', "u") says 'h' instead: index 60, no descriptor.
        let field: [UInt8] = [8, 1, UInt8(ascii: "g"), 0, 1, UInt8(ascii: "u"), 0]
        let start = try #require((0...(bytes.count - field.count)).first { Array(bytes[$0..<$0 + field.count]) == field })
        bytes[start + 5] = UInt8(ascii: "h")
        let received = try DBusMessage(wireBytes: bytes)
        #expect(received.signature == "h")
        #expect(throws: DBusError.self) { try received.arguments() }
    }

    @Test func refusesValuesLibdbusWouldAbortOn() throws {
        let bad: [DBusValue] = [
            .string("nul\u{0}inside"), .objectPath("not/a/path"), .objectPath("/trailing/"),
            .signature("a{"), .array(element: .string, [.uint32(1)]), .structure([]),
            .dictionary(key: .string, value: .uint32, [DBusDictionaryEntry(key: .uint32(1), value: .uint32(1))]),
        ]
        for value in bad {
            #expect(throws: DBusError.self, "\(value)") {
                _ = try DBusMessage.signal(path: "/t", interface: "org.example.T", member: "M", arguments: [value])
            }
        }
    }

    @Test func refusesInvalidHeaderNames() {
        #expect(throws: DBusError.self) { try DBusMessage.methodCall(destination: "bad name", path: "/", interface: nil, member: "M") }
        #expect(throws: DBusError.self) { try DBusMessage.methodCall(destination: nil, path: "//", interface: nil, member: "M") }
        #expect(throws: DBusError.self) { try DBusMessage.methodCall(destination: nil, path: "/", interface: "noDots", member: "M") }
        #expect(throws: DBusError.self) { try DBusMessage.methodCall(destination: nil, path: "/", interface: nil, member: "1bad") }
    }

    @Test func typedConversions() throws {
        let dictionary: [String: DBusValue] = ["a": .uint32(1)]
        #expect(dictionary.dbusValue == .vardict(["a": .uint32(1)]))
        #expect(try [String: DBusValue](dbusValue: .vardict(["a": .uint32(1)])) == dictionary)
        #expect(try [UInt32](dbusValue: .array(element: .uint32, [.uint32(4)])) == [4])
        #expect(throws: DBusError.self) { try UInt32(dbusValue: .int32(4)) }
        #expect(try [DBusValue.string("x")].decode(0, as: String.self) == "x")
        #expect(throws: DBusError.self) { try [DBusValue]().decode(0, as: String.self) }
    }
}

@Suite struct MessageCopyTests {
    @Test(arguments: MessageCodecTests.samples.filter { if case .unixFD = $0 { false } else { true } })
    func copiesAnArgumentAsItIs(_ value: DBusValue) throws {
        let source = try DBusMessage.signal(
            path: "/t", interface: "org.example.T", member: "M", arguments: [.string("first"), value]
        ).throughWireFormat()
        let target = try DBusMessage.signal(path: "/t", interface: "org.example.T", member: "N", arguments: [.uint64(7)])
        try target.appendArgument(1, of: source)
        #expect(try target.throughWireFormat().arguments() == [.uint64(7), value])
    }

    @Test func aMissingArgumentIsAnError() throws {
        let source = try DBusMessage.signal(path: "/t", interface: "org.example.T", member: "M", arguments: [.string("only")])
        let target = try DBusMessage.signal(path: "/t", interface: "org.example.T", member: "N")
        #expect(throws: DBusError.self) { try target.appendArgument(1, of: source) }
    }

    /// An `a{sv}` read back after the wire format gives its entries with
    /// their variants taken off; any other value gives nil.
    @Test func vardictEntriesAreTheValuesOutOfTheirVariants() throws {
        let written: [String: DBusValue] = ["token": .string("t"), "count": .uint32(3), "nested": .vardict(["k": .boolean(true)])]
        let message = try DBusMessage.signal(path: "/t", interface: "org.example.T", member: "M", arguments: [.vardict(written)])
        let read = try message.throughWireFormat().arguments()
        #expect(read.first?.vardictEntries == written)
        #expect(DBusValue.string("a{sv}").vardictEntries == nil)
        #expect(DBusValue.dictionary(key: .string, value: .string, []).vardictEntries == nil, "an a{ss} is not one")
    }
}
