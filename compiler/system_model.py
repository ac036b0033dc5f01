"""The typed model of a card's system: a law acting inside a system that
evolves in time (LANGUAGE.md, version 2, *Systems*).

`SystemInfo` is what both worlds share (the time input, the states and
their units, the law's name and arguments); `SystemWorld` is one world's
law and equations, all in SI. A rate calls the law through a `TLawCall`
node, so the law can be swapped (the counterfactual's, or a player's) without
touching the rates.
"""

from __future__ import annotations


from typing import Iterator, Optional

from .model import InputModel, TBinary, TCall, TConst, TExpr, TRef, TUnary, nodes
from .source import Span, node
from .units import Dim, Unit


@node
class TLawCall:
    """`a(M, d)` in a system: a call of the card's law of named arguments."""

    law: str
    args: tuple[TExpr, ...]
    dim: Optional[Dim]
    span: Span


@node
class ArgumentModel(InputModel):
    """A law argument: an input's unit and domain, or its `argument` declaration's."""

    is_input: bool = False


@node
class StateModel:
    name: str
    unit: Unit
    description: str
    span: Span


@node
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


@node
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
    return nodes(*exprs, calls=(TLawCall,))


def rebuild(expr, replace):
    """`expr` with each node that `replace` gives a value for replaced by it,
    the rest rebuilt around their replaced children."""
    got = replace(expr)
    if got is not None:
        return got
    if isinstance(expr, TUnary):
        return TUnary(expr.op, rebuild(expr.operand, replace), expr.dim, expr.span)
    if isinstance(expr, TBinary):
        return TBinary(expr.op, rebuild(expr.left, replace), rebuild(expr.right, replace), expr.dim, expr.span)
    if isinstance(expr, TCall):
        return TCall(expr.fn, tuple(rebuild(a, replace) for a in expr.args), expr.dim, expr.span)
    return expr


def inline_law(expr, world: SystemWorld):
    """`expr` with every law call replaced by the law's body, its
    arguments substituted (both are in SI, so no factor is needed)."""
    def call(e):
        if isinstance(e, TLawCall):
            return substitute(world.law_body, dict(zip(world.law_params, (inline_law(a, world) for a in e.args))))
        return None
    return rebuild(expr, call)


def substitute(expr: TExpr, scope: dict) -> TExpr:
    """The law's body with its argument references replaced by expressions."""
    return rebuild(expr, lambda e: scope[e.name] if isinstance(e, TRef) and e.role == "argument" else None)


__all__ = ["TLawCall", "ArgumentModel", "StateModel", "SystemInfo", "SystemWorld", "system_nodes",
           "inline_law", "substitute", "TConst"]
