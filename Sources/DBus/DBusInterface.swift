/// A named, typed argument of a method or signal, or a property.
public struct DBusArgument: Sendable, Hashable {
    public var name: String
    public var type: DBusType

    public init(_ name: String, _ type: DBusType) {
        self.name = name
        self.type = type
    }
}

/// What a method handler returns.
public enum DBusMethodResult {
    /// Reply now with these values.
    case reply([DBusValue])
    /// The handler kept the ``DBusMethodCall`` and will answer it later.
    case deferred
}

/// A method of an interface: its arguments and its handler.
public struct DBusMethod {
    public var name: String
    public var inputs: [DBusArgument]
    public var outputs: [DBusArgument]
    /// What the method does, for the introspection file.
    public var documentation: String
    public var handler: (DBusMethodCall) throws -> DBusMethodResult

    public init(
        _ name: String, inputs: [DBusArgument] = [], outputs: [DBusArgument] = [],
        documentation: String = "",
        handler: @escaping (DBusMethodCall) throws -> DBusMethodResult
    ) {
        self.name = name
        self.inputs = inputs
        self.outputs = outputs
        self.documentation = documentation
        self.handler = handler
    }

    /// The signature the method accepts.
    public var inputSignature: String { DBusType.signature(of: inputs.map(\.type)) }
}

/// A signal an interface emits.
public struct DBusSignal: Sendable {
    public var name: String
    public var arguments: [DBusArgument]
    public var documentation: String

    public init(_ name: String, arguments: [DBusArgument] = [], documentation: String = "") {
        self.name = name
        self.arguments = arguments
        self.documentation = documentation
    }

    public var signature: String { DBusType.signature(of: arguments.map(\.type)) }
}

/// A read-only property: its type and how to read it.
public struct DBusProperty {
    public var name: String
    public var type: DBusType
    public var documentation: String
    /// Whether a change is announced with `PropertiesChanged`.
    public var emitsChanged: Bool
    public var get: () throws -> DBusValue

    public init(
        _ name: String, _ type: DBusType, emitsChanged: Bool = true, documentation: String = "",
        get: @escaping () throws -> DBusValue
    ) {
        self.name = name
        self.type = type
        self.emitsChanged = emitsChanged
        self.documentation = documentation
        self.get = get
    }
}

/// An interface, declared once as data: its name, methods, signals and
/// properties. The object layer dispatches from it, checks signatures
/// against it and generates the introspection XML from it.
public struct DBusInterface {
    public var name: String
    public var documentation: String
    public var methods: [DBusMethod]
    public var signals: [DBusSignal]
    public var properties: [DBusProperty]

    public init(
        _ name: String, documentation: String = "",
        methods: [DBusMethod] = [], signals: [DBusSignal] = [], properties: [DBusProperty] = []
    ) {
        self.name = name
        self.documentation = documentation
        self.methods = methods
        self.signals = signals
        self.properties = properties
    }

    public func method(named name: String) -> DBusMethod? { methods.first { $0.name == name } }
    public func signal(named name: String) -> DBusSignal? { signals.first { $0.name == name } }
    public func property(named name: String) -> DBusProperty? { properties.first { $0.name == name } }
}
