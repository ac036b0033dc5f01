"""Compiling a card into its folder of artifacts.

    OUT/<card>/manifest.json            what was built from what (source sha256)
    OUT/<card>/simulator.py             numba kernels (see emit.py)
    OUT/<card>/card.json                CompiledCardData: everything the runtime needs
    OUT/<card>/evaluation.json          the hidden evaluation set with exact outputs
    OUT/<card>/design.json              the Fixed protocol's design points
    OUT/<card>/predictor.schema.json    JSON Schema of a predictor for this card
    OUT/<card>/public/<env>.<setting>.json   what a player is shown

A card whose source hash and compiler version match the manifest is not
rebuilt, and its files are not touched, so numba's on-disk cache of the
simulator stays valid.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from typing import TYPE_CHECKING

from .atomic import write_atomic
from .artifact import (ENVIRONMENTS, SETTINGS, FORMAT_VERSION, RUNTIME_MODULE, SYSTEM_RUNTIME, file_sha256, verify_folder, CompiledCardData, ConstraintSpec, DesignSpec, DomainSpec,
                       EnvironmentSpec, EvaluationSet, InputSpec, Manifest, MutationSpec,
                       NoiseSpec, OutputSpec, ParamSpec)
from .limits import recursion_allowance
from .source import CardReadError, content_hash, declared_card_name, read_card_text  # noqa: F401 (read here too)

if TYPE_CHECKING:
    from .diagnostics import Diagnostic
    from .model import CheckedCard

# The stages that build a card (numpy, pint via the model, scipy via the
# sampler) are imported when a card is built, not on the unchanged path,
# which is a hash check of the card and its manifest (docs/cli.md).



@functools.lru_cache(maxsize=1)
def _compiler_version() -> str:
    """The package version plus a fingerprint of everything that shapes the
    artifacts (compiler, grammar, simulator runtime): a cached card built by
    other code is rebuilt even when the version number did not move."""
    from importlib.metadata import PackageNotFoundError, version
    try:
        base = version("scigame")
    except PackageNotFoundError:
        base = "0.0.0+source"
    return f"{base}+{_fingerprint(fingerprinted_files())}"


def fingerprinted_files() -> list[Path]:
    """The files whose text shapes a build: the compiler's modules, the
    grammar and the simulator runtime the generated kernels import, found
    where Python imports them from (in the editable layout `compiler/` and
    `scigame/` are sibling folders, in a wheel one holds the other)."""
    from importlib.util import find_spec
    here = Path(__file__).resolve().parent
    runtime = find_spec(RUNTIME_MODULE)
    grammar = find_spec("scigame.grammar")
    sources = sorted(here.glob("*.py"))
    for module in (runtime, find_spec(SYSTEM_RUNTIME)):
        if module is not None and module.origin:
            sources.append(Path(module.origin))
    if grammar is not None and grammar.submodule_search_locations:
        sources += [Path(d) / "sci.lark" for d in grammar.submodule_search_locations]
    return sources


def _fingerprint(sources: list[Path]) -> str:
    digest = hashlib.sha256()
    for f in sources:
        if f.exists():
            digest.update(f.name.encode())
            digest.update(f.read_bytes())
    return digest.hexdigest()[:12]


@dataclass
class BuildResult:
    source_path: str
    status: str  # built | unchanged | failed
    folder: Optional[Path] = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    message: str = ""  # a failure that is not a diagnostic of the card (an unreadable file, a name clash)


def card_data(card: CheckedCard, version: str) -> CompiledCardData:
    """The runtime's view of a checked card (trees in declared units)."""
    from .sampling import fixed_design
    from .trees import expr_tree, law_tree, tree_text
    from .units import dimension_vector, is_angle
    design = fixed_design(card)
    n_design = len(next(iter(design.values()))) if design else 0
    envs = {}
    system = None
    if card.system is not None:
        from .build_system import declared_law_tree
        from .system_emit import system_spec
        system = system_spec(card)
    for env in (card.original, card.counterfactual):
        laws = ({o.name: law_tree(card, env, o.name) for o in card.outputs} if system is None
                else {system.law: declared_law_tree(system, env.name)})
        envs[env.name] = EnvironmentSpec(
            name=env.name,
            params=[ParamSpec(name=p.name, value_si=p.value, unit=p.unit_text)
                    for p in env.params.values()],
            laws=laws, law_text={k: tree_text(v) for k, v in laws.items()},
            where={o: ConstraintSpec(text=c.text, op=c.op, left=expr_tree(card, env, c.left),
                                     right=expr_tree(card, env, c.right), message=c.message)
                   for o, c in env.where.items()})
    return CompiledCardData(
        compiler_version=version, source_sha256=card.content_hash, source_path=card.path,
        name=card.name, title=card.title, collection=card.collection, field=card.field,
        source=card.source, doi=card.doi, published=card.published, preprint=card.preprint,
        background=card.background, conditions=list(card.conditions),
        inputs=[InputSpec(name=s.name, unit=s.unit.text, si_factor=s.unit.si_factor,
                          dimension=dimension_vector(s.unit), angle=is_angle(s.unit),
                          domain=DomainSpec(kind=s.kind, lo=s.lo, hi=s.hi, values=list(s.values)),
                          description=s.description) for s in card.inputs],
        outputs=[OutputSpec(name=o.name, unit=o.unit.text, si_factor=o.unit.si_factor,
                            dimension=dimension_vector(o.unit), angle=is_angle(o.unit),
                            resolution=o.resolution, tol_abs=o.tol_abs, tol_rel=o.tol_rel,
                            description=o.description,
                            noise=(NoiseSpec(rel=o.noise_rel, abs=o.noise_abs)
                                   if o.noise_rel is not None else None)) for o in card.outputs],
        constraints=[ConstraintSpec(text=c.text, op=c.op, left=expr_tree(card, card.original, c.left),
                                    right=expr_tree(card, card.original, c.right), message=c.message)
                     for c in card.constraints],
        environments=envs, counterfactual_label=card.counterfactual_label,
        mutations=[MutationSpec(kind=m.kind, target=m.target, text=m.text) for m in card.mutations],
        design=DesignSpec(method=card.design_method, seed=card.design_seed, size=card.design_size,
                          points=[{k: float(v[i]) for k, v in design.items()} for i in range(n_design)]),
        evaluation_size=card.evaluation_size, evaluation_seed=card.evaluation_seed,
        evaluation_ood=card.evaluation_ood, interpolate=card.interpolate, threshold=card.threshold, max_steps=card.max_steps,
        system=system)


