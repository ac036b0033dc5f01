"""A wheel ships every package of the source tree (pyproject's list is by hand)."""

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_package_is_listed():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    dirs = {"scigame": ROOT / "scigame", **{k: ROOT / v for k, v in config["package-dir"].items()}}
    found = set()
    for name, folder in dirs.items():
        for init in folder.rglob("__init__.py"):
            rel = init.parent.relative_to(folder).parts
            found.add(".".join((name, *rel)))
    assert found - listed == set(), f"packages missing from pyproject.toml: {sorted(found - listed)}"


def test_no_merge_conflict_markers():
    """A merge left unresolved must not land: no tracked text file holds a
    conflict marker at the start of a line."""
    import subprocess
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True).stdout.split()
    if not files:  # not a git checkout (an sdist): nothing to check
        return
    marker = ("<" * 7 + " ", ">" * 7 + " ")
    found = []
    for name in files:
        path = ROOT / name
        if path.suffix not in {".py", ".md", ".sci", ".lark", ".toml", ".json", ".txt", ".cfg"} or not path.is_file():
            continue
        for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if line.startswith(marker):
                found.append(f"{name}:{n}")
    assert not found, f"merge conflict markers: {found}"
