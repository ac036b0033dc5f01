"""The compiled-card format: what `scigame compile` writes and the runtime
reads. Pure pydantic, so loading a compiled card needs neither pint nor
Lark. Bump FORMAT_VERSION on any incompatible change.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from typing import Any, Literal, Optional, get_args

from pydantic import BaseModel, ConfigDict

#: The module a generated simulator.py imports its runtime names from
#: (`functions.RUNTIME_NAMES`); the build fingerprints its source.
RUNTIME_MODULE = "scigame.simrt"
#: The module a system card's generated simulator imports its names from
#: (`system_emit.SYSTEM_RUNTIME_NAMES`: the integrator); fingerprinted too.
SYSTEM_RUNTIME = "scigame.simrt_system"

FORMAT_VERSION = 6  # 2: design.size and the extended design sequence; 3: manifest.hashes; 4: noise and ood;
#                    5: SI dimension vectors in the public view; 6: laws' `where` (EnvironmentSpec.where)

Tree = Any  # a predictor-shaped expression tree (see SPEC.md)

#: A card's two worlds and the two settings each is played in: the words the
#: compiled card, the run's records and the command line share, written once.
Env = Literal["original", "counterfactual"]
Setting = Literal["identification", "discovery"]
ENVIRONMENTS: tuple[str, ...] = get_args(Env)
SETTINGS: tuple[str, ...] = get_args(Setting)


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

    def public(self) -> dict:
        """This input as a player's view shows it."""
        return {"name": self.name, "unit": self.unit, "si_factor": self.si_factor,
                "dimension": dict(self.dimension), "angle": self.angle, "domain": self.domain.model_dump(),
                "domain_text": self.domain.text(), "description": self.description}


class NoiseSpec(_Frozen):
    """Measurement noise of an output: an observation is Q(g + ε) with
    ε ~ N(0, (abs + rel·|g|)²), abs in the output's declared unit."""

    kind: Literal["gaussian"] = "gaussian"
    rel: float
    abs: float = 0.0

    def sd(self, values):
        """The noise's standard deviation at exact values `values`."""
        import numpy as np
        return self.abs + self.rel * np.abs(values)


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
    noise: Optional[NoiseSpec] = None  # None: observations are exact up to the resolution


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
    name: Env
    params: list[ParamSpec]
    laws: dict[str, Tree]  # output -> tree over inputs in declared units
    law_text: dict[str, str]
    #: output -> where its law has a value (`law ... where COND "REASON"`; message is REASON)
    where: dict[str, ConstraintSpec] = {}


class MutationSpec(_Frozen):
    kind: Literal["set", "scale", "rebalance", "let", "law"]
    target: str
    text: str


class DesignSpec(_Frozen):
    method: Optional[Literal["sobol", "grid", "random"]]  # None: explicit points
    seed: int
    size: int  # the card's own budget B (`fixed design B ...`)
    points: list[dict[str, float]]  # the design sequence; a budget B takes the first B


class StateSpec(_Frozen):
    name: str
    unit: str
    si_factor: float
    description: str = ""
    initial_text: str  # as the card writes it
    rate_text: str
    tol_abs_si: Optional[float] = None  # the output's absolute tolerance (SI) where the state is an output


class SystemWorldSpec(_Frozen):
    """One world's system as SI trees (params folded, the card's lets
    inlined). Variables: `in:NAME` an input, `st:NAME` a state, `sl:NAME`
    a system let, `time` the current time, and inside `law` `arg:NAME`;
    a rate calls the law as {"law": NAME, "args": [TREE, ...]}."""

    initial: list[Tree]  # per state, at time 0
    lets: list[tuple[str, Tree]]  # in dependency order
    rates: list[Tree]  # per state
    law: Tree


class SystemSpec(_Frozen):
    """A system card's system (LANGUAGE.md, *Systems*)."""

    time: str
    states: list[StateSpec]
    let_texts: dict[str, str]
    outputs: dict[str, str]  # output -> the state or system let it reads (`st:x`, `sl:d`)
    law: str
    arguments: list[InputSpec]  # in the law's order; their domains are the law's hidden set
    law_unit: str  # SI unit of the law's value (a predictor predicts in it)
    law_dimension: dict[str, float]
    law_tol_abs: float
    law_tol_rel: float
    worlds: dict[str, SystemWorldSpec]
    rtol: float  # the integrator's relative accuracy
    max_steps: int  # per point; more is a rejected observation
    scaling_groups: list[list[int]]  # states of one dimension share an absolute scale (see system_emit)
    #: the initial values, lets or rates use a hidden param: their trees are not shown to players
    hidden_rates: bool = False


class LawEvaluationSet(_Frozen):
    """A system card's hidden set of the law's arguments (declared units)
    with the law's exact values per world (in `law_unit`)."""

    inputs: dict[str, list[float]]
    outputs: dict[str, dict[str, list[float]]]


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
    evaluation_ood: Optional[float] = None  # `ood F`: the out-of-domain set's widening factor
    interpolate: bool
    threshold: float
    max_steps: Optional[int]
    system: Optional[SystemSpec] = None  # a system card's system; None for a static card


class EvaluationSet(_Frozen):
    """The hidden evaluation set: inputs, and the exact outputs per environment."""

    inputs: dict[str, list[float]]
    outputs: dict[str, dict[str, list[float]]]  # environment -> output -> values
    #: The out-of-domain set (`evaluation N ood F`), drawn from the widened domain.
    ood_inputs: Optional[dict[str, list[float]]] = None
    ood_outputs: Optional[dict[str, dict[str, list[float]]]] = None
    #: A system card's hidden set of the law's arguments (its PS, weak and strict are on the law).
    law: Optional[LawEvaluationSet] = None


class Manifest(_Frozen):
    format_version: int = FORMAT_VERSION
    compiler_version: str
    card: str
    source_path: str
    source_sha256: str
    files: list[str]
    hashes: dict[str, str]  # file -> sha256 of its bytes, checked before a file is read or run
    source_map: list[tuple[int, int, int]]  # (generated line, card line, card column)


def file_sha256(path: Path) -> Optional[str]:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def verify_folder(folder: Path, manifest: Manifest) -> list[str]:
    """The files of a compiled folder whose bytes do not match the hashes
    in its manifest (missing ones included): empty when it can be trusted."""
    return [f for f in manifest.files if file_sha256(folder / f) != manifest.hashes.get(f)]
