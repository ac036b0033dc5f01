"""The model registry: release dates, knowledge cutoffs and prices.

One data file (`scigame/data/models.json`, or the user's own with
`--models FILE`) serves cost accounting, summaries and the Temporal
collection's cutoff filter.
"""

from __future__ import annotations

import datetime as dt
import json
from importlib import resources
from pathlib import Path
from typing import Optional

from pydantic import BaseModel, ConfigDict

from ..records import Usage


class Price(BaseModel):
    model_config = ConfigDict(extra="forbid")
    input: float  # $ per million input tokens
    cached_input: Optional[float] = None  # $ per million cached input tokens (default: input)
    output: float  # $ per million output tokens (reasoning tokens are billed as output)


class ModelInfo(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    provider: str = ""
    released: Optional[dt.date] = None
    knowledge_cutoff: Optional[dt.date] = None
    price: Optional[Price] = None


class Registry(BaseModel):
    model_config = ConfigDict(extra="ignore")
    models: list[ModelInfo]

    def get(self, name: str) -> Optional[ModelInfo]:
        for m in self.models:
            if m.name == name:
                return m
        # dated snapshots ("gpt-4o-2024-08-06") fall back to their family
        best = [m for m in self.models if name.startswith(m.name + "-")]
        return max(best, key=lambda m: len(m.name)) if best else None

    def cost(self, model: str, usage: Usage) -> float:
        """Dollars for the tokens in `usage` (0 for an unknown model)."""
        info = self.get(model)
        if info is None or info.price is None:
            return 0.0
        p = info.price
        cached = min(usage.cached_tokens, usage.input_tokens)
        fresh = usage.input_tokens - cached
        cached_rate = p.cached_input if p.cached_input is not None else p.input
        return (fresh * p.input + cached * cached_rate + usage.output_tokens * p.output) / 1e6


def load_registry(path: str | Path | None = None) -> Registry:
    """The bundled registry, or the user's file (same format)."""
    if path is None:
        text = resources.files("scigame").joinpath("data/models.json").read_text(encoding="utf-8")
    else:
        text = Path(path).read_text(encoding="utf-8")
    return Registry.model_validate(json.loads(text))
