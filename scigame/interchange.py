"""Cards as JSON: `scigame export CARD --format json` and `scigame import`.

`CardDocument` (pydantic) is the JSON form of a card: every statement of
the `.sci` language, grouped by kind, with numbers as JSON numbers,
expressions as `.sci` expression text (`"G * m1 * m2 / r^n"`) and units as
the text between the brackets. Its JSON Schema is published as
`scigame/data/card.schema.json` (regenerate with
`python -m scigame.interchange > scigame/data/card.schema.json`).

`export_card(ast)` and `import_card(data)` round-trip exactly: a card
exported, imported and exported again gives the same JSON, and the
imported card has the same numbers, units and expressions, so it
simulates identically. Comments and layout are not carried (the imported
card is written in `scigame fmt`'s layout).

`read_card_json(raw)` is how `scigame import` reads the file, with limits
like lint's: at most MAX_JSON_BYTES, nested at most MAX_JSON_DEPTH deep,
at most MAX_TOKENS values in all (lint's token limit), integers of at most
MAX_INTEGER_DIGITS digits (and within ±2^53), no key twice in one object;
a name a card may not declare (`law`, `sin`, `pi`) is refused at import,
as lint would refuse it.
"""

from __future__ import annotations

import json
import math
import sys
from typing import Annotated, Any, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .compiler import ast as A
from .compiler.source import Span

SCHEMA_VERSION = 1
NAME = r"^[A-Za-z_][A-Za-z0-9_]*$"
UNIT = r"^[^\]\n]*$"
_NOWHERE = Span(1, 1, 1, 1)


class _Doc(BaseModel):
    model_config = ConfigDict(extra="forbid")


Name = Annotated[str, Field(pattern=NAME)]
Unit = Annotated[Optional[str], Field(pattern=UNIT, description="pint unit text, without brackets")]
Expression = Annotated[str, Field(min_length=1, description="a .sci expression, e.g. \"k * x^2\"")]


class RangeDomain(_Doc):
    kind: Literal["range", "log", "integer"]
    lo: float
    hi: float


class SetDomain(_Doc):
    kind: Literal["set"]
    values: list[float] = Field(min_length=1)


class InputDoc(_Doc):
    name: Name
    unit: Unit = None
    domain: Annotated[Union[RangeDomain, SetDomain], Field(discriminator="kind")]
    description: str = ""


class Tolerance(_Doc):
    abs: float
    rel: float = Field(description="a fraction: 0.01 is 1%")


class NoiseDoc(_Doc):
    kind: Literal["gaussian"] = "gaussian"
    rel: float = Field(ge=0, description="a fraction of |g|: 0.01 is 1%")
    abs: Optional[float] = Field(default=None, ge=0, description="in the output's unit")


class OutputDoc(_Doc):
    name: Name
    unit: Unit = None
    resolution: Optional[float] = None
    tolerance: Tolerance
    noise: Optional[NoiseDoc] = None
    description: str = ""


#: An exact rational of `param` and `set` (`param k = 2/3`), as its `.sci` text.
Ratio = Annotated[str, Field(pattern=r"^-?\d+/\d+$", description="an exact fraction, e.g. \"2/3\"")]


class ParamDoc(_Doc):
    name: Name
    value: Union[float, Ratio]
    unit: Unit = None
    description: str = ""


class UnitDefinitionDoc(_Doc):
    """`unit NAME = VALUE [UNIT] "DESC"`: a unit the card defines."""

    name: Name
    value: float
    unit: Unit = None
    description: str = ""


class WhereDoc(_Doc):
    """`where LEFT OP RIGHT "REASON"`: where a law has a value."""

    left: Expression
    op: Literal["<", "<=", ">", ">="]
    right: Expression
    reason: str


class Definition(_Doc):
    name: Name
    expr: Expression
    where: Optional[WhereDoc] = Field(default=None, description="laws only: where the law has a value")


class ConstraintDoc(_Doc):
    left: Expression
    op: Literal["<", "<=", ">", ">="]
    right: Expression
    message: str = ""


