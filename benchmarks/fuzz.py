"""Hostile-input probes, each run as a fresh `scigame` process with a time
and memory bound, plus a random mutation fuzzer over the bundled cards.

    python benchmarks/fuzz.py                      # every named probe
    python benchmarks/fuzz.py --only units         # probes whose name contains "units"
    python benchmarks/fuzz.py --mutants 2000       # also 2000 mutated cards (in one process)
    python benchmarks/fuzz.py --python OTHER/python   # probe another checkout's scigame
    python benchmarks/fuzz.py --only 30-             # the probes of issue 30 (import, LSP, report data)

A probe passes when the process uses at most `--timeout` seconds (10) of
CPU (and at most three times that in wall time: the machine is shared),
peaks under `--max-mb` MB resident (600), prints no traceback and no
"internal error", and meets the probe's own expectation (exit code, text).
Each probe prints its wall time and peak resident memory (the child's
ru_maxrss, read with os.wait4). A hard address-space cap (`--cap-mb`,
3000) keeps a runaway probe from taking the shared machine down.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

REPO = Path(__file__).resolve().parent.parent

HEAD = '''card {name} "{title}" {{
  collection historical
  field physics
  source "a probe"
  background "a probe"
  input  L [m] in 0.2 .. 2.0 "length"
  output T [s] resolution 0.001 tolerance abs 0.002 rel 0.5% "period"
  param g = 9.81 [m/s^2] "gravity"
'''
TAIL = '''  counterfactual "weaker gravity" {{
    scale g by 0.8
  }}
  fixed design {design}
  evaluation 64 seed 7
  identification interpolate yes
  adaptive threshold 0.9 max_steps 8
}}
'''


def card(law: str = "law T = 2 * pi * sqrt(L / g)", name: str = "probe", title: str = "a probe",
         extra: str = "", design: str = "4 sobol seed 1", unit: str = "m") -> str:
    """A small valid card with one statement swapped for a hostile one."""
    text = HEAD.format(name=name, title=title) + extra + f"  {law}\n" + TAIL.format(design=design)
    return text.replace("input  L [m]", f"input  L [{unit}]")


@dataclass
class Probe:
    name: str
    finding: str
    argv: list[str]                              # after `scigame`; {d} is the probe's folder
    files: dict[str, str | bytes] = field(default_factory=dict)
    exit_codes: tuple[int, ...] = (0, 1, 2)
    expect: Optional[str] = None                 # text that must appear in stdout+stderr
    forbid: tuple[str, ...] = ()                 # text that must not appear
    setup: Optional[Callable[[Path, list[str]], None]] = None  # runs before the probe (may run scigame)
    stdin: Optional[bytes] = None                # fed to the process (else /dev/null)
    check: Optional[Callable[[Path], Optional[str]]] = None  # after the probe: a problem with its files, or None


def _sum(n: int, term: str = "") -> str:
    if term:
        return "law T = " + " + ".join([term] * n)
    return "law T = sqrt(L / g) * (" + " + ".join(["L / (1 [m])"] * n) + ")"


def _tamper(relpath: str, text: str):
    def setup(d: Path, python: list[str]) -> None:
        subprocess.run(python + ["compile", str(d / "p.sci"), "-o", str(d / "out")], capture_output=True)
        with open(d / "out" / "probe" / relpath, "a", encoding="utf-8") as f:
            f.write(text)
    return setup


def _replace_eval(d: Path, python: list[str]) -> None:
    import json
    subprocess.run(python + ["compile", str(d / "p.sci"), "-o", str(d / "out")], capture_output=True)
    path = d / "out" / "probe" / "evaluation.json"
    data = json.loads(path.read_text())
    for env in data["outputs"].values():
        for k in env:
            env[k] = [0.0] * len(env[k])
    path.write_text(json.dumps(data))


def _eval_first(d: Path, python: list[str]) -> None:
    subprocess.run(python + ["eval", str(d / "p.sci"), "--out", str(d / "run"), "--quiet", "--reps", "1",
                             "--protocol", "prior", "--setting", "identification"], capture_output=True)


def _readonly_run(d: Path, python: list[str]) -> None:
    (d / "run").mkdir()
    os.chmod(d / "run", 0o555)


def _lock_holder(d: Path, python: list[str]) -> None:
    """A first `eval` of the folder that is still running (the probe is the second)."""
    proc = subprocess.Popen(python + ["eval", str(d / "p.sci"), "--out", str(d / "run"), "--quiet",
                                      "--reps", "1000", "--protocol", "adaptive"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    (d / "holder.pid").write_text(str(proc.pid))
    for _ in range(200):
        if (d / "run" / "episodes.sqlite").exists():
            break
        time.sleep(0.1)
    time.sleep(1.0)


def _fifo_card(d: Path, python: list[str]) -> None:
    (d / "cards").mkdir(exist_ok=True)
    os.mkfifo(d / "cards" / "fifo.sci")


def _dangling(d: Path, python: list[str]) -> None:
    (d / "cards").mkdir(exist_ok=True)
    os.symlink(d / "nowhere.sci", d / "cards" / "dangling.sci")


def _work_probes(good: str) -> list[Probe]:
    """Findings 1 and 2: bounded work in lint; what lint accepts compiles."""
    P = Probe
    return [
        # 1. bounded work in lint
        P("units_power_tower", "1", ["lint", "{d}/p.sci"], {"p.sci": card(unit="m^9^9^9")}, (1,)),
        P("units_power_tower_2", "1", ["lint", "{d}/p.sci"], {"p.sci": card(unit="m^2^2^2^2^2^2^2")}, (1,)),
        P("units_huge_exponent", "1", ["lint", "{d}/p.sci"], {"p.sci": card(unit="m^99999999999")}, (1,)),
        P("units_10mb", "1", ["lint", "{d}/p.sci"], {"p.sci": card(unit="m*" * 5_000_000 + "m")}, (1,)),
        P("units_long_product", "1", ["lint", "{d}/p.sci"], {"p.sci": card(unit="m/" * 3000 + "m")}, (1,)),
        P("many_diagnostics_laws", "1", ["lint", "{d}/p.sci"],
          {"p.sci": card(extra="  law x = 1\n" * 50_000)}, (1,), expect="E104"),
        P("many_duplicate_inputs", "1", ["lint", "{d}/p.sci"],
          {"p.sci": card(extra='  input L [m] in 0.2 .. 2.0 "length"\n' * 20_000)}, (1,), expect="E104"),
        P("many_diagnostics_within_limit", "1", ["lint", "{d}/p.sci"],
          {"p.sci": card(extra="  law x = 1\n" * 12_000)}, (1,), expect="12000 errors"),
        P("many_duplicates_within_limit", "1", ["lint", "{d}/p.sci"],
          {"p.sci": card(extra='  input L [m] in 0.2 .. 2.0 "length"\n' * 5_500)}, (1,), expect="5500 errors"),
        P("title_10mb", "1", ["lint", "{d}/p.sci"], {"p.sci": card(title="t" * 10_000_000)}, (0, 1)),
        P("background_10mb", "1", ["lint", "{d}/p.sci"],
          {"p.sci": card(extra='  background """' + "b " * 5_000_000 + '"""\n')}, (0, 1)),
        P("escaped_string_10mb", "1", ["lint", "{d}/p.sci"], {"p.sci": card(title='\\"' * 5_000_000)}, (0, 1)),
        P("long_name", "1", ["lint", "{d}/p.sci"], {"p.sci": card(name="n" * 5_000_000)}, (0, 1)),
        P("long_number", "1", ["lint", "{d}/p.sci"], {"p.sci": card(law="law T = 1" + "0" * 5_000_000)}, (1,)),
        P("deep_parens_lint", "1", ["lint", "{d}/p.sci"],
          {"p.sci": card(law="law T = " + "(" * 100_000 + "L" + ")" * 100_000)}, (1,)),
        # 2. anything lint accepts compiles; flat sums are not deep
        P("negation_chain_400_compile", "2", ["compile", "{d}/p.sci", "-o", "{d}/out"],
          {"p.sci": card(law="law T = " + "- " * 400 + "sqrt(L / g)")}, (0, 1)),
        P("negation_chain_400_simulate", "2", ["simulate", "{d}/p.sci", "L=1", "--env", "original"],
          {"p.sci": card(law="law T = " + "- " * 400 + "sqrt(L / g)")}, (0, 1)),
        P("sum_800_compile", "2", ["compile", "{d}/p.sci", "-o", "{d}/out"], {"p.sci": card(law=_sum(800))}, (1,),
          expect="E104"),
        P("sum_250_compile", "2", ["compile", "{d}/p.sci", "-o", "{d}/out"], {"p.sci": card(law=_sum(250))}, (0,)),
        P("sum_250_simulate", "2", ["simulate", "{d}/p.sci", "L=1", "--env", "original"],
          {"p.sci": card(law=_sum(250))}, (0,), expect='"T": 79.8'),
        P("sum_800_sqrt_terms", "2", ["compile", "{d}/p.sci", "-o", "{d}/out"],
          {"p.sci": card(law=_sum(800, "sqrt(L / g)"))}, (1,), expect="E104", forbid=("too deeply",)),
        P("sum_10000_compile", "2", ["compile", "{d}/p.sci", "-o", "{d}/out"],
          {"p.sci": card(law=_sum(10_000))}, (1,), expect="E104", forbid=("too deeply",)),
        P("product_5000_compile", "2", ["compile", "{d}/p.sci", "-o", "{d}/out"],
          {"p.sci": card(law="law T = sqrt(L / g) * " + " * ".join(["1.0001"] * 500))}, (0,)),
        P("sum_250_score", "2", ["score", "{d}/p.sci", "{d}/pred.json", "--env", "original"],
          {"p.sci": card(law=_sum(250)), "pred.json": '{"T": {"op": "mul", "args": [800.0, {"var": "L"}]}}'},
          (0,)),
        P("sum_250_eval", "2", ["eval", "{d}/p.sci", "--out", "{d}/run", "--quiet", "--reps", "1",
                               "--protocol", "prior", "--setting", "identification"],
          {"p.sci": card(law=_sum(250))}, (0, 1)),
    ]


def _number_and_cache_probes(good: str) -> list[Probe]:
    """Findings 3 to 5: folding, non-finite numbers, the content-addressed cache."""
    P = Probe
    return [
        # 3. folding never gives inf silently
        P("fold_overflow", "3", ["lint", "{d}/p.sci"], {"p.sci": card(law="law T = 1e200 * 1e200 * sqrt(L / g)")},
          (1,), expect="error["),
        P("fold_overflow_tiny_input", "3", ["compile", "{d}/p.sci", "-o", "{d}/out"],
          {"p.sci": card(law="law T = sqrt(L / g) * 1e200 * (L * 1e200) / (1 [m])").replace("in 0.2 .. 2.0", "in 1e-300 .. 2e-300")},
          (1,), expect="E703"),
        P("fold_overflow_compile", "3", ["compile", "{d}/p.sci", "-o", "{d}/out"],
          {"p.sci": card(law="law T = 1e200 * 1e200 * sqrt(L / g)")}, (1,), expect="not compiled"),
        P("fold_overflow_param", "3", ["lint", "{d}/p.sci"],
          {"p.sci": card(law="law T = sqrt(L / g) * exp(1000)")}, (1,), expect="error["),
        # 4. non-finite numbers
        P("nan_at_design_point", "4", ["lint", "{d}/p.sci"],
          {"p.sci": card(law="law T = sqrt(L / g) * (L - 1 [m]) / (L - 1 [m])", design="{ L = 1 ; L = 2 }")},
          (1,), expect="L=1"),
        P("simulate_nonfinite", "4", ["simulate", "{d}/p.sci", "L=1e308", "--env", "original"],
          {"p.sci": card(law="law T = sqrt(L / g) * L * L")}, (0, 1), forbid=("NaN", "Infinity")),
        P("simulate_nan_input", "4", ["simulate", "{d}/p.sci", "L=nan", "--env", "original"],
          {"p.sci": good}, (1, 2), forbid=("NaN\n",)),
        P("predictor_near_1e308", "4", ["score", "{d}/p.sci", "{d}/pred.json", "--env", "original"],
          {"p.sci": good, "pred.json": '{"T": {"op": "mul", "args": [1e308, {"var": "L"}]}}'}, (0,),
          forbid=("RuntimeWarning", "null,\n  \"max")),
        # 5. the build cache is content-addressed
        P("tampered_simulator", "5", ["simulate", "{d}/out/probe", "L=1", "--env", "original"], {"p.sci": good},
          (1,), expect="changed", forbid=("INJECTED",), setup=_tamper("simulator.py", "\nprint('INJECTED')\n")),
        P("tampered_simulator_recompile", "5", ["compile", "{d}/p.sci", "-o", "{d}/out"], {"p.sci": good},
          (0,), expect="rebuilt", setup=_tamper("simulator.py", "\nprint('INJECTED')\n")),
        P("edited_evaluation", "5", ["compile", "{d}/p.sci", "-o", "{d}/out"], {"p.sci": good}, (0,),
          expect="rebuilt", setup=_replace_eval),
        P("edited_evaluation_score", "5", ["score", "{d}/out/probe", "{d}/pred.json", "--env", "original"],
          {"p.sci": good, "pred.json": '{"T": 0}'}, (1, 2), forbid=('"ps": 1.0',), setup=_replace_eval),
        P("same_named_cards", "5", ["compile", "{d}/a", "{d}/b", "-o", "{d}/out"],
          {"a/p.sci": good, "b/p.sci": card(law="law T = 3 * sqrt(L / g)")}, (1, 2), expect="b/p.sci"),
    ]


def _environment_probes(good: str) -> list[Probe]:
    """Findings 6 to 8: OS, database and option errors; one eval per folder; one error per mistake."""
    P = Probe
    return [
        # 6. OS, database and option errors
        P("unreadable_card_fifo", "6", ["lint", "{d}/cards"], {"cards/ok.sci": good}, (1,), expect="fifo.sci",
          setup=_fifo_card),
        P("unreadable_card_dangling", "6", ["compile", "{d}/cards", "-o", "{d}/out"], {"cards/ok.sci": good},
          (1,), expect="dangling.sci", setup=_dangling),
        P("not_utf8_card", "6", ["lint", "{d}/cards"], {"cards/ok.sci": good, "cards/bad.sci": b"\xff\xfe card"},
          (1,), expect="bad.sci"),
        P("compile_to_dev_null", "6", ["compile", "{d}/p.sci", "-o", "/dev/null"], {"p.sci": good}, (2,),
          expect="/dev/null"),
        P("compile_to_file", "6", ["compile", "{d}/p.sci", "-o", "{d}/p.sci"], {"p.sci": good}, (2,),
          expect="-o"),
        P("report_plots_proc", "6", ["report", "{d}/run", "--plots", "/proc/nope"], {"p.sci": good}, (2,),
          expect="/proc/nope", setup=_eval_first),
        P("score_timeout_nan", "6", ["score", "{d}/p.sci", "{d}/pred.json", "--env", "original", "--timeout", "nan"],
          {"p.sci": good, "pred.json": '{"T": 1}'}, (2,), expect="--timeout"),
        P("score_timeout_inf", "6", ["score", "{d}/p.sci", "{d}/pred.json", "--env", "original", "--timeout", "inf"],
          {"p.sci": good, "pred.json": '{"T": 1}'}, (2,), expect="--timeout"),
        P("score_timeout_negative", "6",
          ["score", "{d}/p.sci", "{d}/pred.json", "--env", "original", "--timeout", "-1"],
          {"p.sci": good, "pred.json": '{"T": 1}'}, (2,), expect="--timeout"),
        P("eval_budget_huge", "6", ["eval", "{d}/p.sci", "--out", "{d}/run", "--budget", "99999999999999999999"],
          {"p.sci": good}, (2,), expect="--budget"),
        P("eval_max_cost_nan", "6", ["eval", "{d}/p.sci", "--out", "{d}/run", "--max-cost", "nan"],
          {"p.sci": good}, (2,), expect="--max-cost"),
        P("eval_timeout_inf", "6", ["eval", "{d}/p.sci", "--out", "{d}/run", "--timeout", "inf"],
          {"p.sci": good}, (2,), expect="--timeout"),
        P("eval_temperature_nan", "6", ["eval", "{d}/p.sci", "--out", "{d}/run", "--temperature", "nan"],
          {"p.sci": good}, (2,), expect="--temperature"),
        P("simulate_fullwidth_digit", "6", ["simulate", "{d}/p.sci", "L=\uff11", "--env", "original"],
          {"p.sci": good}, (2,), expect="L"),
        P("simulate_underscore_digit", "6", ["simulate", "{d}/p.sci", "L=1_0", "--env", "original"],
          {"p.sci": good}, (2,), expect="L"),
        P("lint_empty_path", "6", ["lint", ""], {}, (2,)),
        P("corrupted_store", "6", ["report", "{d}/run"], {"run/episodes.sqlite": b"this is not sqlite" * 100},
          (2,), expect="episodes.sqlite"),
        P("zero_byte_store", "6", ["report", "{d}/run"], {"run/episodes.sqlite": b""}, (2,),
          expect="episodes.sqlite"),
        P("corrupted_store_eval", "6", ["eval", "{d}/p.sci", "--out", "{d}/run", "--quiet", "--reps", "1"],
          {"p.sci": good, "run/episodes.sqlite": b"this is not sqlite" * 100}, (2,), expect="episodes.sqlite"),
        P("readonly_run_folder", "6", ["eval", "{d}/p.sci", "--out", "{d}/run", "--quiet", "--reps", "1"],
          {"p.sci": good}, (2,), expect="run", setup=_readonly_run),
        # 7. one eval per run folder
        P("second_eval_locked", "7", ["eval", "{d}/p.sci", "--out", "{d}/run", "--quiet", "--reps", "1000",
                                     "--protocol", "adaptive"],
          {"p.sci": good}, (2,), expect="pid", setup=_lock_holder),
        # 8. one mistake, one error
        P("sum_error_once", "8", ["lint", "--format", "json", "{d}/p.sci"],
          {"p.sci": card(law="law T = sqrt(L / g) * (L^2 + L + L)")}, (1,)),
    ]


# ---- issue 30: import, the language server, report data -------------------------------

def _exported(change: Callable[[dict], str]):
    """Setup: the probe card exported as JSON, changed into d/c.json."""
    def setup(d: Path, python: list[str]) -> None:
        import json
        subprocess.run(python + ["export", str(d / "p.sci"), "--format", "json", "-o", str(d / "g.json")],
                       capture_output=True)
        (d / "c.json").write_text(change(json.loads((d / "g.json").read_text())))
    return setup


def _with(doc: dict, **fields) -> str:
    import json
    return json.dumps({**doc, **fields})


def _renamed_input(doc: dict) -> str:
    import json
    doc["inputs"][0]["name"] = "law"
    return json.dumps(doc)


def _import_probes(good: str) -> list[Probe]:
    P = Probe
    imp = ["import", "{d}/c.json", "-o", "{d}/c.sci"]
    deep = '{"a":' * 200_000 + "1" + "}" * 200_000
    return [
        P("30-import_deep_200000", "30", imp, {"c.json": deep}, (1,), expect="nested"),
        P("30-import_bigint_5000_digits", "30", imp, {"p.sci": good}, (1,), expect="5000 digits",
          setup=_exported(lambda doc: _with(doc).replace('"title"', '"x": ' + "9" * 5000 + ', "title"', 1))),
        P("30-import_design_count_400_digits", "30", imp, {"p.sci": good}, (1,), expect="$.design.count",
          setup=_exported(lambda doc: _with(doc, design={"kind": "generated", "count": 10 ** 400,
                                                         "method": "sobol"}))),
        P("30-import_million_conditions", "30", imp, {"p.sci": good}, (1,), expect="50,000",
          setup=_exported(lambda doc: _with(doc, conditions=["c"] * 10 ** 6))),
        P("30-import_input_named_law", "30", imp, {"p.sci": good}, (1,), expect="keyword",
          setup=_exported(_renamed_input)),
        P("30-import_duplicate_keys", "30", imp, {"p.sci": good}, (1,), expect="twice",
          setup=_exported(lambda doc: _with(doc).replace('"title"', '"name": "other", "title"', 1))),
    ]


def _lsp_frame(obj: dict, length: Optional[bytes] = None) -> bytes:
    import json
    body = json.dumps(obj).encode()
    return b"Content-Length: %s\r\n\r\n" % (length or str(len(body)).encode()) + body


def _lsp_session(bad: bytes) -> bytes:
    """initialize, the bad bytes, then a shutdown (id 9) the server must still answer, then exit."""
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"processId": None, "rootUri": None, "capabilities": {}}}
    return (_lsp_frame(init) + bad + _lsp_frame({"jsonrpc": "2.0", "id": 9, "method": "shutdown"})
            + _lsp_frame({"jsonrpc": "2.0", "method": "exit"}))


def _lsp_probes() -> list[Probe]:
    import json
    P = Probe
    shutdown = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}).encode()
    hover = {"jsonrpc": "2.0", "id": 3, "method": "textDocument/hover", "params": {"bogus": 1}}
    answered = '"id": 9'
    return [
        P("30-lsp_content_length_abc", "30", ["lsp"], stdin=_lsp_session(b"Content-Length: abc\r\n\r\n" + shutdown),
          exit_codes=(0,), expect=answered),
        P("30-lsp_no_content_length", "30", ["lsp"], stdin=_lsp_session(b"Content-Type: x\r\n\r\n" + shutdown),
          exit_codes=(0,), expect=answered),
        P("30-lsp_content_length_1e20", "30", ["lsp"],
          stdin=_lsp_session(b"Content-Length: 99999999999999999999\r\n\r\n" + shutdown), exit_codes=(0,),
          expect=answered),
        P("30-lsp_header_line_1mb", "30", ["lsp"], stdin=_lsp_session(b"X: " + b"y" * 2 ** 20 + b"\r\n\r\n"),
          exit_codes=(0,), expect=answered),
        P("30-lsp_invalid_params", "30", ["lsp"], stdin=_lsp_session(_lsp_frame(hover)), exit_codes=(0,),
          expect="-32602", forbid=("window/showMessage",)),
    ]


def _damage(statement: str = "", files: Optional[dict[str, str]] = None, corrupt: bool = False, reps: int = 1):
    """Setup: a finished run in d/run, then damaged (SQL on its store, files replaced, pages overwritten)."""
    def setup(d: Path, python: list[str]) -> None:
        import sqlite3
        subprocess.run(python + ["eval", str(d / "p.sci"), "--out", str(d / "run"), "--quiet", "--reps", str(reps),
                                 "--protocol", "prior", "--setting", "identification"], capture_output=True)
        db = d / "run" / "episodes.sqlite"
        c = sqlite3.connect(db)
        if statement:
            c.execute(statement, ())
            c.commit()
        c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        c.close()
        for rel, text in (files or {}).items():
            (d / "run" / rel).write_text(text)
        if corrupt:
            size = db.stat().st_size
            with open(db, "r+b") as f:
                f.seek(4096)
                f.write(bytes((i * 37 + 11) % 251 for i in range(size - 4096)))
    return setup


_HOSTILE_NAME = '<meta http-equiv="refresh" content="0;url=https://example.invalid/"><img src=x onerror=alert(1)> $x$'


def _page_is_inert(d: Path) -> Optional[str]:
    page = (d / "page.html").read_text(errors="replace") if (d / "page.html").exists() else ""
    if not page:
        return "no page written"
    for raw in ("<meta http-equiv=\"refresh\"", "<img src=x", "'unsafe-inline'"):
        if raw in page:
            return f"the page holds {raw!r}"
    return None


def _report_probes(good: str) -> list[Probe]:
    P = Probe
    rep_html = ["report", "{d}/run", "--html", "{d}/page.html"]
    name = _HOSTILE_NAME.replace("'", "''")
    return [
        P("30-report_store_corrupted_behind_header", "30", rep_html, {"p.sci": good}, (2,),
          expect="episodes.sqlite", setup=_damage(corrupt=True)),
        P("30-report_config_json_a_list", "30", rep_html, {"p.sci": good}, (2,), expect="config.json",
          setup=_damage(files={"config.json": "[1, 2]"})),
        P("30-report_invocations_wrong_shape", "30", rep_html, {"p.sci": good}, (2,), expect="invocations.jsonl",
          setup=_damage(files={"invocations.jsonl": '[1, 2]\n{"config": 3}\n'})),
        P("30-report_record_newer_version", "30", rep_html, {"p.sci": good}, (2,), expect="newer",
          setup=_damage("UPDATE episodes SET record = json_set(record, '$.newer_field', 1, '$.record_version', 2)")),
        P("30-report_record_not_json", "30", rep_html, {"p.sci": good}, (2,), expect="not JSON",
          setup=_damage("UPDATE episodes SET record = 'not json'")),
        P("30-eval_record_not_json", "30", ["eval", "{d}/p.sci", "--out", "{d}/run", "--quiet", "--reps", "1",
                                           "--protocol", "prior", "--setting", "identification"],
          {"p.sci": good}, (0, 1, 2), setup=_damage("UPDATE episodes SET record = 'not json'")),
        P("30-report_hostile_player_name", "30", rep_html, {"p.sci": good}, (0,), check=_page_is_inert,
          setup=_damage(f"UPDATE episodes SET player = '{name}', record = json_set(record, '$.key.player', '{name}',"
                        f" '$.turns[0].action.notes', '{name}')")),
        P("30-report_equal_form_credits", "30", rep_html, {"p.sci": good}, (0,), check=_page_is_inert,
          setup=_damage("UPDATE episodes SET record = json_set(record, '$.outcome.form_credit', 0.1)", reps=3)),
    ]


def _control_probes(good: str) -> list[Probe]:
    P = Probe
    noisy = good.replace('rel 0.5% "period"', 'rel 0.5% noise gaussian rel 1e308 "period"')
    ood = good.replace("in 0.2 .. 2.0", "in log 0.2 .. 2.0").replace("evaluation 64 seed 7",
                                                                      "evaluation 64 seed 7 ood 1e308")
    tabbed = "\r\n".join("\t" * ((len(ln) - len(ln.lstrip(" "))) // 2) + ln.lstrip(" ")
                          for ln in (REPO / "cards/historical/gravitation.sci").read_text().split("\n"))
    return [
        P("30-lint_noise_rel_1e308", "30", ["lint", "{d}/p.sci"], {"p.sci": noisy}, (1,), expect="E520"),
        P("30-simulate_noise_rel_1e308", "30", ["simulate", "{d}/p.sci", "L=1", "--env", "original"],
          {"p.sci": noisy}, (1, 2), forbid=("Infinity",)),
        P("30-compile_ood_1e308_log", "30", ["compile", "{d}/p.sci", "-o", "{d}/out"], {"p.sci": ood}, (1,),
          expect="E521"),
        P("30-eval_noise_1e308", "30", ["eval", "{d}/p.sci", "--out", "{d}/run", "--noise", "1e308"],
          {"p.sci": good}, (2,), expect="--noise"),
        P("30-eval_ray_address_notaport", "30", ["eval", "{d}/p.sci", "--out", "{d}/run", "--executor", "ray",
                                                 "--ray-address", "127.0.0.1:notaport"], {"p.sci": good}, (2,),
          expect="notaport"),
        P("30-lint_escapes_in_strings", "30", ["lint", "{d}/other.sci"],
          {"other.sci": good.replace('"a probe" {', '"a \x1b]0;pwned\x07 probe" {', 1)}, (0, 1),
          forbid=("\x1b", "\x07")),
        P("30-fmt_crlf_tabs_keeps_meaning", "30", ["fmt", "{d}/gravitation.sci"],
          {"gravitation.sci": tabbed.encode(), "orig/gravitation.sci": tabbed.encode()}, (0, 1), check=_same_export),
        P("30-fmt_cr_only_fails_like_lint", "30", ["fmt", "{d}/gravitation.sci"],
          {"gravitation.sci": (REPO / "cards/historical/gravitation.sci").read_text().replace("\n", "\r").encode()},
          (1,)),
    ]


def _same_export(d: Path) -> Optional[str]:
    """The card after fmt means what it meant before (the same exported JSON)."""
    import json
    python = [sys.executable, "-m", "scigame"] if _PYTHON is None else _PYTHON
    a, b = (subprocess.run(python + ["export", str(path), "--format", "json"], capture_output=True, cwd=d)
            for path in (d / "gravitation.sci", d / "orig" / "gravitation.sci"))
    if a.returncode or b.returncode or json.loads(a.stdout) != json.loads(b.stdout):
        return "fmt changed what the card means"
    return None


_PYTHON: Optional[list[str]] = None


def probes() -> list[Probe]:
    """The named probes, one or more per finding of issue 13, and issue 30's."""
    good = card()
    out = _work_probes(good) + _number_and_cache_probes(good) + _environment_probes(good)
    out += _import_probes(good) + _lsp_probes() + _report_probes(good) + _control_probes(good)
    if os.geteuid() == 0:  # root writes into a read-only folder anyway
        out = [p for p in out if p.name != "readonly_run_folder"]
    return out


