import Testing

@testable import NotifyTransfer

extension NotifyTransferTests {
    /// The pure parts: names, header values, dates, sizes in words.
    @Suite("names and headers") struct NamesAndHeaders {
        @Test("Content-Disposition: filename* before filename, quoted, ISO-8859-1, made safe")
        func contentDisposition() {
            func name(_ value: String) -> String { DownloadName.suggested(contentDisposition: Array(value.utf8), url: nil) }
            #expect(name(#"attachment; filename="a b.txt""#) == "a b.txt")
            #expect(name("attachment; filename=plain.txt") == "plain.txt")
            #expect(name(#"attachment; filename="x.pdf"; filename*=UTF-8''%E2%82%AC%20rates.pdf"#) == "€ rates.pdf")
            #expect(name("attachment; filename*=iso-8859-1'en'%A3%20rates.txt") == "£ rates.txt")
            #expect(name(#"attachment; filename="../../.bashrc""#) == "bashrc")
            #expect(name(#"attachment; filename="C:\\Windows\\evil.exe""#) == "evil.exe")
            #expect(name(#"attachment; filename="..""#) == "download")
            #expect(name("attachment; filename=\"a\u{202E}fdp.exe\"") == "afdp.exe")
            #expect(name("inline") == "download")
            let long = DownloadName.suggested(
                contentDisposition: Array("attachment; filename=\"\(String(repeating: "é", count: 300)).tar.gz\"".utf8), url: nil)
            #expect(long.utf8.count <= 255 && long.hasSuffix("é.tar.gz"))
        }

        @Test("the URL's last segment, percent-decoded, without query; else \"download\"")
        func urlNames() {
            #expect(DownloadName.suggested(contentDisposition: nil, url: "https://h/a/b/r%C3%A9sum%C3%A9.pdf?x=1#f") == "résumé.pdf")
            #expect(DownloadName.suggested(contentDisposition: nil, url: "https://h/") == "download")
            #expect(DownloadName.suggested(contentDisposition: nil, url: "https://h/dir/..%2F.hidden") == "hidden")
            #expect(DownloadName.suggested(contentDisposition: nil, url: "https://h?q=/x") == "download")
        }

        @Test("collisions as browsers name them")
        func candidates() {
            #expect(DownloadName.candidate("report.pdf", number: 1) == "report (1).pdf")
            #expect(DownloadName.candidate("backup.tar.gz", number: 2) == "backup (2).tar.gz")
            #expect(DownloadName.candidate("README", number: 3) == "README (3)")
            #expect(DownloadName.candidate(String(repeating: "a", count: 255), number: 12).utf8.count == 255)
        }

        @Test("Retry-After in seconds or as any HTTP date")
        func retryAfter() {
            let now: Int64 = 784_111_777 - 60  // a minute before Sun, 06 Nov 1994 08:49:37 GMT
            for text in ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"] {
                #expect(HTTPDate.unixSeconds(text) == 784_111_777)
                #expect(headers(["Retry-After: \(text)"]).retryDelay(now: now) == .seconds(60))
            }
            #expect(headers(["Retry-After: 120"]).retryDelay() == .seconds(120))
            #expect(headers(["Retry-After: soon"]).retryDelay() == nil)
        }

        @Test("the validator: a strong ETag, else Last-Modified; each status line starts over")
        func validator() {
            #expect(headers(["HTTP/1.1 200 OK", "ETag: \"abc\"", "Last-Modified: x"]).validator == "\"abc\"")
            #expect(headers(["HTTP/1.1 200 OK", "etag: W/\"abc\"", "Last-Modified: Tue, 01 Jan 2030 00:00:00 GMT"]).validator
                == "Tue, 01 Jan 2030 00:00:00 GMT")
            #expect(headers(["HTTP/1.1 302 Found", "ETag: \"r\"", "HTTP/2 200", "Content-Range: bytes 10-19/20"]).validator == nil)
            let ranged = headers(["HTTP/2 206", "content-range: bytes 10-19/20"])
            #expect(ranged.status == 206)
            #expect(ranged.range.map { [$0.first, $0.last, $0.total ?? 0] } == [10, 19, 20])
            #expect(headers(["Content-Range: bytes 10-9/20"]).range == nil)
        }

        @Test("sizes in words")
        func sizes() {
            #expect(EndReason.size(1) == "1 byte")
            #expect(EndReason.size(999) == "999 bytes")
            #expect(EndReason.size(1_500_000) == "1.5 MB")
            #expect(EndReason.size(5_000_000_000) == "5.0 GB")
            #expect(EndReason.size(UInt64.max) == "18446.7 PB")
        }

        private func headers(_ lines: [String]) -> ResponseHeaders {
            var headers = ResponseHeaders()
            for line in lines {
                Array((line + "\r\n").utf8).withUnsafeBytes { headers.take(line: $0) }
            }
            return headers
        }
    }
}
