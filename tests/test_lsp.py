"""`scigame lsp`, driven over stdio with JSON-RPC as an editor would drive it."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from pathlib import Path

import pytest

pytest.importorskip("pygls")

REPO = Path(__file__).resolve().parent.parent
GRAVITATION = (REPO / "cards/historical/gravitation.sci").read_text()
UNBALANCED = GRAVITATION.replace("G * m1 * m2 / r^n", "G * m1 * m2 / r")


class Client:
    """A minimal LSP client: Content-Length framing over a subprocess's pipes."""

    def __init__(self):
        self.proc = subprocess.Popen([sys.executable, "-m", "scigame", "lsp"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.inbox: queue.Queue = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        out = self.proc.stdout
        while True:
            headers = {}
            while True:
                line = out.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                key, _, value = line.decode().partition(":")
                headers[key.strip().lower()] = value.strip()
            self.inbox.put(json.loads(out.read(int(headers["content-length"]))))

    def send(self, method, params=None, request=True):
        msg = {"jsonrpc": "2.0", "method": method, "params": params if params is not None else {}}
        if request:
            self.next_id += 1
            msg["id"] = self.next_id
        body = json.dumps(msg).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()
        return msg.get("id")

    def wait(self, match, timeout=60):
        while True:
            msg = self.inbox.get(timeout=timeout)
            if match(msg):
                return msg

    def request(self, method, params):
        rid = self.send(method, params)
        reply = self.wait(lambda m: m.get("id") == rid and "method" not in m)
        assert "error" not in reply, reply
        return reply["result"]

    def diagnostics(self, uri):
        return self.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                         and m["params"]["uri"] == uri)["params"]["diagnostics"]

    def close(self):
        try:
            self.request("shutdown", None)
            self.send("exit", None, request=False)
            self.proc.wait(timeout=10)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.stdout.close()
            self.proc.stdin.close()
            self.proc.stderr.close()


@pytest.fixture
def client():
    c = Client()
    try:
        c.request("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
        c.send("initialized", {}, request=False)
        yield c
    finally:
        c.close()


def position(text: str, needle: str, offset: int = 0) -> dict:
    index = text.index(needle) + offset
    line = text.count("\n", 0, index)
    return {"line": line, "character": index - (text.rfind("\n", 0, index) + 1)}


def test_diagnostics_hover_and_definition(client, tmp_path):
    uri = (tmp_path / "gravitation.sci").as_uri()
    client.send("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "sci", "version": 1,
                                                          "text": UNBALANCED}}, request=False)
    diags = client.diagnostics(uri)
    e403 = [d for d in diags if d["code"] == "E403"]
    assert len(e403) == 1 and e403[0]["severity"] == 1
    law = position(UNBALANCED, "G * m1 * m2 / r")
    assert e403[0]["range"]["start"] == law
    assert e403[0]["range"]["end"] == {"line": law["line"], "character": law["character"] + len("G * m1 * m2 / r")}

    # the edit that balances the law clears the error (full-text change)
    client.send("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                           "contentChanges": [{"text": GRAVITATION}]}, request=False)
    assert not [d for d in client.diagnostics(uri) if d["severity"] == 1]

    hover = client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                  "position": position(GRAVITATION, "r^n", 1)})
    value = hover["contents"]["value"]
    assert "`r^n`" in value and "[length]^2" in value and "[length]^3" in value  # both worlds

    hover = client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                  "position": position(GRAVITATION, "m2 / r", 0)})
    assert "input `m2` [kg]" in hover["contents"]["value"] and "[mass]" in hover["contents"]["value"]

    where = client.request("textDocument/definition", {"textDocument": {"uri": uri},
                                                       "position": position(GRAVITATION, "/ r^n", 2)})
    assert where["uri"] == uri
    assert where["range"]["start"] == position(GRAVITATION, "r  [m]")

    nothing = client.request("textDocument/definition", {"textDocument": {"uri": uri},
                                                         "position": position(GRAVITATION, "law F", 1)})
    assert nothing is None
