"""The symbolic search: candidate laws in increasing complexity, fitted.

For one output the search enumerates, cheapest first,

1. monomials `C·Π xᵢ^pᵢ` (times powers of sin, cos or tan of an angle),
   with the exponents fixed by the units up to the dimensionless groups
   (Buckingham π, see dims.py) or, when the law needs a hidden
   dimensional constant, fitted freely; exponents snapped to small
   rationals;
2. a monomial times one function of one argument `u(a·Q)`: Q a
   dimensionless group (or, with a hidden constant, a small monomial; or
   the square of an input of either sign), u one of exp, exp − 1, sin,
   cos, 1 − cos, tanh, log, (1 + ·)^b, 1/(exp(·) ∓ 1), 1/cosh; and the log of a
   ratio of mixtures log((Q + a)/(1 + a·Q)) of a ratio of like quantities;
3. sparse sums `Σ cⱼ·Mⱼ` of two or three terms, monomials or monomials
   times a sine or cosine of an angle, with the right units or with a
   hidden constant (pairs and triples screened from the normal
   equations; coefficients tied by simple ratios: sums.py);
4. only when no monomial (times one function) of at most two constants
   reproduces the readings (within exact_fit), sums
   sharing one exponential `Σ cⱼ·Bⱼ·exp(a·Q)^sⱼ`, the solutions of
   first-order kinetics (relaxation, charging, logistic and Gompertz
   growth: kinetics.py), two exponentials of one input with rates of
   their own (biexp.py), waves in two inputs (oscillation.py),
   relaxation with a quadratic rate toward an equilibrium
   (bernoulli.py), and saturations `C·u((x/b)^e)` with a
   fitted exponent (Hill, stretched exponential: saturation.py), and
   powers of sums `C·M·g(b·Q^a)^p` with two real exponents (powers.py);
   then, onto the best laws that miss a reading, one exponent made real
   (relax.py), and onto those and the shortest, a correction switched on,
   a factor (1 + c·Z) or a term c·O·Z (corrections.py);
5. the same over derived variables: differences, sums and products of two
   inputs of one kind (derived.py);

each also for a transformed output (1/y, and sin y or tan y for an angle).
Screening is linear least squares; the best few per family get a
nonlinear refinement (fitting.refine). Model choice is in select.py.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

from .bernoulli import bernoulli
from .biexp import two_exponentials
from .corrections import corrections
from .derived import derived_laws
from .differences import differences
from .fitting import Law
from .kinetics import kinetics
from .monomials import TRANSFORM_POWER, OutputData, exact_fit, monomial_laws, square_transforms, transforms
from .oscillation import WAVE_READINGS, oscillations, wave_inputs, waves
from .powers import powers
from .relax import PASS_READINGS, composed, relax
from .saturation import saturations
from .sums import sums


@dataclass
class Found:
    """One search in progress: how it was asked, and the laws of the
    families run so far (by family, in order)."""

    data: OutputData
    quick: bool
    nested: bool
    ruled_out: frozenset[str] = frozenset()  # costly families an earlier search on fewer readings excluded
    by_family: dict[str, list[Law]] = field(default_factory=dict)

    @property
    def laws(self) -> list[Law]:
        return [law for laws in self.by_family.values() for law in laws]

    @property
    def simple(self) -> list[Law]:
        """Laws of the simple families of at most two constants, sums aside."""
        return [law for fam in FAMILIES if fam.simple for law in self.by_family.get(fam.name, [])
                if law.k <= 2 and not law.kind.startswith("sum")]

    @property
    def full(self) -> bool:
        """The whole search: neither quick (an adaptive design still running) nor a derived problem's."""
        return not self.quick and not self.nested

    def fits(self) -> bool:
        """A simple law fits every point within the tolerance."""
        return any(law.fit_max <= 1.0 for law in self.simple)

    def reproduces(self) -> bool:
        """A simple law reproduces the readings (within exact_fit)."""
        return any(law.fit_max <= exact_fit(self.data) for law in self.simple)


@dataclass(frozen=True)
class Family:
    """One family of candidate laws: its laws given the search so far, when
    it is tried, and whether its laws are the simple ones that decide
    whether the costlier families are tried at all."""

    name: str
    laws: Callable[[Found], list[Law]]
    tried: Callable[[Found], bool]
    simple: bool = False


def _sums(found: Found) -> list[Law]:
    """Sparse sums under y, 1/y, y², 1/y² and √y; with the units' prefactor and
    without (it may hide a constant the sum needs)."""
    data, laws = found.data, []
    determined = data.dims is not None and data.dims.determined
    for tr in transforms(data.output)[:2] + square_transforms(data.y):
        laws.extend(sums(data, tr))
        if determined and tr.name in TRANSFORM_POWER:  # √y's dictionary is free already
            laws.extend(sums(data, tr, dimensional=False))
    return laws


def _costly(found: Found) -> bool:
    """Kinetics, saturations and oscillations: only if no simple law
    reproduces the readings (with eight readings a wrong monomial times a
    function fits them within the tolerance, and would keep the law out)."""
    return found.full and not found.reproduces()


def _inexact(found: Found) -> bool:
    """Powers of sums: unless a simple law reproduces the readings (with few
    readings a wrong monomial times a function fits them loosely)."""
    return found.full and not found.reproduces()


def _composable(found: Found) -> bool:
    """The composed family (relax.composed): as powers of sums, and only with
    the readings it needs (relax.PASS_READINGS; fewer must not rule it out)."""
    return _inexact(found) and found.data.n >= PASS_READINGS


