"""Units and dimensions: the one pint registry of the process.

Everything pint is touched here and only here, at check time. Dimensions are
`Dim` values (base-dimension name -> exact Fraction exponent), so that
`x^(1/3)` cubed is exactly `x` again; SI conversion factors are plain floats
that later stages fold into generated code.
"""

from __future__ import annotations

import functools
import math
import re
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Mapping

from .source import node

if TYPE_CHECKING:
    import pint

#: Base dimensions in the order a physicist writes them in messages.
_DIM_ORDER = ("[mass]", "[length]", "[time]", "[current]", "[temperature]",
              "[substance]", "[luminosity]")
#: SI base units in the order they are written in unit strings (m kg s ...).
_SI_UNIT = {"[length]": "m", "[mass]": "kg", "[time]": "s", "[current]": "A",
            "[temperature]": "K", "[substance]": "mol", "[luminosity]": "cd"}
_SI_ORDER = ("[length]", "[mass]", "[time]", "[current]", "[temperature]",
             "[substance]", "[luminosity]")
#: Derived dimensions worth naming in a message ("[force] = ...").
_NAMED = ("force", "energy", "power", "pressure", "velocity", "acceleration",
          "frequency", "charge", "electric_potential", "resistance",
          "capacitance", "inductance", "magnetic_field", "magnetic_flux",
          "electric_field", "area", "volume", "density", "momentum",
          "concentration", "entropy", "viscosity", "wavenumber", "activity")


def snap(exponent: float | Fraction | int) -> Fraction:
    """An exponent as an exact fraction; floats within 1e-9 of a simple
    fraction (denominator <= 1000) become that fraction. So does a Fraction
    of a large denominator that close to one: sums of the decimals that
    stand for irrational exponents (`n * exp(1)`) leave residues such as
    1e-16, which are rounding, not dimension. An exact fraction further from
    every simple one (`1/1234`) is kept as it is."""
    if isinstance(exponent, int):
        return Fraction(exponent)
    if isinstance(exponent, Fraction) and exponent.denominator <= 1000:
        return exponent
    simple = Fraction(exponent).limit_denominator(1000)
    if abs(float(simple) - float(exponent)) <= 1e-9 * max(1.0, abs(float(exponent))):
        return simple
    if isinstance(exponent, Fraction):
        return exponent
    return Fraction(repr(float(exponent)))


@node
class Dim:
    """A physical dimension: a product of base dimensions with exact exponents."""

    items: tuple[tuple[str, Fraction], ...] = ()

    @classmethod
    def of(cls, mapping: Mapping[str, float | Fraction]) -> "Dim":
        cleaned = {k: snap(v) for k, v in mapping.items()}
        return cls(tuple(sorted((k, v) for k, v in cleaned.items() if v != 0)))

    @property
    def dimensionless(self) -> bool:
        return not self.items

    def as_dict(self) -> dict[str, Fraction]:
        return dict(self.items)

    def __mul__(self, other: "Dim") -> "Dim":
        out = self.as_dict()
        for k, v in other.items:
            out[k] = out.get(k, Fraction(0)) + v
        return Dim.of(out)

    def __truediv__(self, other: "Dim") -> "Dim":
        return self * other ** -1

    def __pow__(self, power: float | Fraction | int) -> "Dim":
        p = snap(power)
        return Dim.of({k: v * p for k, v in self.items})

    def __str__(self) -> str:
        return format_dim(self)


DIMENSIONLESS = Dim()


def _exp_text(value: Fraction) -> str:
    if value.denominator == 1:
        return str(value.numerator)
    if value.denominator <= 1000:
        return f"({value.numerator}/{value.denominator})"
    return f"{float(value):.6g}"  # an irrational exponent such as pi, as a decimal


def _ordered(dim: Dim, order: Iterable[str]) -> list[tuple[str, Fraction]]:
    rank = {name: i for i, name in enumerate(order)}
    return sorted(dim.items, key=lambda kv: (rank.get(kv[0], len(rank)), kv[0]))


