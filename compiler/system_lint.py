"""lint's numeric checks on a system card.

- E700 on the law of named arguments itself, over its arguments' domains
  (the law is a static formula; the system only calls it);
- W410 where the integrator gives up at a probed input (an observation
  there is refused, with the reason, like any illegal input);
- E701 on the system's outputs at the evaluation points both worlds can
  integrate (W400/W401 are sound_worlds.py's, on the same outputs).
"""

from __future__ import annotations

import numpy as np

from .diagnostics import Reporter
from .semantics import scaled_errors


def system_numeric_checks(card, report: Reporter) -> None:
    from .evaluation import evaluate_world
    from .probes import point_text, probe_points
    from .sampling import SamplingError, evaluation_set
    from .system_emit import system_spec
    from .system_law import law_points, law_values
    spec = system_spec(card)
    pts = law_points(spec.arguments, 2048, 12345)
    defined = True
    for env in (card.original, card.counterfactual):
        v = law_values(spec.arguments, spec.worlds[env.name].law, pts)
        bad = np.flatnonzero(~np.isfinite(v))
        if len(bad):
            defined = False
            i = bad[0]
            example = ", ".join(f"{a.name}={pts[a.name][i]:g}" for a in spec.arguments)
            report.undefined_law(env.system.law_span, spec.law, env.name, not np.isnan(v[i]), example)
    if not defined:
        return
    try:
        probes = probe_points(card)
    except SamplingError:
        return
    for env in (card.original, card.counterfactual):
        values = evaluate_world(card, env, probes)
        bad = ~np.all([np.isfinite(v) for v in values.values()], axis=0)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            report.unintegrable(card.system.span, env.name, f"{bad.mean():.1%}", point_text(card, probes, i),
                                spec.max_steps)
    ev = evaluation_set(card)
    orig = evaluate_world(card, card.original, ev)
    cf = evaluate_world(card, card.counterfactual, ev)
    both = np.all([np.isfinite(v) for v in list(orig.values()) + list(cf.values())], axis=0)
    passing = []
    for truth, guess, played, law in ((cf, orig, "counterfactual", "original"),
                                      (orig, cf, "original", "counterfactual")):
        worst = max(float(np.max(scaled_errors(guess[o.name][both], truth[o.name][both], o.tol_abs, o.tol_rel),
                                 initial=0.0)) for o in card.outputs)
        if worst <= 1.0:
            passing.append((law, played, worst))
    if passing:
        report.indistinguishable(card.counterfactual_span, card.counterfactual_label, passing, int(both.sum()))