def _limit(cap_mb: int):
    def apply() -> None:
        cap = cap_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
        os.setsid()
    return apply


def run_probe(probe: Probe, python: list[str], timeout: float, cap_mb: int) -> dict:
    """Run one probe; return its time, peak memory, exit code and verdict."""
    d = Path(tempfile.mkdtemp(prefix=f"fuzz-{probe.name}-"))
    try:
        for rel, content in probe.files.items():
            path = d / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            (path.write_bytes if isinstance(content, bytes) else path.write_text)(content)
        if probe.setup:
            probe.setup(d, python)
        argv = python + [a.replace("{d}", str(d)) for a in probe.argv]
        (d / ".stdin").write_bytes(probe.stdin or b"")
        with open(d / ".stdout", "wb") as so, open(d / ".stderr", "wb") as se, open(d / ".stdin", "rb") as si:
            t0 = time.perf_counter()
            proc = subprocess.Popen(argv, stdout=so, stderr=se, stdin=si,
                                    preexec_fn=_limit(cap_mb), cwd=d)
            status = rusage = None
            while True:
                pid, status, rusage = os.wait4(proc.pid, os.WNOHANG)
                if pid:
                    break
                if time.perf_counter() - t0 > timeout * 3:
                    os.killpg(proc.pid, signal.SIGKILL)
                    pid, status, rusage = os.wait4(proc.pid, 0)
                    break
                time.sleep(0.02)
            wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        text = (d / ".stdout").read_text(errors="replace") + (d / ".stderr").read_text(errors="replace")
        holder = d / "holder.pid"
        if holder.exists():
            try:
                os.kill(int(holder.read_text()), signal.SIGKILL)
                os.waitpid(int(holder.read_text()), 0)
            except (ProcessLookupError, ChildProcessError):
                pass
        peak_mb = rusage.ru_maxrss / 1024
        cpu = rusage.ru_utime + rusage.ru_stime
        problems = []
        if cpu > timeout or wall > 3 * timeout:
            problems.append(f"took {cpu:.1f}s of CPU, {wall:.1f}s wall")
        if proc.returncode not in probe.exit_codes:
            problems.append(f"exit {proc.returncode}")
        for bad in ("Traceback", "internal error", "MemoryError") + probe.forbid:
            if bad in text:
                problems.append(f"printed {bad!r}")
        if probe.expect and probe.expect not in text:
            problems.append(f"did not say {probe.expect!r}")
        if probe.check is not None and not any("took" in p for p in problems):
            found = probe.check(d)
            if found:
                problems.append(found)
        last = [ln for ln in text.strip().splitlines() if ln.strip()][-1:] or [""]
        return {"name": probe.name, "finding": probe.finding, "wall": wall, "cpu": cpu, "peak_mb": peak_mb,
                "exit": proc.returncode, "problems": problems, "said": last[0][:110]}
    finally:
        shutil.rmtree(d, ignore_errors=True)


