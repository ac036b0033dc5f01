"""Regression tests for issue 30 (hardening, round two), one or more per
example, named after its kind: terminal escapes, damaged run folders,
`import` limits, the language server's framing, `fmt` meaning, and
overflowing controls. The report page is in test_report_markup.py, the
hostile endpoint in test_hostile_endpoint.py; the long-running probes
(time and memory per process) in benchmarks/fuzz.py."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from scigame.cli import main
from scigame.compiler.terminal import printable
from scigame.lsp_framing import MAX_MESSAGE_BYTES, FramedInput

from tests.test_hardening import card

REPO = Path(__file__).resolve().parent.parent
GRAVITATION = REPO / "cards/historical/gravitation.sci"
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def run(args, code=None):
    result = CliRunner().invoke(main, [str(a) for a in args])
    if code is not None:
        assert result.exit_code == code, (result.exit_code, result.output)
    assert "Traceback" not in result.output and "internal error" not in result.output, result.output
    return result


# ---- terminal escapes -----------------------------------------------------------

def test_printable_keeps_columns_and_shows_controls():
    assert printable("a\x1b[2Jb\x07\x9b\u202e") == "a\u241b[2Jb\u2407\ufffd\ufffd"
    assert printable("line\nnext\tx") == "line\nnext\tx"
    assert printable("a\nb", newlines=False) == "a\u240ab"
    assert len(printable("\x1b" * 7)) == 7


def test_lint_shows_escapes_of_strings_and_comments_as_text(tmp_path):
    path = tmp_path / "other.sci"  # W301 at line 1 shows the title's line
    path.write_text(card(title="a \x1b]0;pwned\x07 probe").replace(
        "  field physics", "  field physics  # \x1b[2J\x1b[31m\n  input L [m] in 0.2 .. 2.0 \"again\x1b[5m\""))
    out = run(["lint", path], 1).output
    assert not CONTROL.search(out), out
    assert "\u241b]0;pwned" in out and "\u241b[5m" in out
    # the caret is under the duplicated name, columns counted one for one
    lines = out.splitlines()
    i = next(n for n, ln in enumerate(lines) if "again" in ln and "|" in ln)
    assert lines[i + 1].index("^") == lines[i].index("L [m]")


# ---- damaged run folders ----------------------------------------------------------

@pytest.fixture(scope="module")
def run_folder(tmp_path_factory):
    out = tmp_path_factory.mktemp("folders") / "run"
    run(["eval", GRAVITATION, "--out", out, "--reps", "1", "--env", "original", "--setting", "discovery",
         "--protocol", "prior,fixed", "--quiet"], 0)
    return out


def _damaged(run_folder, tmp_path, how):
    folder = tmp_path / "run"
    shutil.copytree(run_folder, folder)
    how(folder)
    return folder


def _corrupt_behind_header(folder):
    db = folder / "episodes.sqlite"
    with sqlite3.connect(db) as c:  # fold the WAL in, so the file is the whole store
        c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    size = db.stat().st_size
    with open(db, "r+b") as f:
        f.seek(4096)
        f.write(bytes((i * 37 + 11) % 251 for i in range(size - 4096)))


def _sql(statement):
    def how(folder):
        with sqlite3.connect(folder / "episodes.sqlite") as c:
            c.execute(statement)
    return how


DAMAGE = {
    "store_corrupted_behind_a_valid_header": (_corrupt_behind_header, "episodes.sqlite"),
    "config_json_a_list": (lambda f: (f / "config.json").write_text("[1, 2]"), "config.json"),
    "config_json_wrong_field_type": (lambda f: (f / "config.json").write_text('{"versions": 3}'), "config.json"),
    "invocations_a_list": (lambda f: open(f / "invocations.jsonl", "a").write("[1, 2]\n"), "invocations.jsonl:2"),
    "invocations_not_json": (lambda f: open(f / "invocations.jsonl", "a").write("{not json\n"), "invocations.jsonl:2"),
    "record_from_a_newer_version": (_sql("UPDATE episodes SET record = json_set(record, '$.newer_field', 1, "
                                         "'$.record_version', 2)"), "newer scigame"),
    "record_with_an_extra_field": (_sql("UPDATE episodes SET record = json_set(record, '$.newer_field', 1)"),
                                   "newer_field"),
    "record_not_json": (_sql("UPDATE episodes SET record = 'not json'"), "not JSON"),
}


@pytest.mark.parametrize("name", list(DAMAGE))
def test_a_damaged_run_folder_is_one_line_naming_the_file_for_report(run_folder, tmp_path, name):
    how, said = DAMAGE[name]
    folder = _damaged(run_folder, tmp_path, how)
    out = run(["report", folder, "--html", tmp_path / "page.html"], 2).output
    assert said in out and len(out.strip().splitlines()) == 1, out
    assert "episodes.sqlite" in out or "config.json" in out or "invocations.jsonl" in out


@pytest.mark.parametrize("name", ["store_corrupted_behind_a_valid_header", "record_from_a_newer_version",
                                  "record_not_json"])
def test_a_damaged_store_is_one_line_for_judge(run_folder, tmp_path, name, monkeypatch):
    how, said = DAMAGE[name]
    folder = _damaged(run_folder, tmp_path, how)
    monkeypatch.setenv("SCIGAME_TEST_KEY", "k")
    out = run(["judge", folder, "--judge", "openai:fake-model", "--api-key-env", "SCIGAME_TEST_KEY",
               "--base-url", "http://127.0.0.1:9/v1", "--max-retries", "0", "--quiet"], 2).output
    assert said in out and "episodes.sqlite" in out and len(out.strip().splitlines()) == 1, out


@pytest.mark.parametrize("name", ["store_corrupted_behind_a_valid_header", "record_not_json",
                                  "config_json_a_list", "invocations_not_json"])
def test_eval_on_a_damaged_folder_is_no_internal_error(run_folder, tmp_path, name):
    how, said = DAMAGE[name]
    folder = _damaged(run_folder, tmp_path, how)
    result = run(["eval", GRAVITATION, "--out", folder, "--reps", "1", "--env", "original", "--setting",
                  "discovery", "--protocol", "prior,fixed", "--quiet"])
    if name == "store_corrupted_behind_a_valid_header":
        assert result.exit_code == 2 and "episodes.sqlite" in result.output
    else:  # eval writes config.json and appends to the log; the records it keeps are its own
        assert result.exit_code == 0, result.output


# ---- import ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    path = tmp_path_factory.mktemp("import") / "g.json"
    run(["export", GRAVITATION, "--format", "json", "-o", path], 0)
    return json.loads(path.read_text())


def _import(tmp_path, text):
    (tmp_path / "c.json").write_text(text)
    return run(["import", tmp_path / "c.json", "-o", tmp_path / "c.sci"], 1).output


def test_import_refuses_json_nested_200000_deep(tmp_path):
    assert "nested more than 32 levels" in _import(tmp_path, '{"a":' * 200_000 + "1" + "}" * 200_000)


def test_import_refuses_a_5000_digit_integer_naming_its_path(tmp_path, exported):
    text = json.dumps(exported).replace('"title"', '"x": ' + "9" * 5000 + ', "title"', 1)
    assert "$.x: an integer of 5000 digits" in _import(tmp_path, text)


def test_import_refuses_a_400_digit_design_count(tmp_path, exported):
    doc = {**exported, "design": {"kind": "generated", "count": 10 ** 400, "method": "sobol"}}
    assert "$.design.count: an integer of 401 digits" in _import(tmp_path, json.dumps(doc))


def test_import_refuses_a_million_conditions_quickly(tmp_path, exported):
    import time
    start = time.process_time()
    out = _import(tmp_path, json.dumps({**exported, "conditions": ["c"] * 10 ** 6}))
    assert "more than 50,000 values" in out and time.process_time() - start < 10


def test_import_refuses_an_input_named_law_as_lint_would(tmp_path, exported):
    doc = json.loads(json.dumps(exported))
    doc["inputs"][0]["name"] = "law"
    assert "$.inputs[0].name: 'law' is a keyword" in _import(tmp_path, json.dumps(doc))
    assert not (tmp_path / "c.sci").exists()


def test_import_refuses_duplicate_keys(tmp_path, exported):
    text = json.dumps(exported).replace('"title"', '"name": "other", "title"', 1)
    assert 'the key "name" is given twice' in _import(tmp_path, text)


def test_import_still_takes_an_exported_card(tmp_path, exported):
    (tmp_path / "c.json").write_text(json.dumps(exported))
    run(["import", tmp_path / "c.json", "-o", tmp_path / "c.sci"], 0)
    run(["lint", tmp_path / "c.sci"])


# ---- the language server's framing --------------------------------------------------

def _frames(raw: bytes) -> list[bytes]:
    framed, out = FramedInput(io.BytesIO(raw), log=lambda _: None), []
    while True:
        header = framed.readline()
        if not header:
            return out
        assert re.fullmatch(rb"Content-Length: \d+\r\n", header)
        assert framed.readline() == b"\r\n"
        out.append(framed.read(int(header.split()[1])))


def _msg(n: int) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": n, "method": "x"}).encode()


@pytest.mark.parametrize("bad", [b"Content-Length: abc\r\n\r\n", b"Content-Type: x\r\n\r\n",
                                 b"Content-Length: 99999999999999999999\r\n\r\n",
                                 b"Content-Length: %d\r\n\r\n" % (MAX_MESSAGE_BYTES + 1),
                                 b"garbage without a colon\r\n\r\n", b"X: " + b"y" * 100_000 + b"\r\n\r\n"])
def test_framing_drops_an_unreadable_message_and_reads_the_next(bad):
    raw = b"Content-Length: %d\r\n\r\n%s" % (len(_msg(1)), _msg(1)) + bad + _msg(2) \
        + b"content-length: %d\n\n%s" % (len(_msg(3)), _msg(3))
    assert _frames(raw) == [_msg(1), _msg(3)]


class _Server:
    def __init__(self):
        self.proc = subprocess.Popen([sys.executable, "-m", "scigame", "lsp"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

    def send(self, raw: bytes):
        self.proc.stdin.write(raw)
        self.proc.stdin.flush()

    def answers(self, until_id: int, timeout: float = 60.0) -> list[dict]:
        import select
        import time
        buf, out, deadline = b"", [], time.monotonic() + timeout
        while time.monotonic() < deadline:
            while b"\r\n\r\n" in buf:
                head, rest = buf.split(b"\r\n\r\n", 1)
                n = int(re.search(rb"Content-Length: (\d+)", head).group(1))
                if len(rest) < n:
                    break
                out.append(json.loads(rest[:n]))
                buf = rest[n:]
                if out[-1].get("id") == until_id:
                    return out
            if select.select([self.proc.stdout], [], [], 0.5)[0]:
                buf += os.read(self.proc.stdout.fileno(), 65536)
        raise AssertionError(f"no answer {until_id}: {out}")

    def close(self):
        self.proc.kill()
        self.proc.wait()


def _frame(obj, length=None) -> bytes:
    body = json.dumps(obj).encode()
    return b"Content-Length: %s\r\n\r\n" % (length or str(len(body)).encode()) + body


def test_the_language_server_survives_any_header_and_answers_invalid_params_with_an_error():
    server = _Server()
    try:
        server.send(_frame({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                            "params": {"processId": None, "rootUri": None, "capabilities": {}}})
                    + _frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}, b"abc")
                    + b"Content-Type: x\r\n\r\n" + json.dumps({"jsonrpc": "2.0", "id": 3, "method": "x"}).encode()
                    + _frame({"jsonrpc": "2.0", "id": 4, "method": "x"}, b"99999999999999999999")
                    + _frame({"jsonrpc": "2.0", "id": 5, "method": "textDocument/hover", "params": {"bogus": 1}})
                    + _frame({"jsonrpc": "2.0", "id": 6, "method": "shutdown"}))
        answers = server.answers(until_id=6)
    finally:
        server.close()
    by_id = {a.get("id"): a for a in answers if "id" in a}
    assert set(by_id) == {1, 5, 6}
    assert by_id[5]["error"]["code"] == -32602 and "result" in by_id[6]
    assert not [a for a in answers if a.get("method") == "window/showMessage"]


# ---- fmt never changes meaning ---------------------------------------------------------

def _export(path) -> dict:
    return json.loads(run(["export", path, "--format", "json"], 0).stdout)


def test_fmt_keeps_the_meaning_of_a_crlf_file_with_tab_indentation(tmp_path):
    text = re.sub(r"(?m)^((?:  )+)", lambda m: "\t" * (len(m.group(1)) // 2), GRAVITATION.read_text())
    path = tmp_path / "gravitation.sci"
    path.write_bytes(text.replace("\n", "\r\n").encode())
    before = _export(path)
    assert before["background"].startswith("Two solid lead spheres")  # the block reads as in the LF file
    assert before == _export(GRAVITATION)
    run(["fmt", path], 0)
    assert _export(path) == before


def test_fmt_fails_a_cr_only_file_as_lint_does(tmp_path):
    path = tmp_path / "gravitation.sci"
    path.write_bytes(GRAVITATION.read_text().replace("\n", "\r").encode())
    assert run(["lint", path]).exit_code == 1
    assert run(["fmt", path]).exit_code == 1
    assert b"\n" not in path.read_bytes()  # left as written


def test_fmt_refuses_a_layout_that_would_change_the_card(monkeypatch):
    from scigame.compiler import format as fmt
    monkeypatch.setattr(fmt, "layout", lambda *a: GRAVITATION.read_text().replace("r^n", "r^3"))
    result = fmt.format_text(GRAVITATION.read_text(), "g.sci")
    assert result.text is None and "would change what this card means" in result.diagnostics[0].message


# ---- controls overflow -----------------------------------------------------------------

def _write(tmp_path, text, name="probe.sci"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_noise_rel_1e308_is_a_lint_error(tmp_path):
    path = _write(tmp_path, card().replace('rel 0.5% "period"', 'rel 0.5% noise gaussian rel 1e308 "period"'))
    out = run(["lint", path], 1).output
    assert "E520" in out and "at most 10" in out
    assert "Infinity" not in run(["simulate", path, "L=1", "--env", "original"]).output


def test_ood_1e308_on_a_log_domain_is_a_lint_error(tmp_path):
    path = _write(tmp_path, card().replace("in 0.2 .. 2.0", "in log 0.2 .. 2.0").replace(
        "evaluation 64 seed 7", "evaluation 64 seed 7 ood 1e308"))
    assert "widens input `L` past the largest number" in run(["lint", path], 1).output
    assert "not compiled" in run(["compile", path, "-o", tmp_path / "out"], 1).output


def test_eval_noise_1e308_is_refused(tmp_path):
    path = _write(tmp_path, card())
    assert "--noise" in run(["eval", path, "--out", tmp_path / "run", "--noise", "1e308"], 2).output
    assert not (tmp_path / "run").exists()


def test_a_ray_address_with_no_port_number_is_a_clear_error(tmp_path):
    path = _write(tmp_path, card())
    out = run(["eval", path, "--out", tmp_path / "run", "--executor", "ray", "--ray-address",
               "127.0.0.1:notaport"], 2).output
    assert "the port 'notaport' is not a number" in out


def test_a_non_finite_simulate_result_names_the_input(tmp_path):
    path = _write(tmp_path, card(law="law T = sqrt(L / g) * (1 [m]) / (L - 1.23456789 [m])"))
    out = run(["simulate", path, "L=1.23456789", "--env", "original"], 1).output
    assert "T is not a finite number (±inf) at L=1.23457" in out and "Infinity" not in out


def test_scoring_a_predictor_with_huge_values_stores_no_null_and_warns_nothing(tmp_path):
    path = _write(tmp_path, card())
    (tmp_path / "pred.json").write_text('{"T": {"op": "mul", "args": [1e307, {"var": "L"}]}}')
    proc = subprocess.run([sys.executable, "-W", "default", "-m", "scigame", "score", str(path),
                           str(tmp_path / "pred.json"), "--env", "original"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "RuntimeWarning" not in proc.stderr and "null,\n" not in proc.stdout.split('"ps_ood"')[0]
    score = json.loads(proc.stdout)
    assert score["outputs"]["T"]["max_error"] == 1e300 and score["outputs"]["T"]["mean_error"] > 1


def test_report_text_takes_a_player_name_as_text_not_markup_or_escapes(run_folder, tmp_path):
    name = "gpt [/x] [bold]\x1b[2J"
    folder = _damaged(run_folder, tmp_path, _sql(f"UPDATE episodes SET player = '{name}', "
                                                 f"record = json_set(record, '$.key.player', '{name}')"))
    out = run(["report", folder], 0).output
    assert "gpt [/x] [bold]\u241b[2J" in out and "\x1b" not in out
