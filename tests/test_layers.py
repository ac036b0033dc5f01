"""The package's import graph points one way: no module imports, directly
or through others, a module that imports it back. Every import counts,
those inside functions too (a lazy import is still a dependency); only
imports under `if TYPE_CHECKING:` (annotations) and under
`if __name__ == "__main__":` (a script's own entry) are aside."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
#: The package's folders, as pyproject.toml maps them.
PACKAGES = {"scigame": REPO / "scigame", "scigame.compiler": REPO / "compiler"}

#: Knots not untied yet, each with the reason; a new cycle anywhere else fails.
KNOWN_KNOTS: list[set[str]] = []


def _modules() -> dict[str, tuple[Path, bool]]:
    found = {}
    for package, folder in PACKAGES.items():
        for path in folder.rglob("*.py"):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            is_package = parts[-1] == "__init__"
            if is_package:
                parts = parts[:-1]
            found[".".join([package, *parts])] = (path, is_package)
    return found


def _aside(tree: ast.AST) -> set[int]:
    """The nodes under `if TYPE_CHECKING:` and `if __name__ == "__main__":`."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.If):
            continue
        t = node.test
        typing_only = (isinstance(t, ast.Name) and t.id == "TYPE_CHECKING") or (
            isinstance(t, ast.Attribute) and t.attr == "TYPE_CHECKING")
        script = isinstance(t, ast.Compare) and isinstance(t.left, ast.Name) and t.left.id == "__name__"
        if typing_only or script:
            out.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    return out


def _imports(name: str, path: Path, is_package: bool, modules) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    aside = _aside(tree)
    package = name if is_package else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in aside:
            continue
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name in modules)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            submodules = {f"{source}.{a.name}" for a in node.names} & modules.keys()
            found |= submodules
            if len(submodules) < len(node.names) and source in modules:  # names defined in `source`
                found.add(source)
    found.discard(name)
    return found


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(name, path, is_package, modules) for name, (path, is_package) in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(component)
    return found


def test_the_walker_sees_imports_inside_functions_and_finds_a_cycle():
    # the walker itself: a lazy import closes a cycle; a type-only one does not
    graph = import_graph()
    assert "scigame.compiler.build" in graph["scigame.compiler.front"] or \
        "scigame.compiler.front" in graph["scigame.compiler.build"]  # build checks cards through front
    assert "scigame.card" in graph["scigame.executors"]  # imported inside a function there
    assert "scigame.runner" not in graph["scigame.executors"]  # only under TYPE_CHECKING
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle_in_the_package():
    found = cycles(import_graph())
    unknown = [sorted(c) for c in found if c not in KNOWN_KNOTS]
    assert unknown == [], "import cycles: " + "; ".join(" <-> ".join(c) for c in unknown)


def test_the_runtime_layers_point_one_way():
    graph = import_graph()
    order = ["scigame.runner", "scigame.executors", "scigame.protocols", "scigame.card", "scigame.simrt"]
    for i, lower in enumerate(order):
        for upper in order[:i]:
            assert upper not in graph[lower], f"{lower} imports {upper}"
    assert graph["scigame.episode_context"] == set()  # the leaf the layers share
    assert "scigame.store" not in graph["scigame.llm.client"]  # calls are reported through the ledger
    assert not any(m.startswith("scigame.") and not m.startswith("scigame.compiler")
                   for name, deps in graph.items() if name.startswith("scigame.compiler") for m in deps)
