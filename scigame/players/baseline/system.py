"""The baseline on a system card: the law acts inside a system the player
observes only through its states at a time.

- It simulates the system itself, from the public view's SI trees, with the
  project's integrator (compiler/system_emit.py: a law of its choosing in
  place of the hidden one, compiled once per law text and cached).
- **Identification**: each candidate (s = 0 and s = 1) is simulated at the
  observed inputs; confidences follow the evidence (the scaled misfit of each
  candidate's observables). Adaptive experiments go where the candidates'
  simulated readings differ most.
- **Discovery**: short-time experiments (the time input at its lower bound,
  the other inputs spread over their domains). At a short time the law's
  arguments barely move, so each reading gives one value of the law: the
  constant value `c` that, put in place of the law, reproduces the reading
  (solved over a grid of magnitudes and refined by bisection, vectorised in
  one kernel). The law's arguments are read from the call in the rates at
  the initial state. The (arguments, value) pairs go to the baseline's own
  search (`discover`) as a static task whose inputs are the law's arguments.
"""

from __future__ import annotations

import math
from typing import Optional

import numpy as np

from ...records import Action, Experiment, Hypothesis, Submission
from .discover import discover
from .identify import Hyp
from .task import Sampler, parse_inputs, parse_outputs

#: Experiments an Adaptive Discovery episode plans (half at the shortest time).
PLANNED = 12
#: Hypotheses reported at a submission.
MAX_HYPOTHESES = 4
#: Candidate points drawn when choosing an Identification experiment.
CANDIDATE_POINTS = 48
#: The player's own integrator: coarser than the card's (its readings need ~1e-4 of a tolerance),
#: and quick to give up on a trial law that blows up.
PLAYER_RTOL, PLAYER_MAX_STEPS = 1e-8, 20_000


def _tree_subst(tree, name: str, value):
    if isinstance(tree, dict) and "var" in tree:
        return value if tree["var"] == name else tree
    if isinstance(tree, dict) and "op" in tree:
        return {"op": tree["op"], "args": [_tree_subst(a, name, value) for a in tree["args"]]}
    return tree


