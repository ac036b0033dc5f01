"""What later processes reuse: units pint resolved before, Lark's parse
tables. Each test runs fresh interpreters with a private cache folder."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
CARD = REPO / "cards/historical/stefan_boltzmann.sci"

CHECK = """
import json, sys
from scigame.compiler import check_file
result = check_file(sys.argv[1])
card = result.card
print(json.dumps({"ok": result.ok, "pint": "pint" in sys.modules,
                  "factors": [[s.name, s.unit.si_factor, str(s.unit.dim)] for s in card.inputs + card.outputs]}))
"""


def check_in_fresh_process(cache: Path) -> dict:
    env = dict(os.environ, XDG_CACHE_HOME=str(cache))
    out = subprocess.run([sys.executable, "-c", CHECK, str(CARD)], env=env, capture_output=True,
                         text=True, check=True)
    return json.loads(out.stdout)


def test_a_second_check_needs_no_pint_and_gives_the_same_units(tmp_path):
    first = check_in_fresh_process(tmp_path)
    assert first["ok"] and first["pint"]
    assert list((tmp_path / "scigame").glob("units-pint-*.json"))
    assert list((tmp_path / "scigame").glob("sci-parser-*.lark-cache"))
    second = check_in_fresh_process(tmp_path)
    assert second["ok"] and not second["pint"]
    assert second["factors"] == first["factors"]


def test_cached_units_are_pints_own_answers(tmp_path):
    check_in_fresh_process(tmp_path)
    cached = json.loads(next((tmp_path / "scigame").glob("units-pint-*.json")).read_text())
    import pint
    ureg = pint.UnitRegistry()
    assert cached
    for text, (dim, factor) in cached.items():
        q = ureg.Quantity(1.0, ureg.parse_units(text))
        assert factor == float(q.to_base_units().magnitude), text
        assert {k: float(Fraction(v)) for k, v in dim} == {k: float(v) for k, v in q.dimensionality.items()}


def test_a_damaged_cache_is_ignored(tmp_path):
    check_in_fresh_process(tmp_path)
    for f in (tmp_path / "scigame").glob("units-pint-*.json"):
        f.write_text('{"W": "not an entry", "K": [[["[temperature]", "x"]], 1.0]')  # cut off, too
    again = check_in_fresh_process(tmp_path)
    assert again["ok"] and again["pint"]
    fresh = check_in_fresh_process(tmp_path)  # rewritten whole by the run before
    assert not fresh["pint"] and fresh["factors"] == again["factors"]


def test_no_writable_cache_folder_still_checks(tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("")  # a file where the cache folder would be made
    result = check_in_fresh_process(blocked)
    assert result["ok"] and result["pint"]


LINT = """
import os, sys
from scigame.cli import main
try:
    main(["lint", sys.argv[1]])
except SystemExit as exc:
    code = exc.code
