import Glibc

/// The environment given to every child: the benchmark's own, with the
/// session bus pointed at the private bus.
enum ChildEnvironment {
    /// This process's environment with `overrides` replacing or adding
    /// entries and the variables named in `removed` left out.
    static func inherited(overriding overrides: [String: String], removing removed: Set<String> = []) -> [String] {
        var entries: [String] = []
        var index = 0
        if let environment = inheritedEnvironment() {
            while let entry = environment[index] {
                let text = String(cString: entry)
                let name = text.split(separator: "=", maxSplits: 1).first.map(String.init) ?? text
                if overrides[name] == nil && !removed.contains(name) { entries.append(text) }
                index += 1
            }
        }
        entries += overrides.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        return entries
    }

    private static func inheritedEnvironment() -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
        environ
    }
}
