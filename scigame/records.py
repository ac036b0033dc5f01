"""Episode records: what a player did, what the oracle answered, how it ended.

Every record that crosses a boundary (players, the store, reports, LLM
transcripts) is one of these pydantic models. `RECORD_VERSION` is stored
with every episode; bump it on an incompatible change.
"""

from __future__ import annotations

import math
from typing import Any, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

RECORD_VERSION = 1

Setting = Literal["identification", "discovery"]
Protocol = Literal["prior", "fixed", "adaptive"]
Env = Literal["original", "counterfactual"]

SETTINGS: tuple[str, ...] = ("identification", "discovery")
PROTOCOLS: tuple[str, ...] = ("prior", "fixed", "adaptive")
ENVIRONMENTS: tuple[str, ...] = ("original", "counterfactual")

#: How far confidences may sum from 1 (players round).
CONFIDENCE_SLACK = 1e-6

FAILURE_MODES = (
    "no_usable_answer",          # nothing valid was submitted
    "incorrect_relation",        # valid predictor, wrong functional form
    "parameter_error",           # right form, constants off
    "evidence_misreading",       # (judge) explanation contradicts the observations
    "explanation_mismatch",      # (judge) explanation does not match the predictor
    "symbolic_not_recovered",    # weak pass, strict fail
    "protocol_violation",        # the answer passed, but the episode broke its protocol
)


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Hypothesis(_Record):
    """One candidate explanation the player holds, with its confidence."""

    statement: str
    confidence: float = Field(ge=0.0)
    #: Optional predictor for this hypothesis (output -> tree); players that
    #: have one report it so predictions can be audited.
    predictor: Optional[dict[str, Any]] = None

    @field_validator("confidence")
    @classmethod
    def _finite(cls, v: float) -> float:
        if not math.isfinite(v):
            raise ValueError("confidence must be finite")
        return v


class Experiment(_Record):
    """A proposed experiment: inputs (declared units) and the outputs wanted,
    with the player's prediction of each output under every hypothesis
    (predictions[i][output] for hypothesis i)."""

    inputs: dict[str, float]
    outputs: list[str]
    predictions: list[dict[str, float]]


class Submission(_Record):
    """The final answer of an episode."""

    selected: int = Field(ge=0, description="index of the selected hypothesis")
    predictor: dict[str, Any]
    explanation: str
    applicability: str


class Action(_Record):
    """One turn of a player: a hypothesis report plus either an experiment
    or the final submission."""

    hypotheses: list[Hypothesis]
    experiment: Optional[Experiment] = None
    submission: Optional[Submission] = None
    #: Free text the player wants on the record (reasoning summary, plans).
    notes: str = ""
    #: The model's reply exactly as received (LLM players), for audits and the judge.
    raw: str = ""

    @model_validator(mode="after")
    def _one_kind(self) -> "Action":
        if (self.experiment is None) == (self.submission is None):
            raise ValueError("an action holds exactly one of `experiment` and `submission`")
        return self


class Observation(_Record):
    """One experiment's result: inputs and quantised outputs."""

    inputs: dict[str, float]
    outputs: dict[str, float]


class OracleResponse(_Record):
    observation: Optional[Observation] = None
    rejected: list[str] = []


class Usage(_Record):
    """Tokens and cost of the LLM calls behind one turn (zero for the baseline)."""

    calls: int = 0
    input_tokens: int = 0
    cached_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    cost_usd: float = 0.0
    retries: int = 0  # infrastructure retries (never the model's fault)
    corrections: int = 0  # replies sent back to the model as unusable

    def __add__(self, other: "Usage") -> "Usage":
        return Usage(**{k: getattr(self, k) + getattr(other, k) for k in Usage.model_fields})


class Turn(_Record):
    """One action and what came of it."""

    index: int
    action: Optional[Action] = None
    response: Optional[OracleResponse] = None
    #: Protocol rules this turn broke (the episode goes on; ESR fails).
    breaks: list[str] = []
    #: A malformed action and why (the player was asked again).
    malformed: Optional[str] = None
    usage: Usage = Usage()


class Outcome(_Record):
    """How an episode ended, scored on the hidden evaluation set."""

    submitted: bool
    valid: bool
    reason: str = ""
    ps: float
    weak: bool
    strict: Optional[bool]
    strict_reason: str = ""
    protocol_ok: bool
    breaks: list[str] = []
    weak_success: bool  # weak and the protocol was followed (weak ESR)
    strict_success: Optional[bool]  # strict and the protocol was followed (strict ESR)
    form_credit: Optional[float] = None  # 1 - normalised tree edit distance to the law (0 if none)
    failure_mode: Optional[str] = None
    steps: int  # experiments proposed (adaptive) or observations given (fixed)
    wall_time: float
    usage: Usage = Usage()


class EpisodeKey(_Record):
    """What identifies an episode in the store."""

    card_hash: str
    card: str
    environment: Env
    setting: Setting
    protocol: Protocol
    budget: int  # B for fixed, the step cap for adaptive, 0 for prior
    repetition: int
    player: str

    def as_tuple(self) -> tuple:
        return (self.card_hash, self.environment, self.setting, self.protocol, self.budget,
                self.repetition, self.player)


class Episode(_Record):
    """The whole record of one episode: key, what the player saw, every turn,
    and the outcome."""

    record_version: int = RECORD_VERSION
    key: EpisodeKey
    collection: str
    seed: int
    task: dict[str, Any]  # the view and protocol rules the player was given
    given: list[Observation] = []  # Fixed protocol: the preset observations
    turns: list[Turn] = []
    outcome: Optional[Outcome] = None
    status: Literal["finished", "unfinished"] = "finished"
    error: str = ""
    #: Everything the episode cost, unfinished attempts included.
    spent: Usage = Usage()
