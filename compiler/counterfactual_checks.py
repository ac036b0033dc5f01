"""Checks of a card's counterfactual that need the checker's state: solving
`rebalance NAME at ...` (E410, N002), constraints that the counterfactual
would change (E605), the `magnitude differs` acknowledgment (E606), and
hidden params named in text that players see (W402).

`CounterfactualChecks` is mixed into the checker; its methods read the
checker's collected statements, symbols and environments.
"""

from __future__ import annotations

import math
import re
from typing import Optional

from . import ast as A
from .checkutil import closure, first_suggestion, mutation_text, outside_domain, walk
from .diagnostics import point_text
from .printer import format_expr
from .model import domain_middle
from .source import SourceText, Span
from .units import format_si_unit

#: Characters that make a one-letter word read as a symbol of a formula (`2 * d`, `d = 282`).
_OPERATORS = "=*/^+<>()"


class CounterfactualChecks:
    """Mixin of the checker (see the module docstring)."""

    # ---- `magnitude differs "REASON"` ------------------------------------------
    def acknowledge_magnitude(self, m: A.MagnitudeDiffers) -> None:
        if self.magnitude is not None:
            self.report.repeated(m.span, "magnitude differs", self.magnitude.span)
            return
        if not m.reason.strip():
            self.report.empty_acknowledgment(m.reason_span)
        self.magnitude = m

    # ---- `rebalance NAME at ...` -------------------------------------------------
    def solve_references(self, original, orig_typed, env, cf_typed, rebalanced: dict):
        """The environment with the value of the param of a `rebalance ... at`
        moved so that both worlds agree at its reference point (after every
        other mutation); `env` itself when there is none or it fails."""
        at = [m for m in rebalanced.values() if m.reference]
        for extra in at[1:]:
            self.report.bad_reference(extra.span, extra.name, "second", first=at[0].name)
        if not at:
            return env
        if self.system is not None:
            return self.solve_system_reference(original, env, rebalanced)
        m = at[0]
        found = self._reference_point(m)
        if found is None or self.report.has_errors or orig_typed is None:
            return env
        point, declared = found
        where = _point_text(self.inputs, m, declared)
        if not self._reference_is_legal(m, point, original.param_values, where):
            return env
        from .reference import ReferenceUnsolvable, solve_factor, world_outputs  # numpy: a solve evaluates the laws
        target = world_outputs(orig_typed.lets, orig_typed.laws, {**point, **original.param_values})

        def world(factor: float) -> dict[str, float]:
            params = {**env.param_values, m.name: env.param_values[m.name] * factor}
            return world_outputs(cf_typed.lets, cf_typed.laws, {**point, **params})

        try:
            factor = solve_factor(target, world)
        except ReferenceUnsolvable as exc:
            if exc.zero is not None:
                self.report.bad_reference(m.span, m.name, "zero", where=where, output=exc.zero,
                                          suggestion=self._nonzero_point(m, declared, env, cf_typed, original,
                                                                          exc.zero))
            else:
                self.report.bad_reference(m.span, m.name, "unsolvable", where=where, why=str(exc))
            return env
        old = env.param_values[m.name]
        solved = env.with_param(m.name, old * factor)
        self.report.reference_solved(m.span, m.name, f"{old:.6g} {_si(original.param_dims.get(m.name))}".strip(),
                                     f"{old * factor:.6g} {_si(env.param_dims.get(m.name))}".strip(), where)
        return solved

    def _nonzero_point(self, m: A.RebalanceMutation, declared: dict[str, float], env, cf_typed, original,
                       output: str) -> str:
        """`INPUT = VALUE [UNIT]`: one listed input moved to a quarter of its
        domain (or the middle, three quarters) where the counterfactual's
        `output` does change with the param and the constraints hold; ""
        when none does."""
        import numpy as np

        from .reference import world_outputs
        from .sampling import holds
        inputs = {i.name: i for i in self.inputs}
        for ref in m.reference:
            inp = inputs[ref.name]
            for share in (0.25, 0.5, 0.75):
                value = _at_share(inp.domain, share)
                if value is None or value == declared[ref.name]:
                    continue
                point = {i.name: (value if i.name == ref.name else declared[i.name]) *
                         (self.unit(i.unit).si_factor if self.unit(i.unit) else 1.0) for i in self.inputs}
                values = {**point, **env.param_values}
                moved = {**values, m.name: env.param_values[m.name] * 2}
                got = world_outputs(cf_typed.lets, cf_typed.laws, values)[output]
                again = world_outputs(cf_typed.lets, cf_typed.laws, moved)[output]
                legal = all(bool(np.all(holds(c, {**point, **original.param_values})))
                            for c in self.typed_constraints)
                if legal and math.isfinite(got) and got != 0 and got != again:
                    return f"`{ref.name} = {value:g}" + (f" [{inp.unit.text}]`" if inp.unit else "`")
        return ""

    def _reference_point(self, m: A.RebalanceMutation):
        """Every input's value at the reference point (unlisted inputs at the
        middle of their domains), in SI and in the declared units; None after
        reporting a problem."""
        inputs = {i.name: i for i in self.inputs}
        given: dict[str, float] = {}
        ok = True
        for ref in m.reference:
            inp = inputs.get(ref.name)
            if inp is None:
                sym = self.symbols.get(ref.name)
                self.report.bad_reference(ref.name_span, m.name, "not_input", ref.name,
                                          kind=sym.kind if sym else None,
                                          suggestion=first_suggestion(ref.name, inputs))
                ok = False
                continue
            if ref.name in given:
                self.report.bad_reference(ref.span, m.name, "twice", ref.name)
                ok = False
                continue
            declared = self._reference_value(m, ref, inp)
            if declared is None:
                ok = False
                continue
            why = outside_domain(inp.domain, declared)
            if why:
                self.report.bad_reference(ref.value.span, m.name, "outside", ref.name, value=declared, outside=why)
                ok = False
                continue
            given[ref.name] = declared
        if not ok:
            return None
        declared = {i.name: given.get(i.name, _middle(i.domain)) for i in self.inputs}
        point = {}
        for inp in self.inputs:
            unit = self.unit(inp.unit)
            point[inp.name] = declared[inp.name] * (unit.si_factor if unit else 1.0)
        return point, declared

    def _reference_value(self, m, ref: A.ReferenceValue, inp: A.Input) -> Optional[float]:
        """The value in the input's declared unit (a bare number already is;
        so is any number given for an input without a unit)."""
        own = self.unit(inp.unit)
        return ref.value.value if own is None else self.reference_in(own, m, ref)

    def reference_in(self, own, m, ref: A.ReferenceValue) -> Optional[float]:
        """The value of `ref` in unit `own` (a bare number already is); None
        after a report when its unit is unknown or of another dimension."""
        if ref.unit is None:
            return ref.value.value
        unit = self.unit(ref.unit)
        if unit is None:
            return None
        if unit.dim != own.dim:
            self.report.bad_reference(ref.unit.span, m.name, "unit", ref.name, own=own.dim,
                                      unit=ref.unit.text, dim=unit.dim)
            return None
        return ref.value.value * unit.si_factor / own.si_factor

    def _reference_is_legal(self, m: A.RebalanceMutation, point: dict[str, float], params, where: str) -> bool:
        import numpy as np

        from .sampling import holds
        values = {**point, **params}
        for c in self.typed_constraints:
            with np.errstate(all="ignore"):
                ok = holds(c, values)
            if not bool(np.all(ok)):
                self.report.bad_reference(m.span, m.name, "constraint", where=where, constraint=c.text)
                return False
        return True

    # ---- constraints both worlds share -------------------------------------------
    def check_shared_constraints(self, original, env) -> None:
        """E605: a constraint must mean the same in both worlds, so it may not
        use a param (or let) that the counterfactual changes."""
        if env is None:
            return
        changed = {n for n in original.param_values
                   if original.param_values[n] != env.param_values.get(n)
                   or original.param_dims.get(n) != env.param_dims.get(n)}
        changed |= {n for n in original.lets if env.lets.get(n) is not original.lets[n]}
        last: dict[str, object] = {}
        for m in self.counterfactual.mutations:
            if isinstance(m, (A.SetMutation, A.ScaleMutation, A.RebalanceMutation, A.Let)):
                last[m.name] = m
        for c in self.constraints:
            for node in [n for side in (c.left, c.right) for n in walk(side) if isinstance(n, A.Name)]:
                hit = sorted(closure({node.name}, original.lets) & changed)
                if hit and hit[0] in last:
                    m = last[hit[0]]
                    text = mutation_text(m) if not isinstance(m, A.Let) else f"let {m.name} = ..."
                    self.report.constraint_changed(node.span, node.name, text, m.span)

    # ---- what players see ------------------------------------------------------------
    def check_visible_text(self) -> None:
        """W402: a hidden param named in a constraint or in any text shown to
        players (background, conditions, input and output descriptions,
        constraint messages)."""
        params = [p.name for p in self.params]
        for c in self.constraints:
            text = f"{format_expr(c.left)} {c.op} {format_expr(c.right)}"
            seen = set()
            for side in (c.left, c.right):
                for node in _names_in_order(side):
                    if node.name in params and node.name not in seen:
                        seen.add(node.name)
                        self.report.visible_param(node.span, node.name, "constraint", text)
        for place, detail, span in self._visible_texts():
            for name in params:
                hit = _find_word(self.source, span, name)
                if hit is not None:
                    self.report.visible_param(hit, name, place, detail)

    def _visible_texts(self):
        """(place, detail, span) of every string a player is shown, in card
        order (see `Reporter.visible_param`); a span covers the string token,
        or the statement that ends with it."""
        for st in self.card.statements:
            if isinstance(st, A.Meta) and st.key in ("background", "conditions"):
                yield ("meta", st.key, st.value_span)
            elif isinstance(st, (A.Input, A.Output)) and st.description:
                kind = "input" if isinstance(st, A.Input) else "output"
                yield (kind, st.name, _string_part(self.source, st.span))
            elif isinstance(st, A.Constraint) and st.message:
                yield ("message", "", _string_part(self.source, st.span))
        laws = [st for st in self.card.statements if isinstance(st, A.Law)]
        if self.counterfactual is not None:
            laws += [m for m in self.counterfactual.mutations if isinstance(m, A.Law)]
        for law in laws:
            if law.where is not None:
                yield ("reason", law.name, law.where.reason_span)


