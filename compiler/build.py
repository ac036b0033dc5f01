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
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import numpy as np

from .artifact import (FORMAT_VERSION, CompiledCardData, ConstraintSpec, DesignSpec, DomainSpec,
                       EnvironmentSpec, EvaluationSet, InputSpec, Manifest, MutationSpec,
                       OutputSpec, ParamSpec)
from .diagnostics import Diagnostic
from .emit import emit_simulator
from .model import CheckedCard
from .source import content_hash
from .predictor_schema import predictor_schema
from .sampling import evaluation_set, fixed_design
from .trees import expr_tree, law_tree, tree_text
from .units import dimension_vector, is_angle

SETTINGS = ("identification", "discovery")
ENVIRONMENTS = ("original", "counterfactual")


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
    here = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    sources = sorted(here.glob("*.py")) + [here.parent / "simrt.py"]
    try:
        from importlib import resources
        grammar = resources.files("scigame.grammar")
        sources += [Path(str(grammar.joinpath("sci.lark")))]
    except (ImportError, FileNotFoundError):
        pass
    for f in sources:
        if f.exists():
            digest.update(f.name.encode())
            digest.update(f.read_bytes())
    return f"{base}+{digest.hexdigest()[:12]}"


@dataclass
class BuildResult:
    source_path: str
    status: str  # built | unchanged | failed
    folder: Optional[Path] = None
    diagnostics: list[Diagnostic] = field(default_factory=list)


def card_data(card: CheckedCard, version: str) -> CompiledCardData:
    """The runtime's view of a checked card (trees in declared units)."""
    design = fixed_design(card)
    n_design = len(next(iter(design.values()))) if design else 0
    envs = {}
    for env in (card.original, card.counterfactual):
        laws = {o.name: law_tree(card, env, o.name) for o in card.outputs}
        envs[env.name] = EnvironmentSpec(
            name=env.name,
            params=[ParamSpec(name=p.name, value_si=p.value, unit=p.unit_text)
                    for p in env.params.values()],
            laws=laws, law_text={k: tree_text(v) for k, v in laws.items()})
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
                            description=o.description) for o in card.outputs],
        constraints=[ConstraintSpec(text=c.text, op=c.op, left=expr_tree(card, card.original, c.left),
                                    right=expr_tree(card, card.original, c.right), message=c.message)
                     for c in card.constraints],
        environments=envs, counterfactual_label=card.counterfactual_label,
        mutations=[MutationSpec(kind=m.kind, target=m.target, text=m.text) for m in card.mutations],
        design=DesignSpec(method=card.design_method, seed=card.design_seed, size=card.design_size,
                          points=[{k: float(v[i]) for k, v in design.items()} for i in range(n_design)]),
        evaluation_size=card.evaluation_size, evaluation_seed=card.evaluation_seed,
        interpolate=card.interpolate, threshold=card.threshold, max_steps=card.max_steps)


def _si(spec) -> dict:
    """What the compiler knows about a unit, for a player's dimensional analysis."""
    return {"si_factor": spec.si_factor, "dimension": dict(spec.dimension), "angle": spec.angle}


