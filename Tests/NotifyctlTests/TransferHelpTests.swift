import ArgumentParser
import Testing

@testable import notifyctl

/// The help of the root command and of the transfer commands: listed,
/// and every example one command on one line of an 80-column terminal,
/// so that it can be copied as it is.
@Suite struct TransferHelpTests {
    /// The commands whose examples are held to 80 columns here: the root,
    /// the transfer commands, and every other command with examples.
    static let commands: [any ParsableCommand.Type] = [
        NotifyctlCommand.self, Download.self, Upload.self, Transfers.self, TransferCommand.self, TransferShow.self,
        TransferCancel.self, TransferSuspend.self, TransferResume.self, TaskCommand.self, TaskRun.self,
        BrowserStatus.self, PushServer.self,
    ]

    /// The example lines of a command's discussion.
    static func examples(_ command: any ParsableCommand.Type) -> [String] {
        command.configuration.discussion.split(separator: "\n").map(String.init).filter { $0.hasPrefix("  notifyctl ") }
    }

    @Test(arguments: commands.map { ObjectIdentifier($0) })
    func examplesFitIn80Columns(_ identifier: ObjectIdentifier) throws {
        let command = try #require(Self.commands.first { ObjectIdentifier($0) == identifier })
        let examples = Self.examples(command)
        #expect(!examples.isEmpty, "\(command) has no examples")
        let help = NotifyctlCommand.helpMessage(for: command, columns: 80)
        let lines = Set(help.split(separator: "\n").map(String.init))
        for example in examples {
            #expect(example.count <= 80, "\(command): \(example.count) columns: \(example)")
            #expect(lines.contains(example), "\(command): the help wraps '\(example)'")
        }
    }

    @Test func rootListsTheTransferCommandsAndExamplesOfThem() {
        let help = NotifyctlCommand.helpMessage(columns: 200)
        for command in ["download", "upload", "transfers", "transfer"] {
            #expect(help.contains("\n  \(command) "), "\(command) is not listed")
        }
        #expect(help.contains("\n  notifyctl download https://example.org/debian.iso --wait\n"))
        #expect(help.contains("\n  notifyctl task run --app org.example.Backup --name nightly -- ./backup.sh\n"))
    }

    @Test func transferListsItsSubcommands() {
        let help = NotifyctlCommand.helpMessage(for: TransferCommand.self, columns: 200)
        for command in ["show", "cancel", "suspend", "resume"] {
            #expect(help.contains("\n  \(command) "), "\(command) is not listed")
        }
    }

    @Test func downloadHelpSaysWhereTheFileGoesAndTheExitStatuses() {
        let help = NotifyctlCommand.helpMessage(for: Download.self, columns: 1000)
        #expect(help.contains("Downloads folder (xdg-user-dir DOWNLOAD, else ~/Downloads, else your home)"))
        #expect(help.contains("exit 0 once completed, 1 when it failed or was cancelled"))
        #expect(help.contains("-o, --output <path>"))
        #expect(help.contains("--header <name: value>"))
    }

    /// The examples of the transfer commands parse (`HelpTests` checks
    /// every command's; these are named so a failure says which).
    @Test func transferExamplesParse() throws {
        for command in Self.commands.dropFirst() {
            for example in Self.examples(command) {
                var words = example.split(separator: " ").map(String.init).dropFirst()
                if let pipe = words.firstIndex(of: "|") { words = words[..<pipe] }
                #expect(throws: Never.self, "\(example)") { _ = try NotifyctlCommand.parseAsRoot(Array(words)) }
            }
        }
    }

    /// Completions: files for -o and FILE, the two methods.
    @Test func completionsOfferFilesAndMethods() throws {
        let bash = NotifyctlCommand.completionScript(for: .bash)
        #expect(bash.contains("download"))
        #expect(bash.contains("transfers"))
        #expect(bash.contains("PUT") && bash.contains("POST"))
        let zsh = NotifyctlCommand.completionScript(for: .zsh)
        #expect(zsh.contains("'(-o --output)'{-o,--output}'[The file to write"))
    }
}
