"""A system card's integrator: its SI trees (`system_spec`) and the numba
source that integrates them (`emit_system_source`).

Each world's kernel has the signature of a static card's,
`env_<world>(x0, x1, ..., y0, y1, ...)`, inputs and outputs in declared
units, so the oracle, the designs and the runtime call it unchanged. Per
point it solves the initial-value problem from time 0 to the point's `time`
input with the explicit Runge–Kutta method DOP853 (Dormand–Prince 8(5,3),
the coefficients scipy's `solve_ivp` uses) and its step-size control:

- the error norm of each step combines the 5th- and 3rd-order estimates
  as Hairer's DOP853 does, scaled per state by `atol_j + rtol·|y_j|`;
- `rtol` is `RTOL_FACTOR` times the finest relative tolerance of the
  outputs (between `RTOL_MIN` and `RTOL_MAX`; 1e-13 for 1% outputs); `atol_j` is `rtol` times the
  state's scale (the largest initial size, or initial rate times the time
  span, of the states of its dimension), and at most `ATOL_FACTOR` times
  the absolute tolerance of an output that reads it;
- a point that needs more than `max_steps` steps, whose step shrinks to
  rounding, or whose states stop being finite gives NaN: the oracle refuses
  it as a rejected observation that says why, so a stiff or blowing-up
  system never hangs an episode.

The same emitter writes the kernel that simulates a player's submitted law
(scigame/system_score.py): the law is a tree like any other. Nothing a card
author wrote reaches the source as code: variables become `a0, s0, l0, v0`,
numbers go through `kernel._literal`.
"""

from __future__ import annotations

import math
from typing import Optional

import numpy as np

from .artifact import InputSpec, DomainSpec, StateSpec, SystemSpec, SystemWorldSpec
from .kernel import CodeWriter, _literal
from .functions import FUNCTIONS
from .model import TBinary, TCall, TConst, TRef, TUnary
from .system_law import law_tolerance

#: The integrator's relative accuracy is this fraction of the finest output tolerance.
#: 1e-13 for 1% outputs: a close approach multiplies the relative error of each step
#: (held to rtol in the speed at periapsis) by (v_periapsis^2 / 2|E|) in the orbit's
#: energy, and the energy error grows into a phase error. two_body's counterfactual
#: plunge at v0 = 6.7 km/s (periapsis 7e-4 au, 14000 km/s) is off the converged
#: solution by 8.9e-3 of y's tolerance at rtol 1e-12, 3.6e-4 at 1e-13 (DOP853 is 8th
#: order: the 10x costs ~1.33x the steps). No atol fixes it, the error is relative:
#: atols 1e4 times finer at rtol 1e-12 still leave 6.5e-3.
RTOL_FACTOR = 1e-11
RTOL_MIN, RTOL_MAX = 1e-13, 1e-10
#: An output's state is held to this fraction of the output's absolute tolerance.
ATOL_FACTOR = 1e-6
#: Steps (accepted or rejected) one point may take.
MAX_STEPS = 100_000


# ---- typed expressions to SI trees ---------------------------------------------

def si_tree(e, env, lets: dict) -> object:
    """A typed system expression as an SI tree (params folded, card lets inlined)."""
    from .system_model import TLawCall
    if isinstance(e, TConst):
        return float(e.value)
    if isinstance(e, TRef):
        if e.role == "param":
            return float(env.params[e.name].value)
        if e.role == "let":
            return si_tree(lets[e.name], env, lets)
        prefix = {"input": "in:", "state": "st:", "system_let": "sl:", "argument": "arg:", "time": ""}[e.role]
        return {"var": "time"} if e.role == "time" else {"var": prefix + e.name}
    if isinstance(e, TUnary):
        return {"op": "neg", "args": [si_tree(e.operand, env, lets)]}
    if isinstance(e, TBinary):
        return {"op": e.op, "args": [si_tree(e.left, env, lets), si_tree(e.right, env, lets)]}
    if isinstance(e, TLawCall):
        return {"law": e.law, "args": [si_tree(a, env, lets) for a in e.args]}
    assert isinstance(e, TCall)
    return {"op": e.fn, "args": [si_tree(a, env, lets) for a in e.args]}


