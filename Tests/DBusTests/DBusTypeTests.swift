import Testing

@testable import DBus

@Suite struct DBusTypeTests {
    @Test(arguments: ["y", "b", "n", "q", "i", "u", "x", "t", "d", "s", "o", "g", "h", "v", "as", "a{sv}", "(sa{sv}u)", "aa{s(ib)}", "a(ssua{sv})"])
    func parsesAndPrintsEverySignature(_ signature: String) throws {
        let type = try DBusType.parseSingle(signature)
        #expect(type.signature == signature)
    }

    @Test func parsesSequences() throws {
        let types = try DBusType.parse("ssa{sv}t")
        #expect(types == [.string, .string, .dictionary(key: .string, value: .variant), .uint64])
        #expect(try DBusType.parse("").isEmpty)
    }

    @Test(arguments: ["a", "(", "()", "a{vs}", "{sv}", "a{s}", "a{svs}", "z", "(s", "s)", String(repeating: "a", count: 33) + "s", String(repeating: "(", count: 33) + "s" + String(repeating: ")", count: 33)])
    func refusesInvalidSignatures(_ signature: String) {
        #expect(throws: DBusError.self) { try DBusType.parse(signature) }
    }

    @Test func nestingLimitsAreTheSpecification() throws {
        #expect(throws: Never.self) { try DBusType.parse(String(repeating: "a", count: 32) + "s") }
        #expect(throws: DBusError.self) { try DBusType.parse(String(repeating: "a", count: 33) + "s") }
    }

    @Test func singleRefusesTwoTypes() {
        #expect(throws: DBusError.self) { try DBusType.parseSingle("ss") }
    }

    @Test func onlyBasicTypesAreBasic() throws {
        #expect(try DBusType.parseSingle("s").isBasic)
        #expect(try !DBusType.parseSingle("v").isBasic)
        #expect(try !DBusType.parseSingle("as").isBasic)
    }
}