class SetDoc(_Doc):
    kind: Literal["set"]
    name: Name
    value: Union[float, Ratio]
    unit: Unit = None


class ScaleDoc(_Doc):
    kind: Literal["scale"]
    name: Name
    by: float


class ReferenceDoc(_Doc):
    name: Name
    value: float
    unit: Unit = None


class RebalanceDoc(_Doc):
    kind: Literal["rebalance"]
    name: Name
    at: list[ReferenceDoc] = Field(default=[], description="the reference point of `rebalance NAME at ...`")


class MagnitudeDoc(_Doc):
    kind: Literal["magnitude_differs"]
    reason: str = Field(min_length=1)


class ReplaceDoc(_Doc):
    kind: Literal["let", "law"]
    name: Name
    expr: Expression
    where: Optional[WhereDoc] = Field(default=None, description="laws only: where the law has a value")


MutationDoc = Annotated[Union[SetDoc, ScaleDoc, RebalanceDoc, ReplaceDoc, MagnitudeDoc],
                        Field(discriminator="kind")]


class CounterfactualDoc(_Doc):
    label: str
    mutations: list[MutationDoc]


class GeneratedDesign(_Doc):
    kind: Literal["generated"]
    count: int
    method: Name
    seed: Optional[int] = None


class ExplicitDesign(_Doc):
    kind: Literal["explicit"]
    points: list[dict[Annotated[str, Field(pattern=NAME)], float]] = Field(min_length=1)


class EvaluationDoc(_Doc):
    count: int
    seed: Optional[int] = None
    ood: Optional[float] = Field(default=None, description="widening factor of the out-of-domain set")


class AdaptiveDoc(_Doc):
    threshold: float
    max_steps: Optional[int] = None


class CardDocument(_Doc):
    """A card as JSON (see the module doc)."""

    scigame_card: Literal[1] = Field(SCHEMA_VERSION, description="version of this JSON form")
    name: Name
    title: str
    collection: Optional[Name] = None
    field: Optional[Name] = None
    source: Optional[str] = None
    doi: Optional[str] = None
    published: Optional[str] = Field(None, pattern=r"^\d{4}-\d{2}-\d{2}$")
    preprint: Optional[str] = Field(None, pattern=r"^\d{4}-\d{2}-\d{2}$")
    background: Optional[str] = None
    conditions: list[str] = []
    units: list[UnitDefinitionDoc] = []
    inputs: list[InputDoc] = []
    outputs: list[OutputDoc] = []
    constraints: list[ConstraintDoc] = []
    params: list[ParamDoc] = []
    lets: list[Definition] = []
    laws: list[Definition] = []
    counterfactual: Optional[CounterfactualDoc] = None
    design: Optional[Annotated[Union[GeneratedDesign, ExplicitDesign], Field(discriminator="kind")]] = None
    evaluation: Optional[EvaluationDoc] = None
    identification: Optional[Literal["yes", "no"]] = Field(None, description="`identification interpolate`")
    adaptive: Optional[AdaptiveDoc] = None


class InterchangeError(ValueError):
    """A JSON card that cannot become a `.sci` card; the message names the JSON path."""


MAX_JSON_BYTES = 16 * 2 ** 20
MAX_JSON_DEPTH = 32
MAX_INTEGER_DIGITS = 20


class _Object(dict):
    """A JSON object, with the keys it held more than once."""

    duplicates: tuple = ()


def _object(pairs: list) -> _Object:
    out = _Object(pairs)
    if len(out) != len(pairs):
        seen: set = set()
        out.duplicates = tuple(k for k, _ in pairs if k in seen or seen.add(k))
    return out


class _LongInteger:
    """An integer literal of more than MAX_INTEGER_DIGITS digits, never converted
    (Python refuses past 4,300 digits, and slowly before)."""

    def __init__(self, digits: int):
        self.digits = digits


def _integer(text: str):
    digits = len(text.lstrip("-"))
    return _LongInteger(digits) if digits > MAX_INTEGER_DIGITS else int(text)


