"""Every bundled card's generated simulator against an independent pint
computation of its law, in both environments, at sampled points.

The reference here is built from the card's own text with a deliberately
small reader of our own (regexes, `^` -> `**`) and evaluated with pint
quantities: it shares no code with the checker, the tree builder or the code
generator, so a unit or conversion mistake in any of them shows up as a
disagreement. The value a `rebalance P at ...` gives P is derived by hand
from each card's laws (`HAND_REFERENCE`), not solved numerically.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pint
import pytest

import scigame

CARDS = sorted((Path(__file__).resolve().parent.parent / "cards").rglob("*.sci"))
UREG = pint.UnitRegistry()
Q = UREG.Quantity

_NUM = r"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?"
_UNIT = r"\[([^\]]*)\]"


def _strip_comments(text: str) -> str:
    out = []
    for line in text.splitlines():
        # a `#` outside a string starts a comment (card strings here hold no `#` before code)
        in_str, cut = False, None
        for i, ch in enumerate(line):
            if ch == '"':
                in_str = not in_str
            elif ch == "#" and not in_str:
                cut = i
                break
        out.append(line if cut is None else line[:cut])
    return "\n".join(out)


def read_card(text: str):
    text = _strip_comments(text)
    m = re.search(r'counterfactual\s+"[^"]*"\s*\{(.*?)\n\s*\}', text, re.S)
    cf_block = m.group(1) if m else ""
    main = text.replace(m.group(0), "") if m else text
    card = {"inputs": {}, "outputs": {}, "params": {}, "lets": {}, "laws": {}, "constraints": [],
            "name": re.search(r"^\s*card\s+(\w+)", text, re.M).group(1)}
    for name, unit, kind, body in re.findall(
            rf"^\s*input\s+(\w+)\s*(?:{_UNIT})?\s*(integer\s+in|in)\s+(.*?)(?:\"|$)", main, re.M):
        card["inputs"][name] = {"unit": unit or "dimensionless", "domain": body.strip()}
    for name, unit in re.findall(rf"^\s*output\s+(\w+)\s*(?:{_UNIT})?", main, re.M):
        card["outputs"][name] = unit or "dimensionless"
    for name, value, unit in re.findall(rf"^\s*param\s+(\w+)\s*=\s*({_NUM})\s*(?:{_UNIT})?", main, re.M):
        card["params"][name] = Q(float(value), unit or "dimensionless")
    for name, expr in re.findall(r"^\s*let\s+(\w+)\s*=\s*(.+)$", main, re.M):
        card["lets"][name] = expr.strip()
    card["where"] = {}
    for name, expr in re.findall(r"^\s*law\s+(\w+)\s*=\s*(.+)$", main, re.M):
        card["laws"][name], condition = _law_and_condition(expr)
        if condition:
            card["where"][name] = condition
    # `constraint LHS OP RHS ["MESSAGE"]`, OP one of < <= > >=
    for lhs, op, rhs in re.findall(r'^\s*constraint\s+([^<>"\n]+?)\s*(<=|>=|<|>)\s*([^<>"\n]+?)\s*(?:"[^"\n]*")?\s*$',
                                   main, re.M):
        card["constraints"].append((lhs.strip(), op, rhs.strip()))
    mutations = []
    for stmt in re.findall(r"(set\s+\w+\s*=\s*\S+(?:\s*\[[^\]]*\])?|scale\s+\w+\s+by\s+\S+"
                           r"|rebalance\s+\w+(?:\s+at\s+[^\n]+)?"
                           r"|let\s+\w+\s*=\s*[^\n]+|law\s+\w+\s*=\s*[^\n]+)", cf_block):
        mutations.append(stmt.strip())
    return card, mutations


#: `rebalance P at ...`: P's counterfactual value (with the unit that balances
#: the law), derived by hand from each card's laws so that both worlds agree at
#: the reference point. `p` holds the original params, `at` the reference
#: point, both as pint quantities.
HAND_REFERENCE = {
    # A exp(-Ea/(R T0)) = A' exp(-0.8 Ea/(R T0))  =>  A' = A exp(-0.2 Ea/(R T0))
    "arrhenius": {"A": lambda p, at: p["A"] * np.exp(-0.2 * p["Ea"] / (p["R"] * at["T"]))},
    # G m1 m2 / r0^2 = G' m1 m2 / r0^3  =>  G' = G r0
    "gravitation": {"G": lambda p, at: p["G"] * at["r"]},
    # rho S 10^(-M0) = rho' S 10^(-1.3 M0)  =>  rho' = rho 10^(0.3 M0)
    "gutenberg_richter": {"rho": lambda p, at: p["rho"] * 10 ** (0.3 * at["M"])},
    # pi dp r0^4 / (8 mu L) = pi dp r0^3 / (8 mu' L)  =>  mu' = mu / r0
    "poiseuille": {"mu": lambda p, at: p["mu"] / at["r"]},
    # v^2 sin(2 theta) / g = v^3 sin(2 theta) / g' at v = v0 (and the same for H)  =>  g' = g v0
    "projectile": {"g": lambda p, at: p["g"] * at["v0"]},
    # eps sigma A T0^4 = eps sigma' A T0^5  =>  sigma' = sigma / T0
    "stefan_boltzmann": {"sigma": lambda p, at: p["sigma"] / at["T"]},
    # a (C0 + b)^c = a' (C0 + b)^-0.15  =>  a' = a (C0 + b)^(c + 0.15)
    "clip_imagenet_error": {"a": lambda p, at: p["a"] * (at["C"] + p["b"]) ** (p["c"] + 0.15)},
    "mammut_imagenet_error": {"a": lambda p, at: p["a"] * (at["C"] + p["b"]) ** (p["c"] + 0.15)},
    # A / N0^alpha = A' / N0^0.355  =>  A' = A N0^(0.355 - alpha)
    "nmm_moe_loss": {"A": lambda p, at: p["A"] * at["N"] ** (0.355 - p["alpha"])},
    # B / (r0 N effD)^beta = B' / (r0 N effD)^0.272  =>  B' = B (r0 N effD)^(0.272 - beta)
    "quartet_fp4": {"B": lambda p, at: p["B"] * (at["r"] * p["N"] * p["effD"]) ** (0.272 - p["beta"])},
    # A S1(t0)^-alpha = A' S1(t0)^-0.8 with S1(t0) = eta (t0 - (W - 1)/2)  =>  A' = A S1(t0)^(0.8 - alpha)
    "mpl_loss_curve": {"A": lambda p, at: p["A"] * (p["eta"] * (at["t"] - (p["W"] - 1) / 2)) ** (0.8 - p["alpha"])},
}


def _reference_point(card, mutation: str):
    """The inputs of `rebalance P at X = V [UNIT], ...` as pint quantities (a
    bare value is in the input's declared unit), or None for a plain rebalance."""
    m = re.match(r"rebalance\s+\w+\s+at\s+(.+)", mutation)
    if m is None:
        return None
    point = {}
    for name, value, unit in re.findall(rf"(\w+)\s*=\s*({_NUM})\s*(?:{_UNIT})?", m.group(1)):
        point[name] = Q(float(value), unit or card["inputs"][name]["unit"])
    return point


def _law_and_condition(text: str):
    """`EXPR where LHS OP RHS "REASON"` -> (EXPR, (LHS, OP, RHS)); no `where`: (EXPR, None)."""
    expr, _, condition = text.partition(" where ")
    m = re.match(r'([^<>"]+?)\s*(<=|>=|<|>)\s*([^<>"]+?)\s*"', condition.strip())
    return expr.strip(), (m.group(1).strip(), m.group(2), m.group(3).strip()) if m else None


def apply_counterfactual(card, mutations):
    import copy
    cf = copy.deepcopy(card)
    rebalanced = set()
    for m in mutations:
        if m.startswith("set"):
            name, value, unit = re.match(rf"set\s+(\w+)\s*=\s*({_NUM})\s*(?:{_UNIT})?", m).groups()
            old = cf["params"][name]
            cf["params"][name] = Q(float(value), unit) if unit else Q(float(value), old.units) \
                if float(value) == 0 else Q(float(value), "dimensionless")
        elif m.startswith("scale"):
            name, factor = re.match(rf"scale\s+(\w+)\s+by\s+({_NUM})", m).groups()
            cf["params"][name] = cf["params"][name] * float(factor)
        elif m.startswith("rebalance"):
            name = m.split()[1]
            at = _reference_point(card, m)
            if at is None:
                rebalanced.add(name)
            else:  # the worlds agree at the reference point: P's value (and unit) by hand
                assert name in HAND_REFERENCE.get(card["name"], {}), \
                    f"{card['name']}: no hand-derived value for `{m}` in HAND_REFERENCE"
                cf["params"][name] = HAND_REFERENCE[card["name"]][name](card["params"], at)
        else:
            kind, name, expr = re.match(r"(let|law)\s+(\w+)\s*=\s*(.+)", m).groups()
            if kind == "let":
                cf["lets"][name] = expr.strip()
            else:  # a replacing law brings its own condition, or none
                cf["laws"][name], condition = _law_and_condition(expr)
                cf["where"].pop(name, None)
                if condition:
                    cf["where"][name] = condition
    return cf, rebalanced


_FUNCS = {"sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos,
          "atan": np.arctan, "atan2": np.arctan2, "sinh": np.sinh, "cosh": np.cosh,
          "tanh": np.tanh, "exp": np.exp, "log": np.log, "log10": np.log10, "sqrt": np.sqrt,
          "cbrt": np.cbrt, "abs": abs, "min": min, "max": max, "pi": np.pi,
          "step": lambda x: 1.0 if x > 0 else 0.0, "sign": np.sign}


def _python(expr: str) -> str:
    # literals with units: `9.81 [m/s^2]` -> Q(9.81, "m/s^2")
    expr = re.sub(rf"({_NUM})\s*\[([^\]]*)\]", lambda m: f"Q({m.group(1)}, {m.group(2)!r})", expr)
    return expr.replace("^", "**")


def _namespace(card, rebalanced, point: dict[str, float]) -> dict:
    """Inputs (as pint quantities in their declared units) and params."""
    ns = dict(_FUNCS)
    ns["Q"] = Q
    for name, spec in card["inputs"].items():
        ns[name] = Q(point[name], spec["unit"])
    for name, value in card["params"].items():
        if name in rebalanced:
            base = value.to_base_units()
            ns[name] = Q(base.magnitude, "dimensionless")  # SI magnitude kept, unit re-derived below
        else:
            ns[name] = value
    return ns


_OPS = {"<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal}


def pint_holds(card, point: dict[str, float], comparisons=None) -> bool:
    """Does the point satisfy every constraint of the card? Constraints are
    shared by both environments and read with the original params. With
    `comparisons` (the laws' `where` of one world), those instead, read with
    that world's params."""
    ns = _namespace(card, set(), point)
    for lhs, op, rhs in (card["constraints"] if comparisons is None else comparisons):
        a = eval(_python(lhs), {"__builtins__": {}}, ns)  # trusted: our own card files
        b = eval(_python(rhs), {"__builtins__": {}}, ns)
        a = a if isinstance(a, pint.Quantity) else Q(a, "dimensionless")
        b = b if isinstance(b, pint.Quantity) else Q(b, "dimensionless")
        assert a.dimensionality == b.dimensionality, (lhs, op, rhs)
        if not _OPS[op](a.to_base_units().magnitude, b.to_base_units().magnitude):
            return False
    return True


def pint_value(card, rebalanced, point: dict[str, float], output: str) -> float:
    """The law's value at one point, in the output's declared unit."""
    ns = _namespace(card, rebalanced, point)
    pending = dict(card["lets"])
    while pending:  # lets in dependency order, by trial
        for name, expr in list(pending.items()):
            try:
                ns[name] = eval(_python(expr), {"__builtins__": {}}, ns)  # trusted: our own card files
                del pending[name]
            except NameError:
                continue
    result = eval(_python(card["laws"][output]), {"__builtins__": {}}, ns)
    unit = card["outputs"][output]
    if not isinstance(result, pint.Quantity):
        result = Q(result, "dimensionless")
    if rebalanced:
        # a rebalanced param keeps its SI magnitude and takes whatever unit balances the law,
        # so the law's SI magnitude is the answer in SI
        return result.to_base_units().magnitude / Q(1, unit).to_base_units().magnitude
    return result.to(unit).magnitude


def _sample(spec, rng, n):
    dom = spec["domain"]
    if dom.startswith("{"):
        values = [float(v) for v in dom.strip("{} ").split(",")]
        return rng.choice(values, n)
    log = dom.startswith("log")
    lo, hi = (float(v) for v in re.findall(_NUM, dom)[:2])
    if log:
        return np.exp(rng.uniform(np.log(lo), np.log(hi), n))
    return rng.uniform(lo, hi, n)


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    cache = tmp_path_factory.mktemp("cards")
    return {p.stem: scigame.load_card(p, cache_dir=cache) for p in CARDS}


@pytest.mark.parametrize("path", CARDS, ids=[p.stem for p in CARDS])
@pytest.mark.parametrize("env", ["original", "counterfactual"])
def test_simulator_matches_pint(path, env, compiled):
    text = path.read_text()
    card, mutations = read_card(text)
    rebalanced: set[str] = set()
    if env == "counterfactual":
        assert mutations, "the reader found no mutation"
        card, rebalanced = apply_counterfactual(card, mutations)
    rng = np.random.default_rng(2024)
    n = 24
    pool = 40 * n if card["constraints"] or card["where"] else n
    points = {name: _sample(spec, rng, pool) for name, spec in card["inputs"].items()}
    if "integer in" in text:
        for name in card["inputs"]:
            if re.search(rf"input\s+{name}\b[^\n]*integer\s+in", text):
                points[name] = np.round(points[name])
    if card["constraints"]:
        keep = [i for i in range(pool) if pint_holds(card, {k: float(v[i]) for k, v in points.items()})]
        assert len(keep) >= n, f"only {len(keep)} of {pool} sampled points satisfy the constraints"
        points = {k: v[keep[:n]] for k, v in points.items()}
    if card["where"]:  # only where the world's laws have a value (their `where`)
        size = len(next(iter(points.values())))
        keep = [i for i in range(size)
                if pint_holds(card, {k: float(v[i]) for k, v in points.items()}, list(card["where"].values()))]
        assert len(keep) >= n, f"only {len(keep)} of {size} sampled points have a value by the laws' where"
        points = {k: v[keep[:n]] for k, v in points.items()}
    sim = compiled[path.stem].run_kernel(env, points)
    for output in card["outputs"]:
        for i in range(n):
            point = {k: float(v[i]) for k, v in points.items()}
            want = pint_value(card, rebalanced, point, output)
            got = float(sim[output][i])
            assert got == pytest.approx(want, rel=1e-9, abs=1e-300), (output, point)


def test_reader_sees_every_card():
    """Guard the guard: the regex reader must find the inputs, outputs and
    laws of every card, or the comparison above would be vacuous."""
    for path in CARDS:
        card, mutations = read_card(path.read_text())
        assert card["inputs"] and card["outputs"] and card["laws"], path
        assert set(card["laws"]) == set(card["outputs"]), path
        stated = re.findall(r"^\s*constraint\b", _strip_comments(path.read_text()), re.M)
        assert len(card["constraints"]) == len(stated), path
        assert mutations, path
