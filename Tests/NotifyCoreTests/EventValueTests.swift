import NotifyCore
import Testing

@Suite struct EventValueTests {
    @Test func signaturesAreTheDBusOnes() {
        #expect(EventValue.string("x").signature == "s")
        #expect(EventValue.boolean(true).signature == "b")
        #expect(EventValue.int32(-1).signature == "i")
        #expect(EventValue.uint32(1).signature == "u")
        #expect(EventValue.uint64(1).signature == "t")
        #expect(EventValue.other(signature: "a{sv}").signature == "a{sv}")
    }

    @Test func rawValuesAreTheWireNames() {
        #expect(EventKind.allCases.map(\.rawValue) == ["finished", "failed", "progress", "fetch"])
        #expect(FetchResult.allCases.map(\.rawValue) == ["new-data", "no-data", "failed"])
    }
}
