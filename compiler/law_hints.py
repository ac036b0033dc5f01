"""Help lines for a law whose right side does not have its output's
dimension (E403): which factor to change.

Two questions are asked of the law, each by typing a variant of it with
the checker's own typer (nothing is reported while trying):
- does the law balance with one name inverted (`a^3 / G * M` where
  `a^3 / (G * M)` was meant: `M` multiplies where it should divide)?
- which param could take a unit that balances every law (the placeholder
  dimensions that solve `rebalance`, typer.py)?
The help then also says by how much the right side is off.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Optional

from . import ast as A
from .checkutil import walk
from .diagnostics import Reporter
from .typer import EnvState, Typer, placeholder, solve_placeholders
from .units import Dim, describe_dim, format_si_unit

if TYPE_CHECKING:
    from .checker import _Checker


def _replace(e: A.Expr, target: A.Name, new: A.Expr) -> A.Expr:
    """The expression with the node `target` (by identity) replaced by `new`."""
    if e is target:
        return new
    if isinstance(e, A.Unary):
        return dataclasses.replace(e, operand=_replace(e.operand, target, new))
    if isinstance(e, A.Binary):
        return dataclasses.replace(e, left=_replace(e.left, target, new), right=_replace(e.right, target, new))
    if isinstance(e, A.Call):
        return dataclasses.replace(e, args=tuple(_replace(a, target, new) for a in e.args))
    return e


def _inverted_name(c: "_Checker", env: EnvState, law: A.Law, want: Dim) -> Optional[str]:
    """A name whose inverse (`1 / M` in its place) balances the law."""
    silent = Reporter(c.source)
    for node in walk(law.expr):
        if not isinstance(node, A.Name) or node.name == "pi" or c.symbols.get(node.name) is None:
            continue
        one = A.Number(node.span, 1.0, "1")
        trial = _replace(law.expr, node, A.Binary(node.span, "div", one, node))
        typed = Typer(c, env, silent).expr(trial)
        if typed.dim is not None and typed.dim == want:
            return node.name
    return None


def _param_unit(c: "_Checker", env: EnvState, law: A.Law) -> Optional[tuple[str, Dim]]:
    """A param of the law, and the unit that would balance every law."""
    used = {n.name for n in walk(law.expr) if isinstance(n, A.Name)}
    for p in c.params:
        if p.name not in used or env.param_dims.get(p.name) is None:
            continue
        silent = Reporter(c.source)
        typed = c.type_environment(env.with_dims({p.name: placeholder(p.name)}), silent, solve=True)
        if silent.has_errors:
            continue
        solved, conflicts = solve_placeholders(typed.equations, [p.name])
        if p.name in solved and p.name not in conflicts:
            return p.name, solved[p.name]
    return None


def law_mismatch_hints(c: "_Checker", env: EnvState, law: A.Law, got: Dim, want: Dim) -> list[str]:
    """The help lines of an E403 (see the module doc)."""
    excess = got / want
    hints = [f"the right side is the output's dimension times {describe_dim(excess)}: multiply or divide "
             "by the factor that removes it"]
    inverted = _inverted_name(c, env, law, want)
    if inverted is not None:
        hints.append(f"the law balances with `{inverted}` inverted: it multiplies where it should divide, "
                     "or the other way round (`a / b * c` is `(a / b) * c`)")
    param = _param_unit(c, env, law)
    if param is not None:
        name, dim = param
        hints.append(f"{'or ' if inverted else ''}give `{name}` the unit [{format_si_unit(dim)}], "
                     "which balances the law")
    return hints
