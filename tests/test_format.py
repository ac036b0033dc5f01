"""`scigame fmt`: one canonical layout that keeps the card and its comments.

Properties, on every bundled card and on generated cards (random statement
order, spacing, line breaks inside statements, own-line and trailing
comments, blank lines): formatting is idempotent, the formatted card parses
to the same AST (spans aside, statements of different kinds in canonical
order), and every comment survives.
"""

from __future__ import annotations

import string
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scigame.cli import main
from scigame.compiler import parse_source
from scigame.compiler.format import card_shape, format_text, statement_order, without_spans

REPO = Path(__file__).resolve().parent.parent
BUNDLED = sorted((REPO / "cards").rglob("*.sci")) + sorted((REPO / "examples").rglob("*.sci"))
BUNDLED += sorted((REPO / "tests" / "cards").glob("*.sci"))  # noise and ood, which no bundled card uses yet


def assert_preserved(text: str, exact_order: bool = False) -> str:
    first = format_text(text)
    assert first.text is not None, [d.message for d in first.diagnostics]
    second = format_text(first.text)
    assert second.text == first.text, "formatting is not idempotent"
    before, _ = parse_source(text)
    after, diags = parse_source(first.text)
    assert after is not None, [d.message for d in diags]
    assert card_shape(after) == card_shape(before)
    if exact_order:
        assert without_spans(after) == without_spans(before)
    assert sorted(second.comments) == sorted(first.comments)
    assert all(line == line.rstrip() for line in first.text.split("\n"))
    return first.text


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_bundled_card_round_trips(path):
    assert_preserved(path.read_text(encoding="utf-8"))


#: LANGUAGE.md's system example, kept exactly as the contract writes it (one-line blocks and all).
AS_WRITTEN = {REPO / "cards" / "systems" / "two_body.sci"}


def test_bundled_cards_are_formatted():
    paths = [str(p) for p in sorted((REPO / "cards").rglob("*.sci")) if p not in AS_WRITTEN]
    result = CliRunner().invoke(main, ["fmt", "--check", *paths])
    assert result.exit_code == 0, result.output


# ---- generated cards -----------------------------------------------------------

NAMES = ["x", "y", "k", "m1", "T_0", "alpha"]
UNITS = ["[m]", "[kg m^-1]", "[J/(mol*K)]", "[1]", "[ m / s ]"]
NUMBERS = ["0", "2", "0.5", ".25", "6.674e-11", "1E3", "12"]


def number(rnd) -> str:
    return rnd.choice(NUMBERS)


def signed(rnd) -> str:
    return rnd.choice(["", "-"]) + number(rnd)


def text(rnd, alphabet: str, lo: int, hi: int) -> str:
    return "".join(rnd.choice(alphabet) for _ in range(rnd.randint(lo, hi)))


def words(rnd) -> str:
    return text(rnd, string.ascii_letters + " ,.;:'()", 1, 20).strip() or "w"


def one_line_string(rnd) -> str:
    body = text(rnd, string.ascii_letters + ' "\\é#{}', 0, 15)
    return '"' + body.replace("\\", "\\\\").replace('"', '\\"') + '"'


def block_string(rnd) -> str:
    lines = [words(rnd) if rnd.random() < 0.7 else "" for _ in range(rnd.randint(1, 4))]
    if not any(lines):
        lines = ["text"]
    pad = " " * rnd.randint(0, 6)
    extra = [rnd.choice(["", "  "]) for _ in lines]
    return '"""\n' + "\n".join(pad + e + line for e, line in zip(extra, lines)) + '\n  """'


def a_string(rnd) -> str:
    return block_string(rnd) if rnd.randint(0, 4) == 0 else one_line_string(rnd)


def expr(rnd, depth: int = 0) -> list[str]:
    """Tokens of an expression, built along the grammar's precedence levels."""
    terms = [product(rnd, depth)]
    for _ in range(rnd.randint(0, 2 if depth < 2 else 0)):
        terms += [[rnd.choice(["+", "-"])], product(rnd, depth)]
    return [t for part in terms for t in part]


def product(rnd, depth):
    out = unary(rnd, depth)
    for _ in range(rnd.randint(0, 2 if depth < 2 else 0)):
        out += [rnd.choice(["*", "/"])] + unary(rnd, depth)
    return out


def unary(rnd, depth):
    if depth < 4 and rnd.randint(0, 5) == 0:
        return ["-"] + unary(rnd, depth + 1)
    base = atom(rnd, depth)
    if depth < 4 and rnd.randint(0, 3) == 0:
        return base + ["^"] + unary(rnd, depth + 1)
    return base


