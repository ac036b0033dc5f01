"""The compiled-card format: what `scigame compile` writes and the runtime
reads. Pure pydantic, so loading a compiled card needs neither pint nor
Lark. Bump FORMAT_VERSION on any incompatible change.
"""

from __future__ import annotations

from typing import Any, Literal, Optional

from pydantic import BaseModel, ConfigDict

FORMAT_VERSION = 3  # 2: design.size and the extended design sequence; 3: SI dimension vectors

Tree = Any  # a predictor-shaped expression tree (see SPEC.md)


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class DomainSpec(_Frozen):
    kind: Literal["range", "log", "integer", "set"]
    lo: float
    hi: float
    values: list[float] = []

    def text(self) -> str:
        if self.kind == "set":
            return "{" + ", ".join(f"{v:g}" for v in self.values) + "}"
        prefix = {"range": "", "log": "log ", "integer": "integer "}[self.kind]
        return f"{prefix}{self.lo:g} .. {self.hi:g}"


class InputSpec(_Frozen):
    name: str
    unit: str
    si_factor: float
    dimension: dict[str, float]  # SI base dimension -> exponent (all seven, see units.dimension_vector)
    angle: bool = False  # measured in deg, rad, ...
    domain: DomainSpec
    description: str = ""


class OutputSpec(_Frozen):
    name: str
    unit: str
    si_factor: float
    dimension: dict[str, float]
    angle: bool = False
    resolution: Optional[float]
    tol_abs: float
    tol_rel: float
    description: str = ""


class ConstraintSpec(_Frozen):
    text: str
    op: Literal["<", "<=", ">", ">="]
    left: Tree
    right: Tree
    message: str = ""


class ParamSpec(_Frozen):
    name: str
    value_si: float
    unit: str  # SI base unit of the value (after a rebalance, the new one)


class EnvironmentSpec(_Frozen):
    name: Literal["original", "counterfactual"]
    params: list[ParamSpec]
    laws: dict[str, Tree]  # output -> tree over inputs in declared units
    law_text: dict[str, str]


class MutationSpec(_Frozen):
    kind: Literal["set", "scale", "rebalance", "let", "law"]
    target: str
    text: str


class DesignSpec(_Frozen):
    method: Optional[Literal["sobol", "grid", "random"]]  # None: explicit points
    seed: int
    size: int  # the card's own budget B (`fixed design B ...`)
    points: list[dict[str, float]]  # the design sequence; a budget B takes the first B


class CompiledCardData(_Frozen):
    """Everything the runtime needs about a card, hidden parts included."""

    format_version: int = FORMAT_VERSION
    compiler_version: str
    source_sha256: str
    source_path: str
    name: str
    title: str
    collection: str
    field: str
    source: str
    doi: str = ""
    published: Optional[str] = None
    preprint: Optional[str] = None
    background: str
    conditions: list[str]
    inputs: list[InputSpec]
    outputs: list[OutputSpec]
    constraints: list[ConstraintSpec]
    environments: dict[str, EnvironmentSpec]
    counterfactual_label: str
    mutations: list[MutationSpec]
    design: DesignSpec
    evaluation_size: int
    evaluation_seed: int
    interpolate: bool
    threshold: float
    max_steps: Optional[int]


class EvaluationSet(_Frozen):
    """The hidden evaluation set: inputs, and the exact outputs per environment."""

    inputs: dict[str, list[float]]
    outputs: dict[str, dict[str, list[float]]]  # environment -> output -> values


class Manifest(_Frozen):
    format_version: int = FORMAT_VERSION
    compiler_version: str
    card: str
    source_path: str
    source_sha256: str
    files: list[str]
    source_map: list[tuple[int, int, int]]  # (generated line, card line, card column)