# ---- helpers --------------------------------------------------------------------

def _point_text(inputs: list[A.Input], m: A.RebalanceMutation, declared: dict[str, float]) -> str:
    """The reference point of `m` as `diagnostics.point_text` writes it."""
    def one(i: A.Input) -> str:
        return f"{i.name} = {declared[i.name]:g}" + (f" [{i.unit.text}]" if i.unit else "")
    listed = {r.name for r in m.reference}
    return point_text([one(i) for i in inputs if i.name in listed],
                      [one(i) for i in inputs if i.name not in listed])


def _si(dim) -> str:
    if dim is None:
        return "?"
    return "" if dim.dimensionless else format_si_unit(dim)


def _at_share(d: A.Domain, share: float) -> Optional[float]:
    """The value `share` of the way through a range domain (in the logarithm
    for `log`); None for a set or integer domain."""
    if isinstance(d, A.SetDomain) or d.kind == "integer":
        return None
    lo, hi = d.lo.value, d.hi.value
    if d.kind == "log":
        return math.exp(math.log(lo) + share * (math.log(hi) - math.log(lo)))
    return lo + share * (hi - lo)


def _middle(d: A.Domain) -> float:
    """The middle of a domain (sampling.domain_middle)."""
    if isinstance(d, A.SetDomain):
        return domain_middle("set", 0.0, 0.0, [v.value for v in d.values])
    return domain_middle(d.kind, d.lo.value, d.hi.value)