def atom(rnd, depth):
    choice = rnd.randint(0, 5 if depth < 3 else 1)
    if choice == 0:
        return [rnd.choice(NAMES)]
    if choice == 1:
        return [number(rnd)] + ([rnd.choice(UNITS)] if (rnd.random() < 0.5) else [])
    if choice in (2, 3):
        return ["("] + expr(rnd, depth + 1) + [")"]
    args = [expr(rnd, depth + 1) for _ in range(rnd.randint(0, 2))]
    joined = [t for i, a in enumerate(args) for t in ([","] if i else []) + a]
    return [rnd.choice(["sqrt", "exp", "atan2", "min"]), "("] + joined + [")"]


def opt(rnd, tokens: list[str]) -> list[str]:
    return tokens if (rnd.random() < 0.5) else []


def statement(rnd) -> list[str]:
    kind = rnd.choice(["meta", "date", "background", "conditions", "input", "output", "param",
                                 "let", "law", "constraint", "design", "evaluation", "identification",
                                 "adaptive"])
    name = rnd.choice(NAMES)
    unit = opt(rnd, [rnd.choice(UNITS)])
    desc = opt(rnd, [a_string(rnd)])
    if kind == "meta":
        key = rnd.choice(["collection", "field", "source", "doi"])
        return [key, name if key in ("collection", "field") else one_line_string(rnd)]
    if kind == "date":
        return [rnd.choice(["published", "preprint"]), "2025-03-17"]
    if kind in ("background", "conditions"):
        return [kind, a_string(rnd)]
    if kind == "input":
        domain = rnd.choice(([["in", "LO", "..", "HI"], ["in", "log", "LO", "..", "HI"],
                                       ["integer", "in", "LO", "..", "HI"], ["in", "{", "LO", ",", "HI", "}"]]))
        domain = [signed(rnd) if t in ("LO", "HI") else t for t in domain]
        return ["input", name] + unit + domain + desc
    if kind == "output":
        res = opt(rnd, ["resolution", signed(rnd)])
        rel = [number(rnd)] + opt(rnd, ["%"])
        noise = opt(rnd, ["noise", "gaussian", "rel", number(rnd)] + opt(rnd, ["abs", number(rnd)]))
        return ["output", name] + unit + res + ["tolerance", "abs", signed(rnd), "rel"] + rel + noise + desc
    if kind == "param":
        return ["param", name, "=", signed(rnd)] + unit + desc
    if kind in ("let", "law"):
        return [kind, name, "="] + expr(rnd)
    if kind == "constraint":
        return ["constraint"] + expr(rnd) + [rnd.choice(["<", "<=", ">", ">="])] + expr(rnd) + desc
    if kind == "design":
        if (rnd.random() < 0.5):
            return ["fixed", "design", number(rnd), "sobol"] + opt(rnd, ["seed", "1"])
        points = [[t for n in NAMES[:rnd.randint(1, 3)] for t in (n, "=", signed(rnd))]
                  for _ in range(rnd.randint(1, 3))]
        return ["fixed", "design", "{"] + [t for i, p in enumerate(points) for t in ([";"] if i else []) + p] + ["}"]
    if kind == "evaluation":
        return ["evaluation", number(rnd)] + opt(rnd, ["seed", "7"]) + opt(rnd, ["ood", number(rnd)])
    if kind == "identification":
        return ["identification", "interpolate", rnd.choice(["yes", "no"])]
    return ["adaptive", "threshold", "0.9"] + opt(rnd, ["max_steps", "64"])


def mutation(rnd) -> list[str]:
    kind = rnd.choice(["set", "scale", "rebalance", "let", "law", "magnitude"])
    name = rnd.choice(NAMES)
    if kind == "magnitude":
        return ["magnitude", "differs", '"' + text(rnd, string.ascii_letters + " ", 1, 12) + '"']
    if kind == "set":
        return ["set", name, "="] + [signed(rnd)] + opt(rnd, [rnd.choice(UNITS)])
    if kind == "scale":
        return ["scale", name, "by", signed(rnd)]
    if kind == "rebalance":
        at = [[rnd.choice(NAMES), "=", signed(rnd)] + opt(rnd, [rnd.choice(UNITS)])
              for _ in range(rnd.randint(1, 2))]
        return ["rebalance", name] + opt(rnd, ["at"] + [t for i, a in enumerate(at) for t in ([","] if i else []) + a])
    return [kind, name, "="] + expr(rnd)


def comment(rnd) -> str:
    return "#" + text(rnd, string.ascii_letters + ' #"{}', 0, 12)


def spaced(rnd, tokens: list[str]) -> str:
    """Tokens joined by random blanks, line breaks and comments; `x^-2`-style
    neighbours may touch."""
    out = tokens[0]
    for tok in tokens[1:]:
        sep = rnd.choice([" ", " ", " ", "   ", "\n      ", None])
        if sep is None:
            sep = f"  {comment(rnd)}\n    "
        out += sep + tok
    return out


