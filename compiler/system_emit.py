"""A system card's integrator: its SI trees (`system_spec`) and the numba
source of its worlds (`emit_system_source`).

Each world's kernel has the signature of a static card's,
`env_<world>(x0, x1, ..., y0, y1, ...)`, inputs and outputs in declared
units, so the oracle, the designs and the runtime call it unchanged. The
generated module holds only what is the card's: every world's initial
states, rates and outputs in one small numba C function (`model`), which the
kernel hands to the one DOP853 driver of scigame/simrt_system.py (Dormand–Prince
8(5,3) with the coefficients and step-size control scipy's `solve_ivp`
uses). The driver is compiled once per machine, not once per card and
world: a card's cold compile is its own few lines. The card fixes the
driver's settings:

- `rtol` is `RTOL_FACTOR` times the finest relative tolerance of the
  outputs (between `RTOL_MIN` and `RTOL_MAX`; 1e-13 for 1% outputs); `atol_j` is `rtol` times the
  state's scale (the largest initial size, or initial rate times the time
  span, of the states of its dimension), and at most `ATOL_FACTOR` times
  the absolute tolerance of an output that reads it;
- a point that needs more than `max_steps` steps, whose step shrinks to
  rounding, or whose states stop being finite gives NaN: the oracle refuses
  it as a rejected observation that says why, so a stiff or blowing-up
  system never hangs an episode.

The same emitter writes the module that simulates a player's submitted law
(scigame/system_score.py): the law is a tree like any other. Nothing a card
author wrote reaches the source as code: variables become `a0, s0, l0, v0`,
numbers go through `kernel._literal`.
"""

from __future__ import annotations

import math
import numpy as np

from .artifact import SYSTEM_RUNTIME, InputSpec, DomainSpec, StateSpec, SystemSpec, SystemWorldSpec
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


def _state_scales(spec: SystemSpec) -> tuple[list[int], list[float]]:
    """Per state: the index of its scaling group (states of one dimension
    share an absolute scale) and the cap on its absolute tolerance
    (`ATOL_FACTOR` times the tolerance of the output that reads it; -1: none)."""
    groups = [next(g for g, members in enumerate(spec.scaling_groups) if j in members)
              for j in range(len(spec.states))]
    caps = [ATOL_FACTOR * s.tol_abs_si if s.tol_abs_si is not None else -1.0 for s in spec.states]
    return groups, caps


def _tuple(names: list[str]) -> str:
    return "(" + ", ".join(names) + ("," if len(names) == 1 else "") + ")"


class _World:
    """Writes one world's branch of the module's `model` function
    (scigame/simrt_system.py's MODEL) and its two kernels."""

    def __init__(self, w: CodeWriter, spec: SystemSpec, inputs: dict[str, str], name: str, index: int,
                 world: SystemWorldSpec):
        self.w, self.spec, self.world, self.name, self.index = w, spec, world, name, index
        self.argn = [f"arg:{a.name}" for a in spec.arguments]
        self.inputs = inputs

    def tree(self, wr: _Writer, tree) -> str:
        return wr.operand(inline_calls(tree, self.argn, self.world.law))

    def _states_and_lets(self) -> _Writer:
        names = {**self.inputs, "time": "t"}
        for j, st in enumerate(self.spec.states):
            self.w.writeline(f"s{j} = y[{j}]")
            names[f"st:{st.name}"] = f"s{j}"
        wr = _Writer(self.w, names)
        for k, (name, tree) in enumerate(self.world.lets):
            self.w.writeline(f"l{k} = {self.tree(wr, tree)}")
            names[f"sl:{name}"] = f"l{k}"
        return wr

    def branch(self, output_names: list[str], output_factors: list[float]) -> None:
        """kind 0: the initial states; 1: the rates at (t, y); 2: the outputs
        of the states y (at time t, the time input), in declared units."""
        self.w.writeline(f"{'if' if self.index == 0 else 'elif'} world == {self.index}:  # {self.name}")
        self.w.indent()
        initial = lambda: _Writer(self.w, {**self.inputs, "time": "0.0"})  # noqa: E731
        outputs = [(self.spec.outputs[n], "" if f == 1.0 else f" / {_literal(f)}")
                   for n, f in zip(output_names, output_factors)]
        for test, writer, values in (
                ("if kind == 0:", initial, lambda wr: (self.tree(wr, t) for t in self.world.initial)),
                ("elif kind == 1:", self._states_and_lets, lambda wr: (self.tree(wr, t) for t in self.world.rates)),
                ("else:", self._states_and_lets, lambda wr: (wr.names[name] + scale for name, scale in outputs))):
            self.w.writeline(test)
            self.w.indent()
            for j, value in enumerate(values(writer())):  # lazily: a tree writes its own lines first
                self.w.writeline(f"k[{j}] = {value}")
            self.w.outdent()
        self.w.outdent()

    def kernels(self, n_inputs: int, n_outputs: int) -> None:
        xs, ys = [f"x{i}" for i in range(n_inputs)], [f"y{j}" for j in range(n_outputs)]
        for suffix, parallel in (("", "False"), ("_parallel", "True")):
            self.w.writeline(f"def env_{self.name}{suffix}({', '.join(xs + ys)}):")
            self.w.writeline(f"    run_system({parallel}, {_tuple(xs)}, FACTORS, TIME_INDEX, {_tuple(ys)}, model, "
                             f"{self.index}, GROUPS, CAPS, RTOL, MAX_STEPS)")
            self.w.writeline("")
            self.w.writeline("")


