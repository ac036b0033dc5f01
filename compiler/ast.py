"""The untyped AST of a card: immutable nodes, each with its source span.

`compiler/statements.py` builds them from Lark's parse tree, and holds the
registry of statement classes that every consumer of statements keys on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Optional, Union

from .source import Span

# ---- expressions -------------------------------------------------------------


@dataclass(frozen=True)
class Operator:
    """A card operator: how a card writes it, how tightly it binds (1 the
    loosest, as the grammar nests its rules) and how Python writes it."""

    text: str
    precedence: int
    python: str


#: The card's operators, one row each, named as the grammar's aliases
#: (`-> add`); the printer, the tree text, the kernel and the builder read
#: them here (tests/test_statements.py checks the grammar agrees).
OPERATORS = {"add": Operator("+", 1, "+"), "sub": Operator("-", 1, "-"), "mul": Operator("*", 2, "*"),
             "div": Operator("/", 2, "/"), "neg": Operator("-", 3, "-"), "pow": Operator("^", 4, "**")}
BINARY_OPERATORS = frozenset(name for name in OPERATORS if name != "neg")


@dataclass(frozen=True)
class UnitRef:
    span: Span
    text: str  # inside the brackets, stripped


@dataclass(frozen=True)
class Number:
    span: Span
    value: float
    text: str
    unit: Optional[UnitRef] = None


@dataclass(frozen=True)
class Name:
    span: Span
    name: str


@dataclass(frozen=True)
class Unary:
    span: Span
    op: str  # "neg"
    operand: "Expr"


@dataclass(frozen=True)
class Binary:
    span: Span
    op: str  # add sub mul div pow
    left: "Expr"
    right: "Expr"


@dataclass(frozen=True)
class Call:
    span: Span
    name: str
    name_span: Span
    args: tuple["Expr", ...]


Expr = Union[Number, Name, Unary, Binary, Call]

# ---- statements -----------------------------------------------------------------


@dataclass(frozen=True)
class Literal:
    """A signed number written in a statement (not in an expression)."""

    span: Span
    value: float
    text: str
    percent: bool = False
    #: the exact value of a rational written `P/Q` (`param k = 2/3`), else None
    exact: Optional[Fraction] = None


@dataclass(frozen=True)
class Meta:
    span: Span
    key: str  # collection field source doi published preprint background conditions
    value: str
    value_span: Span


@dataclass(frozen=True)
class RangeDomain:
    span: Span
    lo: Literal
    hi: Literal
    kind: str  # "range" | "log" | "integer"


@dataclass(frozen=True)
class SetDomain:
    span: Span
    values: tuple[Literal, ...]


Domain = Union[RangeDomain, SetDomain]


@dataclass(frozen=True)
class Named:
    """A statement that declares or targets a name: the statement's span,
    the name, and where the name is written."""

    span: Span
    name: str
    name_span: Span


@dataclass(frozen=True)
class Input(Named):
    unit: Optional[UnitRef]
    domain: Domain
    description: str = ""


@dataclass(frozen=True)
class Output(Named):
    unit: Optional[UnitRef]
    resolution: Optional[Literal]
    tol_abs: Literal
    tol_rel: Literal  # value already a fraction (1% -> 0.01)
    description: str = ""
    noise: Optional["Noise"] = None


@dataclass(frozen=True)
class Noise:
    """`noise KIND rel R [abs A]` on an output: the measurement noise model."""

    span: Span
    kind: str
    kind_span: Span
    rel: Literal  # a fraction (1% -> 0.01)
    abs: Optional[Literal]  # in the output's unit


@dataclass(frozen=True)
class Param(Named):
    value: Literal
    unit: Optional[UnitRef]
    description: str = ""


@dataclass(frozen=True)
class Let(Named):
    expr: Expr


@dataclass(frozen=True)
class Where:
    """`where LEFT OP RIGHT "REASON"` on a law: the law has a value only
    where the comparison holds; REASON says why it has none elsewhere."""

    span: Span
    left: Expr
    op: str
    right: Expr
    reason: str
    reason_span: Span


@dataclass(frozen=True)
class Law(Named):
    expr: Expr
    where: Optional[Where] = None


@dataclass(frozen=True)
class UnitDefinition(Named):
    """`unit NAME = VALUE [UNIT] "DESC"`: a unit the card defines."""

    value: Literal
    unit: Optional[UnitRef]
    description: str = ""


@dataclass(frozen=True)
class LawFunction(Named):
    """`law NAME(ARG, ...) = EXPR`: a law as a function of named arguments,
    called from a system's rates (see compiler/system_check.py)."""

    param_names: tuple[str, ...]
    param_spans: tuple[Span, ...]
    expr: Expr

    @property
    def params(self) -> tuple[tuple[str, Span], ...]:
        """(name, span) of each argument."""
        return tuple(zip(self.param_names, self.param_spans))

    @property
    def where(self) -> None:
        """A law of named arguments has no `where` (its system refuses what it cannot integrate)."""
        return None


