import Foundation
import NotifyTesting
import Testing

/// What notifyd is built from stays small: none of the modules linked into
/// the daemon imports Foundation. One `import Foundation` (for a
/// `FileManager` call) once linked all of it in: the release executable
/// grew from 20 MB to 28 MB and an idle notifyd kept 0.9 MB more resident
/// (docs/PERFORMANCE.md). Tests, notifyctl and the tools may use it.
@Suite struct DaemonDependencyTests {
    static let daemonModules = ["DBus", "NotifyCore", "NotifyStore", "NotifyDesktop", "NotifyDaemon", "notifyd"]

    /// Every `import` line that names a Foundation module, as "File.swift: line".
    static func foundationImports(in module: String) throws -> [String] {
        let directory = Executables.repositoryRoot().appendingPathComponent("Sources/\(module)")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".swift") }
        #expect(!files.isEmpty, "Sources/\(module) has Swift files")
        var found: [String] = []
        for file in files.sorted() {
            let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ")
                guard let position = words.firstIndex(of: "import"), position + 1 < words.count else { continue }
                let leading = words[..<position]
                guard leading.allSatisfy({ ["public", "internal", "package", "private", "fileprivate"].contains($0) || $0.hasPrefix("@") })
                else { continue }
                if words[position + 1].hasPrefix("Foundation") { found.append("\(file): \(line)") }
            }
        }
        return found
    }

    @Test(arguments: daemonModules)
    func noDaemonModuleImportsFoundation(_ module: String) throws {
        #expect(try Self.foundationImports(in: module) == [], "Sources/\(module) imports Foundation")
    }
}
