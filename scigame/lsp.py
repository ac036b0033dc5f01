"""`scigame lsp`: a language server for `.sci` cards over stdio (pygls).

- diagnostics on open, change and save: every lint finding, with its code
  and range;
- hover: the unit and dimension of a declared name, or the dimension of the
  smallest expression under the cursor (in the world whose law it is);
- go to definition: from a name (or a unit the card defines) to the
  statement that declares it;
- completion: the card's names, units (the card's own and pint's common
  ones, inside `[...]`), functions and statement keywords.

Hover, definition and completion keep working on a card with errors: a
type error leaves the rest typed (`compiler.partial.partial_model`), and
after a syntax error the statements that still parse are read
(`compiler.partial.recovering_parse`). Diagnostics are published after
every change; the server asks for incremental changes (pygls applies them).

The pure functions (`lsp_diagnostics`, `hover_text`, `definition_span`,
`completions`) take card text and 0-based LSP positions; `serve()` wires
them to pygls. Columns are counted in characters, as the checker counts them.
"""

from __future__ import annotations

import re
import sys
from dataclasses import fields, is_dataclass
from typing import Optional

from .compiler import ast as A
from .compiler.source import Span
from .grammar import terminal_pattern

_WORD = re.compile(terminal_pattern("NAME"))


def _contains(span: Span, line: int, col: int) -> bool:
    """Is the 1-based (line, col) inside span (end exclusive)?"""
    return (span.line, span.column) <= (line, col) < (span.end_line, span.end_column)


def _size(span: Span) -> tuple[int, int]:
    return (span.end_line - span.line, span.end_column - span.column)


def word_at(text: str, line0: int, char0: int) -> Optional[tuple[str, int]]:
    """The name under a 0-based position and its 1-based start column."""
    lines = text.split("\n")
    if not 0 <= line0 < len(lines):
        return None
    for m in _WORD.finditer(lines[line0]):
        if m.start() <= char0 <= m.end():
            return m.group(0), m.start() + 1
    return None


# ---- diagnostics --------------------------------------------------------------------


def lsp_diagnostics(text: str, path: str) -> list[dict]:
    """The lint diagnostics of a card as LSP Diagnostic objects (plain dicts)."""
    from .compiler import check_source
    severity = {"error": 1, "warning": 2, "note": 3}
    out = []
    for d in check_source(text, path).diagnostics:
        s = d.span
        end_line, end_col = (s.end_line, s.end_column) if (s.end_line, s.end_column) > (s.line, s.column) \
            else (s.line, s.column + 1)
        message = d.message + "".join(f"\nhint: {h}" for h in d.hints)
        out.append({"range": {"start": {"line": s.line - 1, "character": s.column - 1},
                              "end": {"line": end_line - 1, "character": end_col - 1}},
                    "severity": severity[d.severity.value], "code": d.code, "source": "scigame",
                    "message": message})
    return out


# ---- declarations ---------------------------------------------------------------------


#: The kind of name each statement class declares; the classes in DECLARES_NOTHING
#: declare none (tests/test_statements.py checks that every statement class is in one).
DECLARES = {A.Input: "input", A.Output: "output", A.Param: "param", A.Let: "let", A.LawFunction: "law",
            A.Argument: "argument", A.State: "state", A.UnitDefinition: "unit"}
DECLARES_NOTHING = {A.Meta, A.Law, A.Constraint, A.Counterfactual, A.System, A.SystemTime, A.Rate,
                    A.SetMutation, A.ScaleMutation, A.RebalanceMutation, A.MagnitudeDiffers,
                    A.DesignGenerated, A.DesignExplicit, A.Evaluation, A.Identification, A.Adaptive}


def declarations(card: A.Card) -> dict[str, tuple[str, A.Input | A.Output | A.Param | A.Let]]:
    """Every name the card declares (first declaration wins) -> (kind, statement),
    a system's states and lets among them; units the card defines are there
    too, of kind `unit`. A counterfactual declares nothing."""
    out: dict = {}
    for s in card.statements:
        for it in (s.items if isinstance(s, A.System) else (s,)):
            kind = DECLARES.get(type(it))
            if kind is not None:
                out.setdefault(it.name, (kind, it))
    return out


