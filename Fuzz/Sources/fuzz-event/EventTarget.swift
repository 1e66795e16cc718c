import DBus
import NotifyCore
@testable import NotifyDaemon

/// The worker event dictionary (`a{sv}`) of `HandleEventsForBackgroundSession`
/// and of the worker signal, from any process of the user: built from the
/// bytes as entries (a known key or any other, and a value of any type),
/// then decoded (``EventDecoding``) and validated (`WorkerEvent(validating:)`)
/// as notifyd does.
///
/// Also checked: a valid event's own dictionary validates to the same
/// event, and its echo to running apps holds only known keys, each string
/// within ``WorkerEvent/maximumStringBytes``.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEvent(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    var input = ByteReader(UnsafeBufferPointer(start: data, count: size))
    let session = input.string()
    let app = input.string()
    var entries: [DBusDictionaryEntry] = []
    while !input.isEmpty {
        let selector = Int(input.byte())
        let key = selector < knownKeys.count ? knownKeys[selector] : input.string()
        entries.append(DBusDictionaryEntry(key: .string(key), value: .variant(input.value(depth: 0))))
    }
    let arguments: [DBusValue] = [.string(session), .string(app), .dictionary(key: .string, value: .variant, entries)]
    guard let report = try? EventDecoding.report(arguments: arguments) else { return 0 }
    precondition(
        (try? WorkerEvent(validating: report.event.fields)) == report.event, "a valid event's fields validate to another")
    guard case .dictionary(_, _, let echoed) = report.echo else { preconditionFailure("the echo is no dictionary") }
    for entry in echoed {
        guard case .string(let key) = entry.key, EventDecoding.knownKeys.contains(key) else {
            preconditionFailure("the echo holds an unknown key")
        }
        if case .variant(.string(let text)) = entry.value {
            precondition(text.utf8.count <= WorkerEvent.maximumStringBytes, "the echo holds a string over the limit")
        }
    }
    return 0
}

/// Builds the globals the target reads before the first input, so that
/// libFuzzer's leak check (allocations an input leaves behind) does not
/// count them.
@_cdecl("LLVMFuzzerInitialize")
public func initialize(
    _ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> Int32 {
    _ = (knownKeys.count, EventDecoding.knownKeys.count)
    return 0
}

private let knownKeys = WorkerEventKey.allCases.map(\.name)

/// Reads the fuzzer's bytes as values; past the end, everything is zero.
struct ByteReader {
    private var rest: Slice<UnsafeBufferPointer<UInt8>>

    init(_ bytes: UnsafeBufferPointer<UInt8>) { rest = bytes[...] }

    var isEmpty: Bool { rest.isEmpty }

    mutating func byte() -> UInt8 { rest.popFirst() ?? 0 }

    mutating func integer<T: FixedWidthInteger>(_: T.Type = T.self) -> T {
        var value: T = 0
        for _ in 0..<MemoryLayout<T>.size { value = value << 8 | T(truncatingIfNeeded: byte()) }
        return value
    }

    /// A length (two bytes, so that strings over 4096 bytes are reachable),
    /// then that many bytes, as UTF-8 with invalid sequences replaced, as
    /// libdbus would have refused them.
    mutating func string() -> String {
        let length = min(Int(integer(UInt16.self)), rest.count)
        let bytes = rest.prefix(length)
        rest = rest.dropFirst(length)
        return String(decoding: bytes.filter { $0 != 0 }, as: UTF8.self)
    }

    mutating func value(depth: Int) -> DBusValue {
        switch byte() % (depth < 3 ? 11 : 8) {
        case 0: .string(string())
        case 1: .boolean(byte() & 1 == 1)
        case 2: .int32(integer())
        case 3: .uint32(integer())
        case 4: .uint64(integer())
        case 5: .int64(integer())
        case 6: .double(Double(bitPattern: integer()))
        case 7: .byte(byte())
        case 8: .variant(value(depth: depth + 1))
        case 9: .array(element: .string, (0..<Int(byte() % 4)).map { _ in .string(string()) })
        default: .structure([value(depth: depth + 1)])
        }
    }
}
