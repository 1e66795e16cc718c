import DBus
import NotifyCore
import NotifyDaemon

/// What the fuzzer holds notifyd to. The members (interfaces, methods with
/// their arguments, signals, properties) are notifyd's own declarations
/// (``NotifydObject/declarations``, the worker signal, and the standard
/// interfaces the object answers), so that every interface, today's and
/// any added later, is fuzzed as soon as it is declared: its methods with
/// wrong signatures, too many arguments and on unknown paths, and, once
/// ``CaseGenerator/validValue(_:_:_:)`` knows their arguments, well-formed
/// with hostile values (`FuzzTests` fails until it does). The event keys
/// come from their one table (``WorkerEventKey``). The answers expected,
/// the error names and the other limits are SPEC's, spelled out here, so
/// the fuzzer stays a check of what notifyd does with its declarations.
enum Contract {
    static let busName = NotifydNames.busName
    static let path = NotifydNames.objectPath
    /// The UnifiedPush distributor's object, on the same connection (one
    /// process owns both names, so calls go to ``busName`` as the rest).
    static let distributorPath = NotifydNames.distributorPath
    static let distributorInterfaces = NotifydObject.distributorDeclarations.map(\.name)
    static let badges = NotifydNames.badgesInterface
    static let apps = NotifydNames.appsInterface
    static let sessions = NotifydNames.sessionsInterface
    static let fetch = NotifydNames.fetchInterface
    static let tasks = NotifydNames.tasksInterface
    static let transfers = NotifydNames.transfersInterface
    static let daemon = NotifydNames.daemonInterface
    static let worker = NotifydNames.workerInterface
    static let workerMember = "EventsForBackgroundSession"
    static let properties = StandardInterfaces.propertiesName
    static let introspectable = StandardInterfaces.introspectableName
    static let peer = StandardInterfaces.peerName

    /// A member of a declared interface.
    struct Member: Sendable, Hashable, Comparable, CustomStringConvertible {
        enum Kind: String, Sendable, Comparable {
            case method, signal, property
            static func < (a: Kind, b: Kind) -> Bool { a.rawValue < b.rawValue }
        }

        let interface: String
        let name: String
        let kind: Kind

        static func < (a: Member, b: Member) -> Bool {
            (a.interface, a.kind, a.name) < (b.interface, b.kind, b.name)
        }

        var description: String { "\(interface).\(name) (\(kind.rawValue))" }
    }

    /// One method of the object and its arguments, as declared.
    struct Method: Sendable {
        let interface: String
        let member: String
        let inputs: [DBusArgument]
        let outputs: [DBusArgument]

        /// The signature it accepts.
        var signature: String { DBusType.signature(of: inputs.map(\.type)) }
        /// The signature of its reply.
        var outputSignature: String { DBusType.signature(of: outputs.map(\.type)) }
        /// The position of the argument named `name`.
        func position(of name: String) -> Int? { inputs.firstIndex { $0.name == name } }
        var asMember: Member { Member(interface: interface, name: member, kind: .method) }
    }

    /// notifyd's interfaces, as declared, then the standard ones its object
    /// answers, then the distributor's (on ``distributorPath``).
    private static var objectInterfaces: [DBusInterface] {
        NotifydObject.declarations + StandardInterfaces.all + NotifydObject.distributorDeclarations
    }

    /// The object that serves `interface`: the distributor's for its two
    /// interfaces, notifyd's own for the rest.
    static func path(for interface: String?) -> String {
        interface.map(distributorInterfaces.contains) == true ? distributorPath : path
    }

    /// Every method the object answers.
    static let methods: [Method] = objectInterfaces.flatMap { interface in
        interface.methods.map { Method(interface: interface.name, member: $0.name, inputs: $0.inputs, outputs: $0.outputs) }
    }

    /// Every signal of the object's interfaces and the worker's, with its signature.
    static let signals: [(member: Member, arguments: [DBusArgument])] =
        (objectInterfaces + [NotifydObject.workerDeclaration]).flatMap { interface in
            interface.signals.map { (Member(interface: interface.name, name: $0.name, kind: .signal), $0.arguments) }
        }

    /// Every property, as `interface.name`.
    static let propertyMembers: [Member] = objectInterfaces.flatMap { interface in
        interface.properties.map { Member(interface: interface.name, name: $0.name, kind: .property) }
    }

    /// Every member the fuzzer must reach.
    static let members: [Member] = methods.map(\.asMember) + signals.map(\.member) + propertyMembers

    /// notifyd's own interfaces, and with them the standard ones.
    static let ownInterfaces = NotifydObject.declarations.map(\.name)
    static let knownInterfaces = ownInterfaces + StandardInterfaces.all.map(\.name)
    /// notifyd's interfaces that have no property.
    static let interfacesWithoutProperties = NotifydObject.declarations.filter { $0.properties.isEmpty }.map(\.name)
    /// The Daemon properties (all read-only).
    static let daemonProperties = propertyMembers.filter { $0.interface == daemon }.map(\.name)

    /// The method `member` of `interface`.
    static func method(_ interface: String, _ member: String) -> Method? {
        methods.first { $0.interface == interface && $0.member == member }
    }

    /// The methods with an argument of this name.
    static func methods(taking argument: String) -> [Method] { methods.filter { $0.position(of: argument) != nil } }

    /// Methods whose only argument is a session ID.
    static let sessionMethods = methods.filter { $0.inputs.map(\.name) == ["session_id"] }

    /// The limits SPEC fixes.
    static let maximumBadge: UInt32 = 2_147_483_647
    static let pendingPerApp = 10_000
    /// The longest fetch interval, a week.
    static let longestFetchInterval: UInt32 = 604_800
    /// A task name: 1 to this many bytes, no control characters.
    static let longestTaskName = 255
    /// A transfer's URL, path, string option or header (name and value):
    /// at most this many bytes; at most ``mostTransferHeaders`` headers.
    static let longestTransferText = 4096
    static let mostTransferHeaders = 64

    /// Error names.
    enum Error {
        static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
        static let unknownMethod = "org.freedesktop.DBus.Error.UnknownMethod"
        static let unknownInterface = "org.freedesktop.DBus.Error.UnknownInterface"
        static let unknownProperty = "org.freedesktop.DBus.Error.UnknownProperty"
        static let propertyReadOnly = "org.freedesktop.DBus.Error.PropertyReadOnly"
        static let invalidAppId = NotifydNames.errorPrefix + "InvalidAppId"
        static let invalidSessionId = NotifydNames.errorPrefix + "InvalidSessionId"
        static let outOfRange = NotifydNames.errorPrefix + "OutOfRange"
        static let unknownSession = NotifydNames.errorPrefix + "UnknownSession"
        static let unknownFetch = NotifydNames.errorPrefix + "UnknownFetch"
        static let unknownTask = NotifydNames.errorPrefix + "UnknownTask"
        static let unknownTransfer = NotifydNames.errorPrefix + "UnknownTransfer"
        static let limitExceeded = NotifydNames.errorPrefix + "LimitExceeded"
    }
}
