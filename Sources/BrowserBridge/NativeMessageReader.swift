#if canImport(Glibc)
import Glibc
#endif

/// Reads the browser's native messages from a descriptor (standard input):
/// each is a 32-bit length in native byte order, then that many bytes of
/// UTF-8 JSON.
///
/// A frame over ``maximumLength`` is read past, not kept, so one bad frame
/// costs nothing and the next one is read as usual.
public struct NativeMessageReader {
    /// What the next frame held.
    public enum Frame: Equatable {
        /// A message's bytes.
        case message([UInt8])
        /// A frame too long to keep (its length), already skipped.
        case tooLong(UInt32)
        /// The browser closed the pipe (also in the middle of a frame).
        case end
    }

    /// The longest message kept: 1 MiB, as Chromium's own limit for a
    /// host's messages; the extension's are a few hundred bytes.
    public static let maximumLength: UInt32 = 1 << 20

    private let descriptor: Int32

    public init(descriptor: Int32) { self.descriptor = descriptor }

    /// Blocks until the next frame, or the end of the pipe.
    public func next() -> Frame {
        var header = [UInt8](repeating: 0, count: 4)
        guard readFully(&header, count: 4) else { return .end }
        let length = header.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
        guard length <= Self.maximumLength else {
            return skip(Int(length)) ? .tooLong(length) : .end
        }
        var payload = [UInt8](repeating: 0, count: Int(length))
        guard readFully(&payload, count: Int(length)) else { return .end }
        return .message(payload)
    }

    private func readFully(_ buffer: inout [UInt8], count: Int) -> Bool {
        var done = 0
        while done < count {
            let got = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + done, count - done) }
            if got > 0 {
                done += got
            } else if got < 0 && errno == EINTR {
                continue
            } else {
                return false
            }
        }
        return true
    }

    private func skip(_ count: Int) -> Bool {
        var left = count
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while left > 0 {
            let step = min(left, chunk.count)
            guard readFully(&chunk, count: step) else { return false }
            left -= step
        }
        return true
    }
}
