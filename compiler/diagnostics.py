"""Diagnostics: every message lint can give, in one module.

Each error kind has one constructor here and a stable code; the checker
never writes message text itself. Codes are grouped by hundreds:

    E1xx syntax          E2xx names           E3xx card statements
    E4xx units and dims  E5xx inputs/outputs  E6xx the counterfactual
    E7xx numeric checks  E8xx systems         W1xx unused names    W2xx-W3xx other warnings
    W4xx sound worlds (what a player can tell from size or from the text shown)

`docs/language.md` lists them all with an example each; the golden tests in
`tests/golden/` hold one bad card per code.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import Enum
from typing import Iterable, Sequence

from .source import SourceText, Span, node


#: Why no factor makes the worlds agree at a reference point (the `reason` of
#: reference.ReferenceUnsolvable), the end of an E-code's "at POINT, ..." message.
UNSOLVABLE_REFERENCE = {
    "zero": "output `{output}` of the counterfactual is 0 there",
    "no_effect": "no law changes with it, so no value of it can make the worlds agree",
    "nothing_to_match": "output `{output}` is {value} there in the original world, so there is nothing to match",
    "no_value": "no value of it makes output `{output}` of the counterfactual equal the original's there",
    "disagree": "outputs `{output}` and `{other}` ask for different values of it",
}


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


@node
class Related:
    """A second place a diagnostic points at (e.g. the law a mutation broke)."""

    span: Span
    message: str


@node
class Diagnostic:
    """One finding about one place in a card. (A plain frozen dataclass:
    lint of a clean card must not pay for importing pydantic.)"""

    path: str
    span: Span
    severity: Severity
    code: str
    message: str
    hints: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    related: tuple[Related, ...] = ()

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    def sort_key(self):
        return (self.path, self.span.line, self.span.column, self.code, self.message)

    def to_dict(self) -> dict:
        """The JSON form (`scigame lint --format json`)."""
        return {
            "path": self.path,
            "line": self.span.line,
            "column": self.span.column,
            "end": {"line": self.span.end_line, "column": self.span.end_column},
            "severity": self.severity.value,
            "code": self.code,
            "message": self.message,
            "hints": list(self.hints),
            "notes": list(self.notes),
            "related": [
                {"line": r.span.line, "column": r.span.column,
                 "end": {"line": r.span.end_line, "column": r.span.end_column},
                 "message": r.message}
                for r in self.related
            ],
        }


#: Every code lint can emit, with a one-line summary (used by docs and tests).
CODES: dict[str, str] = {}


def describe_dim(dim) -> str:
    """A dimension in words (units.describe_dim, imported when a message needs it)."""
    from .units import describe_dim as describe
    return describe(dim)


def _kind(code: str, summary: str):
    """Register a diagnostic constructor under its stable code."""
    CODES[code] = summary

    def wrap(fn):
        fn.code = code
        fn.__doc__ = f"[{code}] {summary}"
        return fn

    return wrap


class Reporter:
    """Collects the diagnostics of one card. Constructors below are its methods."""

    def __init__(self, source: SourceText):
        self.source = source
        self.items: list[Diagnostic] = []

    # -- plumbing ---------------------------------------------------------
    def _add(self, code: str, severity: Severity, span: Span, message: str,
             hints: Iterable[str] = (), notes: Iterable[str] = (),
             related: Iterable[tuple[Span, str]] = (), env_note: str | None = None) -> Diagnostic:
        """`env_note`: which world a dimensional error is in, the diagnostic's first note."""
        diag = Diagnostic(
            path=self.source.path, span=span, severity=severity, code=code,
            message=message, hints=tuple(hints), notes=(env_note,) * bool(env_note) + tuple(notes),
            related=tuple(Related(span=s, message=m) for s, m in related))
        self.items.append(diag)
        return diag

    def error(self, code, span, message, **kw):
        return self._add(code, Severity.ERROR, span, message, **kw)

    def warning(self, code, span, message, **kw):
        return self._add(code, Severity.WARNING, span, message, **kw)

    def note(self, code, span, message, **kw):
        return self._add(code, Severity.NOTE, span, message, **kw)

    @property
    def has_errors(self) -> bool:
        return any(d.is_error for d in self.items)

    def sorted(self) -> list[Diagnostic]:
        unique = {(d.code, d.span, d.message): d for d in self.items}
        return sorted(unique.values(), key=Diagnostic.sort_key)

    # -- E1xx: syntax ---------------------------------------------------------
    @_kind("E100", "syntax error")
    def syntax(self, span: Span, message: str, hints: Sequence[str] = (), related=()):
        return self.error("E100", span, message, hints=hints, related=related)

    def bad_character(self, span: Span, char: str):
        """[E100] A character no token starts with; quotes and brackets get a hint."""
        hint = {"'": ['strings use double quotes: "..."'],
                '"': ['this string is not closed on its line; use """...""" for text over several lines'],
                "[": ["units are written right after a name or number, e.g. `9.81 [m/s^2]`"]}
        return self.syntax(span, f"unexpected character `{char}`", hints=hint.get("[" if char == "]" else char, []))

    def unfinished_expression(self, span: Span, operator: str, keyword: str):
        """[E100] `law F = a /` then a statement keyword: the expression before it is unfinished."""
        return self.syntax(span, f"expected an expression after `{operator}`",
                           hints=[f"`{keyword}` starts the next statement, so the expression before it is unfinished"])

    def card_not_closed(self, span: Span, expected: str):
        """[E100] The file ends inside the card; `expected` says what the parser would take."""
        return self.syntax(span, "the card is not closed: a `}` is missing at the end",
                           hints=[f"found the end of the file; expected {expected}"])

    def reference_comma(self, span: Span, name: str):
        """[E100] `rebalance G at r = 5 [m] m1 = 2`: a reference point without its comma."""
        return self.syntax(span, f"expected `,` before `{name}`",
                           hints=["separate the inputs of a reference point with commas: "
                                  "`rebalance P at x = 1 [m], y = 2`"])

    def missing_keyword(self, span: Span, name: str, assigned: bool):
        """[E100] A statement that lost its keyword (`F = a * b` when `assigned`)."""
        hint = ([f"did you mean `law {name} = ...` or `let {name} = ...`?"] if assigned
                else ["every statement starts with a keyword such as `input`, `output`, `param`, `let` or `law`"])
        return self.syntax(span, f"expected a statement, found the name `{name}`", hints=hint)

    def unexpected(self, span: Span, found: str, expected: str, prev: str, catalogued: str = ""):
        """[E100] Any other parse error: the catalogue's message for the parser
        state (`{prev}` in it is the token before), else what was expected."""
        if catalogued:
            message = catalogued.replace("{prev}", prev or "this")
        else:
            message = f"expected {expected}" + (f" after `{prev}`" if prev else "")
        return self.syntax(span, message, hints=[f"found {found}; expected {expected}"])

    def fmt_changes_meaning(self, span: Span):
        """[E100] fmt's layout would read as another card, so the file is left as written."""
        return self.syntax(span, "fmt would change what this card means, so it was left as written",
                           hints=["please report the card; `scigame lint` reads it as written"])

    def unreadable(self, why: str, undecodable: tuple[str, int] | None = None):
        """[E100] A card file that could not be read (`why`, from CardReadError),
        or whose bytes are not UTF-8 (`undecodable`: the reason and the byte)."""
        if undecodable is not None:
            why = f"the file is not UTF-8 text ({undecodable[0]} at byte {undecodable[1]})"
        return self.syntax(Span(1, 1, 1, 2), why)

    @_kind("E101", "invalid escape in a string")
    def bad_escape(self, span: Span, escape: str, more: int = 0):
        hints = ['only `\\"` and `\\\\` are escapes in .sci strings']
        if more:
            hints.append(f"this string has {more} more unknown escape{'s' if more != 1 else ''}")
        return self.error("E101", span, f"unknown escape `{escape}` in a string", hints=hints)

    @_kind("E102", "invalid date")
    def bad_date(self, span: Span, text: str, why: str):
        return self.error("E102", span, f"`{text}` is not a valid date: {why}",
                          hints=["dates are written YYYY-MM-DD, e.g. 2025-03-14"])

    @_kind("E104", "expression too large")
    def too_large(self, span: Span, reason: str, limit: int, count: int = 0, part: int = 0, what: str = ""):
        """`reason`: tokens (the card has more than `limit`), depth (`count`
        levels), operations (`count` in the card, `part` in this expression),
        or inlined (`what` nests `count` deep once its lets are written out)."""
        advice = ("simplify the expression; the terms of a sum and the factors of a product "
                  "count as one level")
        message, hint = {
            "tokens": (f"the card is too long: more than {limit} tokens", "at most that many are read"),
            "depth": (f"this expression nests operations {count} deep",
                      f"at most {limit} levels of nested operations are allowed"),
            "operations": (f"the card has {count} operations ({part} in this expression)",
                           f"at most {limit} operations are allowed in one card"),
            "inlined": (f"{what} nests operations {count} deep once its `let`s are written out",
                        f"at most {limit} levels of nested operations are allowed"),
        }[reason]
        if reason == "tokens":
            advice = "a card describes one law: write one file per card"
        return self.error("E104", span, message, hints=[hint, advice])

    @_kind("E103", "invalid number")
    def bad_number(self, span: Span, text: str, ratio: bool = False):
        if ratio:
            return self.error("E103", span, f"`{text}` is not a fraction of two whole numbers with a "
                                            "non-zero denominator",
                              hints=["write an exact value as `P/Q` with whole P and Q, e.g. `1/3`"])
        return self.error("E103", span, f"`{text}` is not a finite number")

    # -- E2xx: names ----------------------------------------------------------
    @_kind("E200", "unknown name")
    def unknown_name(self, span: Span, name: str, suggestions: Sequence[str] = ()):
        hints = [f"did you mean `{suggestions[0]}`?"] if suggestions else [
            "declare it with `input`, `param` or `let`"]
        return self.error("E200", span, f"unknown name `{name}`", hints=hints)

    @_kind("E201", "duplicate declaration")
    def duplicate(self, span: Span, name: str, first: Span, first_kind: str):
        return self.error(
            "E201", span, f"`{name}` is declared more than once",
            related=[(first, f"first declared here as {article(first_kind)}")],
            hints=["every name in a card is declared exactly once"])

    @_kind("E202", "reserved name")
    def reserved(self, span: Span, name: str, kind: str):
        """`kind`: keyword, function or constant."""
        what = {"keyword": "a keyword of the language", "function": "a function name",
                "constant": "the constant π"}[kind]
        return self.error("E202", span, f"`{name}` is reserved ({what}) and cannot name a quantity",
                          hints=[f"rename it, e.g. `{name}_`"])

    @_kind("E203", "unknown function")
    def unknown_function(self, span: Span, name: str, suggestions: Sequence[str] = ()):
        hints = [f"did you mean `{suggestions[0]}`?"] if suggestions else []
        from .functions import FUNCTIONS  # loaded when the message is written, not on every lint
        hints.append("functions: " + ", ".join(sorted(FUNCTIONS)))
        return self.error("E203", span, f"unknown function `{name}`", hints=hints)

    @_kind("E204", "wrong number of arguments")
    def arity(self, span: Span, name: str, least: int, most: int | None, got: int):
        expected = (f"{least} argument" + ("s" if least > 1 else "")) if least == most \
            else f"{least} or more arguments"
        return self.error("E204", span,
                          f"`{name}` takes {expected}, but {got} {'was' if got == 1 else 'were'} given")

    @_kind("E205", "cyclic definition")
    def cycle(self, span: Span, path: Sequence[str]):
        return self.error("E205", span, "`let` definitions form a cycle: " + " -> ".join(path),
                          hints=["a let may use inputs, params and other lets, but not itself"])

    @_kind("E206", "name of the wrong kind")
    def wrong_kind(self, span: Span, name: str, use: str):
        """`use`: function (a function's name without a call), output (an
        output in an expression) or constraint (a let in a constraint)."""
        kind, needed, hint = {
            "function": ("a function", "call it with parentheses", f"`{name}(...)`"),
            "output": ("an output", "outputs cannot appear in expressions",
                       "write the quantity you need as a `let` and use it in both laws"),
            "constraint": ("a let", "a constraint may use inputs and params only",
                           "write the let's expression out in the constraint"),
            "system": ("a name of the system", "states, the system's lets, law arguments and laws of named "
                       "arguments exist only inside the system block", "use it in the system's lets and rates"),
        }[use]
        return self.error("E206", span, f"`{name}` is {kind}; {needed}", hints=[hint])

    # -- E3xx: card statements ------------------------------------------------
    @_kind("E300", "missing required statement")
    def missing(self, span: Span, what: str):
        example = {"collection": "collection historical",
                   "source": 'source "A. Author, Journal 1, 1 (1900)"'}[what]
        return self.error("E300", span, f"the card has no `{what}` statement",
                          hints=[f"add e.g. `{example}`"])

    @_kind("E301", "statement given more than once")
    def repeated(self, span: Span, what: str, first: Span):
        return self.error("E301", span, f"`{what}` is given more than once",
                          related=[(first, "first given here")])

    @_kind("E302", "invalid choice")
    def bad_choice(self, span: Span, setting: str, got: str, choices: Sequence[str],
                   suggestion: str | None = None):
        """`setting`: collection, noise, design or interpolate."""
        what = {"collection": "collection", "noise": "noise model", "design": "design method",
                "interpolate": "value for `interpolate`"}[setting]
        hints = [f"did you mean `{suggestion}`?"] if suggestion else []
        hints.append("choose one of: " + ", ".join(f"`{c}`" for c in choices))
        return self.error("E302", span, f"`{got}` is not a valid {what}", hints=hints)

    @_kind("E303", "not a whole number")
    def not_whole(self, span: Span, setting: str, got: str):
        return self.error("E303", span, f"{_SETTINGS[setting]} must be a whole number, got `{got}`")

    @_kind("E304", "value out of range")
    def out_of_range(self, span: Span, setting: str, got: str, least: int | None = None,
                     most: int | None = None):
        """A setting (see `_SETTINGS`) outside its range: `least` .. `most`
        for whole numbers, the setting's own rule otherwise."""
        allowed = {"threshold": "above 0 and at most 1", "scale": "non-zero"}.get(setting) or (
            f"at least {least}" if most is None else f"between {least} and {most}")
        return self.error("E304", span, f"{_SETTINGS[setting]} is `{got}`, but it must be {allowed}")

    # -- E4xx: units and dimensions -------------------------------------------
    @_kind("E400", "unknown unit")
    def unknown_unit(self, span: Span, text: str, reason: str, suggestions: Sequence[str] = (),
                     defined_later: Span | None = None):
        """`defined_later`: a `unit` statement after this place that defines a name used here."""
        if defined_later is not None:
            return self.error("E400", span, f"unknown unit `[{text}]`: it uses a unit the card defines "
                                            "only further down",
                              related=[(defined_later, "defined here")],
                              hints=["move the `unit` statement above its first use"])
        hints = [f"did you mean `{s}`?" for s in suggestions[:1]]
        hints.append("units use pint's syntax, e.g. `m^3 kg^-1 s^-2` or `J/(mol*K)`; `1` is dimensionless")
        if text.strip().isidentifier():
            hints.append('a card may define its own unit: `unit solar_mass = 1.98847e30 [kg] "nominal solar mass"`')
        return self.error("E400", span, f"unknown unit `[{text}]`: {reason}", hints=hints)

    @_kind("E411", "bad unit definition")
    def bad_unit_definition(self, span: Span, name: str, reason: str, value: str = ""):
        """`reason`: known (pint already has a unit of that name) or value (not positive)."""
        if reason == "known":
            return self.error("E411", span, f"`unit {name}`: `{name}` is already a unit, so the card "
                                            "cannot define it again",
                              hints=[f"use `[{name}]` as it is, or choose another name, e.g. `{name}_card`"])
        return self.error("E411", span, f"`unit {name}`: its size `{value}` must be a positive number",
                          hints=["a unit is a positive multiple of another, e.g. "
                                 "`unit solar_mass = 1.98847e30 [kg]`"])

    @_kind("E401", "offset unit")
    def offset_unit(self, span: Span, text: str):
        return self.error("E401", span,
                          f"`[{text}]` is an offset unit; laws need absolute temperatures",
                          hints=["use `[K]` (kelvin) and convert the domain: 20 degC is 293.15 K"])

    @_kind("E402", "operands of different dimensions")
    def mismatch(self, span: Span, where: str, symbol: str, left, right, env_note: str | None = None,
                 related=()):
        """`where`: operator (`+`, `-`), function (its name) or constraint (its comparison)."""
        what = {"constraint": f"the constraint's `{symbol}`",
                "where": f"the `{symbol}` of a law's `where`"}.get(where, f"`{symbol}`")
        ratio = left / right
        hints = [f"the left is the right's dimension times {describe_dim(ratio)}: multiply the right by a "
                 "quantity of that dimension (a param with that unit, say) or divide the left by one"]
        message = (f"{what} needs operands of the same dimension, but the left is {describe_dim(left)} "
                   f"and the right is {describe_dim(right)}")
        return self.error("E402", span, message, env_note=env_note, related=related, hints=hints)

    @_kind("E403", "law does not balance")
    def law_mismatch(self, span: Span, output: str, unit_text: str, got, want,
                     env_note: str | None = None, hints: Sequence[str] = (), related=()):
        message = (f"law {output}: right side is {describe_dim(got)}, "
                   f"but output {output} [{unit_text}] is {describe_dim(want)}")
        return self.error("E403", span, message, env_note=env_note, hints=hints, related=related)

    @_kind("E404", "function argument must be dimensionless")
    def needs_dimensionless(self, span: Span, fn: str, got, env_note: str | None = None):
        return self.error(
            "E404", span, f"the argument of `{fn}` must be dimensionless, but it is {describe_dim(got)}",
            env_note=env_note,
            hints=["divide by a reference quantity of the same dimension (angles in `rad` or `deg` are dimensionless)"])

    @_kind("E405", "non-constant exponent on a dimensional base")
    def variable_exponent(self, span: Span, base_dim, env_note: str | None = None):
        return self.error(
            "E405", span,
            f"the base has dimension {describe_dim(base_dim)}, so its exponent must be a "
            "constant (numbers, params, and lets made of them)",
            env_note=env_note,
            hints=["make the base dimensionless, e.g. `(x / x0)^k` with a param `x0`"])

    @_kind("E406", "exponent with a dimension")
    def dimensional_exponent(self, span: Span, got, env_note: str | None = None):
        return self.error("E406", span, f"an exponent must be dimensionless, but this one is {describe_dim(got)}",
                          env_note=env_note)

    @_kind("E407", "value without the parameter's unit")
    def set_unit(self, span: Span, name: str, want, got):
        return self.error(
            "E407", span,
            f"`set {name}`: the new value is {describe_dim(got)}, but `{name}` is {describe_dim(want)}",
            hints=[f"write the value with a unit of {describe_dim(want)}, or use `rebalance {name}` "
                   "to change its unit"])

    @_kind("E408", "rebalance cannot be solved")
    def rebalance_failed(self, span: Span, name: str, reason: str, group: Sequence[str] = (),
                         fix: str | None = None, related=()):
        """`reason`: conflict (the laws ask for different units), no_effect, or
        underdetermined (the units of `group` are fixed only together; `fix`
        is a param whose keeping fixed determines the others)."""
        if reason == "underdetermined":
            names = ", ".join(f"`{n}`" for n in group[:-1]) + f" and `{group[-1]}`"
            others = [f"`{n}`" for n in group if n != fix]
            hints = ([f"keep `{fix}` as it is (drop `rebalance {fix}`): the laws then fix the unit"
                      f"{'s' if len(others) > 1 else ''} of " + (", ".join(others[:-1]) + " and " + others[-1]
                                                                   if len(others) > 1 else others[0])]
                     if fix else [])
            hints.append(f"rebalance {len(group) - 1} of the {len(group)}; any {len(group) - 1} will do")
            return self.error("E408", span, f"`rebalance {name}`: the rebalance is under-determined: the laws "
                                            f"fix the units of {names} only together, so many choices "
                                            "balance them", hints=hints, related=related)
        why = {"conflict": "the laws ask for different units; no single unit balances them all",
               "no_effect": f"the unit of `{name}` does not affect whether any law balances, so there "
                            "is nothing to rebalance"}[reason]
        return self.error("E408", span, f"`rebalance {name}`: {why}")

    @_kind("E409", "exponent cannot be evaluated")
    def bad_exponent_value(self, span: Span, env_note: str | None = None):
        return self.error("E409", span, "the exponent cannot be evaluated: it is not a finite number",
                          env_note=env_note)

    @_kind("E410", "bad reference point of `rebalance ... at`")
    def bad_reference(self, span: Span, name: str, reason: str, ref: str = "", **detail):
        """`reason` (and its `detail`): second (first=the param already fixing
        one), not_input (kind, suggestion), twice, outside (value, outside),
        unit (own, unit, dim), constraint (where, constraint), unsolvable (where, why),
        zero (where, output, suggestion: a point where that output is not 0)."""
        d = detail.get
        why, hints = {
            "second": lambda: (f"a counterfactual may fix one reference point only, and "
                               f"`rebalance {d('first')} at ...` already does",
                               ["keep one `rebalance ... at`; rebalance the other params plainly"]),
            "not_input": lambda: (f"`{ref}` is {article(d('kind'))}, not an input" if d("kind")
                                  else f"there is no input named `{ref}`",
                                  [f"did you mean `{d('suggestion')}`?"] if d("suggestion")
                                  else ["a reference point gives values of inputs"]),
            "twice": lambda: (f"`{ref}` is given twice", []),
            "outside": lambda: (f"{ref} = {d('value'):g} {outside_text(d('outside'))}",
                                ["choose a reference point inside the domain, so that the worlds agree "
                                 "where players can look"]),
            "unit": lambda: (f"`{ref}` is {describe_dim(d('own'))}, but [{d('unit')}] is {describe_dim(d('dim'))}",
                             [f"write the value in a unit of {describe_dim(d('own'))}, or leave the unit out "
                              "to use the input's own"]),
            "constraint": lambda: (f"the reference point {d('where')} breaks the constraint `{d('constraint')}`",
                                   ["choose a reference point that players could ask for"]),
            "unsolvable": lambda: (f"at {d('where')}, {d('why')}", []),
            "zero": lambda: (f"at {d('where')}, output `{d('output')}` of the counterfactual is 0 whatever the "
                             f"value of `{name}`, so no value of it can make the worlds agree there",
                             [f"choose another reference point, e.g. {d('suggestion')}" if d("suggestion")
                              else "choose another reference point, where the counterfactual's output is not 0"]),
        }[reason]()
        return self.error("E410", span, f"`rebalance {name} at ...`: {why}", hints=hints)

    # -- E5xx: inputs, outputs, laws, designs -------------------------------
    @_kind("E500", "empty domain")
    def empty_domain(self, span: Span, name: str, lo: str, hi: str, integer: bool = False):
        why = (f"no integer lies in {lo} .. {hi}" if integer
               else f"the lower bound {lo} is not below the upper bound {hi}")
        return self.error("E500", span, f"input `{name}` has an empty domain: {why}")

    @_kind("E501", "log domain must be positive")
    def log_domain(self, span: Span, name: str, lo: str):
        return self.error("E501", span,
                          f"input `{name}` is sampled log-uniformly, so its lower bound must be "
                          f"positive, but it is `{lo}`")

    @_kind("E502", "non-positive resolution")
    def bad_resolution(self, span: Span, name: str, got: str):
        return self.error("E502", span, f"output `{name}`: resolution must be positive, got `{got}`",
                          hints=["leave `resolution` out for exact observations"])

    @_kind("E503", "non-positive tolerance")
    def bad_tolerance(self, span: Span, name: str, which: str, got: str):
        need = "positive" if which == "abs" else "zero or positive"
        hint = ("the error e = |ĝ-g| / (abs + rel·|g|) needs abs > 0 to be defined where g = 0"
                if which == "abs" else "rel is a fraction of |g|, e.g. `1%` or `0.01`; `0` for none")
        return self.error("E503", span, f"output `{name}`: the {which} tolerance must be {need}, got `{got}`",
                          hints=[hint])

    @_kind("E520", "noise level out of range")
    def bad_noise(self, span: Span, name: str, which: str, got: str, most: float | None = None):
        bound = f"zero or positive and at most {most:g}" if most is not None else "zero or positive"
        return self.error("E520", span, f"output `{name}`: the {which} noise level must be {bound}, "
                                        f"got `{got}`",
                          hints=["the noise's standard deviation is abs + rel·|g|: `rel 1%` or `rel 0.01`, "
                                 "`abs` in the output's unit"])

    @_kind("E521", "out-of-domain factor not above 1, or overflowing")
    def bad_ood_factor(self, span: Span, got: str, widens: str | None = None):
        message = (f"the out-of-domain factor `{got}` widens input `{widens}` past the largest number"
                   if widens else f"the out-of-domain factor must be above 1, got `{got}`")
        return self.error("E521", span, message,
                          hints=["`ood 2` draws the second evaluation set from the domain widened to twice "
                                 "its width around its centre"])

    @_kind("E504", "repeated value in a discrete domain")
    def repeated_value(self, span: Span, name: str, value: str):
        return self.error("E504", span, f"input `{name}`: the value `{value}` appears twice in its set")

    @_kind("E505", "output without a law")
    def no_law(self, span: Span, name: str):
        return self.error("E505", span, f"output `{name}` has no law",
                          hints=[f"add `law {name} = ...`"])

    @_kind("E506", "law for something that is not an output")
    def stray_law(self, span: Span, name: str, kind: str | None, suggestions: Sequence[str] = ()):
        message = (f"`law {name}`: `{name}` is {article(kind)}, not an output" if kind
                   else f"`law {name}`: there is no output named `{name}`")
        hints = [f"did you mean `{suggestions[0]}`?"] if suggestions else []
        hints.append(f"declare it: `output {name} [UNIT] tolerance abs A rel L`")
        return self.error("E506", span, message, hints=hints)

    @_kind("E507", "more than one law for an output")
    def second_law(self, span: Span, name: str, first: Span):
        return self.error("E507", span, f"output `{name}` has more than one law",
                          related=[(first, "first law here")],
                          hints=["replace a law in the counterfactual block, not beside the original"])

    @_kind("E508", "bad fixed design point")
    def bad_design(self, span: Span, reason: str, name: str = "", value: str = "",
                   outside: tuple | None = None, missing: Sequence[str] = ()):
        """`reason`: not_input, twice, outside (`outside` as `checkutil.outside_domain`
        gives it), missing (the inputs an experiment leaves out) or undefined
        (law `name` has no value there in world `value`, by its `where`)."""
        why = {"not_input": lambda: f"`{name}` is not an input",
               "undefined": lambda: f"law {name} has no value at this experiment in the {value} "
                                    f"world{'s' if ' and ' in value else ''} (its `where` does not hold), so "
                                    "the oracle would refuse it",
               "twice": lambda: f"`{name}` is given twice in one experiment",
               "outside": lambda: f"{name} = {value} {outside_text(outside)}",
               "missing": lambda: "this experiment does not set " + ", ".join(f"`{m}`" for m in missing),
               }[reason]()
        return self.error("E508", span, f"fixed design: {why}")

    # -- E6xx: the counterfactual ---------------------------------------------
    @_kind("E600", "missing counterfactual")
    def no_counterfactual(self, span: Span):
        return self.error("E600", span, "the card has no `counterfactual` block",
                          hints=['add e.g. `counterfactual "LABEL" { scale P by 1.2 }`'])

    @_kind("E601", "more than one counterfactual")
    def second_counterfactual(self, span: Span, first: Span):
        return self.error("E601", span, "a card has exactly one counterfactual block",
                          related=[(first, "the first one is here")])

    @_kind("E602", "empty counterfactual")
    def empty_counterfactual(self, span: Span, label: str):
        return self.error("E602", span, f'counterfactual "{label}" changes nothing: its block is empty',
                          hints=["use `set`, `scale`, `rebalance`, `let` or `law` inside it"])

    @_kind("E603", "counterfactual without effect")
    def noop_counterfactual(self, span: Span, label: str):
        return self.error("E603", span, f'counterfactual "{label}" gives the same relation as the original: '
                                        "no law, let or param that a law uses is changed")

    @_kind("E604", "mutation of the wrong target")
    def bad_target(self, span: Span, name: str, kind: str | None, verb: str | None = None):
        """`verb` set, scale or rebalance of something not a param (its `kind`);
        without a verb, a counterfactual `let` of a name that is no let."""
        if verb is not None:
            return self.error("E604", span, f"`{verb} {name}`: `{name}` is {article(kind)}, but only params "
                              "can be changed this way",
                              hints=["use `law` or `let` inside the counterfactual to replace an expression"])
        why = f"`{name}` is {article(kind)}" if kind else f"`{name}` is not declared"
        return self.error("E604", span, f"a counterfactual `let` replaces an existing let, but {why}",
                          hints=[f"declare `let {name} = ...` in the card, or change a param instead"])

    @_kind("E605", "constraint depends on what the counterfactual changes")
    def constraint_changed(self, span: Span, name: str, mutation: str, mutation_span: Span):
        return self.error(
            "E605", span,
            f"the constraint uses `{name}`, which the counterfactual changes (`{mutation}`); both "
            "worlds share their constraints, so one of them would refuse experiments by the other's law",
            related=[(mutation_span, "changed here")],
            hints=["bound the inputs with their domains (or with numbers) instead, so the constraint "
                   "holds in both worlds"])

    @_kind("E606", "acknowledgment without a reason")
    def empty_acknowledgment(self, span: Span):
        return self.error("E606", span, "`magnitude differs` needs a reason: the string is empty",
                          hints=['say why the size difference belongs to the world, e.g. '
                                 '`magnitude differs "quadratic drag is far weaker at these sizes"`'])

    # -- E7xx: numeric checks ---------------------------------------------------
    @_kind("E700", "law undefined on the domain")
    def undefined_law(self, span: Span, output: str, env: str, infinite: bool, example: str, related=(),
                      declared: bool = False):
        """`declared`: the law has a `where`, and this point satisfies it."""
        why = "infinite" if infinite else "undefined (not a real number)"
        if declared:
            return self.error("E700", span, f"law {output} ({env}) is {why} at {example}, where its `where` "
                                            "says it has a value",
                              hints=["widen the `where` condition so that it excludes these inputs"],
                              related=related)
        return self.error("E700", span, f"law {output} ({env}) is {why} on the domain, e.g. at {example}",
                          hints=["narrow the input domain or add a constraint that excludes these inputs, "
                                 'or say where the law has no value: `law ... where COND "REASON"`'],
                          related=related)

    @_kind("E704", "law has no value anywhere on the domain")
    def nowhere_defined(self, span: Span, output: str, env: str, condition: str):
        return self.error("E704", span, f"law {output} ({env}) has no value anywhere on the domain: "
                                        f"`{condition}` holds at none of the probed inputs",
                          hints=["check the direction of the comparison in `where`"])

    @_kind("E701", "counterfactual indistinguishable")
    def indistinguishable(self, span: Span, label: str, passing: Sequence[tuple[str, str, float]], points: int):
        """`passing`: (law, environment it passes in, its largest scaled error)."""
        detail = "; ".join(f"the {law} law passes the weak test in the {played} environment "
                           f"(largest scaled error {worst:.3g} <= 1)" for law, played, worst in passing)
        detail += f" over {points} evaluation points"
        return self.error("E701", span,
                          f'counterfactual "{label}" cannot be told apart from the original: {detail}',
                          hints=["make the mutation larger, or tighten the outputs' tolerances"])

    @_kind("E702", "constraints exclude the domain")
    def constraints_exclude_domain(self, span: Span, why: str, where: bool = False):
        """`where`: it is the laws' `where` conditions of both worlds together that leave nothing."""
        if where:
            return self.error("E702", span, f"the two worlds both have a value almost nowhere on the domain "
                                            f"(by their laws' `where`): {why}",
                              hints=["change the counterfactual so that its `where` overlaps the original's"])
        return self.error("E702", span, f"the constraints leave (almost) no legal experiments: {why}; this one rejects the most",
                          hints=["check the direction of each constraint's comparison"])

    @_kind("E703", "constant overflows when folded")
    def fold_overflow(self, span: Span, what: str, why: str):
        return self.error("E703", span, f"{what} cannot be compiled: {why}",
                          hints=["write the constant in a larger unit, or combine the constants by hand "
                                 "(`1e400` is not a float; `1e200 * 1e200` is not either)"])

    # -- warnings ---------------------------------------------------------------
    @_kind("W100", "unused input")
    def unused_input(self, span: Span, name: str):
        return self.warning("W100", span, f"input `{name}` is not used by any law",
                            hints=["a player can vary it but never see an effect; remove it or use it"])

    @_kind("W101", "unused param")
    def unused_param(self, span: Span, name: str):
        return self.warning("W101", span, f"param `{name}` is not used by any law")

    @_kind("W102", "unused let")
    def unused_let(self, span: Span, name: str):
        return self.warning("W102", span, f"let `{name}` is not used by any law")

    @_kind("W200", "resolution coarser than the tolerance")
    def coarse_resolution(self, span: Span, name: str, resolution: str, tolerance: str):
        return self.warning(
            "W200", span,
            f"output `{name}`: resolution {resolution} is coarser than the absolute tolerance {tolerance}",
            hints=["rounding alone may then exceed the tolerance near zero; make the resolution finer"])

    @_kind("W320", "noise hides the counterfactual")
    def noise_hides_counterfactual(self, span: Span, budget: int, separation: float, needed: float):
        detail = (f"the worlds differ by {separation:.3g} noise standard deviations in all "
                  f"(at least {needed:g} needed)")
        return self.warning(
            "W320", span,
            f"with this measurement noise, the {budget} Fixed observations cannot tell the two worlds "
            f"apart: {detail}",
            hints=["lower the noise, or give the Fixed protocol a larger design (`fixed design B ...`)"])

    @_kind("W300", "temporal card without dates")
    def missing_dates(self, span: Span, which: str):
        return self.warning("W300", span, f"a temporal card needs `{which}` (YYYY-MM-DD) for cutoff-aware selection")

    @_kind("W301", "file name differs from the card name")
    def stem_mismatch(self, span: Span, stem: str, name: str):
        return self.warning("W301", span, f"the file is `{stem}.sci`, but the card is named `{name}`",
                            hints=[f"rename the file to `{name}.sci`"])

    @_kind("W302", "card without background")
    def no_background(self, span: Span):
        return self.warning("W302", span, "the card has no `background`: players will see no task description")

    @_kind("W303", "placeholder text left in the card")
    def placeholder(self, span: Span, place: str, name: str, text: str):
        """`place`: title, meta (statement `name`), description (of `name`) or label."""
        what = {"title": "the title", "meta": f"`{name}`", "description": f"the description of `{name}`",
                "label": "the counterfactual's label"}[place]
        return self.warning("W303", span, f"{what} still holds the placeholder `{text}`",
                            hints=["replace the TODO with the card's real text"])

    # -- W4xx: sound worlds ------------------------------------------------------
    @_kind("W400", "worlds differ mostly in size")
    def size_difference(self, span: Span, label: str, output: str, low: str, median: str, high: str,
                        hints: Sequence[str] = ()):
        return self.warning(
            "W400", span,
            f'counterfactual "{label}": output `{output}` is {low} to {high} times the original\'s '
            f"over the evaluation set (median {median}), so one reading tells the worlds apart "
            "without the law",
            hints=list(hints) + ['if the size difference belongs to the counterfactual world, say so '
                                 'in its block: `magnitude differs "WHY"`'])

    @_kind("W401", "counterfactual mostly below the absolute tolerance")
    def below_tolerance(self, span: Span, label: str, output: str, share: str, tolerance: str):
        return self.warning(
            "W401", span,
            f'counterfactual "{label}": {share} of the evaluation points of `{output}` lie below its '
            f"absolute tolerance {tolerance}, so the score there checks the tolerance, not the law",
            hints=["move the domain to where the counterfactual's values stand well above the "
                   "absolute tolerance, or lower the tolerance"])

    @_kind("W402", "hidden param named in text players see")
    def visible_param(self, span: Span, name: str, place: str, detail: str = ""):
        """`place`: constraint (its text), meta (background or conditions),
        input or output (the description of `detail`), message (of a constraint), or
        reason (of the `where` of law `detail`)."""
        where = {"constraint": f"the constraint `{detail}`", "meta": f"the {detail}",
                 "input": f"the description of input `{detail}`",
                 "output": f"the description of output `{detail}`",
                 "message": "the message of a constraint",
                 "reason": f"the reason of the `where` of law `{detail}` (players see it when an "
                           "experiment is refused)"}[place]
        return self.warning(
            "W402", span, f"{where} names the hidden param `{name}`: players see this text, so it "
            "reveals part of the law",
            hints=["bound the inputs with numbers or their domains, and describe the set-up "
                   "without the law's symbols"])

    @_kind("W403", "unneeded magnitude acknowledgment")
    def needless_acknowledgment(self, span: Span, factor: str, output: str, limit: float):
        detail = (f"the worlds' outputs differ by a median factor of {factor} at most (`{output}`), "
                  f"within {limit:g} times either way")
        return self.warning("W403", span, f"`magnitude differs` is not needed: {detail}",
                            hints=["remove it, so that it keeps meaning something where it is used"])

    # -- E8xx: systems (a law acting inside a system that evolves in time) --------
    @_kind("E800", "a rate's unit is not its state's per unit of time")
    def rate_mismatch(self, span: Span, state: str, got, want, env_note: str | None = None):
        return self.error(
            "E800", span, f"rate {state}: the right side is {describe_dim(got)}, but d{state}/dt must "
            f"be {describe_dim(want)} (the state's unit per unit of time)",
            env_note=env_note,
            hints=[f"a rate is the time derivative of its state: `rate {state} = ...` must have the unit "
                   f"of `{state}` divided by a time"])

    @_kind("E801", "an initial value in the wrong unit")
    def initial_mismatch(self, span: Span, state: str, unit_text: str, got, want):
        return self.error(
            "E801", span, f"state {state} [{unit_text}] starts at a value that is {describe_dim(got)}, "
            f"but the state is {describe_dim(want)}",
            hints=[f"write the initial value in a unit of {describe_dim(want)}, e.g. `0 [{unit_text}]`"])

    @_kind("E802", "the system's `time` is not an input of dimension time")
    def bad_time(self, span: Span, name: str, why: str, dim=None):
        detail = {"missing": "the system has no `time NAME` statement",
                  "twice": "the system names its time twice",
                  "not_input": f"`{name}` is not an input",
                  "dimension": f"input `{name}` is {describe_dim(dim)}, not a time"}[why]
        return self.error("E802", span, f"system time: {detail}",
                          hints=["name the input that is the observation time, e.g. `input t [s] in 0.1 .. 10` "
                                 "and `time t` inside the system"])

    @_kind("E803", "an output that is not a state or a `let` of the system")
    def output_not_state(self, span: Span, name: str):
        return self.error(
            "E803", span, f"output `{name}` is neither a state of the system nor a `let` inside it",
            hints=[f"declare `state {name} [...] = ...` with a rate, or `let {name} = ...` of the states "
                   "inside the system block"])

    @_kind("E804", "a state without a rate")
    def state_without_rate(self, span: Span, name: str):
        return self.error("E804", span, f"state `{name}` has no rate, so the system does not say how it changes",
                          hints=[f"add `rate {name} = ...` (write `rate {name} = 0 [...]` for a constant)"])

    @_kind("E805", "a rate for a name that is not a state")
    def stray_rate(self, span: Span, name: str, why: str, suggestion: Sequence[str] = (), first=None):
        detail = {"undeclared": f"`{name}` is not a state of the system",
                  "twice": f"state `{name}` already has a rate"}[why]
        hints = [f"did you mean `{suggestion[0]}`?"] if suggestion else \
            ([f"declare it first: `state {name} [UNIT] = INITIAL`"] if why == "undeclared" else
             ["give each state exactly one rate"])
        return self.error("E805", span, f"rate {name}: {detail}", hints=hints,
                          related=[(first, "its first rate")] if first is not None else [])

    @_kind("E806", "a law called with arguments of the wrong number or dimensions")
    def law_call(self, span: Span, law: str, detail: str, env_note: str | None = None):
        return self.error("E806", span, f"`{law}(...)`: {detail}", env_note=env_note,
                          hints=[f"each argument of `{law}` must have the dimension of the argument it is "
                                 "passed for (an input's unit, or its `argument` declaration's)"])

    @_kind("E807", "a law function that uses a name other than its arguments and params")
    def law_scope(self, span: Span, law: str, name: str, why: str):
        detail = {"scope": f"uses `{name}`, which is neither one of its arguments nor a param",
                  "no_unit": f"argument `{name}` is neither an input nor declared by `argument {name} [UNIT] in ...`",
                  "twice": f"names argument `{name}` twice",
                  "not_called": "is never called by the system's rates or lets",
                  "no_system": "is a law of named arguments, but the card has no `system` block to call it"}[why]
        return self.error("E807", span, f"law {law}(...) {detail}",
                          hints=["a law of named arguments sees only its arguments and the card's params"])

    @_kind("W410", "a system that cannot be integrated at some inputs")
    def unintegrable(self, span: Span, env: str, share: str, example: str, max_steps: int):
        return self.warning(
            "W410", span, f"the system ({env}) cannot be integrated to its time at {share} of the probed inputs, "
            f"e.g. at {example}: an observation there is refused",
            notes=[f"the integrator gives up after {max_steps} steps, when its step shrinks to rounding, or when "
                   "a state stops being finite (a stiff or blowing-up system)"],
            hints=["narrow the inputs' domains (a shorter time, gentler initial values) so that every point "
                   "can be observed"])

    # -- notes -----------------------------------------------------------------
    @_kind("N001", "rebalanced unit")
    def rebalanced(self, span: Span, name: str, old_unit: str, new_unit: str):
        return self.note("N001", span, f"in the counterfactual, `{name}` becomes {new_unit} (was {old_unit})")

    def blame_mutation(self, diag: Diagnostic, span: Span, mutation: str, rebalance: str | None) -> Diagnostic:
        """A counterfactual's E402/E403 moved to the mutation that caused it
        (`mutation`, at `span`), the expression as the second place, and the
        param whose `rebalance` would balance the laws, if one would."""
        hints = ([f"add `rebalance {rebalance}` to the counterfactual block so `{rebalance}` takes "
                  "the unit that balances the law"] if rebalance else []) + list(diag.hints)
        moved = dataclasses.replace(
            diag, span=span,
            notes=diag.notes + (f"`{mutation}` changes the dimension of this expression",),
            hints=tuple(hints),
            related=diag.related + (Related(span=diag.span, message="this no longer balances"),))
        self.items.append(moved)
        return moved

    @_kind("N002", "value solved by `rebalance ... at`")
    def reference_solved(self, span: Span, name: str, old_value: str, new_value: str, point: str):
        """`point` as `point_text` writes it."""
        return self.note("N002", span, f"in the counterfactual, `{name}` is {new_value} (was {old_value}), "
                                       f"so both worlds agree at {point}")


