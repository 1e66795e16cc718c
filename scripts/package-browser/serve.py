#!/usr/bin/python3
"""A download server for scripts/package-checks.sh, on 127.0.0.1: GET
/NAME answers a file of SIZE bytes as an attachment (Content-Disposition:
attachment; filename=NAME), which a browser saves to its downloads
directory without asking; /NAME?seconds=S sends it in pieces over S
seconds (a download that is still running when the browser's extensions
have started). Listens on a port the kernel picks and writes
it to PORT_FILE once it listens; logs each request to standard error.

    serve.py PORT_FILE
"""
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
import time
from urllib.parse import parse_qs, unquote, urlsplit

SIZE = 100000


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        url = urlsplit(self.path)
        name = os.path.basename(unquote(url.path))
        seconds = float(parse_qs(url.query).get("seconds", ["0"])[0])
        if not name or name == "favicon.ico":
            self.send_error(404)
            return
        line = ("notifyd package test: %s\n" % name).encode()
        body = (line * (SIZE // len(line) + 1))[:SIZE]
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Disposition", 'attachment; filename="%s"' % name)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        pieces = 20
        size = len(body) // pieces
        for i in range(pieces):
            self.wfile.write(body[i * size:(i + 1) * size if i < pieces - 1 else len(body)])
            self.wfile.flush()
            time.sleep(seconds / pieces)


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    tmp = sys.argv[1] + ".tmp"
    with open(tmp, "w", encoding="utf-8") as out:
        out.write("%d\n" % server.server_address[1])
    os.rename(tmp, sys.argv[1])
    server.serve_forever()


if __name__ == "__main__":
    main()
