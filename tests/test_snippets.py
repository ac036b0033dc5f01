"""Every Python and shell snippet of README.md and docs/*.md runs, and what
it shows is what it does (issue #27).

- A ```python block runs; a document's blocks share one namespace, in
  order. A line `EXPR  # SHOWN` whose comment parses as a Python expression
  is checked: `repr(EXPR)` must equal SHOWN (for `print(...)`, what it
  prints). A comment that is prose ("# True when ...") is not compared.
- A shell block (```bash, or an unlabelled fence that starts with `$ `,
  `scigame ` or `python `)
  runs its `$ ` commands in bash, one after another; the lines under a
  command are its expected output (stdout and stderr together). `...` on a
  line of its own stands for any lines, and inside a line for any text.
  A ```bash block without `$ ` lines runs whole and must exit 0.
- Blocks run in a scratch folder holding copies of `cards/` and
  `examples/` of this checkout; `/tmp/` in a snippet means a `tmp/` folder inside it.
- `<!-- snippet: skip REASON -->` on the line before a fence leaves the
  block out (a real API key, a cluster, a long run); `<!-- snippet: before
  COMMAND -->` runs COMMAND first (a file the prose describes but does not
  show). Both are kept rare: `test_skips_are_few` counts them.
- `<!-- snippet: fake-server PORT -->` marks a block that starts the fake
  OpenAI server (`python -m scigame.testing.fake_openai --responder
  scientist --port PORT`): the test serves it in-process instead, on a free
  port that stands for PORT in the document's later blocks, and checks the
  block's lines against what the command-line server prints.
"""

from __future__ import annotations

import ast
import contextlib
import io
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
_FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
_MARK = re.compile(r"<!--\s*snippet:\s*(skip|before|fake-server)\s+(.*?)\s*-->")
SHELL = ("bash", "sh", "console", "shell")
#: An unlabelled fence is a shell snippet when it starts with a prompt or a command.
_COMMAND = re.compile(r"(\$ |scigame |python )")


@dataclass
class Snippet:
    path: Path
    line: int  # of the opening fence
    kind: str  # python | shell
    body: str
    skip: str | None = None
    before: list[str] = field(default_factory=list)
    fake_server: int | None = None  # the port the block's server listens on in the document

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(REPO)}:{self.line}"


def snippets(path: Path) -> list[Snippet]:
    """The document's runnable fenced blocks, with their markers."""
    text = path.read_text("utf-8")
    out = []
    for m in _FENCE.finditer(text):
        lang, body = m.group(1), m.group(2)
        kind = "python" if lang == "python" else (
            "shell" if lang in SHELL or (not lang and _COMMAND.match(body.lstrip())) else None)
        if kind is None:
            continue
        line = text.count("\n", 0, m.start()) + 1
        s = Snippet(path, line, kind, body)
        above = text[:m.start()].rstrip("\n").rsplit("\n", 3)[-3:]  # the lines just above the fence
        for ln in above:
            for what, arg in _MARK.findall(ln):
                if what == "skip":
                    s.skip = arg
                elif what == "fake-server":
                    s.fake_server = int(arg)
                else:
                    s.before.append(arg)
        out.append(s)
    return out


def _sandbox(tmp_path: Path) -> Path:
    import shutil
    for name in ("cards", "examples"):  # copies: a snippet may write beside them (scigame new)
        shutil.copytree(REPO / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "tmp").mkdir()
    return tmp_path


def _env(box: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI", "SCIGAME_DEBUG"))}
    env.update(PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}", COLUMNS="200",
               SCIGAME_CACHE=str(box / ".cache"), NO_COLOR="1", TERM="dumb")
    return env


#: the fake server's port as a document writes it -> the port it really has in the test
PORTS: dict[int, int] = {}


def _localise(text: str, box: Path) -> str:
    for written, real in PORTS.items():
        text = text.replace(f"127.0.0.1:{written}/", f"127.0.0.1:{real}/")
    return re.sub(r"(?<![\w/.])/tmp/", f"{box}/tmp/", text)


def _matches(expected: str, actual: str) -> bool:
    """`...` on its own line: any lines; inside a line: any text; trailing spaces ignored."""
    parts = []
    for ln in expected.strip("\n").splitlines():
        if ln.strip() == "...":
            parts.append(r"(?:.*\n)*?")
        else:
            parts.append(".*".join(re.escape(p) for p in ln.rstrip().split("...")) + r"\n")
    got = "\n".join(ln.rstrip() for ln in actual.strip("\n").splitlines()) + "\n"
    return re.fullmatch("".join(parts), got) is not None


def _commands(body: str) -> list[tuple[str, str]]:
    """(command, expected output) pairs of a `$ ` transcript."""
    out, lines = [], body.splitlines()
    i = 0
    while i < len(lines):
        ln = lines[i]
        if not ln.startswith("$ "):
            i += 1
            continue
        cmd = ln[2:]
        while cmd.endswith("\\") and i + 1 < len(lines):
            i += 1
            cmd = cmd[:-1] + " " + lines[i].strip()
        i += 1
        shown = []
        while i < len(lines) and not lines[i].startswith("$ "):
            shown.append(lines[i])
            i += 1
        out.append((cmd, "\n".join(shown)))
    return out


def _bash(cmd: str, box: Path, timeout: float = 600) -> subprocess.CompletedProcess:
    # standard error into standard output, in the order they are written, as a terminal shows them
    return subprocess.run(["bash", "-c", _localise(cmd, box)], cwd=box, env=_env(box), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=timeout)