def system_spec(card) -> SystemSpec:
    """What the integrator and the runtime need about a checked system card."""
    from .units import dimension_vector, format_si_unit, is_angle
    info = card.system
    outputs = {o.name: o for o in card.outputs}
    states = []
    for s in info.states:
        out = outputs.get(s.name)
        states.append(StateSpec(name=s.name, unit=s.unit.text, si_factor=s.unit.si_factor, description=s.description,
                                initial_text=info.texts.get(f"init:{s.name}", ""),
                                rate_text=info.texts.get(f"rate:{s.name}", ""),
                                tol_abs_si=out.tol_abs * out.unit.si_factor if out is not None else None))
    worlds = {}
    for env in (card.original, card.counterfactual):
        w, lets = env.system, dict(env.lets)
        worlds[env.name] = SystemWorldSpec(
            initial=[si_tree(e, env, lets) for _, e in w.initial],
            lets=[(n, si_tree(e, env, lets)) for n, e in w.lets],
            rates=[si_tree(e, env, lets) for _, e in w.rates], law=si_tree(w.law_body, env, lets))
    args = [InputSpec(name=a.name, unit=a.unit.text, si_factor=a.unit.si_factor,
                      dimension=dimension_vector(a.unit), angle=is_angle(a.unit),
                      domain=DomainSpec(kind=a.kind, lo=a.lo, hi=a.hi, values=list(a.values)),
                      description=a.description) for a in info.arguments]
    dims = [str(s.unit.dim) for s in info.states]
    groups = [[i for i, d in enumerate(dims) if d == key] for key in dict.fromkeys(dims)]
    rels = [o.tol_rel for o in card.outputs if o.tol_rel > 0]
    rtol = min(RTOL_MAX, max(RTOL_MIN, RTOL_FACTOR * min(rels))) if rels else 1e-10
    from .units import Unit
    law_unit = format_si_unit(info.law_dim) if not info.law_dim.dimensionless else "1"
    tol_abs, tol_rel = law_tolerance(card, args, worlds["original"].law)
    return SystemSpec(time=info.time, states=states, let_texts={k[4:]: v for k, v in info.texts.items()
                                                                 if k.startswith("let:")},
                      outputs={o: ("st:" if kind == "state" else "sl:") + name
                               for o, (kind, name) in info.outputs.items()},
                      law=info.law, arguments=args, law_unit=law_unit,
                      law_dimension=dimension_vector(Unit(law_unit, info.law_dim, 1.0)),
                      law_tol_abs=tol_abs, law_tol_rel=tol_rel, worlds=worlds, rtol=rtol,
                      max_steps=MAX_STEPS, scaling_groups=groups, hidden_rates=_uses_params(card.original.system))


def _uses_params(world) -> bool:
    from .system_model import system_nodes
    exprs = [e for _, e in world.initial + world.lets + world.rates]
    return any(isinstance(e, TRef) and e.role == "param" for e in system_nodes(*exprs))


# ---- trees to numba source ----------------------------------------------------------

def inline_calls(tree, arg_names: list[str], law: object):
    """A rate tree with each call of the law replaced by the law's tree
    (its `arg:NAME` variables, in `arg_names` order, by the call's arguments)."""
    if isinstance(tree, dict) and "law" in tree:
        args = [inline_calls(a, arg_names, law) for a in tree["args"]]
        return _replace(law, dict(zip(arg_names, args)))
    if isinstance(tree, dict) and "op" in tree:
        return {"op": tree["op"], "args": [inline_calls(a, arg_names, law) for a in tree["args"]]}
    return tree


def _replace(tree, scope: dict):
    if isinstance(tree, dict) and "var" in tree:
        return scope.get(tree["var"], tree)
    if isinstance(tree, dict) and "op" in tree:
        return {"op": tree["op"], "args": [_replace(a, scope) for a in tree["args"]]}
    return tree


_INFIX = {"add": "+", "sub": "-", "mul": "*", "div": "/"}


