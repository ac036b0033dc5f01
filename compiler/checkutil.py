"""Small helpers the checker's passes share: walking untyped expressions,
the names they use, suggestions for misspelt names, and how a mutation or a
domain reads back in a message's detail."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping, Optional

from . import ast as A
from .model import transitive
from .source import Span
from .units import Dim


@dataclass
class Symbol:
    """A name the card declares: its kind, where, its node, and its dimension once typed."""
    name: str
    kind: str  # input output param let (a system's: state system_let)
    span: Span
    node: object
    dim: Optional[Dim] = None


def suggest(name: str, options: Iterable[str]) -> list[str]:
    """The closest option, ignoring case (`g` finds `G`)."""
    options = sorted(options)
    exact_case = [o for o in options if o.lower() == name.lower() and o != name]
    if exact_case:
        return exact_case[:1]
    lowered = {o.lower(): o for o in options}
    import difflib  # only for a name not found: a clean card's lint never loads it
    return [lowered[m] for m in difflib.get_close_matches(name.lower(), sorted(lowered), n=1, cutoff=0.6)]


def first_suggestion(name: str, options: Iterable[str]) -> Optional[str]:
    return (suggest(name, options) or [None])[0]


def walk(e: A.Expr):
    """Every node of an untyped expression."""
    stack = [e]
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, A.Unary):
            stack.append(n.operand)
        elif isinstance(n, A.Binary):
            stack.extend((n.left, n.right))
        elif isinstance(n, A.Call):
            stack.extend(n.args)


def names(e: A.Expr) -> set[str]:
    return {n.name for n in walk(e) if isinstance(n, A.Name)}


def closure(start: set[str], lets: Mapping[str, A.Let]) -> set[str]:
    """The names given and every name the lets among them use, transitively."""
    return transitive(start, lambda n: names(lets[n].expr) if n in lets else ())


def reachable(lets: Mapping[str, A.Let], laws: Mapping[str, A.Law]) -> set[str]:
    """Every name the laws use, through lets."""
    return closure(set().union(*(names(law.expr) for law in laws.values())), lets)


def mutation_text(m) -> str:
    """A mutation as the card writes it (`set n = 3 [1]`, `rebalance G at r = 5 [m]`)."""
    if isinstance(m, A.SetMutation):
        return f"set {m.name} = {m.value.text}" + (f" [{m.unit.text}]" if m.unit else "")
    if isinstance(m, A.ScaleMutation):
        return f"scale {m.name} by {m.factor.text}"
    if isinstance(m, A.RebalanceMutation) and m.reference:
        return f"rebalance {m.name} at " + ", ".join(
            f"{r.name} = {r.value.text}" + (f" [{r.unit.text}]" if r.unit else "") for r in m.reference)
    return f"rebalance {m.name}"


def outside_domain(d: A.Domain, v: float) -> Optional[tuple[str, tuple[str, ...]]]:
    """Why `v` lies outside a domain, as a reason key and its details for
    `diagnostics.outside_text`; None inside."""
    if isinstance(d, A.SetDomain):
        allowed = [x.value for x in d.values]
        return None if v in allowed else ("not_listed", tuple(x.text for x in d.values))
    if not d.lo.value <= v <= d.hi.value:
        return ("outside", (d.lo.text, d.hi.text))
    if d.kind == "integer" and v != int(v):
        return ("not_integer", ())
    return None