def format_dim(dim: Dim) -> str:
    """`[mass]·[length]^-1·[time]^-2`, or `dimensionless`."""
    if dim.dimensionless:
        return "dimensionless"
    parts = []
    for name, power in _ordered(dim, _DIM_ORDER):
        parts.append(name if power == 1 else f"{name}^{_exp_text(power)}")
    return "·".join(parts)


def describe_dim(dim: Dim) -> str:
    """format_dim, prefixed with a common name where there is one:
    `[force] = [mass]·[length]·[time]^-2`."""
    plain = format_dim(dim)
    name = named_dimensions().get(dim)
    return f"[{name}] = {plain}" if name else plain


def format_si_unit(dim: Dim) -> str:
    """The SI base unit of a dimension, as `m^4 kg^-1 s^-2` (pint syntax)."""
    if dim.dimensionless:
        return "1"
    parts = []
    for name, power in _ordered(dim, _SI_ORDER):
        unit = _SI_UNIT.get(name, name.strip("[]"))
        parts.append(unit if power == 1 else f"{unit}^{_exp_text(power)}")
    return " ".join(parts)


@functools.lru_cache(maxsize=1)
def registry() -> "pint.UnitRegistry":
    """The process's one unit registry, built on first use. Pint keeps its
    parsed definition files in its cache folder (keyed by their hash), which
    makes building it about six times cheaper after the first process; where
    that folder cannot be written, the registry is built without it."""
    import pint
    try:
        return pint.UnitRegistry(cache_folder=":auto:")
    except OSError:
        return pint.UnitRegistry()


@functools.lru_cache(maxsize=1)
def named_dimensions() -> dict[Dim, str]:
    """Each dimension of `_NAMED` as pint defines it -> its name (the first
    name of a dimension named twice). Pint's answers are kept in the user's
    cache, keyed as the units are: a dimension error's message (E403, E404,
    ...) in a later process builds no unit registry, which is ~0.2 s and
    numpy of a lint that stops at that error."""
    from .usercache import read_json, write_json
    cache = "named-" + _units_cache_name()
    try:
        found = [(str(name), Dim(tuple((str(k), Fraction(v)) for k, v in items)))
                 for name, items in read_json(cache)["named"]]
    except (KeyError, TypeError, ValueError, ZeroDivisionError):  # none yet, or damaged: ask pint again
        ureg = registry()
        found = []
        for name in _NAMED:
            try:
                found.append((name, Dim.of(dict(ureg.get_dimensionality(f"[{name}]")))))
            except Exception:  # a pint without this dimension: just don't name it
                continue
        write_json(cache, {"named": [[name, [[k, str(v)] for k, v in dim.items]] for name, dim in found]})
    names: dict[Dim, str] = {}
    for name, dim in found:
        names.setdefault(dim, name)
    return names