class _Writer:
    """Emits the temporaries of tree expressions into a CodeWriter."""

    def __init__(self, w: CodeWriter, names: dict[str, str]):
        self.w, self.names, self.counter = w, names, 0

    def temp(self) -> str:
        self.counter += 1
        return f"v{self.counter}"

    def operand(self, tree) -> str:
        if isinstance(tree, bool) or tree is None:
            raise ValueError("a tree leaf must be a number or a variable")
        if isinstance(tree, (int, float)):
            return _literal(float(tree))
        if "var" in tree:
            return self.names[tree["var"]]
        op, args = tree["op"], [self.operand(a) for a in tree["args"]]
        if op in ("add", "mul", "min", "max") and len(args) > 2:
            acc = args[0]
            for a in args[1:]:
                acc = self._bin(op, acc, a)
            return acc
        return self._emit(self._code(op, args))

    def _bin(self, op: str, a: str, b: str) -> str:
        return self._emit(self._code(op, [a, b]))

    def _emit(self, code: str) -> str:
        t = self.temp()
        self.w.writeline(f"{t} = {code}")
        return t

    @staticmethod
    def _code(op: str, args: list[str]) -> str:
        if op in _INFIX:
            return f"{args[0]} {_INFIX[op]} {args[1]}"
        if op == "neg":
            return f"-{args[0]}"
        if op == "pow":
            return f"{args[0]} * {args[0]}" if args[1] == "2.0" else f"{args[0]} ** {args[1]}"
        if op == "step":
            return f"({args[0]} if {args[0]} != {args[0]} else (1.0 if {args[0]} > 0.0 else 0.0))"
        if op == "sign":
            a = args[0]
            return f"({a} if {a} != {a} else (1.0 if {a} > 0.0 else (-1.0 if {a} < 0.0 else 0.0)))"
        if op == "round":
            return f"np.rint({args[0]})"
        if op in ("min", "max"):
            return f"{op}({args[0]}, {args[1]})"
        return f"{FUNCTIONS[op].numba}({', '.join(args)})"


def _scales(spec: SystemSpec) -> list[tuple[int, list[int], Optional[float]]]:
    return [(j, next(g for g in spec.scaling_groups if j in g), s.tol_abs_si) for j, s in enumerate(spec.states)]


def emit_coefficients(w: CodeWriter) -> None:
    """DOP853's tableau (scipy's coefficients) as module constants."""
    from scipy.integrate._ivp import dop853_coefficients as c
    n = c.N_STAGES
    rows = ", ".join("(" + ", ".join(_literal(c.A[s, m]) for m in range(n)) + ",)" for s in range(n))
    w.writeline(f"_A = np.array(({rows},))")
    w.writeline("_B = np.array((" + ", ".join(_literal(x) for x in c.B[:n]) + ",))")
    w.writeline("_C = np.array((" + ", ".join(_literal(x) for x in c.C[:n]) + ",))")
    w.writeline("_E5 = np.array((" + ", ".join(_literal(x) for x in c.E5) + ",))")
    w.writeline("_E3 = np.array((" + ", ".join(_literal(x) for x in c.E3) + ",))")
    w.writeline("")


class _World:
    """What the pieces of one world's kernel share."""

    def __init__(self, w: CodeWriter, spec: SystemSpec, input_names, input_factors, world: SystemWorldSpec):
        self.w, self.spec, self.world = w, spec, world
        self.ns = len(spec.states)
        self.argn = [f"arg:{a.name}" for a in spec.arguments]
        self.rtol = _literal(spec.rtol)
        self.names = {f"in:{name}": f"a{i}" for i, name in enumerate(input_names)}
        self.factors = input_factors
        self.tend = self.names[f"in:{spec.time}"]
        self.wr = _Writer(w, {**self.names, "time": "0.0"})

    def tree(self, tree) -> str:
        return self.wr.operand(inline_calls(tree, self.argn, self.world.law))

    def lines(self, *lines: str) -> None:
        for line in lines:
            self.w.writeline(line)

    def states_and_lets(self, src: str, time: str) -> dict[str, str]:
        """Read the states from array `src`, compute the system's lets."""
        local = {**self.names, "time": time}
        for j, st in enumerate(self.spec.states):
            self.w.writeline(f"s{j} = {src}[{j}]")
            local[f"st:{st.name}"] = f"s{j}"
        self.wr.names = local
        for k, (name, tree) in enumerate(self.world.lets):
            self.w.writeline(f"l{k} = {self.tree(tree)}")
            local[f"sl:{name}"] = f"l{k}"
        return local


