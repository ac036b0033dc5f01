"""A compiled card at run time: simulate, observe, score.

    card = scigame.load_card("cards/historical/gravitation.sci")
    card.simulate("counterfactual", {"m1": [10.0], "m2": [20.0], "r": [2.0]})
    card.score({"F": {...}}, "original")

Loading a compiled folder reads JSON and imports the generated simulator;
neither pint nor Lark is imported on this path.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import threading
from functools import cached_property
from pathlib import Path
from typing import Iterable, Mapping, Optional, Sequence

import numpy as np

import json

from .compiler.artifact import ENVIRONMENTS, FORMAT_VERSION, CompiledCardData, EvaluationSet, Manifest, NoiseSpec, verify_folder
from .system_score import SystemCardMixin
from .oracle import Rejection, add_noise, check_defined, check_proposal, quantize
from .predictor import mask_all



class CardError(ValueError):
    """A card that cannot be loaded; the message says why (and lint's findings)."""


def default_cache_dir() -> Path:
    """Where `load_card` keeps cards it compiles: $SCIGAME_CACHE, else
    $XDG_CACHE_HOME/scigame, else ~/.cache/scigame."""
    if os.environ.get("SCIGAME_CACHE"):
        return Path(os.environ["SCIGAME_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "scigame" / "cards"


class CompiledCard(SystemCardMixin):
    """One compiled card: its data, its simulator kernels and its hidden
    evaluation set."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        try:
            raw = json.loads((self.folder / "manifest.json").read_text("utf-8"))
        except (OSError, ValueError):
            raise CardError(f"{self.folder}: not a compiled card (no readable manifest.json); "
                            "compile it with `scigame compile CARD.sci -o DIR`") from None
        if raw.get("format_version") != FORMAT_VERSION:
            raise CardError(f"{self.folder}: compiled by another scigame (format {raw.get('format_version')}, "
                            f"this one reads {FORMAT_VERSION}); compile the card again")
        try:
            self.manifest = Manifest.model_validate(raw)
        except ValueError as exc:
            raise CardError(f"{self.folder}: damaged compiled card ({str(exc).splitlines()[0]}); "
                            "compile the card again") from None
        # nothing is read, imported or trusted before every file matches its hash
        changed = verify_folder(self.folder, self.manifest)
        if changed:
            raise CardError(f"{self.folder}: {', '.join(changed)} changed since the card was compiled "
                            "(it does not match the manifest's hash); compile the card again")
        try:
            self.data = CompiledCardData.model_validate_json((self.folder / "card.json").read_text("utf-8"))
        except (OSError, ValueError) as exc:
            raise CardError(f"{self.folder}: damaged compiled card ({str(exc).splitlines()[0]}); "
                            "compile the card again") from None

    # -- identity -------------------------------------------------------------
    @property
    def name(self) -> str:
        return self.data.name

    @property
    def input_names(self) -> list[str]:
        return [s.name for s in self.data.inputs]

    @property
    def output_names(self) -> list[str]:
        return [o.name for o in self.data.outputs]

    def __repr__(self) -> str:
        return f"<CompiledCard {self.name} from {self.folder}>"

    # -- artifacts ---------------------------------------------------------------
    @cached_property
    def module(self):
        """The generated simulator module (imported once; numba's disk cache
        makes the kernels' first call cheap after the first process)."""
        path = self.folder / "simulator.py"
        modname = f"scigame_card_{self.data.name}_{self.data.source_sha256[:16]}"
        if modname in sys.modules:
            return sys.modules[modname]
        if self.data.system is not None:  # the module lint and the build compiled (compiler/system_run.py)
            from .compiler.system_run import load_source
            module = load_source(path.read_text(encoding="utf-8"))
            if getattr(module, "CARD_SHA256", None) != self.data.source_sha256:
                raise CardError(f"{path}: the simulator does not belong to this card.json")
            return module
        spec = importlib.util.spec_from_file_location(modname, path)
        if spec is None or spec.loader is None:
            raise CardError(f"{path}: cannot load the simulator")
        module = importlib.util.module_from_spec(spec)
        sys.modules[modname] = module  # numba's cache needs the module registered first
        try:
            spec.loader.exec_module(module)
        except BaseException:
            sys.modules.pop(modname, None)
            raise
        if getattr(module, "CARD_SHA256", None) != self.data.source_sha256:
            raise CardError(f"{path}: the simulator does not belong to this card.json")
        return module

    @cached_property
    def evaluation(self) -> EvaluationSet:
        return EvaluationSet.model_validate_json((self.folder / "evaluation.json").read_text("utf-8"))

    def public_view(self, env: str, setting: str) -> dict:
        import json
        _check_env(env)
        return json.loads((self.folder / "public" / f"{env}.{setting}.json").read_text("utf-8"))

    @cached_property
    def predictor_schema(self) -> dict:
        import json
        return json.loads((self.folder / "predictor.schema.json").read_text("utf-8"))

    # -- simulation ----------------------------------------------------------------
    def kernel(self, env: str, parallel: bool = False):
        """The compiled kernel of `env`; `parallel`: its multi-threaded twin
        (same results, bit for bit) where the world has one, else the kernel."""
        _check_env(env)
        twin = getattr(self.module, f"env_{env}_parallel", None) if parallel else None
        return twin or getattr(self.module, f"env_{env}")

    def run_kernel(self, env: str, inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        """The exact simulator on already-validated float arrays (no checks).
        Large inputs of a world that costs libm calls go to its array twin
        (numpy's vectorised functions, on threads; within a few units in the
        last place of the kernel), else to its parallel kernel, one call at a
        time (numba's portable thread pool serves one caller at a time)."""
        xs = [np.ascontiguousarray(inputs[n], dtype=np.float64) for n in self.input_names]
        n = len(xs[0]) if xs else 1
        ys = [np.empty(n, dtype=np.float64) for _ in self.data.outputs]
        try:
            self._fill(env, xs, ys)
        except Exception as exc:  # point the failure back at the card (compiler/sourcemap.py)
            from .compiler.sourcemap import annotate
            raise annotate(exc, self.folder / "simulator.py", self.manifest.source_map,
                           self.manifest.source_path)
        return dict(zip(self.output_names, ys))

    def _fill(self, env: str, xs: list, ys: list) -> None:
        """One world's kernel over the points: the array twin for many points
        (where the world has one), else the prange twin, else the kernel."""
        from .simrt import PARALLEL_MIN_POINTS, run_array
        n = len(ys[0]) if ys else 0
        array_twin = getattr(self.module, f"env_{env}_array", None)
        if n >= PARALLEL_MIN_POINTS and array_twin is not None:
            try:
                run_array(array_twin, xs, ys)
                return
            except (ArithmeticError, ValueError, TypeError):
                pass  # a constant Python refuses (1/0 among literals): the kernel's IEEE answer
        if n >= PARALLEL_MIN_POINTS and hasattr(self.module, f"env_{env}_parallel"):
            with _PARALLEL_LOCK:
                self.kernel(env, parallel=True)(*xs, *ys)
        else:
            self.kernel(env)(*xs, *ys)

    def noise_models(self, override: Optional[float] = None) -> dict[str, Optional[NoiseSpec]]:
        """Each output's measurement noise: the card's own, or with `override`
        (`eval --noise R`) gaussian noise of relative size R on every output
        instead (R = 0: exact)."""
        if override is None:
            return {o.name: o.noise for o in self.data.outputs}
        return {o.name: NoiseSpec(rel=override) if override > 0 else None for o in self.data.outputs}

    def simulate(self, env: str, inputs: Mapping[str, object], exact: bool = False,
                 outputs: Iterable[str] | None = None, seed: Optional[int | Sequence[int]] = None,
                 noise: Optional[float] = None) -> dict[str, np.ndarray]:
        """Observe the environment at the given inputs (declared units;
        scalars or equal-length arrays). Illegal inputs raise
        `scigame.oracle.Rejection` with every reason.

        Unless `exact`, each output's measurement noise (the card's, or
        relative noise `noise` on every output) is added, drawn from
        `numpy.random.default_rng(seed)` (the same seed gives the same values;
        None draws fresh ones), and values are quantised to each output's
        resolution. `exact` gives the law's values themselves."""
        _check_env(env)
        wanted = list(outputs) if outputs is not None else None
        values = check_proposal(self.data, inputs, wanted)
        check_defined(self.data, env, values, wanted)
        result = self.run_kernel(env, values)
        # by rule, a point where the law is not a finite number is a rejected observation
        if self.data.system is not None and any(not mask_all(np.isfinite(v)) for k, v in result.items()
                                                if wanted is None or k in wanted):
            raise Rejection([f"the system cannot be integrated to {self.data.system.time} at these inputs (more "
                             f"than {self.data.system.max_steps} steps, a step shrunk to rounding, or a state that "
                             "is not finite: it is stiff or blows up there); choose other inputs"])
        _refuse_non_finite(result, values, wanted, "")
        if exact:
            return {k: v for k, v in result.items() if wanted is None or k in wanted}
        models = self.noise_models(noise)
        # a generator only where some output draws from it (add_noise leaves exact outputs untouched);
        # seeding one costs more than an exact card's whole observation
        rng = np.random.default_rng(seed) if any(m is not None for m in models.values()) else None
        # every output draws its noise, wanted or not, so a seed gives an output
        # the same value whichever others are asked for
        noisy = {k: add_noise(v, models[k], rng) for k, v in result.items()}
        res = {o.name: o.resolution for o in self.data.outputs}
        observed = {k: quantize(v, res[k]) for k, v in noisy.items() if wanted is None or k in wanted}
        _refuse_non_finite(observed, values, wanted, " once its measurement noise is added")
        return observed

    # -- scoring ---------------------------------------------------------------------
    def score(self, predictor, env: str, strict_timeout: Optional[float] = None):
        """Validate and score a predictor (a dict, or JSON text) on the hidden
        evaluation set of `env`. Returns a `scigame.scoring.Score`."""
        from .scoring import score_predictor
        _check_env(env)
        if self.data.system is not None:  # the law is scored (scigame/system_score.py)
            return self.scored.score(predictor, env, strict_timeout=strict_timeout)
        return score_predictor(self, predictor, env, strict_timeout=strict_timeout)


def _refuse_non_finite(result: dict, inputs: Mapping[str, np.ndarray], wanted, how: str) -> None:
    """Rejection naming each output that is not a finite number and the inputs
    of its first such point (`T is not a finite number (±inf) at L=1e308`)."""
    bad = []
    for k, v in result.items():
        if (wanted is None or k in wanted) and not mask_all(np.isfinite(v)):
            i = int(np.flatnonzero(~np.isfinite(np.atleast_1d(v)))[0])
            at = ", ".join(f"{n}={np.atleast_1d(x)[min(i, np.size(x) - 1)]:g}" for n, x in inputs.items())
            kind = "NaN" if np.isnan(np.atleast_1d(v)[i]) else "±inf"
            bad.append(f"{k} is not a finite number{how} ({kind}) at {at}; choose other inputs")
    if bad:
        raise Rejection(bad)


_PARALLEL_LOCK = threading.Lock()


def warm_kernels(folder: Path, rebuilt: bool = True) -> bool:
    """JIT both kernels of a compiled folder into numba's disk cache. An
    unchanged folder whose cache index is already there is left alone (so
    a warm `compile --warm` imports no numba). Returns whether it compiled."""
    from .compiler.usercache import numba_cache_folder
    cache = numba_cache_folder(Path(folder) / "simulator.py")
    if not rebuilt and all(any(cache.glob(f"simulator.env_{env}-*.nbi")) for env in ENVIRONMENTS):
        return False
    card = CompiledCard(folder)
    if card.data.system is not None:
        from .compiler.system_run import is_compiled
        if not rebuilt and is_compiled((Path(folder) / "simulator.py").read_text(encoding="utf-8")):
            return False
        # a system card's worlds are Python drivers of one compiled `model` and the shared
        # integrator (compiler/system_run.py): loading the module compiles both into the cache
        card.module
        return True
    for env in ENVIRONMENTS:
        card.kernel(env).dispatcher(*([np.ones(1)] * (len(card.data.inputs) + len(card.data.outputs))))
    return True


def _check_env(env: str) -> None:
    if env not in ENVIRONMENTS:
        raise ValueError(f"unknown environment {env!r}: use 'original' or 'counterfactual'")


def load_card(path: str | Path, cache_dir: str | Path | None = None) -> CompiledCard:
    """Load a card: a compiled folder as is, or a `.sci` file compiled into
    the cache first (only when its text changed). Raises CardError with
    lint's findings if the card does not check."""
    p = Path(path)
    if p.is_dir():
        return CompiledCard(p)
    if not p.is_file():
        raise CardError(f"{path}: no such card file or compiled card folder")
    from .compiler.build import CardReadError, compile_path, read_card_text
    from .compiler.diagnostics import render
    from .compiler.source import content_hash

    # one cache folder per card text (docs/cli.md): two cards that share a name
    # do not evict each other, and an edited card gets a folder of its own
    try:
        key = content_hash(read_card_text(p))[:12]
    except (CardReadError, UnicodeDecodeError):
        key = "unreadable"  # compile_path reports why
    result = compile_path(p, (Path(cache_dir) if cache_dir else default_cache_dir()) / key)
    if result.status == "failed" and result.message:
        raise CardError(result.message)
    if result.status == "failed":
        from .compiler.source import SourceText
        try:
            source = SourceText(str(p), p.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            source = None
        errors = [render(d, source) for d in result.diagnostics if d.is_error]
        raise CardError(f"{path}: the card has errors:\n" + "\n".join(errors))
    return CompiledCard(result.folder)
