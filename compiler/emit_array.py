"""The array twin of a kernel: one world's laws as numpy ufuncs on whole arrays.

    env_original_array(x0, ..., y0, ...)   # no loop: every point at once

Emitted (next to the numba kernel, by `emit.emit_simulator`) for a world
whose points cost libm calls, where numpy's vectorised transcendental
functions beat a loop of libm calls; `scigame.simrt.run_array` runs it over
cache-sized chunks on threads for large inputs. The arithmetic is the
kernel's, operation for operation; the functions are numpy's, within a few
units in the last place of libm's. min and max keep numba's (and Python's)
rule for NaN, `step` and `sign` their scalar definitions. A world calling a
function with no array form in the table (compiler/functions.py) gets no
array twin.
"""

from __future__ import annotations

from .functions import FUNCTIONS
from .model import CheckedCard, Environment, TBinary, TCall, TConst, TExpr, TRef, world_nodes
from .kernel import CodeWriter, Kernel

_POWERS = {"2.0": "{0} * {0}", "(-1.0)": "1.0 / {0}", "0.5": "np.sqrt({0})"}


class _ArrayKernel(Kernel):
    def operand(self, e: TExpr) -> str:
        # x * 1 and x / 1 are x, bit for bit (numba's compiler drops them too):
        # on arrays each is a pass over memory, so they are not written
        if isinstance(e, TBinary) and e.op in ("mul", "div"):
            pairs = [(e.right, e.left)] if e.op == "div" else [(e.left, e.right), (e.right, e.left)]
            for one, other in pairs:
                if self._is_one(one):
                    return self.operand(other)
        return super().operand(e)

    def _is_one(self, e: TExpr) -> bool:
        if isinstance(e, TRef) and e.role == "param":
            return float(self.env.params[e.name].value) == 1.0
        return isinstance(e, TConst) and float(e.value) == 1.0

    def call(self, fn: str, args: list[str]) -> str:
        return FUNCTIONS[fn].array.format(*args)

    def power(self, left: str, right: str) -> str:
        return _POWERS.get(right, "np.power({0}, {1})").format(left, right)


def has_array_twin(env: Environment) -> bool:
    """Does every function this world calls have a numpy twin?"""
    return all(FUNCTIONS[e.fn].array for e in world_nodes(env) if isinstance(e, TCall))


def emit_array_twin(card: CheckedCard, env: Environment, w: CodeWriter) -> None:
    xs = [f"x{i}" for i in range(len(card.inputs))]
    ys = [f"y{j}" for j in range(len(card.outputs))]
    w.writeline(f"def env_{env.name}_array({', '.join(xs + ys)}):")
    w.indent()
    _ArrayKernel(card, env, w).body("[:]")
    w.outdent()
    w.writeline("")
    w.writeline("")
