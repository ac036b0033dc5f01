"""One registry per statement: every statement rule of the grammar has a
builder (compiler/statements.py's BUILDERS), and its AST class a handler in each
consumer: the formatter's cells or blocks, the JSON document's places, the
counterfactual's steps (mutations) and the language server's declarations.
A statement rule added to grammar/sci.lark without them fails here, naming
the rule and the consumer that lacks it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from lark import Lark

from scigame import interchange, lsp
from scigame.compiler import ast as A
from scigame.compiler import counterfactual, format as fmt
from scigame.compiler import parse_source
from scigame.compiler import statements as S
from scigame.compiler.format import card_shape, format_text
from scigame.compiler.syntax import _grammar_file, parser

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "statements"
#: The grammar's lists of statements: the card's, a counterfactual's, a system's.
SCOPES = ("_stmt", "_mutation", "_system_stmt")


def statement_rules(lark: Lark) -> dict[str, list[str]]:
    """Each scope's statement rules, as the grammar lists them."""
    out: dict[str, list[str]] = {scope: [] for scope in SCOPES}
    for rule in lark.rules:
        if rule.origin.name in out and rule.expansion[0].name not in out[rule.origin.name]:
            out[rule.origin.name].append(rule.expansion[0].name)
    return out


def missing_handlers(scopes: dict[str, list[str]]) -> list[str]:
    """`rule: consumer` for each statement rule some consumer has no handler for."""
    rule_class = {rule: cls for cls, rules in S.STATEMENT_RULES.items() for rule in rules}
    interchange_table = {"_stmt": interchange.STATEMENTS, "_mutation": interchange.MUTATIONS,
                         "_system_stmt": interchange.SYSTEM_ITEMS}
    missing = []
    for scope, rules in scopes.items():
        for rule in rules:
            cls = rule_class.get(rule)
            if rule not in S.BUILDERS or cls is None:
                missing.append(f"{rule}: builder (compiler/statements.py, @_builds)")
                continue
            if cls not in fmt.CELLS and cls not in fmt.BLOCKS:
                missing.append(f"{rule}: formatter (compiler/format.py, CELLS or BLOCKS)")
            if cls not in interchange_table[scope]:
                missing.append(f"{rule}: JSON (scigame/interchange.py, {scope})")
            if scope == "_mutation" and cls not in counterfactual.STEPS:
                missing.append(f"{rule}: counterfactual step (compiler/counterfactual.py, STEPS)")
            if cls not in lsp.DECLARES and cls not in lsp.DECLARES_NOTHING:
                missing.append(f"{rule}: language server (scigame/lsp.py, DECLARES or DECLARES_NOTHING)")
    return missing


def test_every_grammar_statement_has_a_handler_in_each_consumer():
    scopes = statement_rules(parser())
    assert all(scopes.values()) and "law_function" in scopes["_stmt"] and "state" in scopes["_system_stmt"]
    assert missing_handlers(scopes) == []


def test_a_statement_added_to_the_grammar_alone_is_caught():
    text = _grammar_file("sci.lark").read_text(encoding="utf-8")
    text = text.replace("_stmt: collection\n", "_stmt: collection\n     | frobnicate\n", 1)
    text += '\nfrobnicate: "frobnicate" NAME\n'
    scopes = statement_rules(Lark(text, parser="lalr"))
    assert "frobnicate" in scopes["_stmt"]
    assert missing_handlers(scopes) == ["frobnicate: builder (compiler/statements.py, @_builds)"]


def test_a_built_statement_without_consumers_is_caught(monkeypatch):
    @dataclass(frozen=True)
    class Frobnicate(A.Named):
        pass

    monkeypatch.setitem(S.BUILDERS, "frobnicate", lambda b, ch, span, kind: Frobnicate(*b.named(span, ch)))
    monkeypatch.setitem(S.STATEMENT_RULES, Frobnicate, ("frobnicate",))
    assert missing_handlers({"_mutation": ["frobnicate"]}) == [
        "frobnicate: formatter (compiler/format.py, CELLS or BLOCKS)",
        "frobnicate: JSON (scigame/interchange.py, _mutation)",
        "frobnicate: counterfactual step (compiler/counterfactual.py, STEPS)",
        "frobnicate: language server (scigame/lsp.py, DECLARES or DECLARES_NOTHING)"]


def _classes(nodes) -> set[type]:
    out = set()
    for n in nodes:
        out.add(type(n))
        if type(n) in fmt.BLOCKS:
            out |= _classes(fmt.BLOCKS[type(n)](n)[1])
    return out


def _cards():
    return [parse_source(p.read_text(encoding="utf-8"), str(p))[0] for p in sorted(FIXTURES.glob("*.sci"))]


def test_the_fixture_cards_hold_every_statement_class():
    """So that the round trips below meet every class (a new class needs a line there)."""
    held = set().union(*(_classes(c.statements) for c in _cards()))
    assert set(S.STATEMENT_RULES) - held == set()
    metas = {s.key for c in _cards() for s in c.statements if isinstance(s, A.Meta)}
    assert metas == set(S.STATEMENT_RULES[A.Meta])


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*.sci")), ids=lambda p: p.stem)
def test_every_statement_formats_and_round_trips_through_json(path):
    text = path.read_text(encoding="utf-8")
    card = parse_source(text, str(path))[0]
    formatted = format_text(text, str(path))
    assert formatted.text is not None, [d.message for d in formatted.diagnostics]
    assert card_shape(parse_source(formatted.text)[0]) == card_shape(card)

    doc = interchange.export_card(card)
    imported = interchange.import_card(json.loads(json.dumps(doc)))
    again = parse_source(imported)[0]
    assert interchange.export_card(again) == doc
    # numbers come back as JSON spells them (`1%` as 0.01); every statement comes back
    assert sorted(map(str, _classes(again.statements))) == sorted(map(str, _classes(card.statements)))
    assert len(again.statements) == len(card.statements)


def test_operators_agree_with_the_grammar():
    """compiler/ast.py's OPERATORS: one row per operator alias of the grammar,
    and its precedence the depth of the alias's rule in the expression chain
    (`expr` -> `sum` -> `product` -> `unary` -> `power`)."""
    from scigame.compiler.printer import format_expr

    lark = parser()
    chain, rule = [], "expr"
    while True:  # follow the chain of one-symbol expansions down to the atoms
        step = next((r.expansion[0].name for r in lark.rules if r.origin.name == rule and len(r.expansion) == 1
                     and not r.expansion[0].is_term and r.alias is None), None)
        if step is None or step == "atom":
            break
        chain.append(step)
        rule = step
    aliased = {r.alias: chain.index(r.origin.name) + 1 for r in lark.rules if r.origin.name in chain and r.alias}
    assert set(aliased) == set(A.OPERATORS)
    assert {name: op.precedence for name, op in A.OPERATORS.items()} == aliased
    # and the printer writes each as the grammar reads it
    for name in A.BINARY_OPERATORS:
        law = parse_source(f'card c "t" {{ law y = a {A.OPERATORS[name].text} b }}')[0].statements[0]
        assert (law.expr.op, format_expr(law.expr)) == (name, f"a{A.OPERATORS[name].text}b" if name == "pow"
                                                         else f"a {A.OPERATORS[name].text} b")