def read_card_json(raw: bytes | str) -> Any:
    """The JSON value of a card file, within the limits of the module doc;
    InterchangeError names the JSON path (or says what is too large).
    json.JSONDecodeError (with its line and column) for text that is not JSON."""
    from .compiler.limits import MAX_TOKENS
    if len(raw) > MAX_JSON_BYTES:
        raise InterchangeError(f"$: the file is {len(raw):,} bytes; a card's JSON is at most {MAX_JSON_BYTES:,}")
    try:
        data = json.loads(raw, object_pairs_hook=_object, parse_int=_integer)
    except RecursionError:
        raise InterchangeError(f"$: nested more than {MAX_JSON_DEPTH} levels deep") from None
    count, stack = 0, [(data, "$", 0)]
    while stack:
        item, path, depth = stack.pop()
        count += 1
        if count > MAX_TOKENS:
            raise InterchangeError(f"$: more than {MAX_TOKENS:,} values; a card has at most that many tokens")
        if depth > MAX_JSON_DEPTH:
            raise InterchangeError(f"{path}: nested more than {MAX_JSON_DEPTH} levels deep")
        if isinstance(item, _LongInteger):
            raise InterchangeError(f"{path}: an integer of {item.digits} digits; a card's whole numbers "
                                   f"have at most {MAX_INTEGER_DIGITS}")
        if isinstance(item, int) and not isinstance(item, bool) and abs(item) > 2 ** 53:
            raise InterchangeError(f"{path}: {item} is too large a whole number for a card")
        if isinstance(item, dict):
            if getattr(item, "duplicates", ()):
                raise InterchangeError(f"{path}: the key {json.dumps(item.duplicates[0])} is given twice")
            stack.extend((v, f"{path}.{k}", depth + 1) for k, v in item.items())
        elif isinstance(item, list):
            stack.extend((v, f"{path}[{i}]", depth + 1) for i, v in enumerate(item))
    return data


# ---- AST -> JSON -----------------------------------------------------------------


def _num(lit: A.Literal) -> float:
    return lit.value


def _value(lit: A.Literal) -> float | str:
    """A param's or a set's value: a number, or an exact fraction's text."""
    return lit.text if lit.exact is not None else lit.value


def _where(law: A.Law) -> Optional[dict]:
    from .compiler.printer import format_expr
    w = law.where
    if w is None:
        return None
    return {"left": format_expr(w.left), "op": w.op, "right": format_expr(w.right), "reason": w.reason}


def _int(lit: Optional[A.Literal]) -> Optional[int]:
    return int(lit.value) if lit is not None else None


def _unit(u: Optional[A.UnitRef]) -> Optional[str]:
    return u.text if u is not None else None


def _mutation(m) -> dict:
    from .compiler.printer import format_expr
    if isinstance(m, A.SetMutation):
        return {"kind": "set", "name": m.name, "value": _value(m.value), "unit": _unit(m.unit)}
    if isinstance(m, A.ScaleMutation):
        return {"kind": "scale", "name": m.name, "by": _num(m.factor)}
    if isinstance(m, A.RebalanceMutation):
        return {"kind": "rebalance", "name": m.name,
                "at": [{"name": r.name, "value": _num(r.value), "unit": _unit(r.unit)} for r in m.reference]}
    if isinstance(m, A.MagnitudeDiffers):
        return {"kind": "magnitude_differs", "reason": m.reason}
    if isinstance(m, A.Law):
        return {"kind": "law", "name": m.name, "expr": format_expr(m.expr), "where": _where(m)}
    return {"kind": "let", "name": m.name, "expr": format_expr(m.expr)}


