"""The untyped AST of a card: immutable nodes, each with its source span.

`compiler/statements.py` builds them from Lark's parse tree, and holds the
registry of statement classes that every consumer of statements keys on.
"""

from __future__ import annotations

from dataclasses import field
from fractions import Fraction
from typing import Optional, Union

from .source import Span, node


# ---- expressions -------------------------------------------------------------


@node
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


@node
class UnitRef:
    span: Span
    text: str  # inside the brackets, stripped


@node
class Number:
    span: Span
    value: float
    text: str
    unit: Optional[UnitRef] = None


@node
class Name:
    span: Span
    name: str


@node
class Unary:
    span: Span
    op: str  # "neg"
    operand: "Expr"


@node
class Binary:
    span: Span
    op: str  # add sub mul div pow
    left: "Expr"
    right: "Expr"


@node
class Call:
    span: Span
    name: str
    name_span: Span
    args: tuple["Expr", ...]


Expr = Union[Number, Name, Unary, Binary, Call]

# ---- statements -----------------------------------------------------------------


@node
class Literal:
    """A signed number written in a statement (not in an expression)."""

    span: Span
    value: float
    text: str
    percent: bool = False
    #: the exact value of a rational written `P/Q` (`param k = 2/3`), else None
    exact: Optional[Fraction] = None


@node
class Meta:
    span: Span
    key: str  # collection field source doi published preprint background conditions
    value: str
    value_span: Span


@node
class RangeDomain:
    span: Span
    lo: Literal
    hi: Literal
    kind: str  # "range" | "log" | "integer"


@node
class SetDomain:
    span: Span
    values: tuple[Literal, ...]


Domain = Union[RangeDomain, SetDomain]


@node
class Named:
    """A statement that declares or targets a name: the statement's span,
    the name, and where the name is written."""

    span: Span
    name: str
    name_span: Span


@node
class Input(Named):
    unit: Optional[UnitRef]
    domain: Domain
    description: str = ""


@node
class Output(Named):
    unit: Optional[UnitRef]
    resolution: Optional[Literal]
    tol_abs: Literal
    tol_rel: Literal  # value already a fraction (1% -> 0.01)
    description: str = ""
    noise: Optional["Noise"] = None


@node
class Noise:
    """`noise KIND rel R [abs A]` on an output: the measurement noise model."""

    span: Span
    kind: str
    kind_span: Span
    rel: Literal  # a fraction (1% -> 0.01)
    abs: Optional[Literal]  # in the output's unit


@node
class Param(Named):
    value: Literal
    unit: Optional[UnitRef]
    description: str = ""


@node
class Let(Named):
    expr: Expr


@node
class Where:
    """`where LEFT OP RIGHT "REASON"` on a law: the law has a value only
    where the comparison holds; REASON says why it has none elsewhere."""

    span: Span
    left: Expr
    op: str
    right: Expr
    reason: str
    reason_span: Span


@node
class Law(Named):
    expr: Expr
    where: Optional[Where] = None


@node
class UnitDefinition(Named):
    """`unit NAME = VALUE [UNIT] "DESC"`: a unit the card defines."""

    value: Literal
    unit: Optional[UnitRef]
    description: str = ""


@node
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


@node
class Argument(Named):
    """`argument NAME [UNIT] in DOMAIN`: the unit and domain of a law
    argument that is not an input."""

    unit: Optional[UnitRef]
    domain: "Domain"
    description: str = ""


@node
class SystemTime(Named):
    """`time NAME` in a system: the input that is the observation time."""


@node
class State(Named):
    """`state NAME [UNIT] = EXPR`: a state of the system and its initial value."""

    unit: Optional[UnitRef]
    init: Expr
    description: str = ""


@node
class Rate(Named):
    """`rate NAME = EXPR`: the time derivative of state NAME."""

    expr: Expr


@node
class System:
    """`system { time ...; state ...; let ...; rate ... }`, in written order."""

    span: Span
    items: tuple[Union[SystemTime, State, "Let", Rate], ...]


@node
class Constraint:
    span: Span
    left: Expr
    op: str
    right: Expr
    message: str = ""


@node
class SetMutation(Named):
    value: Literal
    unit: Optional[UnitRef]


@node
class ScaleMutation(Named):
    factor: Literal


@node
class ReferenceValue(Named):
    """`INPUT = VALUE [UNIT]` in `rebalance NAME at ...`."""

    value: Literal
    unit: Optional[UnitRef]


@node
class RebalanceMutation(Named):
    """`rebalance NAME` or `rebalance NAME at INPUT = VALUE [UNIT], ...`;
    the reference point (`at` in JSON) is empty for the plain form."""

    reference: tuple[ReferenceValue, ...] = ()


@node
class MagnitudeDiffers:
    """`magnitude differs "REASON"`: the card acknowledges that its worlds
    differ mostly in size (see W400)."""

    span: Span
    reason: str
    reason_span: Span


Mutation = Union[SetMutation, ScaleMutation, RebalanceMutation, MagnitudeDiffers, Let, Law, LawFunction]


@node
class Counterfactual:
    span: Span
    label: str
    label_span: Span
    mutations: tuple[Mutation, ...]


@node
class DesignGenerated:
    span: Span
    count: Literal
    method: str
    method_span: Span
    seed: Optional[Literal]


@node
class Assignment:
    span: Span
    name: str
    value: Literal


@node
class DesignExplicit:
    span: Span
    points: tuple[tuple[Assignment, ...], ...]
    point_spans: tuple[Span, ...]


@node
class Evaluation:
    span: Span
    count: Literal
    seed: Optional[Literal]
    ood: Optional[Literal] = None  # widening factor of the out-of-domain set


@node
class Identification:
    span: Span
    value: str
    value_span: Span


@node
class Adaptive:
    span: Span
    threshold: Literal
    max_steps: Optional[Literal]


Statement = Union[Meta, UnitDefinition, Input, Output, Param, Let, Law, Constraint, Counterfactual,
                  DesignGenerated, DesignExplicit, Evaluation, Identification, Adaptive,
                  LawFunction, Argument, System]


@node
class Card:
    span: Span
    name: str
    name_span: Span
    title: str
    statements: tuple[Statement, ...] = field(default=())