def _si(spec) -> dict:
    """What the compiler knows about a unit, for a player's dimensional analysis."""
    return {"si_factor": spec.si_factor, "dimension": dict(spec.dimension), "angle": spec.angle}


def public_view(data: CompiledCardData, setting: str) -> dict:
    """What a player is shown. The same for both environments: nothing here
    tells which world is being played (no name, title, source or s)."""
    from .trees import tree_text
    view = {
        "setting": setting,
        "background": data.background,
        "conditions": data.conditions,
        "inputs": [s.public() for s in data.inputs],
        "outputs": [{"name": o.name, "unit": o.unit, **_si(o), "resolution": o.resolution,
                     "tolerance": {"abs": o.tol_abs, "rel": o.tol_rel},
                     "noise": o.noise.model_dump() if o.noise else None,
                     "description": o.description} for o in data.outputs],
        "constraints": [{"text": c.text, "message": c.message} for c in data.constraints],
        "adaptive_threshold": data.threshold,
        "max_steps": data.max_steps,
    }
    if data.system is not None:
        from .build_system import law_view_data, public_system
        view["system"] = public_system(data.system)
    if setting == "identification":
        candidates = {}
        for o in (law_view_data(data) if data.system is not None else data).outputs:
            g = data.environments["original"].laws[o.name]
            g2 = data.environments["counterfactual"].laws[o.name]
            tree = {"op": "add", "args": [
                {"op": "mul", "args": [{"op": "sub", "args": [1.0, {"var": "s"}]}, g]},
                {"op": "mul", "args": [{"var": "s"}, g2]}]}
            candidates[o.name] = {
                "text": f"{o.name} = (1 - s)*({tree_text(g)}) + s*({tree_text(g2)})",
                "tree": tree,
                "s_values": "any value in [0, 1]" if data.interpolate else "0 or 1",
            }
        view["candidates"] = candidates
        view["interpolate"] = data.interpolate
    return view


def _files(card: CheckedCard, version: str) -> tuple[dict[str, str], list[tuple[int, int, int]]]:
    from .emit import emit_simulator
    from .predictor_schema import predictor_schema
    from .sampling import evaluation_set, ood_set
    data = card_data(card, version)
    if data.system is not None:
        from .build_system import law_evaluation, law_view_data, system_simulator
        source, source_map = system_simulator(card, data)
    else:
        source, source_map = emit_simulator(card, version)
    ev, ood = evaluation_set(card), ood_set(card)
    evaluation = EvaluationSet(inputs=_columns(ev), outputs=_exact_outputs(card, ev),
                               ood_inputs=_columns(ood) if ood is not None else None,
                               ood_outputs=_exact_outputs(card, ood) if ood is not None else None,
                               law=law_evaluation(card, data.system) if data.system is not None else None)
    files = {
        "simulator.py": source,
        "card.json": data.model_dump_json(indent=2),
        "evaluation.json": evaluation.model_dump_json(),
        "design.json": json.dumps(data.design.model_dump(), indent=2),
        "predictor.schema.json": json.dumps(predictor_schema(law_view_data(data) if data.system else data), indent=2),
    }
    for env in ENVIRONMENTS:
        for setting in SETTINGS:
            files[f"public/{env}.{setting}.json"] = json.dumps(public_view(data, setting), indent=2)
    return files, source_map