@dataclass(frozen=True)
class Argument(Named):
    """`argument NAME [UNIT] in DOMAIN`: the unit and domain of a law
    argument that is not an input."""

    unit: Optional[UnitRef]
    domain: "Domain"
    description: str = ""


@dataclass(frozen=True)
class SystemTime(Named):
    """`time NAME` in a system: the input that is the observation time."""


@dataclass(frozen=True)
class State(Named):
    """`state NAME [UNIT] = EXPR`: a state of the system and its initial value."""

    unit: Optional[UnitRef]
    init: Expr
    description: str = ""


@dataclass(frozen=True)
class Rate(Named):
    """`rate NAME = EXPR`: the time derivative of state NAME."""

    expr: Expr


@dataclass(frozen=True)
class System:
    """`system { time ...; state ...; let ...; rate ... }`, in written order."""

    span: Span
    items: tuple[Union[SystemTime, State, "Let", Rate], ...]


@dataclass(frozen=True)
class Constraint:
    span: Span
    left: Expr
    op: str
    right: Expr
    message: str = ""


@dataclass(frozen=True)
class SetMutation(Named):
    value: Literal
    unit: Optional[UnitRef]


@dataclass(frozen=True)
class ScaleMutation(Named):
    factor: Literal


@dataclass(frozen=True)
class ReferenceValue(Named):
    """`INPUT = VALUE [UNIT]` in `rebalance NAME at ...`."""

    value: Literal
    unit: Optional[UnitRef]


@dataclass(frozen=True)
class RebalanceMutation(Named):
    """`rebalance NAME` or `rebalance NAME at INPUT = VALUE [UNIT], ...`;
    the reference point (`at` in JSON) is empty for the plain form."""

    reference: tuple[ReferenceValue, ...] = ()


@dataclass(frozen=True)
class MagnitudeDiffers:
    """`magnitude differs "REASON"`: the card acknowledges that its worlds
    differ mostly in size (see W400)."""

    span: Span
    reason: str
    reason_span: Span


Mutation = Union[SetMutation, ScaleMutation, RebalanceMutation, MagnitudeDiffers, Let, Law, LawFunction]


@dataclass(frozen=True)
class Counterfactual:
    span: Span
    label: str
    label_span: Span
    mutations: tuple[Mutation, ...]


@dataclass(frozen=True)
class DesignGenerated:
    span: Span
    count: Literal
    method: str
    method_span: Span
    seed: Optional[Literal]


@dataclass(frozen=True)
class Assignment:
    span: Span
    name: str
    value: Literal


@dataclass(frozen=True)
class DesignExplicit:
    span: Span
    points: tuple[tuple[Assignment, ...], ...]
    point_spans: tuple[Span, ...]


@dataclass(frozen=True)
class Evaluation:
    span: Span
    count: Literal
    seed: Optional[Literal]
    ood: Optional[Literal] = None  # widening factor of the out-of-domain set


@dataclass(frozen=True)
class Identification:
    span: Span
    value: str
    value_span: Span


@dataclass(frozen=True)
class Adaptive:
    span: Span
    threshold: Literal
    max_steps: Optional[Literal]


Statement = Union[Meta, UnitDefinition, Input, Output, Param, Let, Law, Constraint, Counterfactual,
                  DesignGenerated, DesignExplicit, Evaluation, Identification, Adaptive,
                  LawFunction, Argument, System]


@dataclass(frozen=True)
class Card:
    span: Span
    name: str
    name_span: Span
    title: str
    statements: tuple[Statement, ...] = field(default=())
