"""The kernel writer: one world's laws as lines of Python, for the numba
kernel (`emit.emit_simulator`) and, through a subclass, for its array twin
(`emit_array`). A leaf of the code generator: both emitters import it, it
imports neither.
"""

from __future__ import annotations

import math

from .ast import BINARY_OPERATORS, OPERATORS
from .functions import FUNCTIONS
from .model import CheckedCard, Environment, TBinary, TCall, TConst, TExpr, TRef, TUnary, law_uses
from .source import Span

_BINARY = {name: OPERATORS[name].python for name in BINARY_OPERATORS}
#: Powers LLVM rewrites in numba's loop even without fast-math (pow(x, 2) is
#: x*x, pow(x, -1) is 1/x, pow(x, 0.5) a square root), written so in the
#: source, so that the kernel run as Python (scigame.simrt) gives the same bits.
_POWERS = {"2.0": "{0} * {0}", "(-1.0)": "1.0 / {0}", "0.5": "math.sqrt({0})"}


def _literal(value: float) -> str:
    """A float as Python source; the only way a number enters generated code."""
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"cannot emit a non-finite constant {value!r}")
    text = repr(value)
    return f"({text})" if value < 0 else text


class CodeWriter:
    """Writes lines with indentation and records which card place each came from."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.source_map: list[tuple[int, int, int]] = []
        self._indent = 0

    def writeline(self, code: str, span: Span | None = None) -> None:
        line = "    " * self._indent + code
        if span is not None:
            line += f"  # sci:{span.line}:{span.column}"
            self.source_map.append((len(self.lines) + 1, span.line, span.column))
        self.lines.append(line)

    def indent(self) -> None:
        self._indent += 1

    def outdent(self) -> None:
        self._indent -= 1

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


class Kernel:
    """Emits the body of one environment's kernel."""

    def __init__(self, card: CheckedCard, env: Environment, w: CodeWriter):
        self.card, self.env, self.w = card, env, w
        self.inputs = {s.name: f"a{i}" for i, s in enumerate(card.inputs)}
        self.lets: dict[str, str] = {}
        self.counter = 0

    def temp(self) -> str:
        name = f"v{self.counter}"
        self.counter += 1
        return name

    def operand(self, e: TExpr) -> str:
        """An expression as a name or literal, emitting one temporary per
        operation node (so deep expressions never nest in the source)."""
        if isinstance(e, TConst):
            return _literal(e.value)
        if isinstance(e, TRef):
            if e.role == "input":
                return self.inputs[e.name]
            if e.role == "param":
                return _literal(self.env.params[e.name].value)
            return self.lets[e.name]
        if isinstance(e, TUnary):
            inner = self.operand(e.operand)
            code = f"-{inner}"
        elif isinstance(e, TBinary):
            left, right = self.operand(e.left), self.operand(e.right)
            code = self.power(left, right) if e.op == "pow" else f"{left} {_BINARY[e.op]} {right}"
        else:
            assert isinstance(e, TCall)
            args = [self.operand(a) for a in e.args]
            if e.fn in ("min", "max") and len(args) > 2:
                acc = args[0]
                for a in args[1:]:
                    t = self.temp()
                    self.w.writeline(f"{t} = {self.call(e.fn, [acc, a])}", e.span)
                    acc = t
                return acc
            code = self.call(e.fn, args)
        t = self.temp()
        self.w.writeline(f"{t} = {code}", e.span)
        return t

    def call(self, fn: str, args: list[str]) -> str:
        return f"{FUNCTIONS[fn].numba}({', '.join(args)})"

    def power(self, left: str, right: str) -> str:
        return _POWERS.get(right, "{0} ** {1}").format(left, right)

    def body(self, index: str) -> None:
        """Inputs to SI, the lets the laws need, each output back to its unit;
        `index` selects a point (`[i]`) or all of them (`[:]`)."""
        card, w = self.card, self.w
        for i, s in enumerate(card.inputs):
            factor = s.unit.si_factor
            load = f"x{i}" + ("" if index == "[:]" else index)
            w.writeline(f"a{i} = {load}" + ("" if factor == 1.0 else f" * {_literal(factor)}"), s.span)
        needed = law_uses(self.env.laws.values(), dict(self.env.lets))
        for k, (name, expr) in enumerate(self.env.lets):
            if name not in needed:
                continue
            value = self.operand(expr)
            self.lets[name] = f"l{k}"
            w.writeline(f"l{k} = {value}", expr.span)
        for j, out in enumerate(card.outputs):
            law = self.env.laws[out.name]
            value = self.operand(law)
            factor = out.unit.si_factor
            w.writeline(f"y{j}{index} = {value}" + ("" if factor == 1.0 else f" / {_literal(factor)}"),
                        card.law_spans[(self.env.name, out.name)])

    def emit(self, fn_name: str, parallel: bool = False) -> None:
        """The kernel; with `parallel`, its points are shared out over
        threads (numba's prange: the same arithmetic on every point, so the
        same bits as the serial kernel)."""
        card, w = self.card, self.w
        xs = [f"x{i}" for i in range(len(card.inputs))]
        ys = [f"y{j}" for j in range(len(card.outputs))]
        flags = ", parallel=True" if parallel else ""
        w.writeline(f"@njit(cache=True, error_model=\"numpy\", nogil=True{flags})")
        w.writeline(f"def {fn_name}({', '.join(xs + ys)}):")
        w.indent()
        w.writeline(f"for i in {'prange' if parallel else 'range'}({ys[0]}.shape[0]):")
        w.indent()
        self.body("[i]")
        w.outdent()
        w.outdent()
        w.writeline("")
        w.writeline("")
