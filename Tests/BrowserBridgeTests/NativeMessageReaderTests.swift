import Glibc
import Testing

@testable import BrowserBridge

@Suite struct NativeMessageReaderTests {
    /// Writes `bytes` into a pipe (closed after) and reads every frame.
    func frames(_ bytes: [UInt8]) -> [NativeMessageReader.Frame] {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        let writer = Thread { // a pipe holds 64 KiB: write from another thread
            var written = 0
            while written < bytes.count {
                let n = bytes.withUnsafeBytes { write(ends[1], $0.baseAddress! + written, bytes.count - written) }
                if n <= 0 { break }
                written += n
            }
            close(ends[1])
        }
        writer.start()
        defer { close(ends[0]) }
        let reader = NativeMessageReader(descriptor: ends[0])
        var result: [NativeMessageReader.Frame] = []
        while true {
            let frame = reader.next()
            result.append(frame)
            if frame == .end { break }
        }
        writer.join()
        return result
    }

    func frame(_ payload: [UInt8], length: UInt32? = nil) -> [UInt8] {
        withUnsafeBytes(of: length ?? UInt32(payload.count)) { Array($0) } + payload
    }

    @Test func readsFramesUntilThePipeCloses() {
        let one = Array(#"{"type":"focus","focused":true}"#.utf8)
        #expect(frames(frame(one) + frame([])) == [.message(one), .message([]), .end])
    }

    @Test func skipsAFrameTooLongAndReadsTheNext() {
        let big = [UInt8](repeating: 0x20, count: Int(NativeMessageReader.maximumLength) + 1)
        let next = Array("{}".utf8)
        #expect(frames(frame(big) + frame(next)) == [.tooLong(UInt32(big.count)), .message(next), .end])
    }

    @Test func aFrameCutShortIsTheEnd() {
        #expect(frames(frame(Array("{}".utf8), length: 10)) == [.end])
        #expect(frames([1, 0]) == [.end], "half a header")
    }
}

/// A joinable thread (no Foundation in this target).
final class Thread: @unchecked Sendable {
    private var handle = pthread_t()
    private let body: () -> Void
    init(_ body: @escaping () -> Void) { self.body = body }
    func start() {
        let context = Unmanaged.passRetained(self).toOpaque()
        pthread_create(&handle, nil, { context in
            let thread = Unmanaged<Thread>.fromOpaque(context!).takeRetainedValue()
            thread.body()
            return nil
        }, context)
    }
    func join() { pthread_join(handle, nil) }
}