def _names_in_order(e: A.Expr) -> list[A.Name]:
    return sorted((n for n in walk(e) if isinstance(n, A.Name)), key=lambda n: (n.span.line, n.span.column))


def _text_of(source: SourceText, span: Span) -> tuple[str, list[tuple[int, int]]]:
    """The raw text of a span, and for each character its (line, column)."""
    chars, where = [], []
    for number in range(span.line, span.end_line + 1):
        line = source.line(number)
        start = span.column if number == span.line else 1
        end = span.end_column if number == span.end_line else len(line) + 2
        for col in range(start, min(end, len(line) + 2)):
            chars.append(line[col - 1] if col <= len(line) else "\n")
            where.append((number, col))
    return "".join(chars), where


def _string_part(source: SourceText, span: Span) -> Span:
    """The part of a statement's span from its first `"` on (its string)."""
    text, where = _text_of(source, span)
    i = text.find('"')
    if i < 0:
        return span
    return Span(where[i][0], where[i][1], span.end_line, span.end_column)


def _find_word(source: SourceText, span: Span, name: str) -> Optional[Span]:
    """Where `name` appears as a word inside the span: any whole word for a
    name of two or more characters; a one-letter name only next to an
    operator, as a symbol in a formula (`2 * d`, `d = 282`), since one
    letter is also a word or an abbreviation in prose."""
    text, where = _text_of(source, span)
    for m in re.finditer(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", text):
        if len(name) == 1:
            before = text[:m.start()].rstrip()[-1:]
            after = text[m.end():].lstrip()[:1]
            if not (before and before in _OPERATORS) and not (after and after in _OPERATORS):
                continue
        (line, col), (_, end) = where[m.start()], where[m.end() - 1]
        return Span(line, col, line, end + 1)
    return None
