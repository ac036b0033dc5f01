"""A world's outputs at points: the one evaluation function for callers
that may see a system card (lint, build, sound_worlds, the out-of-domain
set). A static world is the model's reference evaluator
(`Environment.evaluate`); a system world is integrated by its compiled
kernel (system_run.py). It sits above both, so neither imports the other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping

import numpy as np

from .system_run import evaluate_system

if TYPE_CHECKING:
    from .model import CheckedCard, Environment


def evaluate_world(card: CheckedCard, env: Environment, inputs: Mapping[str, object]) -> dict[str, np.ndarray]:
    """Outputs of world `env` in their declared units for inputs in their
    declared units (NaN/inf where a law is undefined or an integration fails)."""
    if env.system is not None:
        return evaluate_system(card, env, inputs)
    return env.evaluate(card, inputs)