class SystemModel:
    """The task's system, simulated with a law the player chooses."""

    def __init__(self, task: dict) -> None:
        from ...compiler.artifact import DomainSpec, InputSpec, StateSpec, SystemSpec, SystemWorldSpec
        sysv = task["system"]
        self.view = sysv
        self.inputs = [(i["name"], float(i["si_factor"])) for i in task["inputs"]]
        self.outputs = [(o["name"], float(o["si_factor"])) for o in task["outputs"]]
        tol = {o["name"]: o["tolerance"]["abs"] * float(o["si_factor"]) for o in task["outputs"]}
        law = sysv["law"]
        args = [InputSpec(name=a["name"], unit=a["unit"], si_factor=a["si_factor"], dimension=a["dimension"],
                          angle=a.get("angle", False), domain=DomainSpec(**a["domain"])) for a in law["arguments"]]
        states = [StateSpec(name=s["name"], unit=s["unit"], si_factor=s["si_factor"], initial_text=s["initial"],
                            rate_text=s["rate"], tol_abs_si=tol.get(s["name"])) for s in sysv["states"]]
        trees = sysv["trees"]
        self.world = SystemWorldSpec(initial=trees["initial"], lets=[tuple(x) for x in trees["lets"]],
                                     rates=trees["rates"], law=0.0)
        self.spec = SystemSpec(time=sysv["time"], states=states, let_texts={}, outputs=sysv["outputs"],
                               law=law["name"], arguments=args, law_unit=law["unit"],
                               law_dimension=law["dimension"], law_tol_abs=law["tolerance"]["abs"],
                               law_tol_rel=law["tolerance"]["rel"], worlds={}, rtol=max(sysv["rtol"], PLAYER_RTOL),
                               max_steps=PLAYER_MAX_STEPS, scaling_groups=[[j] for j in range(len(states))])

    def simulate(self, law_si, points: dict[str, np.ndarray], extra: Optional[dict[str, np.ndarray]] = None):
        """Outputs (declared units) at `points` with the law `law_si` (an SI
        tree over `arg:NAME`, and over `in:NAME` for the `extra` inputs, the
        constants being fitted: one compiled module serves every value)."""
        from ...compiler.system_emit import numba_module_source
        from ...compiler.system_run import load_source, run
        extra = extra or {}
        inputs = self.inputs + [(k, 1.0) for k in extra]
        world = self.world.model_copy(update={"law": law_si})
        module = load_source(numba_module_source(self.spec, inputs, self.outputs, {"player": world}))
        xs = [np.asarray(points[n], dtype=float) for n, _ in self.inputs] + [np.asarray(v, float)
                                                                             for v in extra.values()]
        ys = run(module, "player", xs, len(self.outputs))
        return dict(zip([n for n, _ in self.outputs], ys))

    def law_si(self, tree):
        from ...system_score import submitted_law_si
        return submitted_law_si(self.spec, tree)

    def law_si_params(self, tree):
        """law_si of a tree whose `__cI` variables are constants being fitted
        (the extra inputs `in:__cI` of `simulate`)."""
        if isinstance(tree, dict) and "var" in tree and tree["var"].startswith("__c"):
            return {"var": f"in:{tree['var']}"}
        if isinstance(tree, dict) and "op" in tree:
            return {"op": tree["op"], "args": [self.law_si_params(a) for a in tree["args"]]}
        return self.law_si(tree)

    def arguments_at_start(self, points: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """The law's arguments (declared units) at time 0, from the first
        call of the law in the rates."""
        from ...compiler.system_law import evaluate_tree
        values = {f"in:{n}": np.asarray(points[n], dtype=float) * f for n, f in self.inputs}
        values["time"] = 0.0
        for s, t in zip(self.spec.states, self.world.initial):
            values[f"st:{s.name}"] = evaluate_tree(t, values)
        for name, t in self.world.lets:
            values[f"sl:{name}"] = evaluate_tree(t, values)
        call = next(c for r in self.world.rates for c in _calls(r))
        n = len(next(iter(points.values())))
        return {a.name: np.broadcast_to(evaluate_tree(t, values), (n,)) / a.si_factor
                for a, t in zip(self.spec.arguments, call["args"])}

    def law_values(self, points: dict[str, np.ndarray], observed: dict[str, np.ndarray]) -> np.ndarray:
        """The constant law that reproduces each reading (NaN where none does)."""
        n = len(next(iter(points.values())))
        grid = np.concatenate([-np.logspace(8, -14, 45), [0.0], np.logspace(-14, 8, 45)])
        rep = {k: np.repeat(np.asarray(v, dtype=float), len(grid)) for k, v in points.items()}
        cs = np.tile(grid, n)
        sim = self.simulate({"var": "in:__c"}, rep, {"__c": cs})
        tol = {o["name"]: o for o in self._outputs_view}
        err = np.zeros(n * len(grid))
        for name, y in sim.items():
            o = tol[name]
            obs = np.repeat(observed[name], len(grid))
            err += ((y - obs) / (o["tolerance"]["abs"] + o["tolerance"]["rel"] * np.abs(obs))) ** 2
        err = np.where(np.isfinite(err), err, np.inf).reshape(n, len(grid))
        best = np.argmin(err, axis=1)
        lo = grid[np.maximum(best - 1, 0)]
        hi = grid[np.minimum(best + 1, len(grid) - 1)]
        for _ in range(40):  # golden-section refinement of each point's bracket, vectorised
            a, b = lo + 0.382 * (hi - lo), lo + 0.618 * (hi - lo)
            ea = self._misfit(points, observed, a)
            eb = self._misfit(points, observed, b)
            left = ea < eb
            hi = np.where(left, b, hi)
            lo = np.where(left, lo, a)
        c = (lo + hi) / 2
        return np.where(np.isfinite(err.min(axis=1)), c, np.nan)

    def _misfit(self, points, observed, c):
        sim = self.simulate({"var": "in:__c"}, points, {"__c": c})
        e = np.zeros(len(c))
        for o in self._outputs_view:
            obs = observed[o["name"]]
            e += ((sim[o["name"]] - obs) / (o["tolerance"]["abs"] + o["tolerance"]["rel"] * np.abs(obs))) ** 2
        return np.where(np.isfinite(e), e, np.inf)


def _calls(tree):
    if isinstance(tree, dict) and "law" in tree:
        yield tree
    if isinstance(tree, dict):
        for a in tree.get("args", []):
            yield from _calls(a)


def _observed(state, names: list[str], outputs: list[str]):
    rows = [ob for ob in state.observations if all(n in ob.inputs for n in names)]
    X = {n: np.array([float(ob.inputs[n]) for ob in rows]) for n in names}
    Y = {o: np.array([float(ob.outputs.get(o, math.nan)) for ob in rows]) for o in outputs}
    return X, Y


def _scaled(task: dict, sim: dict, Y: dict) -> np.ndarray:
    e = []
    for o in task["outputs"]:
        y = Y[o["name"]]
        e.append(np.abs(sim[o["name"]] - y) / (o["tolerance"]["abs"] + o["tolerance"]["rel"] * np.abs(y)))
    return np.concatenate(e) if e else np.zeros(0)


def decide_system(state) -> Action:
    """One action of the baseline on a system card."""
    task = state.task
    model = SystemModel(task)
    model._outputs_view = task["outputs"]
    names = [i["name"] for i in task["inputs"]]
    outs = [o["name"] for o in task["outputs"]]
    X, Y = _observed(state, names, outs)
    if state.setting == "identification" and task.get("candidates"):
        return _identify(state, task, model, X, Y)
    return _discover(state, task, model, X, Y)


def _identify(state, task, model: SystemModel, X, Y) -> Action:
    law = model.spec.law
    g = task["candidates"][law]["tree"]
    laws = [_tree_subst(g, "s", 0.0), _tree_subst(g, "s", 1.0)]
    n = len(next(iter(X.values()), []))
    scores = [0.0, 0.0]
    if n:
        for k, tree in enumerate(laws):
            e = _scaled(task, model.simulate(model.law_si(tree), X), Y)
            scores[k] = -float(np.sum(np.minimum(np.where(np.isfinite(e), e, 1e3) ** 2, 1e4)))
    top = max(scores)
    w = [math.exp(max(s - top, -700)) for s in scores]
    conf = [x / sum(w) for x in w]
    hyps = [Hyp(f"The law is the {'original' if k == 0 else 'other'} candidate (s = {k}).", conf[k], {law: t})
            for k, t in enumerate(laws)]
    return _act(state, task, model, hyps, X, lambda pts: [model.simulate(model.law_si(t), pts) for t in laws])


def _discover(state, task, model: SystemModel, X, Y) -> Action:
    law = model.spec.law
    n = len(next(iter(X.values()), []))
    left = state.steps_left if state.steps_left is not None else PLANNED
    plan = min(PLANNED, n + left) if state.protocol == "adaptive" else 0
    values = np.zeros(0)
    args = {}
    short = _short_rows(task, X, n)
    if n:
        Xs, Ys = {k: v[short] for k, v in X.items()}, {k: v[short] for k, v in Y.items()}
        values = model.law_values(Xs, Ys)
        args = model.arguments_at_start(Xs)
    if state.protocol == "adaptive" and n < plan and not state.must_submit:
        c = float(np.nanmedian(values)) if n and np.isfinite(values).any() else 0.0
        hyps = [Hyp(f"The law is about {c:.4g} [{model.spec.law_unit}] here.", 0.5, {law: c}),
                Hyp(f"The law is about {2 * c:.4g} [{model.spec.law_unit}] here.", 0.5, {law: 2 * c})]
        point = _design_point(task, n)
        preds = []
        pts = {k: np.array([v]) for k, v in point.items()}
        for h in hyps:
            sim = model.simulate({"var": "in:__c"}, pts, {"__c": np.array([model.law_si(h.predictor[law])])})
            preds.append({o: float(v[0]) if np.isfinite(v[0]) else 0.0 for o, v in sim.items()})
        return Action(hypotheses=[Hypothesis(statement=h.statement, confidence=h.confidence, predictor=h.predictor)
                                  for h in hyps],
                      notes="a reading at the shortest time gives the law's value where the system starts; one at another time, a trajectory to fit",
                      experiment=Experiment(inputs=point, outputs=[o["name"] for o in task["outputs"]],
                                            predictions=preds))
    hyps = _search(task, model, args, values, int(short.sum()))
    why = f"the law searched on {int(np.isfinite(values).sum())} values read from the shortest-time readings"
    if n:
        from .system_fit import Fitter, fitted_hypotheses
        fitted = fitted_hypotheses(Fitter(model, task["outputs"], X, Y), law, hyps,
                                   task["system"]["law"]["arguments"], values, args)
        if fitted:
            hyps = fitted[:MAX_HYPOTHESES]
            total = sum(h.confidence for h in hyps)  # the evidence's weights, over the ones reported
            for h in hyps:
                h.confidence /= total
            why += (f", each candidate's constants then fitted through the simulated system to all {n} readings, "
                    "the best evidence chosen")
    top = max(range(len(hyps)), key=lambda i: hyps[i].confidence)
    return _submit(state, task, hyps, top, why)


def _law_task(task: dict, model: SystemModel) -> dict:
    law = task["system"]["law"]
    return {"background": task.get("background", ""), "conditions": task.get("conditions", []),
            "inputs": law["arguments"], "constraints": [],
            "outputs": [{"name": law["name"], "unit": law["unit"], "si_factor": 1.0, "dimension": law["dimension"],
                         "angle": False, "resolution": None, "tolerance": law["tolerance"], "noise": None,
                         "description": ""}]}


def _search(task, model: SystemModel, args: dict, values: np.ndarray, n: int) -> list[Hyp]:
    law = model.spec.law
    lt = _law_task(task, model)
    ok = np.isfinite(values) if len(values) else np.zeros(0, bool)
    if not n or ok.sum() < 2:
        return [Hyp("No reading gives the law yet: a constant.", 0.6, {law: float(np.nanmedian(values)) if ok.any()
                                                                        else 0.0}),
                Hyp("A constant twice as large.", 0.4, {law: 1.0})]
    inputs, outputs = parse_inputs(lt), parse_outputs(lt)
    X = {k: np.asarray(v, dtype=float)[ok] for k, v in args.items()}
    Y = {law: values[ok]}
    check_X = Sampler(inputs, None).check_sample()
    hyps, _ = discover(lt, inputs, outputs, X, Y, check_X, int(ok.sum()))
    return hyps if len(hyps) >= 2 else hyps + [Hyp("A constant.", 0.0, {law: float(np.median(values[ok]))})]


def _short_rows(task: dict, X: dict, n: int) -> np.ndarray:
    """The readings at the shortest allowed time (all of them when fewer
    than three are: a Fixed design's times are anywhere)."""
    time = task["system"]["time"]
    lo = next(float(i["domain"]["lo"]) for i in task["inputs"] if i["name"] == time)
    short = np.asarray(X.get(time, np.zeros(n)), dtype=float) <= lo * (1 + 1e-9) if n else np.zeros(0, bool)
    return short if short.sum() >= 3 else np.ones(n, bool)


def _design_point(task: dict, k: int) -> dict[str, float]:
    """The k-th Adaptive Discovery experiment: the other inputs on a Halton
    sequence over their domains (several initial states); the time at its
    lower bound for even k (a reading of the law's value where the system
    starts), anywhere in its domain for odd k (the trajectory that the
    candidates' fitted constants must reproduce)."""
    time = task["system"]["time"]
    point = {}
    primes = [2, 3, 5, 7, 11, 13, 17, 19]
    j = 0
    for i in task["inputs"]:
        d = i["domain"]
        if i["name"] == time and k % 2 == 0:
            point[i["name"]] = float(d["lo"])
            continue
        if i["name"] == time:
            u = _radical(k // 2 + 1, 19)
            point[i["name"]] = _in_domain(d, u)
            continue
        point[i["name"]] = _in_domain(d, _radical(k + 1, primes[j % (len(primes) - 1)]))
        j += 1
    return point


def _in_domain(d: dict, u: float) -> float:
    """The point at fraction u of a domain (log domains in log)."""
    if d["kind"] == "set":
        vals = d["values"]
        return float(vals[min(int(u * len(vals)), len(vals) - 1)])
    if d["kind"] == "log":
        return float(math.exp(math.log(d["lo"]) + u * (math.log(d["hi"]) - math.log(d["lo"]))))
    v = d["lo"] + u * (d["hi"] - d["lo"])
    return float(round(v) if d["kind"] == "integer" else v)


def _radical(i: int, base: int) -> float:
    f, r = 1.0, 0.0
    while i > 0:
        f /= base
        r += f * (i % base)
        i //= base
    return r


def _act(state, task, model, hyps: list[Hyp], X, simulate_all) -> Action:
    """Identification: experiment where the candidates differ most, or submit."""
    top = max(range(len(hyps)), key=lambda i: hyps[i].confidence)
    if state.protocol != "adaptive" or state.must_submit or hyps[top].confidence >= state.threshold:
        return _submit(state, task, hyps, top, "the candidate whose simulated readings match the observations")
    sampler = Sampler(parse_inputs(task), None)
    pts = sampler.check_sample()
    pts = {k: np.asarray(v, dtype=float)[:CANDIDATE_POINTS] for k, v in pts.items()}
    sims = simulate_all(pts)
    gap = np.zeros(len(next(iter(pts.values()))))
    for o in task["outputs"]:
        a, b = sims[0][o["name"]], sims[1][o["name"]]
        gap = np.maximum(gap, np.abs(a - b) / (o["tolerance"]["abs"] + o["tolerance"]["rel"] * np.abs(a)))
    gap = np.where(np.isfinite(gap), gap, -1.0)
    i = int(np.argmax(gap))
    point = {k: float(v[i]) for k, v in pts.items()}
    preds = [{o["name"]: float(s[o["name"]][i]) if np.isfinite(s[o["name"]][i]) else 0.0 for o in task["outputs"]}
             for s in sims]
    for h in hyps:  # below τ while experimenting (the rule)
        h.confidence = min(h.confidence, state.threshold - 0.05)
    total = sum(h.confidence for h in hyps)
    for h in hyps:
        h.confidence /= total
    return Action(hypotheses=[Hypothesis(statement=h.statement, confidence=h.confidence, predictor=h.predictor)
                              for h in hyps],
                  notes="where the candidates' simulated readings differ most",
                  experiment=Experiment(inputs=point, outputs=[o["name"] for o in task["outputs"]],
                                        predictions=preds))


def _submit(state, task, hyps: list[Hyp], top: int, why: str) -> Action:
    law = task["system"]["law"]["name"]
    if state.protocol == "adaptive" and hyps[top].confidence < state.threshold:
        # confident once the law is chosen: the other hypotheses share what is left
        rest = 1.0 - state.threshold
        others = [i for i in range(len(hyps)) if i != top]
        for i in others:
            hyps[i].confidence = rest / len(others)
        hyps[top].confidence = state.threshold
    expl = (f"The system was simulated with each hypothesis for `{law}` in place of the hidden law; {why}. "
            f"Submitted: {hyps[top].statement}")
    return Action(hypotheses=[Hypothesis(statement=h.statement, confidence=h.confidence, predictor=h.predictor)
                              for h in hyps],
                  notes=f"submitted hypothesis {top + 1}",
                  submission=Submission(selected=top, predictor=hyps[top].predictor, explanation=expl,
                                        applicability="within the arguments' domains, for this system"))