def _readable_card(text: str) -> Optional[A.Card]:
    """The AST of as much of the card as parses."""
    from .compiler.partial import recovering_parse
    return recovering_parse(text)


def definition_span(text: str, line0: int, char0: int) -> Optional[Span]:
    """Where the name under the cursor is declared (None if nowhere)."""
    found = word_at(text, line0, char0)
    card = _readable_card(text) if found is not None else None
    if card is None:
        return None
    decl = declarations(card).get(found[0])
    return decl[1].name_span if decl else None


# ---- hover ------------------------------------------------------------------------------


def _typed_nodes(expr):
    yield expr
    if is_dataclass(expr):
        for f in fields(expr):
            v = getattr(expr, f.name)
            for item in (v if isinstance(v, tuple) else (v,)):
                if is_dataclass(item) and hasattr(item, "dim"):
                    yield from _typed_nodes(item)


def _expressions(model):
    """(world, typed expression) for every law, let and constraint side."""
    for env in (model.original, model.counterfactual):
        for _, e in env.lets:
            yield env.name, e
        for e in env.laws.values():
            yield env.name, e
        w = env.system
        if w is not None:  # a system card: its law, initial values, lets and rates
            yield env.name, w.law_body
            for _, e in w.initial + w.lets + w.rates:
                yield env.name, e
        for w in env.where.values():
            yield env.name, w.left
            yield env.name, w.right
    for c in model.constraints:
        yield "both worlds", c.left
        yield "both worlds", c.right


def _name_hover(model, name: str) -> Optional[str]:
    from .compiler.units import describe_dim
    for i in model.inputs:
        if i.name == name:
            return f"input `{name}` [{i.unit.text}]: {describe_dim(i.unit.dim)}" + _desc(i.description)
    for o in model.outputs:
        if o.name == name:
            return f"output `{name}` [{o.unit.text}]: {describe_dim(o.unit.dim)}" + _desc(o.description)
    info = model.system
    for s in (info.states if info is not None else ()):
        if s.name == name:
            return f"state `{name}` [{s.unit.text}]: {describe_dim(s.unit.dim)}" + _desc(s.description)
    for a in (info.arguments if info is not None else ()):
        if a.name == name:
            return f"law argument `{name}` [{a.unit.text}]: {describe_dim(a.unit.dim)}" + _desc(a.description)
    if info is not None and name == info.law:
        return f"law `{name}`({', '.join(a.name for a in info.arguments)}): {describe_dim(info.law_dim)}"
    parts = []
    for env in (model.original, model.counterfactual):
        p = env.params.get(name)
        if p is not None:
            parts.append(f"{env.name}: [{p.unit_text}], {describe_dim(p.dim)}")
    if parts:
        return f"param `{name}`: " + "; ".join(dict.fromkeys(parts))
    return None


def _desc(text: str) -> str:
    return f" — {text}" if text else ""


def hover_text(text: str, line0: int, char0: int, path: str = "<string>") -> Optional[str]:
    """What to show for the position: a declared name's unit and dimension,
    or the dimension of the smallest expression there. None when the card
    does not check (the dimensions are then unknown) or nothing is there."""
    from .compiler import check_source
    from .compiler.units import describe_dim
    model = check_source(text, path).card
    if model is None:
        return partial_hover(text, line0, char0, path)
    line, col = line0 + 1, char0 + 1
    hits = [(world, node) for world, expr in _expressions(model) for node in _typed_nodes(expr)
            if node.dim is not None and _contains(node.span, line, col)]
    word = word_at(text, line0, char0)
    if hits:
        smallest = min(_size(n.span) for _, n in hits)
        span = next(n.span for _, n in hits if _size(n.span) == smallest)
        same = [(w, n) for w, n in hits if n.span == span]
        if not (word and getattr(same[0][1], "name", None) == word[0]):
            dims = {w: describe_dim(n.dim) for w, n in same}
            worlds = "; ".join(f"{w}: {d}" for w, d in dims.items()) if len(set(dims.values())) > 1 \
                else next(iter(dims.values()))
            return f"`{_span_text(text, span)}`: {worlds}"
    if word is not None:
        named = _name_hover(model, word[0])
        if named:
            return named
        let = next((e for w, e in _lets(model) if w == word[0]), None)
        if let is not None:
            return f"let `{word[0]}`: {describe_dim(let.dim)}"
    return partial_hover(text, line0, char0, path) if word is not None else None  # e.g. a card unit