def public_view(data: CompiledCardData, setting: str) -> dict:
    """What a player is shown. The same for both environments: nothing here
    tells which world is being played (no name, title, source or s)."""
    view = {
        "setting": setting,
        "background": data.background,
        "conditions": data.conditions,
        "inputs": [{"name": s.name, "unit": s.unit, **_si(s), "domain": s.domain.model_dump(),
                    "domain_text": s.domain.text(), "description": s.description} for s in data.inputs],
        "outputs": [{"name": o.name, "unit": o.unit, **_si(o), "resolution": o.resolution,
                     "tolerance": {"abs": o.tol_abs, "rel": o.tol_rel},
                     "description": o.description} for o in data.outputs],
        "constraints": [{"text": c.text, "message": c.message} for c in data.constraints],
        "adaptive_threshold": data.threshold,
        "max_steps": data.max_steps,
    }
    if setting == "identification":
        candidates = {}
        for o in data.outputs:
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
    data = card_data(card, version)
    source, source_map = emit_simulator(card, version)
    ev = evaluation_set(card)
    outputs = {}
    for env in (card.original, card.counterfactual):
        values = env.evaluate(card, ev)
        outputs[env.name] = {k: [float(x) for x in np.asarray(v)] for k, v in values.items()}
    evaluation = EvaluationSet(inputs={k: [float(x) for x in v] for k, v in ev.items()}, outputs=outputs)
    files = {
        "simulator.py": source,
        "card.json": data.model_dump_json(indent=2),
        "evaluation.json": evaluation.model_dump_json(),
        "design.json": json.dumps(data.design.model_dump(), indent=2),
        "predictor.schema.json": json.dumps(predictor_schema(data), indent=2),
    }
    for env in ENVIRONMENTS:
        for setting in SETTINGS:
            files[f"public/{env}.{setting}.json"] = json.dumps(public_view(data, setting), indent=2)
    return files, source_map


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o666 & ~_UMASK)  # mkstemp makes 0600; build output is shared like any file
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _umask()


def read_manifest(folder: Path) -> Optional[Manifest]:
    try:
        return Manifest.model_validate_json((folder / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def build_card(card: CheckedCard, out_dir: Path, force: bool = False) -> tuple[str, Path]:
    """Write a checked card's artifacts into out_dir/<name>/ unless they are
    up to date. Returns ("built" | "unchanged", folder)."""
    version = _compiler_version()
    folder = Path(out_dir) / card.name
    if not force and _up_to_date(folder, card.content_hash):
        return "unchanged", folder
    files, source_map = _files(card, version)
    for name, text in files.items():
        target = folder / name
        # leave identical files alone: numba's cache is keyed by the file's stamp
        if target.exists() and target.read_text(encoding="utf-8") == text:
            continue
        _write_atomic(target, text)
    manifest = Manifest(compiler_version=version, card=card.name, source_path=card.path,
                        source_sha256=card.content_hash, files=sorted(files), source_map=source_map)
    _write_atomic(folder / "manifest.json", manifest.model_dump_json(indent=2))
    return "built", folder




def _up_to_date(folder: Path, sha256: str) -> bool:
    """Was this folder built from exactly this source by this compiler, and
    is every file it lists still there?"""
    m = read_manifest(folder)
    return (m is not None and m.source_sha256 == sha256 and m.compiler_version == _compiler_version()
            and m.format_version == FORMAT_VERSION and all((folder / f).exists() for f in m.files))


def compile_path(path: str | Path, out_dir: Path, force: bool = False) -> BuildResult:
    """Check and build one card file. A card whose text hash matches the
    manifest is not even re-checked."""
    from .front import check_file, check_source

    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError:  # check_file turns it into a diagnostic
        return BuildResult(str(path), "failed", None, check_file(p).diagnostics)
    folders = _candidate_folders(out_dir, text)
    if not force and any(_up_to_date(f, content_hash(text)) for f in folders):
        return BuildResult(str(path), "unchanged", folders[0], [])
    result = check_source(text, str(path))
    if result.card is None:
        # a stale build of an earlier version of this card must not be played
        for folder in folders:
            (folder / "manifest.json").unlink(missing_ok=True)
        return BuildResult(str(path), "failed", None, result.diagnostics)
    status, folder = build_card(result.card, out_dir, force)
    return BuildResult(str(path), status, folder, result.diagnostics)


def _candidate_folders(out_dir: Path, text: str) -> list[Path]:
    """Where a card with this text would be built (by its declared name)."""
    m = re.search(r"^\s*card\s+([A-Za-z_][A-Za-z0-9_]*)", text, re.M)
    return [Path(out_dir) / m.group(1)] if m else []
