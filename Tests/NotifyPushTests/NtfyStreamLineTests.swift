@testable import NotifyPush
import Testing

/// ntfy's stream lines, read without a server.
@Suite("NtfyStreamLine")
struct NtfyStreamLineTests {
    static func read(_ text: String) -> NtfyStreamLine { NtfyStreamLine(Array(text.utf8)[...]) }

    @Test("the events of ntfy's documentation")
    func documentedEvents() {
        #expect(Self.read(#"{"id":"SLiKI64DOt","time":1635528757,"event":"open","topic":"mytopic"}"#) == .open(time: 1635528757))
        #expect(Self.read(#"{"id":"DGUDShMCsc","time":1635528787,"event":"keepalive","topic":"mytopic"}"#) == .keepalive)
        #expect(Self.read(#"{"id":"x","time":1,"event":"poll_request","topic":"t","poll_id":"p"}"#) == .ignored(event: "poll_request"))
        let message = Self.read(
            #"{"id":"hwQ2YpKdmg","time":1635528741,"expires":1635571941,"event":"message","topic":"mytopic","title":"t","message":"Disk full","priority":4,"tags":["a",{"b":[null,true,false,1.5e3]}]}"#)
        #expect(message == .message(NtfyMessage(id: "hwQ2YpKdmg", time: 1635528741, topic: "mytopic", body: Array("Disk full".utf8))))
    }

    @Test("escapes as Go writes them, surrogate pairs, base64 bodies; a missing message is an empty body")
    func bodies() {
        let escaped = Self.read(#"{"id":"a1","time":2,"event":"message","topic":"t","message":"\u003cb\u003e \u0026 \ud83d\ude00 \"\\\/\n"}"#)
        #expect(escaped == .message(NtfyMessage(id: "a1", time: 2, topic: "t", body: Array("<b> & 😀 \"\\/\n".utf8))))
        let binary = Self.read(#"{"id":"a2","time":2,"event":"message","topic":"t","message":"/wAB","encoding":"base64"}"#)
        #expect(binary == .message(NtfyMessage(id: "a2", time: 2, topic: "t", body: [0xFF, 0, 1])))
        let empty = Self.read(#"{"id":"a3","time":2,"event":"message","topic":"t"}"#)
        #expect(empty == .message(NtfyMessage(id: "a3", time: 2, topic: "t", body: [])))
    }

    @Test("what ntfy never sends is invalid, with a reason")
    func invalidLines() {
        let lines = [
            "", "[]", "{", #"{"event":"open"}"#, #"{"event":1}"#, #"{"id":"a b","time":1,"event":"message","topic":"t"}"#,
            #"{"id":"a","time":1.5,"event":"message","topic":"t"}"#, #"{"id":"a","time":1,"event":"message","topic":"a/b"}"#,
            #"{"id":"a","time":1,"event":"message","topic":"t","message":"QQ=","encoding":"base64"}"#,
            #"{"id":"a","time":1,"event":"message","topic":"t","message":"QR==","encoding":"base64"}"#,
            #"{"id":"a","time":1,"event":"message","topic":"t","attachment":{"url":"https://x"}}"#,
            #"{"id":"a","time":1,"event":"message","topic":"t"} x"#, #"{"a":"\x"}"#, "{\"a\":\"\u{1}\"}",
            #"{"a":01}"#, String(repeating: "[", count: 100),
            "{\"a\":" + String(repeating: "[", count: 40) + String(repeating: "]", count: 40) + "}",
        ]
        for line in lines {
            guard case .invalid(let reason) = Self.read(line) else {
                Issue.record("read as valid: \(line.prefix(80))")
                continue
            }
            #expect(!reason.isEmpty)
        }
        let invalidUTF8 = NtfyStreamLine([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D][...])
        #expect(invalidUTF8 == .invalid(reason: "malformed JSON at byte 4: a string that is not UTF-8"))
    }

    @Test("lines cut anywhere are put back together; a line over 64 KB is dropped whole, once")
    func lineBuffer() {
        let text = Array("one\r\ntwo\n\nthree\n".utf8) + [UInt8](repeating: 0x78, count: 70_000) + Array("\nfour\n".utf8)
        for size in [1, 2, 7, 4096, 100_000] {
            var buffer = NtfyLineBuffer()
            var lines: [String] = []
            var overlong = 0
            for start in stride(from: 0, to: text.count, by: size) {
                text[start..<min(start + size, text.count)].withUnsafeBytes { chunk in
                    buffer.take(chunk) { lines.append(String(decoding: $0, as: UTF8.self)) } overlong: { overlong += 1 }
                }
            }
            #expect(lines == ["one", "two", "", "three", "four"], "pieces of \(size)")
            #expect(overlong == 1)
            #expect(buffer.pendingCount == 0)
        }
    }

    @Test("the cursor: nothing, then the open time, then the last id; an id seen is not new")
    func cursor() {
        var cursor = NtfyCursor()
        #expect(cursor.query == "")
        cursor.opened(at: 1_700_000_000)
        #expect(cursor.query == "?since=1700000000")
        let first = cursor.advance(to: "abcdefghijkl")
        #expect(first && cursor.query == "?since=abcdefghijkl")
        let again = cursor.advance(to: "abcdefghijkl")
        #expect(!again)
        cursor.start(after: "zzzzzzzzzzzz")
        #expect(cursor.lastID == "zzzzzzzzzzzz")
        for index in 0...NtfyCursor.rememberedIDs { _ = cursor.advance(to: "id\(index)") }
        let forgotten = cursor.advance(to: "abcdefghijkl")  // after 512 others
        #expect(forgotten)
    }
}