def partial_hover(text: str, line0: int, char0: int, path: str = "<string>") -> Optional[str]:
    """Hover on a card with errors: what the original world's typing still
    knows (a dimension left unknown by a mistake is not shown)."""
    from .compiler.partial import partial_model
    from .compiler.units import describe_dim
    card = _readable_card(text)
    if card is None:
        return None
    model = partial_model(card, text, path)
    line, col = line0 + 1, char0 + 1
    word = word_at(text, line0, char0)
    hits = [n for _, expr in model.expressions for n in _typed_nodes(expr)
            if n.dim is not None and _contains(n.span, line, col)]
    if hits:
        node = min(hits, key=lambda n: _size(n.span))
        if not (word and getattr(node, "name", None) == word[0]):
            return f"`{_span_text(text, node.span)}`: {describe_dim(node.dim)}"
    info = model.names.get(word[0]) if word else None
    if info is not None and info.dim is not None:
        unit = f" [{info.unit.text}]" if info.unit is not None and info.kind != "let" else ""
        return f"{info.kind} `{info.name}`{unit}: {describe_dim(info.dim)}" + _desc(info.description)
    if word and word[0] in model.units:
        u = model.units[word[0]]
        return f"unit `{word[0]}` = {u.si_factor:g} {_si_text(u)}: {describe_dim(u.dim)}"
    return None


def _si_text(unit) -> str:
    from .compiler.units import format_si_unit
    return "" if unit.dim.dimensionless else format_si_unit(unit.dim)


# ---- completion ----------------------------------------------------------------------------

#: Units offered inside `[...]` besides the card's own (pint knows many more; these are the usual ones).
COMMON_UNITS = ("m", "cm", "mm", "km", "um", "nm", "au", "pc", "ly", "s", "ms", "min", "h", "day", "yr",
                "kg", "g", "mg", "N", "J", "kJ", "eV", "W", "mW", "kW", "Pa", "kPa", "bar", "atm", "K",
                "mol", "mM", "uM", "M", "L", "mL", "A", "mA", "V", "mV", "ohm", "C", "F", "H", "T", "Hz",
                "rad", "deg", "cd", "1")


def _inside_brackets(text: str, line0: int, char0: int) -> bool:
    lines = text.split("\n")
    before = lines[line0][:char0] if 0 <= line0 < len(lines) else ""
    return before.rfind("[") > before.rfind("]")


def completions(text: str, line0: int, char0: int) -> list[dict]:
    """Completion items (plain dicts: label, kind, detail) for a position:
    units inside `[...]`; otherwise the card's names, functions, `pi` and
    the statement keywords. Works on a card with errors."""
    from .compiler.functions import FUNCTIONS
    from .compiler.syntax import statement_keywords
    card = _readable_card(text)
    decls = declarations(card) if card is not None else {}
    if _inside_brackets(text, line0, char0):
        own = [{"label": n, "kind": 11, "detail": "unit defined by this card"}
               for n, (kind, _) in decls.items() if kind == "unit"]
        return own + [{"label": u, "kind": 11, "detail": "unit"} for u in COMMON_UNITS]
    items = [{"label": n, "kind": 6, "detail": kind + (f" — {st.description}" if getattr(st, "description", "")
                                                        else "")}
             for n, (kind, st) in decls.items() if kind != "unit"]
    items += [{"label": f, "kind": 3, "detail": "function"} for f in sorted(FUNCTIONS)]
    items.append({"label": "pi", "kind": 21, "detail": "constant"})
    items += [{"label": k, "kind": 14, "detail": "statement"} for k in sorted(statement_keywords() | {"where"})]
    return items


