/// What the actions of posted popups act on: the app, and the file `Open`
/// opens. Kept until the server says a popup is closed, so clicks work
/// across a restart of the server; at most ``kept`` (a server that never
/// says "closed" cannot make them grow).
public struct PopupTargets: Sendable, Hashable {
    public static let kept = 1_000

    /// What a popup's actions act on.
    public struct Target: Sendable, Hashable {
        public let app: AppID
        public let path: String?
    }

    private var targets: [PopupKey: Target] = [:]
    /// Keys in the order remembered, for dropping the oldest.
    private var order: [PopupKey] = []

    public init() {}

    public var count: Int { targets.count }

    public subscript(key: PopupKey) -> Target? { targets[key] }

    /// Remembers the target of a popup posted with actions.
    mutating func remember(_ request: PopupRequest) {
        if targets[request.key] == nil {
            order.append(request.key)
            if order.count > Self.kept {
                targets[order.removeFirst()] = nil
            }
        }
        targets[request.key] = Target(app: request.app, path: request.openPath)
    }

    /// The popup was closed: its actions act on nothing now.
    mutating func forget(_ key: PopupKey) {
        guard targets.removeValue(forKey: key) != nil else { return }
        order.removeAll { $0 == key }
    }
}
