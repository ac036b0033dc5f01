"""Discovery: per output, the dimensional analysis, the search and the
model choice; then joint hypotheses over the outputs."""

from __future__ import annotations

import itertools
import math
from typing import Optional

import numpy as np

from .dims import analyse
from .fitting import Law
from .identify import Hyp
from .prior import prior_laws
from .search import OutputData, ruled_out, search_found
from .select import Group, group, rank
from .task import Input, Output

#: Hypotheses reported per turn (at most).
MAX_HYPOTHESES = 4


def context_text(task: dict) -> str:
    parts = [str(task.get("background") or "")] + [str(c) for c in task.get("conditions") or []]
    parts += [str(s.get("description") or "") for s in task.get("inputs", []) + task.get("outputs", [])]
    return " ".join(parts)


def output_groups(inputs: list[Input], o: Output, X: dict, y: np.ndarray, check_X: dict,
                  context: str, constrained: bool = False, quick: bool = False,
                  skip: frozenset[str] = frozenset(), refused: Optional[dict] = None
                  ) -> tuple[list[Group], frozenset[str], float]:
    """The output's ranked groups of laws, the costly families the evidence
    rules out (search.ruled_out; `skip`: those ruled out before), and the
    in-sample misfit of the law that fits the readings best (tolerances;
    infinite when the search found none)."""
    ok = np.isfinite(y)
    Xo, yo = {k: v[ok] for k, v in X.items()}, y[ok]
    laws: list[Law] = []
    excluded, best = skip, math.inf
    if len(yo):
        try:
            found = search_found(OutputData(inputs, o, Xo, yo, analyse(inputs, o)), quick, skip=skip)
            excluded = ruled_out(found)
            best = min((law.fit_max for law in found.laws), default=math.inf)
            laws = rank(found.laws, Xo, yo, o, check_X, constrained, refused)
        except (ValueError, FloatingPointError, ZeroDivisionError, OverflowError, np.linalg.LinAlgError):
            laws = []
    if not laws:
        laws = rank(prior_laws(inputs, o, context), {k: v[:0] for k, v in Xo.items()}, yo[:0], o, check_X)
    return group(laws, o), excluded, best


def discover(task: dict, inputs: list[Input], outputs: list[Output], X: dict, Y: dict,
             check_X: dict, n_obs: int, quick: bool = False) -> tuple[list[Hyp], float]:
    """Joint hypotheses, and the held-out misfit of the best law (tolerances)."""
    return discover_ruling(task, inputs, outputs, X, Y, check_X, n_obs, quick)[:2]


def discover_ruling(task: dict, inputs: list[Input], outputs: list[Output], X: dict, Y: dict,
                    check_X: dict, n_obs: int, quick: bool = False,
                    skip: tuple[tuple[str, str], ...] = (), refused: Optional[dict] = None
                    ) -> tuple[list[Hyp], float, tuple[tuple[str, str], ...], float]:
    """discover(), skipping the (output, family) pairs in `skip` that an
    earlier search of the same episode on fewer readings ruled out, and
    returning the pairs ruled out now (sorted, for the memo's key) and the
    in-sample misfit of the best fitting law of the output fitted worst
    (output_groups)."""
    context = context_text(task)
    constrained = bool(task.get("constraints"))
    searched = [output_groups(inputs, o, X, Y[o.name], check_X, context, constrained, quick,
                              frozenset(fam for name, fam in skip if name == o.name), refused) for o in outputs]
    per_output = [groups for groups, _, _ in searched]
    excluded = tuple(sorted((o.name, fam) for o, (_, fams, _) in zip(outputs, searched) for fam in fams))
    fitted = max((best for _, _, best in searched), default=0.0)
    width = 3 if len(outputs) <= 3 else 2
    lists = [g[:width] for g in per_output]
    if len(outputs) <= 4:
        combos = list(itertools.product(*[range(len(g)) for g in lists]))
    else:
        combos = [tuple(0 for _ in lists)] + [tuple(gi if j == oi else 0 for j in range(len(lists)))
                                              for oi, g in enumerate(lists) for gi in range(1, len(g))]
    scored = sorted(((math.prod(lists[oi][gi].weight for oi, gi in enumerate(c)), c) for c in combos),
                    key=lambda t: (-t[0], t[1]))[:MAX_HYPOTHESES]
    total = sum(w for w, _ in scored) or 1.0
    hyps = []
    for w, combo in scored:
        laws = [lists[oi][gi].lead for oi, gi in enumerate(combo)]
        hyps.append(Hyp("; ".join(f"{f.text} ({f.kind})" for f in laws), w / total,
                        {o.name: f.tree for o, f in zip(outputs, laws)}, {"laws": laws, "n": n_obs}))
    misfit = max((float(np.max(g[0].lead.loo)) for g in per_output if g and len(g[0].lead.loo)), default=0.0)
    return hyps, misfit, excluded, fitted
