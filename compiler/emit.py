"""Code generation: a checked card to the source of its simulator module.

The module holds one numba kernel per environment, `env_original` and
`env_counterfactual`, each computing every output for every point:

    env_original(x0, x1, ..., y0, y1, ...)   # inputs and outputs in declared units

and, for a world whose points cost libm calls (transcendental functions,
non-integer powers), a twin `env_original_parallel` that shares the points
out over threads (numba compiles it only when it is first called, for large
inputs) and, where numpy has every function it calls, an array twin
`env_original_array` of numpy ufuncs (`compiler/emit_array.py`).

Safety: nothing the card author wrote reaches the generated text as code.
Inputs become `x0, x1, ...` and `a0, a1, ...`, lets `l0, l1, ...`,
temporaries `v0, v1, ...`; params are folded in as numbers; numbers are
written by `_literal` (compiler/kernel.py: repr of a finite float) only; comments carry line
and column numbers, never card text. `# sci:LINE:COL` tags every line that
comes from a place in the card, and the writer records the same map.
"""

from __future__ import annotations

import re

from .artifact import RUNTIME_MODULE
from .emit_array import emit_array_twin, has_array_twin
from .functions import FUNCTIONS, RUNTIME_NAMES
from .kernel import CodeWriter, Kernel, _literal  # noqa: F401 (_literal: the one way a number enters, named here too)
from .model import CheckedCard, Environment, TBinary, TCall, TConst, TExpr, TRef, world_nodes

_SAFE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_HEX = re.compile(r"[0-9a-f]{64}\Z")


def emit_simulator(card: CheckedCard, compiler_version: str) -> tuple[str, list[tuple[int, int, int]]]:
    """The simulator module's source text and its source map
    (generated line, card line, card column). Deterministic."""
    if not _SAFE_NAME.match(card.name) or not _HEX.match(card.content_hash):
        raise ValueError("card name or hash is not safe to place in a comment")
    w = CodeWriter()
    w.writeline(f"# Simulator for the scigame card `{card.name}`: generated, do not edit.")
    w.writeline(f"# card source sha256: {card.content_hash}")
    w.writeline(f"# compiler: scigame {_version_text(compiler_version)}")
    w.writeline("# Inputs and outputs are arrays in the card's declared units; `# sci:L:C`")
    w.writeline("# marks the line and column of the card each statement comes from.")
    w.writeline(f"from {RUNTIME_MODULE} import {', '.join(RUNTIME_NAMES)}")
    w.writeline("")
    w.writeline(f"CARD_SHA256 = \"{card.content_hash}\"")
    w.writeline(f"N_INPUTS = {len(card.inputs)}")
    w.writeline(f"N_OUTPUTS = {len(card.outputs)}")
    w.writeline("")
    w.writeline("")
    for env in (card.original, card.counterfactual):
        Kernel(card, env, w).emit(f"env_{env.name}")
        if _costly(env):
            Kernel(card, env, w).emit(f"env_{env.name}_parallel", parallel=True)
            if has_array_twin(env):
                emit_array_twin(card, env, w)
    return w.text(), w.source_map


def _costly(env: Environment) -> bool:
    """Does a point of this world cost libm calls (a transcendental function,
    or a power with a non-integer exponent)? Only then can threads beat the
    serial kernel: simple arithmetic is bound by memory and already
    vectorised."""
    return any((isinstance(e, TCall) and FUNCTIONS[e.fn].libm)
               or (isinstance(e, TBinary) and e.op == "pow" and not _whole(env, e.right))
               for e in world_nodes(env))


def _whole(env: Environment, e: TExpr) -> bool:
    """A constant (a number, or a param, which is folded in) that is a whole number."""
    if isinstance(e, TRef) and e.role == "param":
        return float(env.params[e.name].value).is_integer()
    return isinstance(e, TConst) and float(e.value).is_integer()


def _version_text(version: str) -> str:
    if not re.fullmatch(r"[0-9A-Za-z.+_-]+", version):
        raise ValueError("unsafe version text")
    return version