def _statement(s, doc: dict) -> None:
    from .compiler.printer import format_expr
    if isinstance(s, A.Meta):
        if s.key == "conditions":
            doc["conditions"].append(s.value)
        else:
            doc[s.key] = s.value
    elif isinstance(s, A.Input):
        d = s.domain
        domain = ({"kind": "set", "values": [_num(v) for v in d.values]} if isinstance(d, A.SetDomain)
                  else {"kind": d.kind, "lo": _num(d.lo), "hi": _num(d.hi)})
        doc["inputs"].append({"name": s.name, "unit": _unit(s.unit), "domain": domain,
                              "description": s.description})
    elif isinstance(s, A.Output):
        doc["outputs"].append({"name": s.name, "unit": _unit(s.unit),
                               "resolution": _num(s.resolution) if s.resolution is not None else None,
                               "tolerance": {"abs": _num(s.tol_abs), "rel": s.tol_rel.value},
                               "noise": None if s.noise is None else {
                                   "kind": s.noise.kind, "rel": s.noise.rel.value,
                                   "abs": _num(s.noise.abs) if s.noise.abs is not None else None},
                               "description": s.description})
    elif isinstance(s, A.Param):
        doc["params"].append({"name": s.name, "value": _value(s.value), "unit": _unit(s.unit),
                              "description": s.description})
    elif isinstance(s, A.UnitDefinition):
        doc["units"].append({"name": s.name, "value": _num(s.value), "unit": _unit(s.unit),
                             "description": s.description})
    elif isinstance(s, A.Let):
        doc["lets"].append({"name": s.name, "expr": format_expr(s.expr)})
    elif isinstance(s, A.Law):
        doc["laws"].append({"name": s.name, "expr": format_expr(s.expr), "where": _where(s)})
    elif isinstance(s, A.Constraint):
        doc["constraints"].append({"left": format_expr(s.left), "op": s.op, "right": format_expr(s.right),
                                   "message": s.message})
    elif isinstance(s, A.Counterfactual):
        doc["counterfactual"] = {"label": s.label, "mutations": [_mutation(m) for m in s.mutations]}
    elif isinstance(s, A.DesignGenerated):
        doc["design"] = {"kind": "generated", "count": _int(s.count), "method": s.method,
                         "seed": _int(s.seed)}
    elif isinstance(s, A.DesignExplicit):
        doc["design"] = {"kind": "explicit", "points": [{a.name: _num(a.value) for a in p} for p in s.points]}
    elif isinstance(s, A.Evaluation):
        doc["evaluation"] = {"count": _int(s.count), "seed": _int(s.seed),
                             "ood": _num(s.ood) if s.ood is not None else None}
    elif isinstance(s, A.Identification):
        doc["identification"] = s.value
    elif isinstance(s, A.Adaptive):
        doc["adaptive"] = {"threshold": _num(s.threshold),
                           "max_steps": _int(s.max_steps)}
    else:  # a statement this JSON form does not know yet
        raise InterchangeError(f"`{type(s).__name__}` statements have no JSON form yet")


def export_card(card: A.Card) -> dict:
    """The JSON form of a parsed card (a card that checks without errors)."""
    doc: dict[str, Any] = {"scigame_card": SCHEMA_VERSION, "name": card.name, "title": card.title,
                           "conditions": [], "units": [], "inputs": [], "outputs": [], "constraints": [], "params": [],
                           "lets": [], "laws": []}
    for s in card.statements:
        _statement(s, doc)
    return CardDocument.model_validate(doc).model_dump(mode="json")


# ---- JSON -> .sci ----------------------------------------------------------------


def number_text(value: float | int) -> str:
    """A number as `.sci` text that reads back as exactly the same float."""
    if not math.isfinite(value):
        raise ValueError("not a finite number")
    if isinstance(value, int) or (float(value).is_integer() and abs(value) < 1e15):
        return str(int(value))
    return repr(float(value))


def _lit(value: float | str, percent: bool = False) -> A.Literal:
    if isinstance(value, str):  # an exact fraction, `Ratio`
        from fractions import Fraction
        num, den = value.split("/")
        if int(den) == 0:
            raise InterchangeError(f"`{value}` has a zero denominator")
        q = Fraction(int(num), int(den))
        return A.Literal(_NOWHERE, float(q), value, exact=q)
    return A.Literal(_NOWHERE, float(value), number_text(value), percent)


def _ast_where(w: Optional[WhereDoc], where: str) -> Optional[A.Where]:
    if w is None:
        return None
    return A.Where(_NOWHERE, _expr(w.left, f"{where}.left"), w.op, _expr(w.right, f"{where}.right"),
                   w.reason, _NOWHERE)