#: What a setting is called in E303 and E304.
_SETTINGS = {"design_size": "the design size", "seed": "the seed", "evaluation_size": "the evaluation size",
             "max_steps": "max_steps", "threshold": "the adaptive threshold", "scale": "a scale factor"}


def point_text(listed: Sequence[str], rest: Sequence[str]) -> str:
    """A reference point: `r = 5 [m] (other inputs at the middle of their domains: m1 = 500.5 [kg])`."""
    text = ", ".join(listed)
    if rest:
        text += " (other inputs at the middle of their domains: " + ", ".join(rest) + ")"
    return text


def fold_reason(op: str) -> str:
    """Why folding a law's constants failed (trees.FoldError): the operation that overflowed."""
    what = {"add": "terms add", "mul": "factors multiply"}.get(op, f"`{op}` gives a result")
    return f"its constant {what} up to a number beyond the floating-point range"


def article(kind: str) -> str:
    """`an input`, `a param`."""
    return f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}"


def outside_text(why: tuple) -> str:
    """How a value misses a domain (`checkutil.outside_domain`'s reason)."""
    reason, detail = why
    if reason == "not_listed":
        return "is not one of " + ", ".join(detail)
    if reason == "outside":
        return f"is outside {detail[0]} .. {detail[1]}"
    return "is not an integer"


from .rendering import render  # noqa: E402,F401  (rendering lives in rendering.py; imported from here too)