class UnitError(ValueError):
    """A unit that cannot be used; `kind` is 'unknown', 'empty' or 'offset'."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


@node
class Unit:
    """A resolved unit: its text as written, its dimension, and the factor
    that converts a value in this unit to SI base units."""

    text: str
    dim: Dim
    si_factor: float


DIMENSIONLESS_UNIT = Unit("1", DIMENSIONLESS, 1.0)

#: Base dimensions of the public view's dimension vectors, in this order.
BASE_DIMENSIONS = tuple(name.strip("[]") for name in _DIM_ORDER)
#: pint's names of the units that measure an angle (dimensionless in SI).
_ANGLE_UNITS = frozenset({"radian", "degree", "arcminute", "arcsecond", "turn", "gradian",
                          "milliradian", "microradian"})


def dimension_vector(unit: Unit) -> dict[str, float]:
    """The SI dimension of a unit as exponents of every base dimension
    (`mass`, `length`, `time`, ...), zeros included: what a player's
    dimensional analysis reads from the public view."""
    exps = {k.strip("[]"): v for k, v in unit.dim.items}
    return {name: float(exps.get(name, 0)) for name in BASE_DIMENSIONS}


def is_angle(unit: Unit) -> bool:
    """Whether a dimensionless unit measures an angle (`deg`, `rad`, ...)."""
    if not unit.dim.dimensionless or unit.text == "1":
        return False
    try:
        parsed = registry().parse_units(unit.text)
    except Exception:  # resolve_unit already accepted it; be safe anyway
        return False
    return any(name in _ANGLE_UNITS for name in dict(parsed._units))


@functools.lru_cache(maxsize=4096)
def resolve_unit(text: str) -> Unit:
    """Resolve a unit written in pint syntax (`m^3 kg^-1 s^-2`, `J/(mol*K)`).

    Raises UnitError for an empty, unknown or offset unit. Cached: pint's
    parser is not, and the same units recur across a collection of cards.
    A unit pint resolved in an earlier process (with this pint version) is
    read from the user's cache, so checking a card of known units never
    imports pint; units pint rejects are never cached.
    """
    key = text.strip()
    known = _known_units().get(key)
    if known is not None:
        dim, factor = known
        return Unit(key, Dim(tuple((k, Fraction(v)) for k, v in dim)), factor)
    unit = _resolve_with_pint(text)
    if unit is not DIMENSIONLESS_UNIT:
        _remember(unit)
    return unit


@functools.lru_cache(maxsize=1)
def _units_cache_name() -> str:
    """One cache file per pint version and per version of this module (which
    decides what a unit means and which units are refused)."""
    import hashlib
    pint_version = _installed_version("pint")
    here = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:12]
    return f"units-pint-{pint_version}-{here}.json"


def _installed_version(package: str) -> str:
    """The installed version of `package`, read from the name of its
    `*.dist-info` folder beside it (importlib.metadata costs a lint ~20 ms
    of imports); importlib.metadata where the folder is not found."""
    import glob
    import importlib.util
    spec = importlib.util.find_spec(package)
    if spec is not None and spec.origin:
        site = Path(spec.origin).parent.parent
        found = sorted(glob.glob(glob.escape(str(site / package)) + "-*.dist-info"))
        if len(found) == 1:
            return Path(found[0]).name[len(package) + 1:-len(".dist-info")]
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version(package)
    except PackageNotFoundError:
        return "unknown"


@functools.lru_cache(maxsize=1)
def _known_units() -> dict[str, tuple]:
    """Units resolved by earlier processes: text -> (dimension items, SI factor)."""
    from .usercache import read_json
    known = {}
    for text, entry in read_json(_units_cache_name()).items():
        try:
            dim, factor = entry
            known[text] = (tuple((str(k), str(v)) for k, v in dim), float(factor))
        except (TypeError, ValueError):
            continue  # a damaged entry: pint resolves that unit again
    return known


def _remember(unit: Unit) -> None:
    from .usercache import read_json, write_json
    entry = ([[k, str(v)] for k, v in unit.dim.items], unit.si_factor)
    name = _units_cache_name()
    data = read_json(name)  # merge: other processes may have added units meanwhile
    data[unit.text] = entry
    write_json(name, data)
    _known_units()[unit.text] = (tuple((k, v) for k, v in entry[0]), entry[1])


def _resolve_with_pint(text: str) -> Unit:
    text = text.strip()
    if not text:
        raise UnitError("empty", "empty unit")
    if text == "1":
        return DIMENSIONLESS_UNIT
    _check_bounds(text)
    ureg = registry()
    try:
        parsed = ureg.parse_units(text)
        quantity = ureg.Quantity(1.0, parsed)
    except Exception as exc:  # pint raises several kinds; all mean "not a unit"
        raise UnitError("unknown", _pint_reason(exc)) from None
    if not quantity._is_multiplicative:
        raise UnitError("offset", f"`{text}` is an offset unit")
    try:
        base = quantity.to_base_units()
        factor = float(base.magnitude)
        dim = Dim.of(dict(quantity.dimensionality))
    except Exception as exc:
        raise UnitError("unknown", _pint_reason(exc)) from None
    if not math.isfinite(factor) or factor == 0.0:
        raise UnitError("unknown", f"`{text}` has no finite SI factor")
    return Unit(text, dim, factor)


#: Bounds on a unit's text, checked before pint sees it: pint evaluates
#: `m^9^9^9` as a power tower of exact integers (minutes, gigabytes).
MAX_UNIT_LENGTH = 200
MAX_UNIT_EXPONENT = 100
MAX_UNIT_NESTING = 4
_POWER = re.compile(r"(\^|\*\*)\s*([-+]?)\s*(\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|\.\d+"
                    r"|\(\s*[-+]?\s*\d+\s*/\s*\d+\s*\)|\(|[^\d\s(]|$)")


def _check_bounds(text: str) -> None:
    """Reject a unit whose text would make pint do unbounded work: too long,
    too deeply parenthesised, an exponent that is not a plain number of at
    most MAX_UNIT_EXPONENT, or an exponent raised to a power again."""
    if len(text) > MAX_UNIT_LENGTH:
        raise UnitError("unknown", f"the unit is {len(text)} characters long (at most {MAX_UNIT_LENGTH})")
    depth = 0
    for ch in text:
        depth += (ch == "(") - (ch == ")")
        if depth > MAX_UNIT_NESTING:
            raise UnitError("unknown", f"parentheses nest more than {MAX_UNIT_NESTING} deep")
    for m in _POWER.finditer(text):
        number = m.group(3)
        if number.startswith("(") and "/" in number:  # a fraction, m^(1/3)
            num, den = number.strip("()").replace(" ", "").split("/")
            number = str(abs(int(num)) / int(den)) if int(den) else "inf"
        elif not number or not (number[0].isdigit() or number[0] == "."):
            raise UnitError("unknown", f"`{m.group(1)}` must be followed by a plain number or a fraction, "
                                       "e.g. `m^2`, `s^-1` or `m^(1/3)`")
        if abs(float(number)) > MAX_UNIT_EXPONENT:
            raise UnitError("unknown", f"the exponent {number} is larger than {MAX_UNIT_EXPONENT}")
        if re.match(r"\s*(\^|\*\*)", text[m.end():]):
            raise UnitError("unknown", "an exponent is raised to a power again (`a^b^c`); "
                                       "write the single exponent, e.g. `m^4`")


def _pint_reason(exc: Exception) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text[:200]


def known_unit_names() -> list[str]:
    """Unit names and symbols the registry knows (for did-you-mean hints)."""
    ureg = registry()
    return sorted(set(ureg._units.keys()))


# ---- units a card defines (`unit NAME = VALUE [UNIT] "DESC"`) ---------------------

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def defined_unit(name: str, value: float, unit: Unit) -> Unit:
    """The unit `name` a card defines as `value` times `unit`."""
    return Unit(name, unit.dim, value * unit.si_factor)


def is_known_unit(name: str) -> bool:
    """Whether pint (or the cache of units it resolved) already knows `name`."""
    try:
        resolve_unit(name)
    except UnitError:
        return False
    return True


def resolve_card_unit(text: str, defined: Mapping[str, Unit]) -> Unit:
    """Resolve a unit that may use units the card defines (`defined`, name ->
    Unit): pint reads the text with each defined name standing for its SI
    quantity, so `solar_mass/pc^3` converts and checks like a built-in unit.
    Without any defined name in it, this is `resolve_unit`."""
    used = {w for w in _WORD.findall(text) if w in defined}
    if not used:
        return resolve_unit(text)
    text = text.strip()
    _check_bounds(text)
    ureg = registry()
    try:
        # the text must still be a product of units once every defined name is one: no numbers
        ureg.parse_units(_WORD.sub(lambda m: "meter" if m.group(0) in used else m.group(0), text))
        values = {n: ureg.Quantity(defined[n].si_factor, format_si_unit(defined[n].dim) if not
                                   defined[n].dim.dimensionless else "") for n in used}
        quantity = ureg.parse_expression(text, **values)
        if not hasattr(quantity, "to_base_units"):
            quantity = ureg.Quantity(float(quantity))
        if not quantity._is_multiplicative:
            raise UnitError("offset", f"`{text}` is an offset unit")
        base = quantity.to_base_units()
        factor = float(base.magnitude)
        dim = Dim.of(dict(quantity.dimensionality))
    except UnitError:
        raise
    except Exception as exc:  # pint raises several kinds; all mean "not a unit"
        raise UnitError("unknown", _pint_reason(exc)) from None
    if not math.isfinite(factor) or factor <= 0.0:
        raise UnitError("unknown", f"`{text}` has no finite positive SI factor")
    return Unit(text, dim, factor)