def generated_card(rnd, shuffle: bool = True) -> str:
    body = [statement(rnd) for _ in range(rnd.randint(1, 12))]
    cf = [mutation(rnd) for _ in range(rnd.randint(0, 4))]
    if not shuffle:
        body.sort(key=lambda toks: _order_of(toks))
    cf_order = statement_order(parse_source('card c "t" { counterfactual "c" {} }')[0].statements[0])
    pos = (rnd.randint(0, len(body)) if shuffle
           else sum(1 for toks in body if _order_of(toks) < cf_order))
    lines = []
    for i, toks in enumerate(body + [None]):
        if i == pos:
            inner = "\n".join("    " + spaced(rnd, m) + (f"  {comment(rnd)}" if (rnd.random() < 0.5) else "")
                              for m in cf)
            lines.append(f"  counterfactual {one_line_string(rnd)} {{  {comment(rnd)}\n{inner}\n  }}")
        if toks is None:
            continue
        if rnd.randint(0, 3) == 0:
            lines.append("")
        if rnd.randint(0, 3) == 0:
            lines.append("  " + comment(rnd))
        trailing = f"  {comment(rnd)}" if (rnd.random() < 0.5) else ""
        lines.append("  " + spaced(rnd, toks) + trailing)
    head = comment(rnd) + "\n\n" if (rnd.random() < 0.5) else ""
    return head + f"card gen {one_line_string(rnd)} {{\n" + "\n".join(lines) + "\n}\n"


def _order_of(tokens: list[str]) -> int:
    card, _ = parse_source("card c \"t\" {\n" + " ".join(tokens) + "\n}\n")
    return statement_order(card.statements[0])


GENERATED = settings(max_examples=1000, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@GENERATED
@given(st.randoms(use_true_random=False))
def test_generated_card_round_trips(rnd):
    assert_preserved(generated_card(rnd))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.randoms(use_true_random=False))
def test_card_in_canonical_order_keeps_its_exact_ast(rnd):
    assert_preserved(generated_card(rnd, shuffle=False), exact_order=True)


# ---- the layout itself -------------------------------------------------------------

MESSY = '''# a header comment
card   demo "Demo"{
  law y=k*x^-2/(x-(x-x))   # the law
  input x [m] in 1..2 "first"   input longer_name [kg] in log 1e-3 .. 10
  output y [N] tolerance abs 1e-3 rel 1%
  collection historical
  source "S (2025)"
  param k=3 [N*m^2] "coupling"

  counterfactual "c" { set k = 4 [N*m^2]   # stronger
  }
}
'''

CANONICAL = '''# a header comment
card demo "Demo" {
  collection historical
  source     "S (2025)"
  input  x           [m]  in 1 .. 2          "first"
  input  longer_name [kg] in log 1e-3 .. 10
  output y           [N]  tolerance abs 1e-3 rel 1%
  param k = 3 [N*m^2]  "coupling"
  law y = k * x^-2 / (x - (x - x))  # the law

  counterfactual "c" {
    set k = 4 [N*m^2]  # stronger
  }
}
'''


def test_messy_card_gets_the_canonical_layout():
    assert format_text(MESSY).text == CANONICAL


def test_comment_inside_a_statement_moves_before_it():
    text = 'card c "t" {\n  law y = x +\n    # why\n    1\n}\n'
    assert format_text(text).text == 'card c "t" {\n  # why\n  law y = x + 1\n}\n'


def test_cli_check_lists_files_and_exits_1(tmp_path):
    (tmp_path / "demo.sci").write_text(MESSY)
    (tmp_path / "ok.sci").write_text(CANONICAL)
    runner = CliRunner()
    result = runner.invoke(main, ["fmt", "--check", str(tmp_path)])
    assert result.exit_code == 1
    assert f"would reformat {tmp_path / 'demo.sci'}" in result.output
    assert "ok.sci" not in result.stdout
    assert (tmp_path / "demo.sci").read_text() == MESSY  # --check writes nothing
    diff = runner.invoke(main, ["fmt", "--diff", str(tmp_path / "demo.sci")])
    assert diff.exit_code == 0 and "+  source     \"S (2025)\"" in diff.stdout
    assert runner.invoke(main, ["fmt", str(tmp_path)]).exit_code == 0
    assert (tmp_path / "demo.sci").read_text() == CANONICAL
    assert runner.invoke(main, ["fmt", "--check", str(tmp_path)]).exit_code == 0


def test_cli_syntax_error_names_the_place(tmp_path):
    bad = tmp_path / "bad.sci"
    bad.write_text('card c "t" {\n  law y = x +\n}\n')
    result = CliRunner().invoke(main, ["fmt", str(bad)])
    assert result.exit_code == 1
    assert f"{bad}:3:1" in result.output
    assert bad.read_text() == 'card c "t" {\n  law y = x +\n}\n'