print("\\n" + repr((code, sorted(sys.modules), os.environ.get("OPENBLAS_NUM_THREADS"))))
"""

#: What checking a clean card never uses: model validation, the unit
#: library (cached), the syntax-error catalogue, did-you-mean matching,
#: package metadata, and every part of the runtime, the players and the
#: symbolic stack.
NOT_FOR_A_CLEAN_LINT = ("pydantic", "pint", "tomllib", "difflib", "importlib.metadata", "sympy", "scipy",
                        "numba", "rich", "openai", "scigame.compiler.build", "scigame.compiler.artifact",
                        "scigame.runner", "scigame.store", "scigame.players", "scigame.llm")


def test_linting_a_clean_card_imports_only_what_it_uses(tmp_path):
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path))
    env.pop("OPENBLAS_NUM_THREADS", None)
    runs = [subprocess.run([sys.executable, "-c", LINT, str(CARD)], env=env, capture_output=True,
                           text=True, check=True) for _ in range(2)]  # the first fills the caches
    code, modules, blas = eval(runs[1].stdout.strip().splitlines()[-1])  # noqa: S307 - our own repr
    assert code == 0 and "0 errors" in runs[1].stdout
    loaded = [m for m in modules if any(m == n or m.startswith(n + ".") for n in NOT_FOR_A_CLEAN_LINT)]
    assert loaded == []
    assert "numpy" in modules and "lark" in modules  # the numeric checks and the parser did run
    assert "regex" not in modules  # Lark loaded without it (compiler/larklib.py)
    assert blas == "1"  # numpy on one BLAS thread, for lint as for every scigame process (scigame/blas_threads.py)


@pytest.mark.parametrize("typo", [("A * T^n", "A * Tx^n"),  # an unknown name (E200), found by the checker
                                  ("A * T^n", "A * T^")])  # a syntax error, found by the parser
def test_a_card_with_a_static_error_is_linted_without_numpy(tmp_path, typo):
    """numpy is the numeric checks' (the evaluation set, the reference
    evaluator), which run only on a card the static checks pass: an editor
    linting a card as it is typed does not wait for numpy to load."""
    card = tmp_path / CARD.name
    card.write_text(CARD.read_text().replace(*typo, 1))
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path))
    runs = [subprocess.run([sys.executable, "-c", LINT, str(card)], env=env, capture_output=True,
                           text=True, check=True) for _ in range(2)]  # the first fills the caches
    code, modules, _ = eval(runs[1].stdout.strip().splitlines()[-1])  # noqa: S307 - our own repr
    assert code == 1 and "error[E" in runs[1].stdout
    assert "lark" in modules and "numpy" not in modules


def test_a_dimension_error_is_worded_from_the_cache_without_pint(tmp_path):
    """The names of dimensions in a dimension error ("[force] = ...") are
    pint's, kept in the user's cache: a second process words the same
    messages without pint (nor numpy); a damaged cache is asked of pint again."""
    card = tmp_path / CARD.name
    card.write_text(CARD.read_text().replace("A * T^n", "A * T^n * T", 1))  # E403: [power]·[temperature]
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path))

    def lint() -> tuple[str, list]:
        done = subprocess.run([sys.executable, "-c", LINT, str(card)], env=env, capture_output=True, text=True,
                              check=True)
        code, modules, _ = eval(done.stdout.strip().splitlines()[-1])  # noqa: S307 - our own repr
        assert code == 1 and "error[E403]" in done.stdout and "[power] = " in done.stdout
        return done.stdout.strip().rsplit("\n", 1)[0], [m for m in ("pint", "numpy") if m in modules]

    first, second = lint(), lint()
    assert first[1] == ["pint", "numpy"] and second == (first[0], [])
    (named,) = (tmp_path / "scigame").glob("named-units-pint-*.json")
    named.write_text('{"named": [["force", [["[mass]", "x"]]]')  # damaged, and cut off
    assert lint() == first and lint() == second


def test_lark_without_regex_parses_as_lark_with_it_and_leaves_regex_importable(tmp_path):
    """compiler/larklib.py hides `regex` from Lark: the parse trees of every
    card are those of a Lark that loaded `regex` (built from the grammar in
    a process that imports Lark first, without our cache), and `regex`
    itself still imports afterwards."""
    import regex  # noqa: F401 - a test dependency: the case compiler/larklib.py is for
    ours = ("from scigame.compiler import syntax\n"
            "import lark.utils, regex\n"
            "parse = syntax.parser().parse\n")
    theirs = ("import lark.utils\n"
              "from lark import Lark\n"
              "parse = Lark(open(sys.argv[1], encoding='utf-8').read(), parser='lalr', propagate_positions=True,\n"
              "             maybe_placeholders=True).parse\n")
    tail = ("trees = [str(parse(open(p, encoding='utf-8').read())) for p in sys.argv[2:]]\n"
            "print(json.dumps([lark.utils._has_regex, trees]))\n")
    paths = [str(p) for p in sorted((REPO / "cards/historical").glob("*.sci"))]
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path))
    runs = [json.loads(subprocess.run([sys.executable, "-c", "import json, sys\n" + head + tail,
                                       str(REPO / "grammar/sci.lark"), *paths],
                                      env=env, capture_output=True, text=True, check=True).stdout)
            for head in (ours, theirs)]
    assert [has_regex for has_regex, _ in runs] == [False, True]
    assert runs[0][1] == runs[1][1] and len(runs[0][1]) == len(paths)


def test_the_fast_path_freezes_what_loading_made_and_collects_again(tmp_path):
    """In its own process, lint pauses the garbage collector while it loads
    (modules, Lark's tables, the first card) and freezes what that made; the
    collector runs again afterwards, and a second card is still checked.
    Called inside a longer-lived process, run_lint leaves the collector alone."""
    script = ("import gc, sys\n"
              "from scigame.commands.linting import fast_lint\n"
              "code = fast_lint(['lint', *sys.argv[1:]])\n"
              "print(repr((code, gc.isenabled(), gc.get_freeze_count())))\n")
    bad = tmp_path / "bad.sci"
    bad.write_text(CARD.read_text().replace("input", "inptu", 1))
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path))
    done = subprocess.run([sys.executable, "-c", script, str(CARD), str(bad)], env=env, capture_output=True,
                          text=True, check=True)
    code, enabled, frozen = eval(done.stdout.strip().splitlines()[-1])  # noqa: S307 - our own repr
    assert (code, enabled) == (1, True) and frozen > 10000
    assert "error[E1" in done.stdout and "checked 2 cards: 1 error" in done.stdout

    import gc
    from scigame.commands.linting import run_lint
    before = gc.get_freeze_count()
    lines: list = []
    assert run_lint([CARD], "human", False, False, lambda m="", color=None: lines.append(m)) == 0
    assert gc.isenabled() and gc.get_freeze_count() == before and "0 errors" in lines[-1]


def test_a_bad_card_still_gets_every_message(tmp_path):
    card = tmp_path / "bad.sci"
    card.write_text(CARD.read_text().replace("input", "inptu", 1))
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path))
    done = subprocess.run([sys.executable, "-m", "scigame", "lint", str(card)], env=env,
                          capture_output=True, text=True)
    assert done.returncode == 1 and "error[E1" in done.stdout, done.stdout + done.stderr


def test_a_file_that_cannot_be_read_is_one_finding(tmp_path):
    from scigame.compiler import check_file
    (tmp_path / "latin1.sci").write_bytes('card x "caf\xe9" {\n'.encode("latin-1"))
    (tmp_path / "gone.sci").symlink_to(tmp_path / "nowhere")
    latin, gone = check_file(tmp_path / "latin1.sci"), check_file(tmp_path / "gone.sci")
    assert [(d.code, d.message) for d in latin.diagnostics] == [
        ("E100", "the file is not UTF-8 text (invalid continuation byte at byte 11)")]
    assert [(d.code, d.message) for d in gone.diagnostics] == [("E100", "cannot read the card: a broken link")]
    assert latin.card is None and not gone.ok


def _imported(stderr: str) -> set[str]:
    """The modules a `python -X importtime` run loaded, from its report."""
    return {line.split("|")[-1].strip() for line in stderr.splitlines() if line.startswith("import time:")}


def _cli(args: list[str], cache: Path, importtime: bool = False) -> subprocess.CompletedProcess:
    env = dict(os.environ, XDG_CACHE_HOME=str(cache))
    flags = ["-X", "importtime"] if importtime else []
    return subprocess.run([sys.executable, *flags, "-m", "scigame", *args], env=env, capture_output=True,
                          text=True)


def _through_click(args: list[str], cache: Path) -> tuple[int, str]:
    """The same command line read by the click group (no fast path), in a fresh process."""
    env = dict(os.environ, XDG_CACHE_HOME=str(cache))
    done = subprocess.run([sys.executable, "-c", LINT.replace('main(["lint", sys.argv[1]])', "main(sys.argv[1:])"),
                           *args], env=env, capture_output=True, text=True)
    return eval(done.stdout.strip().splitlines()[-1])[0], "\n".join(done.stdout.strip().splitlines()[:-1])  # noqa: S307


def test_lint_from_the_command_line_loads_neither_click_nor_the_other_commands(tmp_path):
    _cli(["lint", str(CARD)], tmp_path)  # fills the caches
    done = _cli(["lint", str(CARD)], tmp_path, importtime=True)
    assert done.returncode == 0 and "0 errors" in done.stdout, done.stdout + done.stderr
    loaded = _imported(done.stderr)
    assert "numpy" in loaded and "lark" in loaded
    assert {"click", "scigame.cli", "scigame.commands.cards", "scigame.commands.common",
            "numpy.ma"} & loaded == set()
    assert [m for m in loaded if any(m == n or m.startswith(n + ".") for n in NOT_FOR_A_CLEAN_LINT)] == []


@pytest.mark.parametrize("extra", [[], ["--format", "json"], ["-f", "json"], ["--format=json", "--notes"],
                                   ["--no-color", "--notes"], ["--color"]])
def test_the_fast_path_prints_what_click_prints(tmp_path, extra):
    bad = tmp_path / "bad.sci"
    bad.write_text(CARD.read_text().replace("input", "inptu", 1))
    args = ["lint", str(CARD), str(bad), *extra]
    fast = _cli(args, tmp_path)
    code, text = _through_click(args, tmp_path)
    assert (fast.returncode, fast.stdout.strip()) == (code, text.strip())
    assert fast.returncode == 1 and "E1" in fast.stdout


@pytest.mark.parametrize("args", [["lint"], ["lint", "nowhere.sci"], ["lint", "--format", "xml", "a.sci"],
                                  ["lint", "--help"], ["lint", ""]])
def test_lint_command_lines_that_are_not_plain_are_read_by_click(tmp_path, args):
    done = _cli(args, tmp_path)
    if args[-1] == "--help":
        assert done.returncode == 0 and "Usage:" in done.stdout
    else:
        assert done.returncode == 2 and "Usage:" in done.stderr and "Traceback" not in done.stderr


def test_a_failure_in_the_fast_path_is_one_line(tmp_path):
    folder = tmp_path / "cards"
    folder.mkdir()
    (folder / "a.sci").write_text(CARD.read_text())
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path))
    boom = ("import sys, scigame.compiler.front as f\n"
            "def fail(path): raise RuntimeError('boom')\n"
            "f.check_file = fail\n"
            "from scigame.__main__ import run\n"
            "sys.argv = ['scigame', 'lint', sys.argv[1]]\n"
            "run()\n")
    done = subprocess.run([sys.executable, "-c", boom, str(folder)], env=env, capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "scigame: internal error: RuntimeError: boom",
        "  (set SCIGAME_DEBUG=1 to see the traceback, and please report it)"]


def _sources() -> list[Path]:
    return sorted(p for folder in ("cards", "examples", "tests") for p in (REPO / folder).rglob("*.sci"))


def test_the_basic_lexer_parses_as_the_contextual_one_or_not_at_all():
    """syntax.parse_tree tries the basic lexer first: where its tokens parse,
    the tree must be the contextual lexer's (lark built independently of
    our cache here); where they do not, the contextual parse is used."""
    from lark import Lark, UnexpectedInput
    from scigame.compiler import syntax
    grammar = (REPO / "grammar/sci.lark").read_text()
    contextual = Lark(grammar, parser="lalr", propagate_positions=True, maybe_placeholders=True)
    basic_ok = 0
    for path in _sources():
        text = path.read_text(encoding="utf-8", errors="replace")
        try:
            want = contextual.parse(text)
        except UnexpectedInput:
            want = None
        try:
            fast = syntax._first_try_parser().parse(text)
        except UnexpectedInput:
            continue
        basic_ok += 1
        assert fast == want, path
    assert basic_ok > 100  # the fast path is the common one
    kw = REPO / "tests/golden/bad/E202_keyword_as_name.sci"
    with pytest.raises(UnexpectedInput):
        syntax._first_try_parser().parse(kw.read_text())
    from scigame.compiler import check_file
    assert [d.code for d in check_file(kw).diagnostics if d.is_error] == ["E202"]  # read by the contextual lexer


def test_keywords_read_from_either_parser_are_the_same():
    from scigame.compiler import syntax

    def words(lark):
        return ({(t.name, t.pattern.type, t.pattern.value) for t in lark.terminals},
                sorted(str(r) for r in lark.rules))
    assert words(syntax.parser()) == words(syntax._first_try_parser())
    assert {"card", "input", "output", "scale"} <= syntax.keywords()


def test_a_clean_card_never_builds_the_contextual_parser(monkeypatch):
    from scigame.compiler import check_file, syntax
    syntax.parser.cache_clear()
    built = []
    monkeypatch.setattr(syntax, "_build_parser", lambda lexer, real=syntax._build_parser: built.append(lexer)
                        or real(lexer))
    syntax._first_try_parser.cache_clear()
    syntax.keywords.cache_clear()
    syntax.statement_keywords.cache_clear()
    assert check_file(CARD).ok
    assert built == ["basic"]


def test_shared_node_methods_behave_as_stdlib_dataclasses():
    """compiler.source.node (shared eq/hash/repr, compiled once) against
    `@dataclass(frozen=True)` with the same fields: same repr, equality, hash,
    frozenness and `dataclasses.replace`."""
    import dataclasses
    from scigame.compiler.source import node

    def build(decorate):
        base = decorate(type("Point", (), {"__annotations__": {"a": "int", "b": "Optional[str]"}, "b": None}))
        sub = decorate(type("Tagged", (base,), {"__annotations__": {"c": "tuple"}, "c": ()}))
        return base, sub

    ours, theirs = build(node), build(dataclasses.dataclass(frozen=True))
    nan = float("nan")
    for args in [(1,), (1, "x"), (2, None, (nan, 3)), (nan, "y", ())]:
        for mine, ref in zip(ours, theirs):
            n = len(dataclasses.fields(mine))
            x, y = mine(*args[:n]), mine(*args[:n])
            rx, ry = ref(*args[:n]), ref(*args[:n])
            assert repr(x) == repr(rx)
            assert (x == y) == (rx == ry) and (x != y) == (rx != ry)
            assert (x == x) == (rx == rx)  # the same nan object: equal by identity, as tuples compare
            assert hash(x) == hash(rx)
            assert dataclasses.replace(x, a=5) == mine(5, *args[1:n])
            with pytest.raises(dataclasses.FrozenInstanceError):
                x.a = 3
    assert ours[0](1) != ours[1](1) and theirs[0](1) != theirs[1](1)  # another class: never equal
    assert (ours[0](1) == 1) is False and (theirs[0](1) == 1) is False


def _node_pair(decorate):
    """One class, decorated by `decorate`, with every kind of field a node may have."""
    ns = {"__annotations__": {"a": "int", "b": "list", "c": "str", "d": "int"},
          "b": dataclasses.field(default_factory=list), "c": "c", "d": dataclasses.field(default=4, init=False,
                                                                                        compare=False)}
    cls = decorate(type("Many", (), ns))
    return cls, type("Plain", (cls,), {})  # a subclass that is no dataclass of its own


@pytest.mark.parametrize("call", [(), (1, [2], "x", 5), (1, [2], "x"), (1,), ("a", "b")])
def test_node_init_matches_dataclass_init(call):
    """The `__init__` node writes on first use against dataclass's: the
    same values, defaults (a fresh list per instance), the same refusals."""
    from scigame.compiler.source import node

    def outcome(cls):
        try:
            x = cls(*call)
        except TypeError as exc:
            return "TypeError", str(exc).split("()", 1)[-1]  # the message, less the function's name
        return [(f.name, getattr(x, f.name)) for f in dataclasses.fields(x)], x.b is not cls(*call).b
    for mine, ref in zip(_node_pair(node), _node_pair(dataclasses.dataclass(frozen=True))):
        assert outcome(mine) == outcome(ref)


def test_nodes_pickle_copy_and_stay_frozen():
    import copy
    import pickle
    from scigame.compiler import ast as A
    from scigame.compiler.source import Span
    span = Span(1, 1, 1, 5)
    law = A.Law(span, "y", span, A.Binary(span, "mul", A.Name(span, "x"), A.Number(span, 2.0, "2")))
    assert pickle.loads(pickle.dumps(law)) == law and copy.deepcopy(law) == law
    assert A.Law.__match_args__ == ("span", "name", "name_span", "expr", "where")
    for change in (lambda: setattr(law, "name", "z"), lambda: delattr(law, "expr"),
                   lambda: setattr(law, "other", 1)):
        with pytest.raises(dataclasses.FrozenInstanceError):
            change()
    from scigame.compiler.source import node
    mine, ref = _node_pair(node)[1](1), _node_pair(dataclasses.dataclass(frozen=True))[1](1)
    for x in (mine, ref):  # a plain subclass may hold other attributes, not assign fields
        x.note = "kept"
        with pytest.raises(dataclasses.FrozenInstanceError):
            x.a = 2
    assert mine.note == ref.note == "kept"

    def own_init(self, x):
        object.__setattr__(self, "a", 2 * x)
    for decorate in (node, dataclasses.dataclass(frozen=True)):  # a class's own __init__ is kept
        assert decorate(type("Own", (), {"__annotations__": {"a": "int"}, "__init__": own_init}))(2).a == 4