def emit_world(w: CodeWriter, spec: SystemSpec, input_names: list[str], input_factors: list[float],
               output_names: list[str], output_factors: list[float], world: SystemWorldSpec,
               fn_name: str, parallel: bool = False) -> None:
    """One world's kernel (see the module docstring). The right-hand side
    is written once, inside a loop whose `stage` says which evaluation is
    due: -2 the rate at the start, -1 the probe of the initial step, 1..11
    the stages of a step, 12 the rate at its end (reused as the next step's
    first stage)."""
    c = _World(w, spec, input_names, input_factors, world)
    xs = [f"x{i}" for i in range(len(input_names))]
    ys = [f"y{j}" for j in range(len(output_names))]
    w.writeline(f"@njit(cache=True, error_model=\"numpy\", nogil=True{', parallel=True' if parallel else ''})")
    w.writeline(f"def {fn_name}({', '.join(xs + ys)}):")
    w.indent()
    w.writeline(f"for i in {'prange' if parallel else 'range'}({ys[0]}.shape[0]):")
    w.indent()
    _start(c)
    w.writeline(f"while {c.tend} > 0.0:")
    w.indent()
    for j, tree in enumerate(c.world.rates):  # the right-hand side at (tt, ytmp) into K[row]
        if j == 0:
            c.states_and_lets("ytmp", "tt")
        w.writeline(f"K[row, {j}] = {c.tree(tree)}")
    c.lines("new = False", "if stage == -2:")
    w.indent()
    _first_step(c)
    w.outdent()
    c.lines("if stage == -1:")
    w.indent()
    _first_size(c)
    w.outdent()
    c.lines("elif stage < 12:", "    stage += 1", "else:")
    w.indent()
    _error_control(c)
    w.outdent()
    _next_stage(c)
    w.outdent()
    local = c.states_and_lets("y", "t")  # the outputs: states, or the system's lets of the final states
    for j, (name, f) in enumerate(zip(output_names, output_factors)):
        value = local[spec.outputs[name]]
        w.writeline(f"{ys[j]}[i] = ({value}" + ("" if f == 1.0 else f" / {_literal(f)}") + ") if ok else math.nan")
    w.outdent()
    w.outdent()
    c.lines("", "")


def _start(c: _World) -> None:
    """Arrays, inputs in SI, the initial states."""
    for line in ("y", "ytmp", "atol"):
        c.w.writeline(f"{line} = np.empty({c.ns})")
    c.w.writeline(f"K = np.empty((13, {c.ns}))")
    for i, f in enumerate(c.factors):
        c.w.writeline(f"a{i} = x{i}[i]" + ("" if f == 1.0 else f" * {_literal(f)}"))
    for j, tree in enumerate(c.world.initial):
        c.w.writeline(f"y[{j}] = {c.tree(tree)}")
    c.lines("t = 0.0", "tt = 0.0", "ok = True", "stage = -2", "row = 0", "steps = 0", "rejected = False",
            "h = 0.0", "h0 = 0.0", "hh = 0.0", "t_new = 0.0", "d0 = 0.0", "d1 = 0.0",
            f"for j in range({c.ns}):", "    ytmp[j] = y[j]")


def _first_step(c: _World) -> None:
    """After the rate at the start: each state's absolute scale, and the
    probe of Hairer's initial step (as scipy's select_initial_step, order 8)."""
    for j, group, tol in _scales(c.spec):
        c.w.writeline("d = 0.0")
        for k in group:
            c.w.writeline(f"d = max(d, abs(y[{k}]), abs(K[0, {k}]) * {c.tend})")
        cap = f"min({c.rtol} * d, {_literal(ATOL_FACTOR * tol)})" if tol is not None else f"{c.rtol} * d"
        c.w.writeline(f"atol[{j}] = {cap} if d > 0.0 else {_literal(1e-300)}")
    c.lines("d0 = 0.0", "d1 = 0.0", f"for j in range({c.ns}):", f"    sc = atol[j] + abs(y[j]) * {c.rtol}",
            "    d0 += (y[j] / sc) ** 2", "    d1 += (K[0, j] / sc) ** 2", f"d0 = math.sqrt(d0 / {c.ns})",
            f"d1 = math.sqrt(d1 / {c.ns})", "h0 = 1e-6 if (d0 < 1e-5 or d1 < 1e-5) else 0.01 * d0 / d1",
            f"h0 = min(h0, {c.tend})", f"for j in range({c.ns}):", "    ytmp[j] = y[j] + h0 * K[0, j]",
            "tt = h0", "row = 1", "stage = -1", "continue")


