"""Episode records: what a player did, what the oracle answered, how it ended.

Every record that crosses a boundary (players, the store, reports, LLM
transcripts) is one of these pydantic models. `RECORD_VERSION` is stored
with every episode; bump it on an incompatible change.
"""

from __future__ import annotations

import json
import math
from copy import copy
import sys
from typing import Any, ClassVar, Literal, Optional, get_args

from pydantic import (BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, create_model, field_validator,
                      model_validator)

from .compiler.artifact import ENVIRONMENTS, SETTINGS, Env, Setting  # noqa: F401 (the run's vocabulary)
from .compiler.limits import MAX_NOISE_REL
from .predictor import MAX_DEPTH
from .scoring import Score

RECORD_VERSION = 1

#: Deepest nesting of JSON values an action may hold: a predictor tree of
#: MAX_DEPTH levels takes two JSON levels per tree level (the node object and
#: its `args` list), plus the few levels of the action around it.
MAX_ACTION_DEPTH = 2 * MAX_DEPTH + 8

Protocol = Literal["prior", "fixed", "adaptive"]
PROTOCOLS: tuple[str, ...] = get_args(Protocol)

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


def _path_text(path: list) -> str:
    parts = [f"[{p}]" if isinstance(p, int) else (f".{p}" if i else str(p)) for i, p in enumerate(path)]
    if len(parts) > 12:  # a deep path: its start and its end say enough
        parts = parts[:6] + ["..."] + parts[-4:]
    return "".join(parts)


def json_value_problem(value: Any, max_depth: int = MAX_ACTION_DEPTH) -> Optional[str]:
    """Why a JSON value cannot be stored faithfully, or None: a non-finite
    number (NaN, Infinity, or a literal like 1e400 that overflows), an
    integer too large for a float, or nesting deeper than `max_depth`. The
    walk is iterative, so no depth makes it recurse."""
    # each entry's path is a link to its parent's (parent link, key), spelled out only for a problem:
    # building every item's path list was most of the walk's CPU (it runs on every reply)
    stack: list[tuple[Any, Optional[tuple], int]] = [(value, None, 0)]
    while stack:
        item, link, depth = stack.pop()
        if isinstance(item, bool) or item is None or isinstance(item, str):
            continue
        if isinstance(item, float) and not math.isfinite(item):
            return f"{_path_text(_path(link)) or 'the action'}: {item} is not a finite number"
        if isinstance(item, int) and abs(item) > sys.float_info.max:
            return (f"{_path_text(_path(link)) or 'the action'}: an integer of {len(str(abs(item)))} digits is "
                    "too large for a number")
        if isinstance(item, (dict, list)):
            if depth >= max_depth:
                return (f"{_path_text(_path(link)) or 'the action'}: the value is nested more than {max_depth} "
                        "levels deep")
            pairs = item.items() if isinstance(item, dict) else enumerate(item)
            stack.extend((v, (link, k), depth + 1) for k, v in pairs)
    return None


def _path(link: Optional[tuple]) -> list:
    """The keys from the root to an entry of json_value_problem's walk."""
    keys = []
    while link is not None:
        link, key = link
        keys.append(key)
    return keys[::-1]


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

    @model_validator(mode="before")
    @classmethod
    def _storable(cls, data: Any, info: ValidationInfo) -> Any:
        """Every number finite and within float range, nesting bounded: a
        reply that breaks this is the model's error (it is sent back), never a
        `null` in the store. Records read back from the store skip the check
        (context {"stored": True}): older versions wrote nulls."""
        if isinstance(data, dict) and not (info.context or {}).get("stored"):
            problem = json_value_problem({k: v for k, v in data.items() if k != "raw"})
            if problem:
                raise ValueError(problem)
        return data

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
    estimated: int = 0  # calls whose endpoint reported no usage: their tokens are estimated

    def __add__(self, other: "Usage") -> "Usage":
        return Usage(**{k: getattr(self, k) + getattr(other, k) for k in Usage.model_fields})


TOOL_MODES: tuple[str, ...] = ("none", "python")
ToolMode = Literal["none", "python"]


class ToolCall(_Record):
    """One call of a player's tool (`--tools python`): what the model asked
    to run and what came back. `error` is empty when the code ran to its
    end; otherwise it says what stopped it (its own exception, a limit of
    the sandbox) and is what the model was told."""

    name: str
    call_id: str = ""
    code: str = ""
    output: str = ""  # stdout and stderr as the model saw them (capped, with a note when cut)
    error: str = ""
    cpu_seconds: float = 0.0
    wall_seconds: float = 0.0


class Turn(_Record):
    """One action and what came of it, or one tool call on the way to it
    (`tool` set, `action` None)."""

    index: int
    action: Optional[Action] = None
    response: Optional[OracleResponse] = None
    #: Protocol rules this turn broke (the episode goes on; ESR fails).
    breaks: list[str] = []
    #: A malformed action and why (the player was asked again).
    malformed: Optional[str] = None
    #: The reply text of an attempt that held no usable action (action is None then).
    reply: str = ""
    usage: Usage = Usage()
    tool: Optional[ToolCall] = None


#: What an Outcome keeps of its submission's Score: the fields are Score's
#: own (declared once, in scigame.scoring); the rest of a Score (the world,
#: the error path, the points, the per-output errors) stays with the scorer.
SCORE_FIELDS = ("valid", "reason", "ps", "weak", "strict", "strict_reason", "form_credit", "ps_ood", "weak_ood",
                "ps_system", "weak_system")