def _lets(model):
    for env in (model.original, model.counterfactual):
        yield from env.lets


def _span_text(text: str, span: Span) -> str:
    lines = text.split("\n")
    if span.line == span.end_line:
        return lines[span.line - 1][span.column - 1:span.end_column - 1]
    first = lines[span.line - 1][span.column - 1:]
    return (first + " ...")[:60]


# ---- the server -------------------------------------------------------------------------


def _typed_diagnostic(T, d: dict):
    """One of lsp_diagnostics' plain dicts as pygls' Diagnostic."""
    return T.Diagnostic(range=T.Range(start=T.Position(**d["range"]["start"]), end=T.Position(**d["range"]["end"])),
                        message=d["message"], severity=T.DiagnosticSeverity(d["severity"]),
                        code=d["code"], source=d["source"])


def _typed_range(T, span):
    """A card span (1-based) as an LSP range (0-based)."""
    return T.Range(start=T.Position(line=span.line - 1, character=span.column - 1),
                   end=T.Position(line=span.end_line - 1, character=span.end_column - 1))


def serve() -> None:  # pragma: no cover - exercised through a subprocess in tests/test_lsp.py
    """Run the language server on stdin/stdout until the client exits."""
    from lsprotocol import types as T
    from pygls.lsp.server import LanguageServer
    from pygls.uris import to_fs_path

    from . import __version__

    from .lsp_framing import FramedInput, one_line_logs, protocol_class

    one_line_logs()

    server = LanguageServer("scigame", __version__, protocol_cls=protocol_class())  # see lsp_framing.py

    def publish(uri: str) -> None:
        doc = server.workspace.get_text_document(uri)
        diags = [_typed_diagnostic(T, d) for d in lsp_diagnostics(doc.source, to_fs_path(uri) or uri)]
        server.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri=uri, diagnostics=diags,
                                                                            version=doc.version))

    @server.feature(T.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls, params: T.DidOpenTextDocumentParams):
        publish(params.text_document.uri)

    @server.feature(T.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls, params: T.DidChangeTextDocumentParams):
        publish(params.text_document.uri)

    @server.feature(T.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls, params: T.DidSaveTextDocumentParams):
        publish(params.text_document.uri)

    @server.feature(T.TEXT_DOCUMENT_HOVER)
    def hover(ls, params: T.HoverParams):
        doc = server.workspace.get_text_document(params.text_document.uri)
        text = hover_text(doc.source, params.position.line, params.position.character,
                          to_fs_path(params.text_document.uri) or "<string>")
        if text is None:
            return None
        return T.Hover(contents=T.MarkupContent(kind=T.MarkupKind.Markdown, value=text))

    @server.feature(T.TEXT_DOCUMENT_DEFINITION)
    def definition(ls, params: T.DefinitionParams):
        doc = server.workspace.get_text_document(params.text_document.uri)
        span = definition_span(doc.source, params.position.line, params.position.character)
        if span is None:
            return None
        return T.Location(uri=params.text_document.uri, range=_typed_range(T, span))

    @server.feature(T.TEXT_DOCUMENT_COMPLETION, T.CompletionOptions(trigger_characters=["["]))
    def completion(ls, params: T.CompletionParams):
        doc = server.workspace.get_text_document(params.text_document.uri)
        items = completions(doc.source, params.position.line, params.position.character)
        return T.CompletionList(is_incomplete=False, items=[
            T.CompletionItem(label=i["label"], kind=T.CompletionItemKind(i["kind"]), detail=i["detail"])
            for i in items])

    server.start_io(stdin=FramedInput(sys.stdin.buffer))  # any header survives (lsp_framing.py)
