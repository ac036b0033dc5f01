"""Issue #28: the language server keeps answering on a card with errors,
driven over JSON-RPC (stdio) against the real `scigame lsp` process."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pygls")

from tests.test_lsp import Client, position  # noqa: E402  (after the skip)

REPO = Path(__file__).resolve().parent.parent
GRAVITATION = (REPO / "cards/historical/gravitation.sci").read_text()
#: a type error in the law: F is not a force any more
TYPE_ERROR = GRAVITATION.replace("G * m1 * m2 / r^n", "G * m1 * m2 / r")
#: a syntax error in the law (Python's power)
SYNTAX_ERROR = GRAVITATION.replace("G * m1 * m2 / r^n", "G * m1 * m2 / r**n")
KEPLER = """card kepler "Kepler's third law" {
  collection historical
  source     "J. Kepler, Harmonices Mundi (1619)"
  background "A planet circles a star; its period is timed."
  unit solar_mass = 1.98847e30 [kg] "nominal solar mass"
  input  a [au]         in 0.5 .. 5  "orbit radius"
  input  M [solar_mass] in 0.5 .. 2  "mass of the star"
  output T [yr] tolerance abs 1e-6 rel 1%  "period"
  param G = 6.674e-11 [m^3 kg^-1 s^-2]
  law T = 2 * pi * sqrt(a^3 / (G * M)) * M
  counterfactual "c" { scale G by 2 }
}
"""


@pytest.fixture
def client():
    c = Client()
    try:
        init = c.request("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
        c.capabilities = init["capabilities"]
        c.send("initialized", {}, request=False)
        yield c
    finally:
        c.close()


def _open(client, uri, text):
    client.send("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "sci", "version": 1,
                                                          "text": text}}, request=False)
    return client.diagnostics(uri)


def _at(uri, text, needle, offset=0):
    return {"textDocument": {"uri": uri}, "position": position(text, needle, offset)}


def test_type_error_still_answers_hover_definition_and_completion(client, tmp_path):
    uri = (tmp_path / "gravitation.sci").as_uri()
    diags = _open(client, uri, TYPE_ERROR)
    assert [d["code"] for d in diags if d["severity"] == 1] == ["E403"]

    hover = client.request("textDocument/hover", _at(uri, TYPE_ERROR, "m2 / r"))
    assert hover is not None and "input `m2` [kg]" in hover["contents"]["value"]
    hover = client.request("textDocument/hover", _at(uri, TYPE_ERROR, "G * m1 * m2 / r", 0))
    assert "param `G`" in hover["contents"]["value"] and "[length]^3" in hover["contents"]["value"]
    # the dimension of a sub-expression of the very law that does not balance
    hover = client.request("textDocument/hover", _at(uri, TYPE_ERROR, "m1 * m2 / r", 3))
    assert "[mass]·[length]^3·[time]^-2" in hover["contents"]["value"]

    where = client.request("textDocument/definition", _at(uri, TYPE_ERROR, "m2 / r", 5))
    assert where["uri"] == uri and where["range"]["start"] == position(TYPE_ERROR, "r  [m]")

    items = client.request("textDocument/completion", _at(uri, TYPE_ERROR, "G * m1"))
    labels = {i["label"] for i in (items["items"] if isinstance(items, dict) else items)}
    assert {"m1", "m2", "r", "G", "n", "F"} <= labels  # the card's names
    assert {"sqrt", "atan2", "pi", "input", "law", "where"} <= labels  # functions, constant, statements


def test_syntax_error_still_answers_where_the_text_parses(client, tmp_path):
    uri = (tmp_path / "gravitation.sci").as_uri()
    diags = _open(client, uri, SYNTAX_ERROR)
    assert [d["code"] for d in diags if d["severity"] == 1] == ["E100"]
    assert "`**`" in diags[0]["message"]
    hover = client.request("textDocument/hover", _at(uri, SYNTAX_ERROR, "input  m1", 7))
    assert "input `m1` [kg]" in hover["contents"]["value"]
    where = client.request("textDocument/definition", _at(uri, SYNTAX_ERROR, "rebalance G", 10))
    assert where["range"]["start"] == position(SYNTAX_ERROR, "G = 6.674e-11")


def test_completion_offers_the_cards_units_inside_brackets(client, tmp_path):
    uri = (tmp_path / "kepler.sci").as_uri()
    diags = _open(client, uri, KEPLER)  # the extra `* M` is a type error
    assert [d["code"] for d in diags if d["severity"] == 1] == ["E403"]
    items = client.request("textDocument/completion", _at(uri, KEPLER, "[solar_mass]", 1))
    labels = [i["label"] for i in (items["items"] if isinstance(items, dict) else items)]
    assert labels[0] == "solar_mass" and {"au", "kg", "yr", "m"} <= set(labels)
    assert "sqrt" not in labels  # inside brackets only units
    hover = client.request("textDocument/hover", _at(uri, KEPLER, "[solar_mass]", 3))
    assert "unit `solar_mass`" in hover["contents"]["value"] and "[mass]" in hover["contents"]["value"]
    where = client.request("textDocument/definition", _at(uri, KEPLER, "[solar_mass]", 3))
    assert where["range"]["start"] == position(KEPLER, "solar_mass =")


def test_diagnostics_follow_incremental_changes(client, tmp_path):
    sync = client.capabilities["textDocumentSync"]
    assert (sync["change"] if isinstance(sync, dict) else sync) == 2  # incremental
    uri = (tmp_path / "gravitation.sci").as_uri()
    assert not [d for d in _open(client, uri, GRAVITATION) if d["severity"] == 1]
    start = position(GRAVITATION, "r^n")
    end = {"line": start["line"], "character": start["character"] + len("r^n")}
    # replace `r^n` by `r` with a range edit: the law no longer balances
    client.send("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [
        {"range": {"start": start, "end": end}, "text": "r"}]}, request=False)
    assert [d["code"] for d in client.diagnostics(uri) if d["severity"] == 1] == ["E403"]
    # and back
    end = {"line": start["line"], "character": start["character"] + 1}
    client.send("textDocument/didChange", {"textDocument": {"uri": uri, "version": 3}, "contentChanges": [
        {"range": {"start": start, "end": end}, "text": "r^n"}]}, request=False)
    assert not [d for d in client.diagnostics(uri) if d["severity"] == 1]
