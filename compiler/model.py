"""The typed model of a checked card: what every later stage consumes.

All values are in SI base units; every expression node carries its
dimension. `Environment.evaluate` is the reference (numpy) evaluator of the
laws: slow and plain on purpose, so generated simulators can be tested
against it.
"""

from __future__ import annotations

import math
from dataclasses import field
from fractions import Fraction
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Mapping, Optional, Union

from .functions import FUNCTIONS
from .source import Span, node
from .units import Dim, Unit

if TYPE_CHECKING:
    import numpy as np
# numpy itself is imported by the evaluators below, when first called: the
# checker builds this model without evaluating (a card with a static error
# is linted without numpy)

# ---- typed expressions -------------------------------------------------------


@node
class TConst:
    value: float  # SI
    dim: Optional[Dim]
    span: Span


@node
class TRef:
    """A reference to an input, param or let (`role`)."""

    name: str
    role: str
    dim: Optional[Dim]
    span: Span


@node
class TUnary:
    op: str  # neg
    operand: "TExpr"
    dim: Optional[Dim]
    span: Span


@node
class TBinary:
    op: str  # add sub mul div pow
    left: "TExpr"
    right: "TExpr"
    dim: Optional[Dim]
    span: Span


@node
class TCall:
    fn: str
    args: tuple["TExpr", ...]
    dim: Optional[Dim]
    span: Span


TExpr = Union[TConst, TRef, TUnary, TBinary, TCall]


def nodes(*exprs: TExpr, calls: tuple[type, ...] = ()) -> Iterator[TExpr]:
    """Every node of typed expressions, each parent before its children; the
    arguments of `calls` (node types beside TCall, e.g. a system's law calls) too."""
    calls = (TCall, *calls)
    stack = list(exprs)
    while stack:
        e = stack.pop()
        yield e
        if isinstance(e, TUnary):
            stack.append(e.operand)
        elif isinstance(e, TBinary):
            stack.extend((e.left, e.right))
        elif isinstance(e, calls):
            stack.extend(e.args)


def world_nodes(env: "Environment") -> Iterator[TExpr]:
    """Every node of a world's laws and lets."""
    return nodes(*env.laws.values(), *(e for _, e in env.lets))


def refs(expr: TExpr, role: str | None = None) -> set[str]:
    """Names referenced by an expression (optionally only of one role)."""
    return {e.name for e in nodes(expr) if isinstance(e, TRef) and (role is None or e.role == role)}


def transitive(start: Iterable[str], uses: Callable[[str], Iterable[str]]) -> set[str]:
    """The names given and every name reached from them through `uses`
    (what a let's definition uses, typed or not)."""
    frontier, seen = set(start), set()
    while frontier:
        n = frontier.pop()
        if n not in seen:
            seen.add(n)
            frontier |= set(uses(n))
    return seen


def law_uses(laws: Iterable[TExpr], lets: Mapping[str, TExpr]) -> set[str]:
    """Every name the (typed) laws reference, through the lets."""
    return transitive(set().union(*(refs(law) for law in laws)), lambda n: refs(lets[n]) if n in lets else ())


# ---- numeric semantics (shared by the checker's constant folding and the
# reference evaluator) -----------------------------------------------------------

def evaluate(expr: TExpr, values: Mapping[str, object]):
    """Evaluate in SI with numpy; `values` maps input, param and let names to
    numbers or arrays. Domain errors give NaN/inf (the caller decides)."""
    if isinstance(expr, TConst):
        return expr.value
    if isinstance(expr, TRef):
        return values[expr.name]
    if isinstance(expr, TUnary):
        return -evaluate(expr.operand, values)
    if isinstance(expr, TBinary):
        import numpy as np
        a, b = evaluate(expr.left, values), evaluate(expr.right, values)
        if expr.op == "add":
            return np.add(a, b)
        if expr.op == "sub":
            return np.subtract(a, b)
        if expr.op == "mul":
            return np.multiply(a, b)
        if expr.op == "div":
            return np.divide(a, b)
        return np.power(np.asarray(a, dtype=float), b)
    args = [evaluate(a, values) for a in expr.args]
    return FUNCTIONS[expr.fn].numpy(*args)


# ---- the card -------------------------------------------------------------------