def _unit_ref(text: Optional[str]) -> Optional[A.UnitRef]:
    return A.UnitRef(_NOWHERE, text.strip()) if text is not None else None


def _expr(text: str, where: str):
    from .compiler import parse_source
    card, diags = parse_source(f'card c "t" {{\nlaw x = {text}\n}}\n')
    errors = [d for d in diags if d.is_error]
    if card is None or errors or len(card.statements) != 1:
        why = errors[0].message if errors else "not one expression"
        raise InterchangeError(f"{where}: not a .sci expression: {why}")
    return card.statements[0].expr


def _ast_statements(doc: CardDocument) -> list:
    N, s = _NOWHERE, []
    for key in ("collection", "field", "source", "doi", "published", "preprint", "background"):
        if getattr(doc, key) is not None:
            s.append(A.Meta(N, key, getattr(doc, key), N))
    s += [A.Meta(N, "conditions", c, N) for c in doc.conditions]
    s += [A.UnitDefinition(N, u.name, N, _lit(u.value), _unit_ref(u.unit), u.description) for u in doc.units]
    for i in doc.inputs:
        d = i.domain
        dom = (A.SetDomain(N, tuple(_lit(v) for v in d.values)) if isinstance(d, SetDomain)
               else A.RangeDomain(N, _lit(d.lo), _lit(d.hi), d.kind))
        s.append(A.Input(N, i.name, N, _unit_ref(i.unit), dom, i.description))
    for o in doc.outputs:
        noise = None if o.noise is None else A.Noise(
            N, o.noise.kind, N, _lit(o.noise.rel), _lit(o.noise.abs) if o.noise.abs is not None else None)
        s.append(A.Output(N, o.name, N, _unit_ref(o.unit), _lit(o.resolution) if o.resolution is not None
                          else None, _lit(o.tolerance.abs), _lit(o.tolerance.rel), o.description, noise))
    for k, c in enumerate(doc.constraints):
        s.append(A.Constraint(N, _expr(c.left, f"$.constraints[{k}].left"), c.op,
                              _expr(c.right, f"$.constraints[{k}].right"), c.message))
    s += [A.Param(N, p.name, N, _lit(p.value), _unit_ref(p.unit), p.description) for p in doc.params]
    s += [A.Let(N, d.name, N, _expr(d.expr, f"$.lets[{k}].expr")) for k, d in enumerate(doc.lets)]
    s += [A.Law(N, d.name, N, _expr(d.expr, f"$.laws[{k}].expr"), _ast_where(d.where, f"$.laws[{k}].where"))
          for k, d in enumerate(doc.laws)]
    if doc.counterfactual is not None:
        s.append(A.Counterfactual(N, doc.counterfactual.label, N, tuple(
            _ast_mutation(m, f"$.counterfactual.mutations[{k}]") for k, m in enumerate(doc.counterfactual.mutations))))
    s += _ast_settings(doc)
    return s


def _ast_mutation(m, where: str):
    N = _NOWHERE
    if isinstance(m, SetDoc):
        return A.SetMutation(N, m.name, N, _lit(m.value), _unit_ref(m.unit))
    if isinstance(m, ScaleDoc):
        return A.ScaleMutation(N, m.name, N, _lit(m.by))
    if isinstance(m, RebalanceDoc):
        return A.RebalanceMutation(N, m.name, N, tuple(A.ReferenceValue(N, r.name, N, _lit(r.value),
                                                                        _unit_ref(r.unit)) for r in m.at))
    if isinstance(m, MagnitudeDoc):
        return A.MagnitudeDiffers(N, m.reason, N)
    if m.kind == "law":
        return A.Law(N, m.name, N, _expr(m.expr, f"{where}.expr"), _ast_where(m.where, f"{where}.where"))
    return A.Let(N, m.name, N, _expr(m.expr, f"{where}.expr"))


