import Testing

@testable import notifyctl

/// The Downloads folder as `xdg-user-dir DOWNLOAD` finds it, read from
/// the text of `user-dirs.dirs` (no real file or directory involved).
@Suite struct DownloadsFolderTests {
    let home = "/home/alice"

    @Test(arguments: [
        ("XDG_DOWNLOAD_DIR=\"$HOME/Downloads\"\n", "/home/alice/Downloads"),
        ("XDG_DOWNLOAD_DIR=\"$HOME/Téléchargements\"", "/home/alice/Téléchargements"),
        ("  XDG_DOWNLOAD_DIR = \"/data/dl/\"  # moved", "/data/dl"),
        ("XDG_DOWNLOAD_DIR=\"$HOME/My\\ \\\"Files\\\"\"", "/home/alice/My \"Files\""),
        ("XDG_DOWNLOAD_DIR=\"$HOME\"", "/home/alice"),
        ("XDG_DOWNLOAD_DIR=\"$HOME/\"", "/home/alice"),
        ("XDG_DOWNLOAD_DIR=\"$HOME/a\"\nXDG_DOWNLOAD_DIR=\"$HOME/b\"", "/home/alice/b"),
        ("XDG_DOWNLOAD_DIR=\"$HOME/a\"\nXDG_DOWNLOAD_DIR=\"relative\"", "/home/alice/a"),
    ])
    func readsTheDownloadLine(_ text: String, _ expected: String) {
        let file = """
            # This file is written by xdg-user-dirs-update
            XDG_DESKTOP_DIR="$HOME/Desktop"
            \(text)
            XDG_MUSIC_DIR="$HOME/Music"
            """
        #expect(DownloadsFolder.downloadDirectory(in: file, home: home) == expected)
    }

    @Test(arguments: [
        "# XDG_DOWNLOAD_DIR=\"$HOME/x\"",
        "XDG_DOWNLOAD_DIR=$HOME/x",
        "XDG_DOWNLOAD_DIR=\"$HOME/x",
        "XDG_DOWNLOAD_DIR=\"~/x\"",
        "XDG_DOWNLOAD_DIRS=\"$HOME/x\"",
        "XDG_DESKTOP_DIR=\"$HOME/Desktop\"",
    ])
    func ignoresWhatIsNotADownloadLine(_ text: String) {
        #expect(DownloadsFolder.downloadDirectory(in: text, home: home) == nil)
    }

    /// The configured folder when it exists; else ~/Downloads when it
    /// exists; else the home.
    @Test func fallsBackToDownloadsThenHome() {
        let configured = "XDG_DOWNLOAD_DIR=\"$HOME/Dl\""
        let all: Set<String> = ["/home/alice", "/home/alice/Dl", "/home/alice/Downloads"]
        func resolve(_ text: String?, _ existing: Set<String>) -> String {
            DownloadsFolder.resolve(userDirs: text, home: home) { existing.contains($0) }
        }
        #expect(resolve(configured, all) == "/home/alice/Dl")
        #expect(resolve(configured, all.subtracting(["/home/alice/Dl"])) == "/home/alice/Downloads")
        #expect(resolve(nil, all) == "/home/alice/Downloads")
        #expect(resolve("", ["/home/alice"]) == "/home/alice")
        #expect(resolve(configured, ["/home/alice"]) == "/home/alice")
    }

    @Test func theDownloadPathEndsInASlash() {
        #expect(Download.directoryPath("/home/alice/Downloads") == "/home/alice/Downloads/")
        #expect(Download.directoryPath("/") == "/")
    }
}