#: Score's verdict as a record (Score's field definitions, nothing re-declared).
ScoreVerdict = create_model("ScoreVerdict", __base__=_Record, __module__=__name__,
                            **{n: (Score.model_fields[n].annotation, copy(Score.model_fields[n]))
                               for n in SCORE_FIELDS})


class Outcome(ScoreVerdict):
    """How an episode ended: the verdict of its submission's Score on the
    hidden evaluation set (ScoreVerdict), and what the protocol made of it."""

    submitted: bool
    #: None in records written before form credit existed (Score's own is never None).
    form_credit: Optional[float] = None  # 1 - normalised tree edit distance to the law (0 if none)
    protocol_ok: bool
    breaks: list[str] = []
    weak_success: bool  # weak and the protocol was followed (weak ESR)
    strict_success: Optional[bool]  # strict and the protocol was followed (strict ESR)
    failure_mode: Optional[str] = None
    steps: int  # experiments proposed (adaptive) or observations given (fixed)
    wall_time: float
    usage: Usage = Usage()

    @classmethod
    def of(cls, score: Score, **rest) -> "Outcome":
        """The outcome of a scored submission: the Score's verdict, then `rest`."""
        return cls(submitted=True, **score.model_dump(include=set(SCORE_FIELDS)), **rest)


Context = Literal["full", "no-background", "anonymous"]
#: The most distractor inputs one episode may be given (the size of
#: scigame.controls.DISTRACTOR_POOL, which a test ties to this number).
MAX_DISTRACTORS = 10


class Controls(BaseModel):
    """The controls of one episode (all defaults: the card as written). The
    episode key holds them (EpisodeKey.controls); scigame.controls applies them."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    noise: Optional[float] = Field(default=None, ge=0.0, le=MAX_NOISE_REL, allow_inf_nan=False)
    context: Context = "full"
    distractors: int = Field(default=0, ge=0, le=MAX_DISTRACTORS)

    @property
    def is_default(self) -> bool:
        return self == Controls()


class EpisodeKey(_Record):
    """What identifies an episode in the store. The last three fields are
    the episode's experimental controls (see scigame.controls); their
    defaults are the card as written."""

    card_hash: str
    card: str
    environment: Env
    setting: Setting
    protocol: Protocol
    budget: int  # B for fixed, the step cap for adaptive, 0 for prior
    repetition: int
    player: str
    noise: Optional[float] = None  # relative noise on every output; None: each output's own
    context: Context = "full"
    distractors: int = 0
    tools: ToolMode = "none"  # the player's tools: none, or a sandboxed Python (`--tools python`)

    #: The store's key columns, in order: every field but the card's name
    #: (set below, from the fields); `as_tuple` gives their values.
    COLUMNS: ClassVar[tuple[str, ...]] = ()

    def as_tuple(self) -> tuple:
        """The key's values as the store holds them (a noise level as its text, see noise_column)."""
        return tuple(noise_column(self.noise) if c == "noise" else getattr(self, c) for c in self.COLUMNS)

    #: The store's spelling of the default controls (rows written before them read so).
    CONTROL_DEFAULTS: ClassVar[dict] = {"noise": "card", "context": "full", "distractors": 0, "tools": "none"}

    @classmethod
    def row_key(cls, row) -> tuple:
        """The key of a store row (a mapping with the COLUMNS), as `as_tuple` gives it."""
        return tuple(row[c] if c in row else cls.CONTROL_DEFAULTS[c] for c in cls.COLUMNS)

    def replay_key(self) -> tuple:
        """The key without the player: the same episode played by another player."""
        return tuple(v for c, v in zip(self.COLUMNS, self.as_tuple()) if c != "player")

    @property
    def label(self) -> str:
        """The episode for people, in messages: card, world, setting, protocol and repetition."""
        return f"{self.card} {self.environment} {self.setting} {self.protocol} rep {self.repetition}"

    @property
    def controls(self) -> Controls:
        return Controls(noise=self.noise, context=self.context, distractors=self.distractors)


EpisodeKey.COLUMNS = tuple(name for name in EpisodeKey.model_fields if name != "card")


def noise_column(noise: Optional[float]) -> str:
    """The store's spelling of a noise control ('card': each output's own;
    SQLite keys cannot hold NULL reliably)."""
    return "card" if noise is None else repr(float(noise))


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


def load_episode(record: str) -> Episode:
    """An Episode from its stored JSON, tolerating what older versions wrote:
    a `null` where a number belongs (older versions stored NaN and infinities
    as null) is read as NaN, and finiteness checks of actions are skipped."""
    data = json.loads(record)
    for _ in range(10_000):
        try:
            return Episode.model_validate(data, context={"stored": True})
        except ValidationError as exc:
            nulls = [e["loc"] for e in exc.errors() if e.get("input", 0) is None
                     and e["type"] in ("float_type", "int_type", "float_parsing", "int_parsing")]
            if not nulls:
                raise
            for loc in nulls:
                _set(data, loc, math.nan)
    raise ValueError("the stored record holds too many nulls to repair")


def _set(data: Any, loc: tuple, value: Any) -> None:
    target = data
    for part in loc[:-1]:
        target = target[part]
    target[loc[-1]] = value
