"""Cards as JSON: `scigame export CARD --format json` and `scigame import`.

`CardDocument` (pydantic) is the JSON form of a card: every statement of
the `.sci` language, grouped by kind, with numbers as JSON numbers,
expressions as `.sci` expression text (`"G * m1 * m2 / r^n"`) and units as
the text between the brackets. Its JSON Schema is published as
`scigame/data/card.schema.json` (regenerate with
`python -m scigame.interchange > scigame/data/card.schema.json`).

The document is derived from the AST (`compiler/ast.py`): each statement
class has one `_Form`, whose JSON fields are the class's own fields (spans
aside), each written and read back by the `_Codec` of its type; a form
names only what JSON spells differently (`factor` is `by`, `init` is
`initial`). `STATEMENTS`, `MUTATIONS` and `SYSTEM_ITEMS` say where each
statement class stands in the document; tests/test_statements.py checks that
every statement class of the grammar has its place.

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

import dataclasses
import json
import math
import sys
import typing
from dataclasses import dataclass
from typing import Annotated, Any, Callable, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from .compiler import ast as A
from .compiler.source import Span
from .compiler.statements import STATEMENT_RULES
from .grammar import terminal_pattern

SCHEMA_VERSION = 1
NAME = f"^{terminal_pattern('NAME')}$"
DATE = f"^{terminal_pattern('DATE')}$"
UNIT = r"^[^\]\n]*$"
_NOWHERE = Span(1, 1, 1, 1)


class _Doc(BaseModel):
    model_config = ConfigDict(extra="forbid")


Name = Annotated[str, Field(pattern=NAME)]
Unit = Annotated[Optional[str], Field(pattern=UNIT, description="pint unit text, without brackets")]
Expression = Annotated[str, Field(min_length=1, description="a .sci expression, e.g. \"k * x^2\"")]
Compare = Literal["<", "<=", ">", ">="]
#: An exact rational of `param` and `set` (`param k = 2/3`), as its `.sci` text.
Ratio = Annotated[str, Field(pattern=r"^-?\d+/\d+$", description="an exact fraction, e.g. \"2/3\"")]

# ---- codecs: one AST field as JSON, and back ------------------------------------------

_REQUIRED = ...


@dataclass(frozen=True)
class _Codec:
    """How a field of one type is written in JSON (`dump`) and read back
    (`load`, given the field's JSON path for errors)."""

    annotation: Any
    dump: Callable[[Any], Any]
    load: Callable[[Any, str], Any]
    default: Any = _REQUIRED

    def described(self, text: str, **limits) -> "_Codec":
        """The same codec, its JSON field described (and limited: `ge=0`)."""
        return dataclasses.replace(self, annotation=Annotated[self.annotation, Field(description=text, **limits)])


def _same(value, where: str):
    return value


def _optional(codec: _Codec) -> _Codec:
    """A codec for None or a value."""
    return _Codec(Optional[codec.annotation], lambda v: None if v is None else codec.dump(v),
                  lambda v, where: None if v is None else codec.load(v, where), None)


def _format_expr(expr) -> str:
    from .compiler.printer import format_expr
    return format_expr(expr)


def _value(lit: A.Literal) -> float | str:
    """A param's or a set's value: a number, or an exact fraction's text."""
    return lit.text if lit.exact is not None else lit.value


def _unit_ref(text: Optional[str]) -> Optional[A.UnitRef]:
    return A.UnitRef(_NOWHERE, text.strip()) if text is not None else None


_NAME = _Codec(Name, str, _same)
_TEXT = _Codec(str, str, _same, "")
_NUMBER = _Codec(float, lambda lit: lit.value, lambda v, where: _lit(v))
_WHOLE = _Codec(int, lambda lit: int(lit.value), lambda v, where: _lit(v))
_VALUE = _Codec(Union[float, Ratio], _value, lambda v, where: _lit(v))
_UNIT = _Codec(Unit, lambda u: u.text if u is not None else None, lambda v, where: _unit_ref(v), None)
_EXPR = _Codec(Expression, _format_expr, lambda v, where: _expr(v, where))
_COMPARE = _Codec(Compare, str, _same)
_NAMES = _Codec(Annotated[list[Name], Field(min_length=1)], list, lambda v, where: tuple(v))


def _list(form: "_Form", **limits) -> _Codec:
    """A tuple of nodes as a JSON list of the form's objects."""
    return _Codec(Annotated[list[form.model], Field(**limits)], lambda nodes: [form.dump(n) for n in nodes],
                  lambda docs, where: tuple(form.load(d, f"{where}[{k}]") for k, d in enumerate(docs)),
                  [] if not limits.get("min_length") else _REQUIRED)


# ---- forms: an AST class as a JSON object ---------------------------------------------


def _is_span(name: str) -> bool:
    return name == "span" or name.endswith(("_span", "_spans"))


@dataclass(frozen=True)
class _Form:
    """An AST class as a JSON object: (AST field, JSON key, codec) per field; a
    dotted key (`tolerance.abs`) is a field of a nested object."""

    cls: type
    model: type[BaseModel]
    fields: tuple[tuple[str, str, _Codec], ...]
    tag: Optional[str] = None  # the `kind` that tells this form from others in one list

    def dump(self, node) -> dict:
        out: dict = {"kind": self.tag} if self.tag is not None else {}
        for name, key, codec in self.fields:
            head, _, sub = key.partition(".")
            value = codec.dump(getattr(node, name, None))
            if sub:
                out.setdefault(head, {})[sub] = value
            else:
                out[key] = value
        return out

    def load(self, doc: BaseModel, where: str):
        values = {}
        for name, key, codec in self.fields:
            value = doc
            for part in key.split("."):
                value = getattr(value, part)
            values[name] = codec.load(value, f"{where}.{key}")
        args: dict = {}
        for f in dataclasses.fields(self.cls):
            if f.name in values:
                args[f.name] = values[f.name]
            elif f.name.endswith("_spans"):  # one place per item of the field before it
                args[f.name] = tuple(_NOWHERE for _ in args[previous])
            elif _is_span(f.name):
                args[f.name] = _NOWHERE
            previous = f.name
        return self.cls(**args)


def _codec_of(cls: type, name: str, hint) -> _Codec:
    """The codec of an AST field's type; a type without one is a TypeError
    naming the field (a new field needs its JSON form)."""
    if hint is str:
        return _NAME if name == "name" else _TEXT
    if hint in _CODECS:
        return _CODECS[hint]
    raise TypeError(f"{cls.__name__}.{name}: no JSON form for {hint} (add a codec in scigame/interchange.py)")


def _form(cls: type, title: str, tag: Optional[str] = None, order: Optional[list[str]] = None,
          model: Optional[type[BaseModel]] = None, **special: Union[str, tuple[str, _Codec], _Codec]) -> _Form:
    """The form of AST class `cls`: its fields (spans aside) under their own
    names and codecs, except those in `special`: a JSON key, a codec, or
    both. `order` lists the JSON keys in writing order (else the AST's);
    `model` reuses an existing model (a form of the same shape)."""
    hints = typing.get_type_hints(cls)
    fields = []
    for f in dataclasses.fields(cls):
        if _is_span(f.name):
            continue
        key, codec = f.name, None
        how = special.get(f.name)
        if isinstance(how, str):
            key = how
        elif isinstance(how, tuple):
            key, codec = how
        elif how is not None:
            codec = how
        fields.append((f.name, key, codec or _codec_of(cls, f.name, hints[f.name])))
    if order is not None:
        fields.sort(key=lambda field: order.index(field[1].partition(".")[0]))
    own_doc = cls.__doc__ if cls.__doc__ and not cls.__doc__.startswith(cls.__name__ + "(") else None
    return _Form(cls, model or _model(title, own_doc, fields, tag), tuple(fields), tag)


def _model(title: str, doc: Optional[str], fields, tag: Optional[str]) -> type[BaseModel]:
    spec: dict[str, Any] = {"kind": (Literal[tag], _REQUIRED)} if tag is not None else {}
    nested: dict[str, list] = {}
    for _, key, codec in fields:
        head, _, sub = key.partition(".")
        if sub:
            nested.setdefault(head, []).append((sub, codec))
            spec.setdefault(head, None)
        else:
            spec[key] = (codec.annotation, codec.default)
    for head, parts in nested.items():
        inner = create_model(head.capitalize(), __base__=_Doc,
                             **{sub: (c.annotation, c.default) for sub, c in parts})
        spec[head] = (inner, _REQUIRED)
    return create_model(title, __base__=_Doc, __doc__=doc, **spec)


#: The codec of each AST field type (str aside: a name, or a text).
_CODECS: dict[Any, _Codec] = {A.Literal: _NUMBER, Optional[A.Literal]: _optional(_NUMBER),
                              Optional[A.UnitRef]: _UNIT, A.Expr: _EXPR}


def _object(form: _Form) -> _Codec:
    """A node as the JSON object of its form."""
    return _Codec(form.model, form.dump, form.load)


_RANGE = _form(A.RangeDomain, "RangeDomain", order=["kind", "lo", "hi"],
               kind=_Codec(Literal["range", "log", "integer"], str, _same))
_SET = _form(A.SetDomain, "SetDomain", tag="set",
             values=_Codec(Annotated[list[float], Field(min_length=1)], lambda vs: [v.value for v in vs],
                           lambda vs, where: tuple(_lit(v) for v in vs)))
_CODECS[A.Domain] = _Codec(Annotated[Union[_RANGE.model, _SET.model], Field(discriminator="kind")],
                           lambda d: (_SET if isinstance(d, A.SetDomain) else _RANGE).dump(d),
                           lambda d, where: (_SET if d.kind == "set" else _RANGE).load(d, where))
_CODECS[Optional[A.Where]] = _optional(_object(_form(A.Where, "WhereDoc", op=_COMPARE,
                                                     reason=_Codec(str, str, _same))))
_CODECS[Optional[A.Noise]] = _optional(_object(_form(
    A.Noise, "NoiseDoc", kind=_Codec(Literal["gaussian"], str, _same, "gaussian"),
    rel=_NUMBER.described("a fraction of |g|: 0.01 is 1%", ge=0),
    abs=_optional(_NUMBER).described("in the output's unit", ge=0))))


# ---- the statements' forms and their places in the document ----------------------------

_INPUT = _form(A.Input, "InputDoc")
_DEFINITION = _form(A.Law, "Definition",
                    where=_CODECS[Optional[A.Where]].described("laws only: where the law has a value"))
_LET = _form(A.Let, "Definition", model=_DEFINITION.model)
_FRACTION = _NUMBER.described("a fraction: 0.01 is 1%")

_MUTATION_FORMS = (
    _form(A.SetMutation, "SetDoc", tag="set", value=_VALUE),
    _form(A.ScaleMutation, "ScaleDoc", tag="scale", factor="by"),
    _form(A.RebalanceMutation, "RebalanceDoc", tag="rebalance", reference=(
        "at", _list(_form(A.ReferenceValue, "ReferenceDoc")).described(
            "the reference point of `rebalance NAME at ...`"))),
    _form(A.MagnitudeDiffers, "MagnitudeDoc", tag="magnitude_differs",
          reason=_Codec(Annotated[str, Field(min_length=1)], str, _same)),
)
#: A mutation that replaces a let or a law: `let`, `law` (with its `where`) or a
#: law of named arguments (its `arguments`), one JSON object for the three.
_REPLACE = create_model(
    "ReplaceDoc", __base__=_Doc, kind=(Literal["let", "law"], _REQUIRED),
    **{key: (codec.annotation, codec.default) for _, key, codec in _DEFINITION.fields},
    arguments=(Optional[list[Name]], Field(default=None, description="a law of named arguments: their names")))
_REPLACE_FORMS = (_form(A.Let, "", tag="let", model=_REPLACE), _form(A.Law, "", tag="law", model=_REPLACE),
                  _form(A.LawFunction, "", tag="law", model=_REPLACE, param_names=("arguments", _NAMES)))
#: Each mutation class's form (tests/test_statements.py: one per `_mutation` rule).
MUTATIONS: dict[type, _Form] = {f.cls: f for f in _MUTATION_FORMS + _REPLACE_FORMS}


def _mutation_form(doc) -> _Form:
    if isinstance(doc, _REPLACE):
        return MUTATIONS[A.LawFunction if doc.kind == "law" and doc.arguments else
                         A.Law if doc.kind == "law" else A.Let]
    return next(f for f in _MUTATION_FORMS if f.model is type(doc))


_SET_M, _SCALE_M, _REBALANCE_M, _MAGNITUDE_M = (f.model for f in _MUTATION_FORMS)
_MUTATION_LIST = _Codec(list[Annotated[Union[_SET_M, _SCALE_M, _REBALANCE_M, _REPLACE, _MAGNITUDE_M],
                                       Field(discriminator="kind")]],
                        lambda ms: [MUTATIONS[type(m)].dump(m) for m in ms],
                        lambda docs, where: tuple(_mutation_form(d).load(d, f"{where}[{k}]")
                                                  for k, d in enumerate(docs)))

#: Where each statement of a system stands in the system's JSON object.
SYSTEM_ITEMS: dict[type, tuple[str, Optional[_Form]]] = {
    A.SystemTime: ("time", None),
    A.State: ("states", _form(A.State, "StateDoc", init="initial")),
    A.Let: ("lets", _LET),
    A.Rate: ("rates", _form(A.Rate, "Definition", model=_DEFINITION.model)),
}
_SYSTEM_MODEL = create_model(
    "SystemDoc", __base__=_Doc, __doc__=A.System.__doc__, time=(Name, _REQUIRED),
    states=(Annotated[list[SYSTEM_ITEMS[A.State][1].model], Field(min_length=1)], _REQUIRED),
    lets=(list[_DEFINITION.model], []), rates=(list[_DEFINITION.model], []))


def _dump_system(s: A.System) -> dict:
    out: dict = {"time": "", "states": [], "lets": [], "rates": []}
    for it in s.items:
        key, form = SYSTEM_ITEMS[type(it)]
        if form is None:
            out[key] = it.name
        else:
            out[key].append(form.dump(it))
    return out


def _load_system(doc, where: str) -> A.System:
    items: list = [A.SystemTime(_NOWHERE, doc.time, _NOWHERE)]
    for key, form in list(SYSTEM_ITEMS.values())[1:]:
        items += [form.load(d, f"{where}.{key}[{k}]") for k, d in enumerate(getattr(doc, key))]
    return A.System(_NOWHERE, tuple(items))


@dataclass(frozen=True)
class _Place:
    """Where a statement class stands in the card's document: under `key`, a
    list of its forms (`many`) or one (forms sharing a key by their `kind`)."""

    key: str
    codec: _Codec
    many: bool = True


def _one(form: _Form) -> _Codec:
    return _optional(_object(form))


_META_TERMINALS = {"collection": _NAME, "field": _NAME,
                   "published": _Codec(Annotated[str, Field(pattern=DATE)], str, _same),
                   "preprint": _Codec(Annotated[str, Field(pattern=DATE)], str, _same)}
_DESIGNS = (_form(A.DesignGenerated, "GeneratedDesign", tag="generated", count=_WHOLE, method=_NAME,
                  seed=_optional(_WHOLE)),
            _form(A.DesignExplicit, "ExplicitDesign", tag="explicit", points=_Codec(
                Annotated[list[dict[Name, float]], Field(min_length=1)],
                lambda ps: [{a.name: a.value.value for a in p} for p in ps],
                lambda ps, where: tuple(tuple(A.Assignment(_NOWHERE, k, _lit(v)) for k, v in p.items())
                                        for p in ps))))
_DESIGN = _optional(_Codec(Annotated[Union[_DESIGNS[0].model, _DESIGNS[1].model], Field(discriminator="kind")],
                           lambda d: next(f for f in _DESIGNS if f.cls is type(d)).dump(d),
                           lambda d, where: next(f for f in _DESIGNS if f.model is type(d)).load(d, where)))

#: Each top-level statement class and its places, in the document's order
#: (a `Meta` has one place per key; the designs share one).
STATEMENTS: dict[type, tuple[_Place, ...]] = {
    A.Meta: tuple(_Place(key, _optional(_META_TERMINALS.get(key, _TEXT)), False)
                  for key in STATEMENT_RULES[A.Meta] if key != "conditions") + (
                      _Place("conditions", _TEXT),),
    A.UnitDefinition: (_Place("units", _object(_form(A.UnitDefinition, "UnitDefinitionDoc"))),),
    A.Input: (_Place("inputs", _object(_INPUT)),),
    A.Output: (_Place("outputs", _object(_form(
        A.Output, "OutputDoc", order=["name", "unit", "resolution", "tolerance", "noise", "description"],
        tol_abs="tolerance.abs", tol_rel=("tolerance.rel", _FRACTION)))),),
    A.Constraint: (_Place("constraints", _object(_form(A.Constraint, "ConstraintDoc", op=_COMPARE))),),
    A.Param: (_Place("params", _object(_form(A.Param, "ParamDoc", value=_VALUE))),),
    A.Let: (_Place("lets", _object(_LET)),),
    A.Law: (_Place("laws", _object(_DEFINITION)),),
    A.Counterfactual: (_Place("counterfactual", _one(_form(
        A.Counterfactual, "CounterfactualDoc", label=_Codec(str, str, _same), mutations=_MUTATION_LIST)), False),),
    #: systems (LANGUAGE.md, version 2): left out of a static card's JSON
    A.LawFunction: (_Place("law_functions", _object(_form(
        A.LawFunction, "LawFunctionDoc", param_names=("arguments", _NAMES)))),),
    A.Argument: (_Place("arguments", _object(_form(A.Argument, "InputDoc", model=_INPUT.model))),),
    A.System: (_Place("system", _optional(_Codec(_SYSTEM_MODEL, _dump_system, _load_system)), False),),
    A.DesignGenerated: (_Place("design", _DESIGN, False),),
    A.DesignExplicit: (_Place("design", _DESIGN, False),),
    A.Evaluation: (_Place("evaluation", _one(_form(
        A.Evaluation, "EvaluationDoc", count=_WHOLE, seed=_optional(_WHOLE),
        ood=_optional(_NUMBER).described("widening factor of the out-of-domain set"))), False),),
    A.Identification: (_Place("identification", _optional(_Codec(
        Annotated[Literal["yes", "no"], Field(description="`identification interpolate`")],
        lambda s: s.value, lambda v, where: A.Identification(_NOWHERE, v, _NOWHERE))), False),),
    A.Adaptive: (_Place("adaptive", _one(_form(A.Adaptive, "AdaptiveDoc", max_steps=_optional(_WHOLE))), False),),
}
_SYSTEM_KEYS = ("law_functions", "arguments", "system")


def _document_fields() -> dict[str, tuple]:
    fields: dict[str, tuple] = {
        "scigame_card": (Literal[1], Field(SCHEMA_VERSION, description="version of this JSON form")),
        "name": (Name, _REQUIRED), "title": (str, _REQUIRED)}
    for places in STATEMENTS.values():
        for p in places:
            fields[p.key] = (list[p.codec.annotation], []) if p.many else (p.codec.annotation, None)
    return fields


CardDocument = create_model("CardDocument", __base__=_Doc, __doc__="A card as JSON (see the module doc).",
                            **_document_fields())


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


def _place_of(s) -> _Place:
    places = STATEMENTS.get(type(s))
    if places is None:  # a statement this JSON form does not know yet
        raise InterchangeError(f"`{type(s).__name__}` statements have no JSON form yet")
    return next(p for p in places if p.key == s.key) if isinstance(s, A.Meta) else places[0]


def export_card(card: A.Card) -> dict:
    """The JSON form of a parsed card (a card that checks without errors)."""
    doc: dict[str, Any] = {"scigame_card": SCHEMA_VERSION, "name": card.name, "title": card.title}
    for s in card.statements:
        place = _place_of(s)
        value = place.codec.dump(s.value if isinstance(s, A.Meta) else s)
        if place.many:
            doc.setdefault(place.key, []).append(value)
        else:
            doc[place.key] = value
    return _dump(CardDocument.model_validate(doc))


def _dump(doc: BaseModel) -> dict:
    """A document as JSON data; a static card's has no system keys (its JSON stays as it was)."""
    out = doc.model_dump(mode="json")
    for key in _SYSTEM_KEYS:
        if not out[key]:
            del out[key]
    return out


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


def _expr(text: str, where: str):
    from .compiler import parse_source
    card, diags = parse_source(f'card c "t" {{\nlaw x = {text}\n}}\n')
    errors = [d for d in diags if d.is_error]
    if card is None or errors or len(card.statements) != 1:
        why = errors[0].message if errors else "not one expression"
        raise InterchangeError(f"{where}: not a .sci expression: {why}")
    return card.statements[0].expr


def _ast_statements(doc: BaseModel) -> list:
    """The card's statements, each place's in the document's order (fmt sorts them)."""
    out = []
    for cls, places in STATEMENTS.items():
        for p in places:
            value = getattr(doc, p.key)
            if cls is A.DesignExplicit or value is None:
                continue  # the designs' one place is read once, for DesignGenerated
            for k, v in enumerate(value if p.many else [value]):
                where = f"$.{p.key}[{k}]" if p.many else f"$.{p.key}"
                node = p.codec.load(v, where)
                out.append(A.Meta(_NOWHERE, p.key, node, _NOWHERE) if cls is A.Meta else node)
    return out


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
    want = _dump(doc)
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