def _columns(points: dict) -> dict[str, list[float]]:
    return {k: [float(x) for x in v] for k, v in points.items()}


def _exact_outputs(card: CheckedCard, points: dict) -> dict[str, dict[str, list[float]]]:
    """Each world's exact outputs at `points` (the reference evaluator, or a system's integrator)."""
    import numpy as np
    from .evaluation import evaluate_world
    return {env.name: _columns({k: np.asarray(v) for k, v in evaluate_world(card, env, points).items()})
            for env in (card.original, card.counterfactual)}


_write_atomic = write_atomic  # one helper for every file a command replaces (compiler/atomic.py)


def read_manifest(folder: Path) -> Optional[Manifest]:
    try:
        return Manifest.model_validate_json((folder / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def build_card(card: CheckedCard, out_dir: Path, force: bool = False) -> tuple[str, Path]:
    """Write a checked card's artifacts into out_dir/<name>/ unless they are
    up to date. Returns ("built" | "unchanged" | "rebuilt", folder);
    "rebuilt" means the folder was built from this very source but its
    files no longer match the manifest's hashes."""
    version = _compiler_version()
    folder = Path(out_dir) / card.name
    state = _state(folder, card.content_hash)
    if not force and state == "ok":
        return "unchanged", folder
    with recursion_allowance():  # the size policy every stage shares (limits.py)
        files, source_map = _files(card, version)
    hashes = {}
    for name, text in files.items():
        target = folder / name
        data = text.encode("utf-8")
        hashes[name] = hashlib.sha256(data).hexdigest()
        # leave identical files alone: numba's cache is keyed by the file's stamp
        if file_sha256(target) == hashes[name]:
            continue
        _write_atomic(target, text)
    manifest = Manifest(compiler_version=version, card=card.name, source_path=card.path,
                        source_sha256=card.content_hash, files=sorted(files), hashes=hashes,
                        source_map=source_map)
    _write_atomic(folder / "manifest.json", manifest.model_dump_json(indent=2))
    return ("rebuilt" if state == "tampered" and not force else "built"), folder


def _state(folder: Path, sha256: str) -> str:
    """"ok": built from exactly this source by this compiler, every file as
    the manifest hashed it; "tampered": built from this source but a file
    changed or went missing; "stale": anything else."""
    m = read_manifest(folder)
    if (m is None or m.source_sha256 != sha256 or m.compiler_version != _compiler_version()
            or m.format_version != FORMAT_VERSION):
        return "stale"
    return "tampered" if verify_folder(folder, m) else "ok"


def compile_path(path: str | Path, out_dir: Path, force: bool = False) -> BuildResult:
    """Check and build one card file. A card whose text hash matches the
    manifest, with every artifact matching its hash, is not even re-checked
    (a hash check, not an import of the checker or numba)."""
    p = Path(path)
    try:
        text = read_card_text(p)
    except CardReadError as exc:
        return BuildResult(str(path), "failed", message=str(exc))
    except UnicodeDecodeError:  # check_file turns it into a diagnostic
        from .front import check_file
        return BuildResult(str(path), "failed", None, check_file(p).diagnostics)
    folders = _candidate_folders(out_dir, text)
    if not force and any(_state(f, content_hash(text)) == "ok" for f in folders):
        return BuildResult(str(path), "unchanged", folders[0], [])
    from .front import check_source
    result = check_source(text, str(path))
    if result.card is None:
        # a stale build of an earlier version of this card must not be played
        for folder in folders:
            (folder / "manifest.json").unlink(missing_ok=True)
        return BuildResult(str(path), "failed", None, result.diagnostics)
    status, folder = build_card(result.card, out_dir, force)
    return BuildResult(str(path), status, folder, result.diagnostics)


def compile_paths(paths: list[Path], out_dir: Path, force: bool = False):
    """compile_path for each card file, in order; a card whose declared name
    another file of the same run already uses is not built (both would write
    the same folder) and fails with a message naming both files."""
    owners: dict[str, Path] = {}
    for path in paths:
        try:
            folders = _candidate_folders(out_dir, read_card_text(Path(path)))
        except (CardReadError, UnicodeDecodeError):
            folders = []
        name = folders[0].name if folders else None
        if name is not None and name in owners:
            yield BuildResult(str(path), "failed", message=(
                f"{path}: the card `{name}` has the same name as the card in {owners[name]}; both would be "
                f"built into {folders[0]}: rename one of them"))
            continue
        if name is not None:
            owners[name] = Path(path)
        yield compile_path(path, out_dir, force)


def _candidate_folders(out_dir: Path, text: str) -> list[Path]:
    """Where a card with this text would be built (by its declared name)."""
    name = declared_card_name(text)
    return [Path(out_dir) / name] if name else []