def _constants(w: CodeWriter, spec: SystemSpec, inputs: list[tuple[str, float]], n_outputs: int) -> None:
    groups, caps = _state_scales(spec)
    w.writeline(f"N_INPUTS = {len(inputs)}")
    w.writeline(f"N_OUTPUTS = {n_outputs}")
    w.writeline(f"FACTORS = {_tuple([_literal(f) for _, f in inputs])}")
    w.writeline(f"TIME_INDEX = {[n for n, _ in inputs].index(spec.time)}")
    w.writeline(f"GROUPS = np.array({_tuple([str(int(g)) for g in groups])}, dtype=np.int64)")
    w.writeline(f"CAPS = np.array({_tuple([_literal(c) for c in caps])})")
    w.writeline(f"RTOL = {_literal(spec.rtol)}")
    w.writeline(f"MAX_STEPS = {int(spec.max_steps)}")
    w.writeline("")
    w.writeline("")


def emit_system_source(spec: SystemSpec, inputs: list[tuple[str, float]], outputs: list[tuple[str, float]],
                       worlds: dict[str, SystemWorldSpec], header: list[str]) -> str:
    """A module with one numba C function `model` (every world's initial
    states, rates and outputs over SI inputs and states: the card's own
    code) and each world's kernels `env_<world>` and `env_<world>_parallel`,
    which integrate it with scigame/simrt_system.py's driver. `header` are
    its first lines (before the import of the system runtime)."""
    w = CodeWriter()
    for line in header:
        w.writeline(line)
    w.writeline(f"from {SYSTEM_RUNTIME} import {', '.join(SYSTEM_RUNTIME_NAMES)}")
    _constants(w, spec, inputs, len(outputs))
    names = {f"in:{n}": f"a{i}" for i, (n, _) in enumerate(inputs)}
    emitters = [_World(w, spec, names, name, i, world) for i, (name, world) in enumerate(worlds.items())]
    w.writeline("@cfunc(MODEL, cache=True, error_model=\"numpy\")")
    w.writeline("def model(world, kind, t, y, p, k):")
    w.indent()
    for var in names.values():
        w.writeline(f"{var} = p[{var[1:]}]")
    for c in emitters:
        c.branch([n for n, _ in outputs], [f for _, f in outputs])
    w.outdent()
    w.writeline("")
    w.writeline("")
    for c in emitters:
        c.kernels(len(inputs), len(outputs))
    return w.text()


#: What generated system code imports from SYSTEM_RUNTIME (its `exported`).
SYSTEM_RUNTIME_NAMES = ("math", "np", "cfunc", "MODEL", "run_system")


def card_module_source(card, spec: SystemSpec) -> str:
    """A checked system card's simulator module, the same text wherever it
    is made: the compiled folder's simulator.py, lint's checks and the
    build's evaluation sets (system_run.evaluate_system), so one process
    compiles the card's `model` once, and numba's disk cache keeps it for
    the next (the text names the card and its hash, not the compiler's
    version: the text itself changes when the emitter's output does)."""
    from .emit import _HEX, _SAFE_NAME
    if not _SAFE_NAME.match(card.name) or not _HEX.match(card.content_hash):
        raise ValueError("card name or hash is not safe to place in a comment")
    header = [f"# Simulator for the scigame system card `{card.name}`: generated, do not edit.",
              f"# card source sha256: {card.content_hash}",
              "# Inputs and outputs are arrays in the card's declared units; each point is an",
              "# initial-value problem integrated by DOP853 (scigame/simrt_system.py).",
              f"CARD_SHA256 = \"{card.content_hash}\""]
    return emit_system_source(spec, [(s.name, s.unit.si_factor) for s in card.inputs],
                              [(o.name, o.unit.si_factor) for o in card.outputs], spec.worlds, header)


def numba_module_source(spec: SystemSpec, inputs, outputs, worlds) -> str:
    """The simulator module of some worlds (a submitted law's, a player's
    candidates), cached by its text (system_run.load_source)."""
    return emit_system_source(spec, inputs, outputs, worlds, ["# scigame system integrator: generated"])


__all__ = ["system_spec", "emit_system_source", "card_module_source", "numba_module_source", "si_tree", "inline_calls", "math", "np"]