def _composed(found: Found) -> list[Law]:
    """relax.composed's passes and corrections switched on (corrections.py),
    over the laws of the families before relax's own."""
    laws = [law for name, laws in found.by_family.items() if name != "relaxed" for law in laws]
    return composed(found.data, laws) + corrections(found.data, laws)


#: A costly family whose best law misses a reading by more than this many
#: tolerances is ruled out for the rest of an episode: more readings can
#: only make a family's best in-sample fit worse, never within tolerance.
RULED_OUT_MISFIT = 3.0

#: Marks a costly family whose best law missed a noise-free reading by more
#: than the tolerance (but not RULED_OUT_MISFIT) in the last search: missing
#: again in the next one rules it out (two strikes, as refit drift in player.py).
STRUCK = "?"


def ruled_out(found: Found) -> frozenset[str]:
    """The costly families this search tried whose every law misses some
    reading by more than RULED_OUT_MISFIT tolerances, with those ruled out
    before (a family that gave no law, only once there were PASS_READINGS
    readings: with fewer, too few for its constants, it fits nothing and
    says nothing; kinetics on the four readings of a one-input Adaptive
    design): an Adaptive episode's later searches, on
    these readings and more, skip them (the evidence already decides).
    On noise-free readings a family whose best law misses one by more than
    the tolerance in two searches in a row is ruled out as well: a law of
    the family that held the true one fits every noise-free reading, and
    the first miss may be its fit's, the second is the family's. (Noisy
    readings let a true law miss one by more than a tolerance.)
    None of the costly families is ruled out now while a relaxed law comes
    within the bound: their laws are also the structures relax.py builds
    on. Powers of sums (powers.py) are, whatever relax found: their
    exponents are real already, and relaxed laws are no structure of theirs."""
    def best(name: str) -> float:
        return min((law.fit_max for law in found.by_family.get(name, [])), default=math.inf)
    gates = (_inexact, _composable) if best("relaxed") <= RULED_OUT_MISFIT else (_costly, _inexact, _composable)
    enough = found.data.n >= PASS_READINGS
    tried = {fam.name for fam in FAMILIES if fam.tried in gates and fam.name in found.by_family
             and (found.by_family[fam.name] or enough)}
    failed = {name for name in tried if best(name) > RULED_OUT_MISFIT}
    struck: set[str] = set()
    if not found.data.output.noisy:
        missed = {name for name in tried if best(name) > 1.0} - failed
        failed |= {name for name in missed if name + STRUCK in found.ruled_out}
        struck = {name + STRUCK for name in missed - failed}
    return frozenset(name for name in found.ruled_out if not name.endswith(STRUCK)) | failed | struck


#: The families in the order they run; each sees the laws of those before it.
FAMILIES: tuple[Family, ...] = (
    Family("monomials", lambda f: monomial_laws(f.data, f.quick), lambda f: True, simple=True),
    Family("sums", _sums, lambda f: not f.quick, simple=True),
    Family("kinetics", lambda f: kinetics(f.data), _costly),
    Family("two exponentials", lambda f: two_exponentials(f.data), _costly),
    # one or two differences of one function (a power, a logarithm) of two inputs of one kind (T⁴ − Ta⁴)
    Family("differences", lambda f: differences(f.data), _costly),
    Family("bernoulli", lambda f: bernoulli(f.data), _costly),
    Family("saturations", lambda f: saturations(f.data), _costly),
    Family("oscillations", lambda f: oscillations(f.data), _costly),
    # a level plus products of oscillations in two inputs (standing and travelling waves)
    Family("waves", lambda f: waves(f.data), lambda f: _costly(f) and f.data.n >= WAVE_READINGS),
    # two real exponents at once
    Family("powers", lambda f: powers(f.data), _inexact),
    # one exponent of the best structures made real, unless a simple law reproduces the readings
    Family("relaxed", lambda f: relax(f.data, f.laws), lambda f: f.full and not f.reproduces()),
    # short sums' exponents, an angle's power, frequency or phase, an input's new power or shift
    Family("composed", _composed, _composable),
    # differences and sums of same-kind inputs: their monomials only if a simple law fits
    Family("derived", lambda f: derived_laws(f.data, search, quick=f.fits()), lambda f: f.full),
)


def readings_to_judge(inputs) -> int:
    """Readings before every family that may hold a law of these inputs has
    been searched (relax.PASS_READINGS; waves need WAVE_READINGS): fewer
    readings that no law fits do not yet show that none will."""
    return max(PASS_READINGS, WAVE_READINGS if len(wave_inputs(inputs)) >= 2 else 0)


def search(data: OutputData, quick: bool = False, nested: bool = False) -> list[Law]:
    """Every family tried in turn (FAMILIES), its laws refined.
    `quick`: monomials only (while an adaptive design is still running);
    `nested`: a derived problem's search (derived.py), without kinetics,
    saturations or derived variables of its own."""
    return search_found(data, quick, nested).laws


def search_found(data: OutputData, quick: bool = False, nested: bool = False,
                 skip: frozenset[str] = frozenset()) -> Found:
    """search(), with the record of its families; the families in `skip`
    (ruled out by an earlier search on fewer of the same readings) are not
    tried."""
    found = Found(data, quick, nested, skip)
    for family in FAMILIES:
        if family.name not in skip and family.tried(found):
            found.by_family[family.name] = family.laws(found)
    return found