# ---- random mutations of the bundled cards, checked in one process ---------------

_SNIPPETS = ["(", ")", "^", "^-", "*", "/", "+", "-", "1e308", "1e-320", "0", "0/0", "[m^9^9]", "[", "]",
             '"', '"""', "{", "}", ";", ",", "..", "x", "law", "let", "input", "in", "log", "pi", "exp(",
             "sqrt(-1)", "%", "\\", "\u00e9", "\uff11", "1_0", "nan", "inf", "-" * 50, "(" * 300]


def mutate(text: str, rng: random.Random) -> str:
    """One to three random edits: insert a snippet, delete or duplicate a span."""
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(text) + 1)
        kind = rng.random()
        if kind < 0.5:
            text = text[:i] + rng.choice(_SNIPPETS) + text[i:]
        elif kind < 0.75:
            text = text[:i] + text[i + rng.randint(1, 40):]
        else:
            j = min(len(text), i + rng.randint(1, 80))
            text = text[:j] + text[i:j] * rng.randint(1, 50) + text[j:]
    return text


_MUTANT_WORKER = r'''
import json, random, sys, time, resource, tempfile, traceback
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from fuzz import mutate
from scigame.compiler import check_source
from scigame.compiler.build import build_card
from scigame.card import CompiledCard
import numpy as np
rng = random.Random(int(sys.argv[3]))
texts = [p.read_text() for p in sorted(Path(sys.argv[2]).rglob("*.sci"))]
out = Path(tempfile.mkdtemp())
worst, failures, built = (0.0, ""), [], 0
for n in range(int(sys.argv[4])):
    text = mutate(rng.choice(texts), rng)
    t0 = time.perf_counter()
    try:
        result = check_source(text, "mutant.sci")
        if result.card is not None:
            folder = build_card(result.card, out / str(n))[1]
            card = CompiledCard(folder)
            x = {s.name: np.array([s.domain.lo]) for s in card.data.inputs}
            card.run_kernel("original", x)
            built += 1
    except Exception as exc:
        failures.append({"error": f"{type(exc).__name__}: {exc}"[:300], "text": text[:2000]})
    dt = time.perf_counter() - t0
    if dt > worst[0]:
        worst = (dt, text[:200])
print(json.dumps({"tried": int(sys.argv[4]), "built": built, "failures": failures,
                  "worst_s": worst[0], "worst": worst[1],
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
'''


