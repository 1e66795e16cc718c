import NotifyCore
import Testing

@Suite struct IdentifiersTests {
    @Test(arguments: ["firefox", "org.gnome.Nautilus", "a", "app_1-2.x", String(repeating: "a", count: 255)])
    func acceptsDesktopEntryIDs(_ id: String) throws {
        #expect(try AppID(id).rawValue == id)
    }

    @Test(arguments: ["", ".hidden", "-flag", "a..b", "with space", "slash/inside", "ümlaut", "semi;colon", "nul\u{0}", String(repeating: "a", count: 256)])
    func refusesAnythingElse(_ id: String) {
        let error = #expect(throws: NotifydError.self) { try AppID(id) }
        #expect(error?.code == .invalidAppId)
    }

    @Test func messagesSayWhatIsWrong() {
        #expect((try? AppID("a..b")) == nil)
        let error = #expect(throws: NotifydError.self) { try AppID("x\ny") }
        #expect(error?.message.contains("\\n") == true)
        #expect(error?.message.contains("A-Z a-z 0-9") == true)
    }

    @Test(arguments: ["s", "download 42 ✓", "aria2:0123abcd", String(repeating: "é", count: 127)])
    func acceptsSessionIDs(_ id: String) throws {
        #expect(try SessionID(id).rawValue == id)
    }

    @Test(arguments: ["", "tab\there", "bell\u{7}", "del\u{7f}", "c1\u{85}", String(repeating: "a", count: 256), String(repeating: "é", count: 128)])
    func refusesBadSessionIDs(_ id: String) {
        let error = #expect(throws: NotifydError.self) { try SessionID(id) }
        #expect(error?.code == .invalidSessionId)
    }
}
