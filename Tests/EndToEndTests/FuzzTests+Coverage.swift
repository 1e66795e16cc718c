import Foundation
import NotifyTesting
import Testing

/// The fuzzer reaches every member of every interface notifyd publishes
/// (the committed introspection files, which `IntrospectionFileTests` keeps
/// equal to the declarations): an interface or member added later fails
/// here until the fuzzer reaches it, and a method with arguments until
/// the fuzzer calls it well-formed, with hostile values its handler sees.
extension FuzzTests {
    /// Cases the coverage is counted over: what `notifyd-fuzz --list
    /// --calls 20000` prints.
    static let coverageCases = 20_000

    @Test func everyPublishedMemberIsAmongTheCases() throws {
        let run = try runProcess(fuzzer, ["--coverage", "--calls", "\(Self.coverageCases)", "--seed", Self.seed])
        let lines = run.stdout.split(separator: "\n")
        #expect(run.status == 0, Comment(rawValue: lines.filter { $0.hasPrefix("NOT REACHED") }.joined(separator: "\n")))
        var reached: [String: (cases: Int, wellFormed: Int)] = [:]
        for line in lines.dropFirst() {
            let fields = line.split(separator: " ")
            guard fields.count == 5, let cases = Int(fields[3]), let wellFormed = Int(fields[4]) else { continue }
            reached["\(fields[0]) \(fields[1]) \(fields[2])"] = (cases, wellFormed)
        }
        let published = try Self.publishedMembers()
        for member in published {
            let count = reached[member.key]
            #expect((count?.cases ?? 0) > 0, "\(member.key): no case in \(Self.coverageCases)")
            if member.takesArguments {
                #expect((count?.wellFormed ?? 0) > 0, "\(member.key): never called well-formed")
            }
        }
        #expect(Set(reached.keys) == Set(published.map(\.key)), "the fuzzer's members are the published ones")
        // Fetch and Tasks, never fuzzed before: 11 methods.
        let fetchAndTasks = published.filter {
            $0.key.hasSuffix(" method") && ($0.key.hasPrefix("org.notifyd.Notifyd1.Fetch ") || $0.key.hasPrefix("org.notifyd.Notifyd1.Tasks "))
        }
        #expect(fetchAndTasks.count == 11)
        // Transfers, as Fetch and Tasks: all 7 methods reached well-formed
        // (Download and Upload with every argument valid but the hostile one).
        let transfers = reached.filter { $0.key.hasPrefix("org.notifyd.Notifyd1.Transfers ") && $0.key.hasSuffix(" method") }
        #expect(transfers.filter { $0.value.wellFormed > 0 }.count == 7, "Transfers methods reached well-formed: \(transfers)")
        for member in ["Download", "Upload"] {
            #expect((reached["org.notifyd.Notifyd1.Transfers \(member) method"]?.wellFormed ?? 0) > 100)
        }
        // Queued for real (answered a transfer ID), not only refused.
        let list = try runProcess(fuzzer, ["--list", "--calls", "\(Self.coverageCases)", "--seed", Self.seed])
        let queued = list.stdout.split(separator: "\n").filter { $0.contains("[accepted-transfer]") && $0.contains("-> return 't', then ") }
        #expect(queued.count > 100, "Downloads and Uploads expected to be queued: \(queued.count)")
        // And refused for a URL, a path or an option of TransferRequest's rules, each kind drawn.
        let refused = list.stdout.split(separator: "\n").filter {
            $0.contains("[invalid-value]") && ($0.contains("Transfers.Download(") || $0.contains("Transfers.Upload("))
        }
        #expect(refused.count > 100, "Downloads and Uploads expected to be refused: \(refused.count)")
        for why in ["; URL ", "; relative path ", "; path \"", "; control character in the path", "; an upload to a directory", "; timeout ", "; method "] {
            #expect(refused.contains { $0.contains(why) }, "no refused transfer input '\(why)' among the cases")
        }
    }

    /// Every member of `dbus/*.xml` as `interface name kind`, and whether
    /// it is a method with arguments. The files are generated (one element
    /// per line), so lines are enough.
    static func publishedMembers() throws -> [(key: String, takesArguments: Bool)] {
        var members: [(key: String, takesArguments: Bool)] = []
        for file in ["org.notifyd.Notifyd1.xml", "org.notifyd.Notifyd1.Worker.xml", "org.unifiedpush.Distributor.notifyd.xml"] {
            let url = Executables.repositoryRoot().appendingPathComponent("dbus/\(file)")
            var interface = ""
            for line in try String(contentsOf: url, encoding: .utf8).split(separator: "\n") {
                let text = line.trimmingCharacters(in: .whitespaces)
                guard let name = text.split(separator: "\"").dropFirst().first.map(String.init) else { continue }
                if text.hasPrefix("<interface ") {
                    interface = name
                } else if let kind = ["method", "signal", "property"].first(where: { text.hasPrefix("<\($0) ") }) {
                    members.append(("\(interface) \(name) \(kind)", false))
                } else if text.hasPrefix("<arg "), text.contains("direction=\"in\""), members.last?.key.hasSuffix(" method") == true {
                    members[members.count - 1].takesArguments = true
                }
            }
        }
        return members
    }
}
