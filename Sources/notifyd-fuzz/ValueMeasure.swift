import DBus

/// Measures of a value that decide whether libdbus and the bus will carry
/// it at all: a message the bus refuses gets the sender disconnected,
/// which would test the bus, not notifyd.
enum ValueMeasure {
    /// Container nesting as libdbus counts it when it validates a body:
    /// arrays, dictionary entries, structs and variants each add one.
    /// Empty arrays count their element type (an upper bound).
    static func depth(_ value: DBusValue) -> Int {
        switch value {
        case .variant(let inner): return 1 + depth(inner)
        case .array(let element, let items): return 1 + max(depth(element), items.map(depth).max() ?? 0)
        case .dictionary(let key, let valueType, let entries):
            let inner = entries.map { max(depth($0.key), depth($0.value)) }.max() ?? 0
            return 2 + max(depth(key), depth(valueType), inner)
        case .structure(let fields): return 1 + (fields.map(depth).max() ?? 0)
        default: return 0
        }
    }

    /// The nesting of a type (variants count one: their content is a value's).
    static func depth(_ type: DBusType) -> Int {
        switch type {
        case .variant: return 1
        case .array(let element): return 1 + depth(element)
        case .dictionary(let key, let value): return 2 + max(depth(key), depth(value))
        case .structure(let fields): return 1 + (fields.map(depth).max() ?? 0)
        default: return 0
        }
    }

    /// Unix file descriptors the value carries.
    static func descriptors(_ value: DBusValue) -> Int {
        switch value {
        case .unixFD: return 1
        case .variant(let inner): return descriptors(inner)
        case .array(_, let items): return items.reduce(0) { $0 + descriptors($1) }
        case .dictionary(_, _, let entries): return entries.reduce(0) { $0 + descriptors($1.key) + descriptors($1.value) }
        case .structure(let fields): return fields.reduce(0) { $0 + descriptors($1) }
        default: return 0
        }
    }

    /// Whether a message body of these arguments is one the bus carries:
    /// nesting within libdbus's limit, a signature of at most 255 bytes, few descriptors.
    static func isSendable(_ arguments: [DBusValue]) -> Bool {
        guard (arguments.map(depth).max() ?? 0) <= HostileValues.maximumDepth else { return false }
        guard arguments.reduce(0, { $0 + descriptors($1) }) <= 8 else { return false }
        guard (try? DBusType.parse(DBusType.signature(of: arguments.map(\.type)))) != nil else { return false }
        return true
    }
}