def _first_size(c: _World) -> None:
    """After the probe: the initial step size."""
    c.lines("d2 = 0.0", f"for j in range({c.ns}):", f"    sc = atol[j] + abs(y[j]) * {c.rtol}",
            "    d2 += ((K[1, j] - K[0, j]) / sc) ** 2", f"d2 = math.sqrt(d2 / {c.ns}) / h0",
            "if d1 <= 1e-15 and d2 <= 1e-15:", "    h1 = max(1e-6, h0 * 1e-3)", "else:",
            "    h1 = (0.01 / max(d1, d2)) ** (1.0 / 9.0)", f"h = min(100.0 * h0, h1, {c.tend})",
            "if not (h > 0.0):", f"    h = {c.tend} * 1e-6", "new = True")


def _error_control(c: _World) -> None:
    """After the rate at the step's end: DOP853's error norm, then accept or reject."""
    c.lines("new = True", "e5 = 0.0", "e3 = 0.0", f"for j in range({c.ns}):",
            f"    sc = atol[j] + max(abs(y[j]), abs(ytmp[j])) * {c.rtol}", "    q5 = 0.0", "    q3 = 0.0",
            "    for m in range(13):", "        q5 += _E5[m] * K[m, j]", "        q3 += _E3[m] * K[m, j]",
            "    e5 += (q5 / sc) ** 2", "    e3 += (q3 / sc) ** 2",
            f"en = 0.0 if (e5 == 0.0 and e3 == 0.0) else hh * e5 / math.sqrt((e5 + 0.01 * e3) * {c.ns})",
            "if en < 1.0:", "    factor = 10.0 if en == 0.0 else min(10.0, 0.9 * en ** (-0.125))",
            "    if rejected:", "        factor = min(1.0, factor)", "    t = t_new", f"    for j in range({c.ns}):",
            "        y[j] = ytmp[j]", "        K[0, j] = K[12, j]", "    h = hh * factor", "    rejected = False",
            f"    if t >= {c.tend}:", "        break", "else:",
            "    h = hh * (max(0.2, 0.9 * en ** (-0.125)) if en == en else 0.2)", "    rejected = True")


def _next_stage(c: _World) -> None:
    """A new step (its cap, size and first stage) when one is due, then the
    point and time at which the next rate is wanted."""
    c.lines("if new:",
            f"    if steps >= {c.spec.max_steps} or not (h > 4.0 * 2.220446049250313e-16 * abs(t)):",
            "        ok = False", "        break", "    steps += 1", f"    t_new = min(t + h, {c.tend})",
            "    hh = t_new - t", "    stage = 1", "row = stage", f"for j in range({c.ns}):", "    acc = 0.0",
            "    if stage < 12:", "        for m in range(stage):", "            acc += _A[stage, m] * K[m, j]",
            "    else:", "        for m in range(12):", "            acc += _B[m] * K[m, j]",
            "    ytmp[j] = y[j] + hh * acc", "tt = t_new if stage == 12 else t + _C[stage] * hh")


def emit_system_source(spec: SystemSpec, inputs: list[tuple[str, float]], outputs: list[tuple[str, float]],
                       worlds: dict[str, SystemWorldSpec], header: list[str]) -> str:
    """A module with one kernel per world (and its prange twin); `header`
    are its first lines (the imports)."""
    w = CodeWriter()
    for line in header:
        w.writeline(line)
    w.writeline(f"N_INPUTS = {len(inputs)}")
    w.writeline(f"N_OUTPUTS = {len(outputs)}")
    w.writeline("#: every call runs numba's loop: an integration is too long to run as Python")
    w.writeline("PYTHON_MAX_POINTS = 0")
    w.writeline("")
    w.writeline("")
    emit_coefficients(w)
    args = ([n for n, _ in inputs], [f for _, f in inputs], [n for n, _ in outputs], [f for _, f in outputs])
    for name, world in worlds.items():
        emit_world(w, spec, *args, world, f"env_{name}")
        emit_world(w, spec, *args, world, f"env_{name}_parallel", parallel=True)
    return w.text()


NUMBA_HEADER = ["import math", "import numpy as np", "from numba import njit, prange"]


def numba_module_source(spec: SystemSpec, inputs, outputs, worlds) -> str:
    """The integrator module as plain numba code (for lint's checks and for
    simulating a submitted law), cached by its text (system_run.py)."""
    return emit_system_source(spec, inputs, outputs, worlds, ["# scigame system integrator: generated"]
                              + NUMBA_HEADER)


__all__ = ["system_spec", "emit_system_source", "numba_module_source", "si_tree", "inline_calls", "math", "np"]