def _ast_settings(doc: CardDocument) -> list:
    N, s = _NOWHERE, []
    d = doc.design
    if isinstance(d, GeneratedDesign):
        s.append(A.DesignGenerated(N, _lit(d.count), d.method, N, _lit(d.seed) if d.seed is not None else None))
    elif isinstance(d, ExplicitDesign):
        points = tuple(tuple(A.Assignment(N, k, _lit(v)) for k, v in p.items()) for p in d.points)
        s.append(A.DesignExplicit(N, points, tuple(N for _ in points)))
    if doc.evaluation is not None:
        e = doc.evaluation
        s.append(A.Evaluation(N, _lit(e.count), _lit(e.seed) if e.seed is not None else None,
                              _lit(e.ood) if e.ood is not None else None))
    if doc.identification is not None:
        s.append(A.Identification(N, doc.identification, N))
    if doc.adaptive is not None:
        a = doc.adaptive
        s.append(A.Adaptive(N, _lit(a.threshold), _lit(a.max_steps) if a.max_steps is not None else None))
    return s


def json_path(loc) -> str:
    """A pydantic error location as a JSON path: `$.inputs[0].domain.lo`."""
    out = "$"
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def _first_difference(a, b, path: str = "$") -> str:
    if isinstance(a, dict) and isinstance(b, dict):
        for k in a:
            if a[k] != b.get(k):
                return _first_difference(a[k], b.get(k), f"{path}.{k}")
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return _first_difference(x, y, f"{path}[{i}]")
    return path


def import_card(data: Any) -> str:
    """The `.sci` text of a JSON card; InterchangeError names the JSON path
    of the first problem (a bad field, an expression that does not parse,
    a value a card cannot spell)."""
    from .compiler import parse_source
    from .compiler.format import format_card
    try:
        doc = CardDocument.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = [p for p in first["loc"] if not (isinstance(p, str) and p in _UNION_TAGS)]
        raise InterchangeError(f"{json_path(loc)}: {first['msg']}") from None
    for path, value in _numbers(doc.model_dump(mode="python")):
        if not math.isfinite(value):
            raise InterchangeError(f"{path}: not a finite number")
    _refuse_reserved(doc)
    card = A.Card(_NOWHERE, doc.name, _NOWHERE, doc.title, tuple(_ast_statements(doc)))
    text = format_card(card)
    parsed, diags = parse_source(text, f"{doc.name}.sci")
    errors = [d for d in diags if d.is_error]
    if parsed is None or errors:
        raise InterchangeError(f"$: the card it makes does not parse: {errors[0].message if errors else '?'}")
    want = doc.model_dump(mode="json")
    got = export_card(parsed)
    if got != want:
        raise InterchangeError(f"{_first_difference(want, got)}: this value cannot be written in a card "
                               "as given (e.g. text indented on every line, or a unit with a `]`)")
    return text


def _refuse_reserved(doc: CardDocument) -> None:
    """A declared name lint would refuse (`law`, `sin`, `pi`) is refused here, naming its path."""
    from .compiler.checker import reserved_kind
    for group in ("inputs", "outputs", "params", "lets"):
        for i, item in enumerate(getattr(doc, group)):
            kind = reserved_kind(item.name)
            if kind:
                raise InterchangeError(f"$.{group}[{i}].name: {item.name!r} is a {kind} of the language; "
                                       "a card cannot declare it")


_UNION_TAGS = {"range", "log", "integer", "set", "scale", "rebalance", "let", "law", "generated", "explicit",
               "RangeDomain", "SetDomain"}


def _numbers(data, path: str = "$"):
    if isinstance(data, dict):
        for k, v in data.items():
            yield from _numbers(v, f"{path}.{k}")
    elif isinstance(data, list):
        for i, v in enumerate(data):
            yield from _numbers(v, f"{path}[{i}]")
    elif isinstance(data, float):
        yield path, data


def card_schema() -> dict:
    """The JSON Schema of `CardDocument` (published as scigame/data/card.schema.json)."""
    schema = CardDocument.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return schema


if __name__ == "__main__":  # pragma: no cover - regenerates the published schema
    json.dump(card_schema(), sys.stdout, indent=2)
    sys.stdout.write("\n")
