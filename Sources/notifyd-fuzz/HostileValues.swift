import DBus
import Glibc
import NotifyTestingCore

/// Generators of arbitrary D-Bus values: random types, deep nesting up to
/// what libdbus accepts, huge arrays, and values of any type but a given one.
enum HostileValues {
    /// Deepest nesting of containers the codec and the bus accept in a
    /// message body (variants included).
    static let maximumDepth = 64
    static let basicTypes: [DBusType] = [
        .byte, .boolean, .int16, .uint16, .int32, .uint32, .int64, .uint64, .double, .string, .objectPath, .signature,
    ]

    /// A descriptor of /dev/null that `h` values carry (libdbus duplicates it into each message).
    static let devNull = DBusFileDescriptor(open("/dev/null", O_RDONLY | O_CLOEXEC), owned: true)

    /// A random complete type, at most `depth` containers deep.
    static func type(_ rng: inout SplitMix64, depth: Int = 3) -> DBusType {
        guard depth > 0, rng.chance(0.35) else {
            return rng.chance(0.02) ? .unixFD : rng.pick(basicTypes)
        }
        switch rng.int(0...3) {
        case 0: return .variant
        case 1: return .array(type(&rng, depth: depth - 1))
        case 2: return .dictionary(key: rng.pick(basicTypes), value: type(&rng, depth: depth - 1))
        default: return .structure((0..<rng.int(1...3)).map { _ in type(&rng, depth: depth - 1) })
        }
    }

    /// A random value of `type`.
    static func value(of type: DBusType, _ rng: inout SplitMix64, depth: Int = 3) -> DBusValue {
        switch type {
        case .byte: return .byte(UInt8(truncatingIfNeeded: rng.next()))
        case .boolean: return .boolean(rng.chance(0.5))
        case .int16: return .int16(Int16(truncatingIfNeeded: rng.next()))
        case .uint16: return .uint16(UInt16(truncatingIfNeeded: rng.next()))
        case .int32: return .int32(rng.pick([0, 1, -1, .min, .max, Int32(truncatingIfNeeded: rng.next())]))
        case .uint32: return .uint32(rng.pick([0, 1, 2_147_483_648, .max, UInt32(truncatingIfNeeded: rng.next())]))
        case .int64: return .int64(rng.pick([0, -1, .min, .max, Int64(bitPattern: rng.next())]))
        case .uint64: return .uint64(rng.pick([0, .max, rng.next()]))
        case .double: return .double(rng.pick([0, -0.0, .nan, .infinity, -.infinity, .ulpOfOne, 1e308, Double(rng.int(-9...9))]))
        case .string: return .string(rng.chance(0.5) ? rng.pick(HostileStrings.nasty) : HostileStrings.string(bytes: rng.skewed(0...300), &rng))
        case .objectPath: return .objectPath(objectPath(&rng))
        case .signature: return .signature(rng.pick(["", "s", "a{sv}", "v", "(ii)", "aaaaay", "a{s(ssua{sv})}"]))
        case .unixFD: return .unixFD(devNull)
        case .variant:
            let inner = HostileValues.type(&rng, depth: max(0, depth - 1))
            return .variant(value(of: inner, &rng, depth: depth - 1))
        case .array(let element):
            let count = rng.skewed(0...6)
            return .array(element: element, (0..<count).map { _ in value(of: element, &rng, depth: depth - 1) })
        case .dictionary(let key, let valueType):
            let count = rng.skewed(0...5)
            return .dictionary(
                key: key, value: valueType,
                (0..<count).map { _ in
                    DBusDictionaryEntry(key: value(of: key, &rng), value: value(of: valueType, &rng, depth: depth - 1))
                })
        case .structure(let fields):
            return .structure(fields.map { value(of: $0, &rng, depth: depth - 1) })
        }
    }

    /// A random value of a random type.
    static func any(_ rng: inout SplitMix64, depth: Int = 3) -> DBusValue {
        value(of: type(&rng, depth: depth), &rng, depth: depth)
    }

    /// A value whose type is not `excluded`: a random one, or a near miss
    /// (the right value wrapped in a variant, a signed for an unsigned, ...).
    static func any(except excluded: DBusType, _ rng: inout SplitMix64) -> DBusValue {
        let nearMisses: [DBusValue]
        switch excluded {
        case .string: nearMisses = [.objectPath("/finished"), .signature("s"), .variant(.string("finished")), .strings(["finished"])]
        case .uint32: nearMisses = [.int32(30), .uint64(30), .uint16(30), .int64(30), .double(30), .variant(.uint32(30))]
        case .int32: nearMisses = [.uint32(1), .int64(1), .int16(1), .byte(1), .double(1), .variant(.int32(1))]
        case .uint64: nearMisses = [.int64(10), .uint32(10), .double(10), .variant(.uint64(10))]
        case .boolean: nearMisses = [.uint32(0), .int32(1), .string("true"), .byte(1), .variant(.boolean(false))]
        default: nearMisses = [.string("x"), .uint32(1)]
        }
        while true {
            let candidate = rng.chance(0.5) ? rng.pick(nearMisses) : any(&rng)
            if candidate.type != excluded { return candidate }
        }
    }

    /// A variant nested `levels` deep, alternating variants and arrays of
    /// variants (`v`, `av`, `a{sv}`), around a string.
    static func nested(levels: Int, _ rng: inout SplitMix64) -> DBusValue {
        var value: DBusValue = .string("bottom")
        var level = 0
        while level < levels {
            switch rng.int(0...2) {
            case 0 where level + 1 <= levels:
                value = .variant(value)
                level += 1
            case 1 where level + 2 <= levels:
                value = .array(element: .variant, [.variant(value)])
                level += 2
            case 2 where level + 3 <= levels:
                value = .dictionary(key: .string, value: .variant, [DBusDictionaryEntry(key: .string("k"), value: .variant(value))])
                level += 3
            default:
                value = .variant(value)
                level += 1
            }
        }
        return value
    }

    /// A huge array: `count` bytes, strings or variant entries.
    static func huge(count: Int, _ rng: inout SplitMix64) -> DBusValue {
        switch rng.int(0...3) {
        case 0: return .array(element: .byte, (0..<count).map { .byte(UInt8(truncatingIfNeeded: $0)) })
        case 1: return .array(element: .string, (0..<count).map { _ in .string("s") })
        case 2: return .array(element: .uint64, (0..<count).map { .uint64(UInt64($0)) })
        default:
            return .dictionary(
                key: .string, value: .variant,
                (0..<count).map { DBusDictionaryEntry(key: .string("k\($0)"), value: .variant(.int32(Int32($0)))) })
        }
    }

    /// A valid object path, often odd-looking.
    static func objectPath(_ rng: inout SplitMix64) -> String {
        if rng.chance(0.3) { return rng.pick(["/", "/org/notifyd/Notifyd1", "/org/notifyd/Notifyd1/x", "/_", "/a/b/c/d/e/f/g/h"]) }
        let elements = (0..<rng.int(1...6)).map { _ -> String in
            let chars = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
            return String((0..<rng.skewed(1...40)).map { _ in rng.pick(chars) })
        }
        return "/" + elements.joined(separator: "/")
    }
}
