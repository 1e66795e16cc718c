import DBus

/// Which declared members (``Contract/members``) the cases reach, and how
/// often well-formed: for a method, a call on notifyd's object with the
/// declared signature (its handler runs); for a signal, one emitted with
/// its signature; for a property, a `Properties.Get` or `Set` naming it
/// with its interface. Calls of a signal's name and wrong signatures
/// count as cases, not as well-formed.
struct MemberCoverage: Sendable {
    /// The cases that reached a member, and those of them well-formed.
    struct Count: Sendable {
        var cases = 0
        var wellFormed = 0
    }

    private(set) var counts: [Contract.Member: Count] = [:]

    mutating func add(_ testCase: FuzzCase) { add(Self.members(of: testCase)) }

    /// Counts what ``members(of:)`` found for one case.
    mutating func add(_ reached: [(Contract.Member, Bool)]) {
        for (member, wellFormed) in reached {
            counts[member, default: Count()].cases += 1
            if wellFormed { counts[member, default: Count()].wellFormed += 1 }
        }
    }

    /// The members `testCase` reaches, each with whether it is well-formed.
    static func members(of testCase: FuzzCase) -> [(Contract.Member, Bool)] {
        let signature = DBusType.signature(of: testCase.arguments.map(\.type))
        if testCase.kind == .signal {
            guard let interface = testCase.interface,
                let signal = signalsByName[interface + "." + testCase.member]
            else { return [] }
            return [(signal.member, signal.signature == signature)]
        }
        guard testCase.path == Contract.path(for: testCase.interface) else { return [] }
        guard let method = resolve(testCase.interface, testCase.member) else {
            // A signal's name, called as a method.
            guard let interface = testCase.interface, let signal = signalsByName[interface + "." + testCase.member] else { return [] }
            return [(signal.member, false)]
        }
        var reached = [(method.asMember, method.signature == signature)]
        if method.interface == Contract.properties, ["Get", "Set"].contains(method.member), testCase.arguments.count >= 2,
            case .string(let interface) = testCase.arguments[0], case .string(let name) = testCase.arguments[1]
        {
            let property = Contract.Member(interface: interface, name: name, kind: .property)
            if Self.properties.contains(property) { reached.append((property, method.signature == signature)) }
        }
        return reached
    }

    /// The method a call reaches: by interface, or without one the first
    /// of notifyd's own interfaces with the member (or `Introspect`), as
    /// notifyd's object dispatches.
    private static func resolve(_ interface: String?, _ member: String) -> Contract.Method? {
        if let interface { return Contract.method(interface, member) }
        if member == "Introspect" { return Contract.method(Contract.introspectable, member) }
        return Contract.methods.first { Contract.ownInterfaces.contains($0.interface) && $0.member == member }
    }

    private static let signalsByName: [String: (member: Contract.Member, signature: String)] = Dictionary(
        Contract.signals.map { ($0.member.interface + "." + $0.member.name, ($0.member, DBusType.signature(of: $0.arguments.map(\.type)))) },
        uniquingKeysWith: { first, _ in first })
    private static let properties = Set(Contract.propertyMembers)

    /// Members no case reached, and methods with arguments that no case
    /// called well-formed (their handlers never saw a hostile value).
    var gaps: [String] {
        Contract.members.sorted().compactMap { member in
            let count = counts[member] ?? Count()
            if count.cases == 0 { return "\(member): no case" }
            let takesArguments = Contract.method(member.interface, member.name).map { !$0.inputs.isEmpty } ?? false
            if member.kind == .method, takesArguments, count.wellFormed == 0 { return "\(member): never well-formed" }
            return nil
        }
    }

    /// One line per declared member: interface, member, kind, cases, well-formed.
    var lines: [String] {
        Contract.members.sorted().map { member in
            let count = counts[member] ?? Count()
            return [member.interface.padded(36), member.name.padded(34), member.kind.rawValue.padded(8),
                    "\(count.cases)".leftPadded(8), "\(count.wellFormed)".leftPadded(8)].joined(separator: " ")
        }
    }
}