def domain_middle(kind: str, lo: float, hi: float, values=()) -> float:
    """The middle of a domain: geometric for `log` (the middle of what is
    sampled), a whole number for `integer`, the middle listed value (the
    lower of two) for a set."""
    if kind == "set":
        ordered = sorted(values)
        return ordered[(len(ordered) - 1) // 2]
    if kind == "log":
        return math.sqrt(lo * hi)
    if kind == "integer":
        return float(min(max(math.floor((lo + hi) / 2), math.ceil(lo)), math.floor(hi)))
    return (lo + hi) / 2


@node
class InputModel:
    name: str
    unit: Unit
    kind: str  # range | log | integer | set
    lo: float  # declared unit
    hi: float
    values: tuple[float, ...]  # for kind == "set"
    description: str
    span: Span

    @property
    def middle(self) -> float:
        """The middle of the domain in the declared unit (see `domain_middle`)."""
        return domain_middle(self.kind, self.lo, self.hi, self.values)


@node
class OutputModel:
    name: str
    unit: Unit
    resolution: Optional[float]  # declared unit
    tol_abs: float  # declared unit
    tol_rel: float
    description: str
    span: Span
    #: Gaussian measurement noise: sd = noise_abs + noise_rel·|g| (declared unit); None: exact
    noise_rel: Optional[float] = None
    noise_abs: float = 0.0
    noise_span: Optional[Span] = None


@node
class ParamValue:
    name: str
    value: float  # SI
    dim: Dim
    unit_text: str  # the unit the value is shown in (SI after a rebalance)
    span: Span
    exact: Optional[Fraction] = None  # the SI value exactly, for `param k = 2/3` / `set n = 1/3`


@node
class ConstraintModel:
    left: TExpr
    op: str
    right: TExpr
    message: str
    text: str
    span: Span


@node
class Environment:
    """One world of a card: parameter values, intermediate quantities (in
    dependency order) and one law per output, all in SI."""

    name: str  # original | counterfactual
    params: dict[str, ParamValue]
    lets: tuple[tuple[str, TExpr], ...]
    laws: dict[str, TExpr]
    #: a system card's law and equations in this world (compiler/system_model.py)
    system: Optional[object] = None
    #: output -> where its law has a value (`law ... where COND "REASON"`; message is the reason)
    where: dict[str, "ConstraintModel"] = field(default_factory=dict)

    def scope(self, card: "CheckedCard", inputs: Mapping[str, object]) -> dict[str, object]:
        """Inputs (declared units, converted to SI), params and lets of this world."""
        import numpy as np
        values: dict[str, object] = {}
        with np.errstate(all="ignore"):
            for spec in card.inputs:
                values[spec.name] = np.asarray(inputs[spec.name], dtype=float) * spec.unit.si_factor
            for name, p in self.params.items():
                values[name] = p.value
            for name, expr in self.lets:
                values[name] = evaluate(expr, values)
        return values

    def defined(self, card: "CheckedCard", inputs: Mapping[str, object]) -> dict[str, np.ndarray]:
        """For each output with a `where`, whether its condition holds at each point."""
        import numpy as np

        from .semantics import COMPARISONS
        if not self.where:
            return {}
        shape = np.broadcast_shapes(*(np.shape(inputs[s.name]) for s in card.inputs)) if card.inputs else ()
        values = self.scope(card, inputs)
        with np.errstate(all="ignore"):
            return {name: np.broadcast_to(COMPARISONS[c.op](evaluate(c.left, values), evaluate(c.right, values)),
                                          shape).copy() for name, c in self.where.items()}

    def evaluate(self, card: "CheckedCard", inputs: Mapping[str, object]) -> dict[str, np.ndarray]:
        """Outputs in their declared units for inputs in their declared units
        (the reference evaluator; NaN/inf where a law is undefined). A system
        world is integrated by its compiled kernel, which lies above this
        module: callers that may see one call compiler/evaluation.evaluate_world."""
        if self.system is not None:
            raise TypeError(f"world {self.name!r} of {card.name!r} is a system: "
                            "evaluate it with compiler.evaluation.evaluate_world")
        import numpy as np
        values = self.scope(card, inputs)
        shape = np.broadcast_shapes(*(np.shape(inputs[s.name]) for s in card.inputs)) if card.inputs else ()
        with np.errstate(all="ignore"):
            out = {}
            for spec in card.outputs:
                result = np.asarray(evaluate(self.laws[spec.name], values), dtype=float)
                # a law that ignores the inputs still gives one value per point
                out[spec.name] = np.broadcast_to(result / spec.unit.si_factor, shape).copy()
        return out


@node
class Mutation:
    kind: str  # set scale rebalance let law
    target: str
    text: str
    span: Span


@node
class CheckedCard:
    """A card that passed the checker: everything later stages need."""

    name: str
    title: str
    path: str
    content_hash: str
    collection: str
    field: str
    source: str
    doi: str
    published: Optional[str]
    preprint: Optional[str]
    background: str
    conditions: tuple[str, ...]
    inputs: tuple[InputModel, ...]
    outputs: tuple[OutputModel, ...]
    constraints: tuple[ConstraintModel, ...]
    original: Environment
    counterfactual: Environment
    counterfactual_label: str
    mutations: tuple[Mutation, ...]
    design_method: Optional[str]  # sobol | grid | random, or None for an explicit design
    design_size: int
    design_seed: int
    design_points: tuple[dict[str, float], ...]  # explicit design, declared units
    evaluation_size: int
    evaluation_seed: int
    evaluation_ood: Optional[float]  # widening factor of the out-of-domain set, or None
    interpolate: bool
    threshold: float
    max_steps: Optional[int]
    counterfactual_span: Optional[Span] = None
    #: `magnitude differs "REASON"` in the counterfactual block, if given (see W400)
    magnitude_reason: Optional[str] = None
    magnitude_span: Optional[Span] = None
    #: (environment, output) -> the span of the law in force there
    law_spans: dict[tuple[str, str], Span] = field(default_factory=dict)
    #: a system card's shared parts (compiler/system_model.SystemInfo); None for a static card
    system: Optional[object] = None
    #: the span of each point of an explicit design (`fixed design { ... }`)
    design_point_spans: tuple[Span, ...] = ()

    def environment(self, name: str) -> Environment:
        if name == "original":
            return self.original
        if name == "counterfactual":
            return self.counterfactual
        raise KeyError(f"unknown environment {name!r}: use 'original' or 'counterfactual'")