def run_shell(s: Snippet, box: Path) -> None:
    pairs = _commands(s.body)
    if not pairs:  # a plain script: it must succeed
        done = _bash(s.body, box)
        assert done.returncode == 0, f"{s.where}: exit {done.returncode}\n{done.stdout}"
        return
    last = 0
    for cmd, shown in pairs:
        if cmd.strip() == "echo $?":  # each command runs in its own shell: the exit status of the last one
            got = str(last)
            assert got == shown.strip(), f"{s.where}: `$ {cmd}` gives {got}, the document shows {shown}"
            continue
        done = _bash(cmd, box)
        last = done.returncode
        got = done.stdout.replace(f"{box}/tmp/", "/tmp/")
        if shown.strip():
            assert _matches(shown, got), f"{s.where}: `$ {cmd}` printed\n{got}\nthe document shows\n{shown}"


def _comment(line: str) -> str | None:
    """The trailing comment of a source line, if it is a Python expression."""
    if "#" not in line:
        return None
    code, _, comment = line.rpartition("#")
    comment = comment.strip()
    try:
        ast.parse(code.strip() or "0")
        ast.parse(comment, mode="eval")
    except SyntaxError:
        return None
    return comment


def run_python(s: Snippet, namespace: dict) -> None:
    source = _localise(s.body, Path(namespace["__box__"]))
    lines = source.splitlines()
    tree = ast.parse(source, filename=s.where)
    for node in tree.body:
        shown = _comment(lines[node.end_lineno - 1]) if isinstance(node, ast.Expr) else None
        code = compile(ast.Module([node], []) if shown is None else ast.Expression(node.value), s.where,
                       "exec" if shown is None else "eval")
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            value = eval(code, namespace)  # noqa: S307 - the documentation's own snippet
        if shown is None:
            continue
        is_print = isinstance(node.value, ast.Call) and getattr(node.value.func, "id", None) == "print"
        got = out.getvalue().strip() if is_print else repr(value)
        assert got == shown, f"{s.where}:{node.lineno}: shows {shown}, gives {got}"


ALL = [s for path in DOCS for s in snippets(path)]


@pytest.mark.slow
@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_document_snippets(path, tmp_path, monkeypatch):
    mine = [s for s in ALL if s.path == path]
    if not mine:
        pytest.skip("no snippets")
    box = _sandbox(tmp_path)
    monkeypatch.chdir(box)
    monkeypatch.setenv("SCIGAME_CACHE", str(box / ".cache"))
    namespace = {"__name__": "__snippet__", "__box__": str(box)}
    ran = 0
    with contextlib.ExitStack() as stack:
        stack.callback(PORTS.clear)
        for s in mine:
            if not s.skip:
                _run(s, box, namespace, stack)
                ran += 1
    assert ran, f"{path.name}: every snippet is skipped"


def _fake_server(s: Snippet, stack: contextlib.ExitStack) -> None:
    """Serve the fake OpenAI server the block starts, and check what the block shows it print."""
    from scigame.testing.fake_openai import FakeOpenAI
    from scigame.testing.responders import scientist
    ((cmd, shown),) = _commands(s.body)
    assert f"--responder scientist --port {s.fake_server}" in cmd, s.where
    server = stack.enter_context(FakeOpenAI(scientist, api_key=None))
    PORTS[s.fake_server] = server.port
    assert shown.splitlines()[0] == f"http://127.0.0.1:{s.fake_server}/v1", s.where


def _run(s: Snippet, box: Path, namespace: dict, stack: contextlib.ExitStack) -> None:
    if s.fake_server:
        _fake_server(s, stack)
        return
    for cmd in s.before:
        done = _bash(cmd, box)
        assert done.returncode == 0, f"{s.where}: before `{cmd}`: {done.stdout}"
    run_python(s, namespace) if s.kind == "python" else run_shell(s, box)


def test_skips_are_few():
    skipped = [s for s in ALL if s.skip]
    assert all(s.skip.strip() for s in skipped)  # a reason each
    assert len(skipped) <= len(ALL) // 3, [s.where for s in skipped]


def test_readme_constant_is_the_rebalanced_g():
    """The README scores the counterfactual with G' = G·(5 m)^(3-2), the value
    `rebalance G at r = 5 [m]` gives; pint derives it independently."""
    import pint
    ureg = pint.UnitRegistry()
    g = 6.674e-11 * ureg("m^3 kg^-1 s^-2")
    # both worlds give the same force at 5 m: G m1 m2 / r^2 = G' m1 m2 / r^3
    g_cf = (g * (5 * ureg.m) ** 3 / (5 * ureg.m) ** 2).to("m^4 kg^-1 s^-2")
    readme = next(s for s in ALL if s.path.name == "README.md" and s.kind == "python")
    constants = [float(c) for c in re.findall(r"\"args\": \[(\d\.\d+e-\d+)", readme.body)]
    assert constants and all(c == pytest.approx(g_cf.magnitude, rel=1e-12) for c in constants)
    assert "# True" in readme.body


def test_matcher_sees_differences():
    assert _matches("a\n...\nc", "a\nb\nb2\nc\n") and _matches("x ... z", "x yyy z")
    assert not _matches("a\nc", "a\nb\nc") and not _matches("0.5", "0.6")
