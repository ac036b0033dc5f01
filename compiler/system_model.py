"""The typed model of a card's system: a law acting inside a system that
evolves in time (LANGUAGE.md, version 2, *Systems*).

`SystemInfo` is what both worlds share (the time input, the states and
their units, the law's name and arguments); `SystemWorld` is one world's
law and equations, all in SI. A rate calls the law through a `TLawCall`
node, so the law can be swapped (the counterfactual's, or a player's) without
touching the rates.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Optional

from .model import TBinary, TCall, TConst, TExpr, TRef, TUnary
from .source import Span
from .units import Dim, Unit


@dataclass(frozen=True)
class TLawCall:
    """`a(M, d)` in a system: a call of the card's law of named arguments."""

    law: str
    args: tuple[TExpr, ...]
    dim: Optional[Dim]
    span: Span


@dataclass(frozen=True)
class ArgumentModel:
    """A law argument: an input's unit and domain, or its `argument` declaration's."""

    name: str
    unit: Unit
    kind: str  # range | log | integer | set
    lo: float  # declared unit
    hi: float
    values: tuple[float, ...]
    description: str
    is_input: bool
    span: Span


@dataclass(frozen=True)
class StateModel:
    name: str
    unit: Unit
    description: str
    span: Span


@dataclass(frozen=True)
class SystemInfo:
    """The parts of a system both worlds share."""

    time: str  # the input that is the observation time
    states: tuple[StateModel, ...]
    law: str
    arguments: tuple[ArgumentModel, ...]
    law_dim: Dim
    outputs: dict[str, tuple[str, str]]  # output -> ("state" | "let", name)
    span: Span
    texts: dict[str, str]  # "init:x", "rate:x", "let:d" -> the card's text


@dataclass(frozen=True)
class SystemWorld:
    """One world's law and equations (SI): the law's body over its
    arguments, each state's initial value, the system's lets in order, and
    each state's rate."""

    law_params: tuple[str, ...]
    law_body: TExpr
    law_span: Span
    initial: tuple[tuple[str, TExpr], ...]
    lets: tuple[tuple[str, TExpr], ...]
    rates: tuple[tuple[str, TExpr], ...]


def system_nodes(*exprs) -> Iterator:
    """Every node of typed system expressions (law calls included)."""
    stack = list(exprs)
    while stack:
        e = stack.pop()
        yield e
        if isinstance(e, TUnary):
            stack.append(e.operand)
        elif isinstance(e, TBinary):
            stack.extend((e.left, e.right))
        elif isinstance(e, (TCall, TLawCall)):
            stack.extend(e.args)


def inline_law(expr, world: SystemWorld):
    """`expr` with every law call replaced by the law's body, its
    arguments substituted (both are in SI, so no factor is needed)."""
    if isinstance(expr, TLawCall):
        scope = dict(zip(world.law_params, (inline_law(a, world) for a in expr.args)))
        return substitute(world.law_body, scope)
    if isinstance(expr, TUnary):
        return TUnary(expr.op, inline_law(expr.operand, world), expr.dim, expr.span)
    if isinstance(expr, TBinary):
        return TBinary(expr.op, inline_law(expr.left, world), inline_law(expr.right, world), expr.dim, expr.span)
    if isinstance(expr, TCall):
        return TCall(expr.fn, tuple(inline_law(a, world) for a in expr.args), expr.dim, expr.span)
    return expr


def substitute(expr: TExpr, scope: dict) -> TExpr:
    """The law's body with its argument references replaced by expressions."""
    if isinstance(expr, TRef) and expr.role == "argument":
        return scope[expr.name]
    if isinstance(expr, TUnary):
        return TUnary(expr.op, substitute(expr.operand, scope), expr.dim, expr.span)
    if isinstance(expr, TBinary):
        return TBinary(expr.op, substitute(expr.left, scope), substitute(expr.right, scope), expr.dim, expr.span)
    if isinstance(expr, TCall):
        return TCall(expr.fn, tuple(substitute(a, scope) for a in expr.args), expr.dim, expr.span)
    return expr


__all__ = ["TLawCall", "ArgumentModel", "StateModel", "SystemInfo", "SystemWorld", "system_nodes",
           "inline_law", "substitute", "TConst"]