def run_mutants(python: list[str], count: int, seed: int) -> dict:
    import json
    exe = python[0]
    proc = subprocess.run([exe, "-c", _MUTANT_WORKER, str(Path(__file__).parent), str(REPO / "cards"),
                           str(seed), str(count)], capture_output=True, text=True,
                          cwd=tempfile.gettempdir())  # so `scigame` comes from the probed interpreter
    if proc.returncode != 0:
        return {"tried": count, "failures": [{"error": proc.stderr[-2000:]}]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", default=sys.executable, help="interpreter whose scigame is probed")
    ap.add_argument("--only", default="", help="run probes whose name contains this")
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("--max-mb", type=float, default=600.0)
    ap.add_argument("--cap-mb", type=int, default=3000)
    ap.add_argument("--mutants", type=int, default=0, help="random mutated cards to check and build")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    python = [args.python, "-m", "scigame"]
    global _PYTHON
    _PYTHON = python
    failed = 0
    selected = [p for p in probes() if args.only in p.name]
    print(f"{'probe':<32}{'finding':>8}{'wall s':>8}{'cpu s':>8}{'MB':>8}{'exit':>6}  verdict")
    for probe in selected:
        r = run_probe(probe, python, args.timeout, args.cap_mb)
        if r["peak_mb"] > args.max_mb:
            r["problems"].append(f"peak {r['peak_mb']:.0f} MB")
        failed += bool(r["problems"])
        verdict = "ok" if not r["problems"] else "FAIL: " + "; ".join(r["problems"]) + f" | {r['said']}"
        print(f"{r['name']:<32}{r['finding']:>8}{r['wall']:>8.2f}{r['cpu']:>8.2f}{r['peak_mb']:>8.0f}{r['exit']:>6}  {verdict}",
              flush=True)
    print(f"{len(selected)} probes, {failed} failed")
    if args.mutants:
        m = run_mutants([args.python], args.mutants, args.seed)
        print(f"{m['tried']} mutants, {m.get('built', 0)} compiled and simulated, "
              f"{len(m['failures'])} crashed; slowest {m.get('worst_s', 0):.2f}s, "
              f"peak {m.get('peak_mb', 0):.0f} MB")
        for f in m["failures"][:10]:
            print("  crash:", f["error"].splitlines()[0] if f["error"] else "", "|", f.get("text", "")[:120])
        failed += len(m["failures"])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
