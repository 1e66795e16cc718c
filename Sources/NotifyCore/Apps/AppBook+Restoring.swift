/// An ``AppBook`` from what the store holds: the activation history,
/// either as rows (tests, and any caller with rows) or grouped by app
/// (startup, which at the limits reads 10 million activations).
extension AppBook {
    /// A book with the stored activation history, in any order; only the
    /// newest ``activationsKeptPerApp`` of each app are kept. Every app is
    /// not-running: the connections that owned states before are unknown.
    public init(restoring activations: [Activation]) {
        var times: [AppID: [Microseconds]] = [:]
        for activation in activations { times[activation.app, default: []].append(activation.at) }
        self.init(restoringHistories: times)
    }

    /// A book with the stored activation history, grouped by app (each
    /// app's times in any order): what startup reads, without a value per
    /// activation. As ``init(restoring:)``.
    public init(restoringHistories histories: [AppID: [Microseconds]]) {
        self.init()
        history.reserveCapacity(min(histories.count, Self.maximumApps))
        for (app, list) in histories where !list.isEmpty {
            // Stored histories come sorted and within the bound: kept as they
            // are, not copied (10,000 full histories are 80 MB).
            let inOrder = zip(list, list.dropFirst()).allSatisfy { $0 <= $1 }
            history[app] =
                inOrder && list.count <= Self.activationsKeptPerApp
                ? list : Array(list.sorted().suffix(Self.activationsKeptPerApp))
        }
        // A database of a version without the bound: the apps used most recently.
        if history.count > Self.maximumApps {
            let newest = history.sorted { ($0.value.last ?? 0, $1.key) > ($1.value.last ?? 0, $0.key) }
            history = Dictionary(uniqueKeysWithValues: newest.prefix(Self.maximumApps).map { ($0.key, $0.value) })
        }
    }
}
