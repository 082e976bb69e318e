"""The tree shows the architecture: no import cycles, small modules and functions, pure model, one rule
for notebooks."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "bulkhead_lab"
MAX_LINES = 450
MAX_FUNCTION_LINES = 60
# The model side: everything but the live services, the notebooks' course side, the command line and
# the static book (which reads the notebooks and writes the site).
IMPURE = (
    "bulkhead_lab.live",
    "bulkhead_lab.course",
    "bulkhead_lab.cli",
    "bulkhead_lab.__main__",
    "bulkhead_lab.book",
)
PRESENTATION_LIBRARIES = ("pandas", "matplotlib", "ipywidgets", "IPython", "aiohttp", "numpy")


def _module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _type_checking_only(tree: ast.AST) -> set[int]:
    """The ids of every node under an ``if TYPE_CHECKING:`` (imports for annotations, never run)."""
    return {
        id(sub)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for sub in ast.walk(node)
    }


def _runtime_imports(name: str) -> set[str]:
    """Package modules ``name`` imports, at its top level or inside a function (a deferred import is an
    import all the same), but not under TYPE_CHECKING."""
    path = MODULES[name]
    tree = ast.parse(path.read_text())
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    skipped = _type_checking_only(tree)
    found: set[str] = set()
    for sub in ast.walk(tree):
        if id(sub) in skipped:
            continue
        if isinstance(sub, ast.Import):
            found |= {a.name for a in sub.names}
        elif isinstance(sub, ast.ImportFrom):
            base = sub.module or ""
            if sub.level:
                anchor = package.split(".")[: len(package.split(".")) - (sub.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            submodules = {f"{base}.{a.name}" for a in sub.names} & MODULES.keys()
            found |= submodules
            if len(submodules) < len(sub.names):  # a name defined in the module itself
                found.add(base)
    return {m for m in found if m in MODULES and m != name}


def test_the_package_has_no_import_cycle() -> None:
    graph = {name: _runtime_imports(name) for name in MODULES}
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycle = path[path.index(nxt) :] + [nxt]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt)
        path.pop()
        state[node] = 2

    for name in MODULES:
        if name not in state:
            visit(name)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_module_is_a_grab_bag_over_450_lines(name: str) -> None:
    lines = len(MODULES[name].read_text().splitlines())
    assert lines <= MAX_LINES, f"{name} has {lines} lines"


def _long_functions(name: str) -> list[str]:
    """Every function or method in module ``name`` over the limit, as 'name (lines)', counted def to end."""
    tree = ast.parse(MODULES[name].read_text())
    return [
        f"{node.name} ({node.end_lineno - node.lineno + 1} lines)"
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
    ]


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_function_is_over_60_lines(name: str) -> None:
    assert _long_functions(name) == [], f"{name}: {', '.join(_long_functions(name))}"


PURE = sorted(m for m in MODULES if m != "bulkhead_lab" and not m.startswith(IMPURE))


def test_the_model_side_is_the_tree_outside_live_and_course() -> None:
    for concept in ("pool", "adaptive", "retries", "sizing", "validation"):
        assert any(m.startswith(f"bulkhead_lab.{concept}") for m in PURE), concept


@pytest.mark.parametrize("name", PURE)
def test_the_model_side_is_pure_python(name: str) -> None:
    source = MODULES[name].read_text()
    for library in PRESENTATION_LIBRARIES:
        assert not re.search(rf"^\s*(import|from) {library}\b", source, re.M), f"{name} imports {library}"
    assert "bulkhead_lab.course" not in source and "from .course" not in source


def test_the_live_services_never_reach_into_the_presentation_layer() -> None:
    for name in MODULES:
        if name.startswith("bulkhead_lab.live"):
            imports = _runtime_imports(name)
            assert not any(m.startswith("bulkhead_lab.course") for m in imports), name
            source = MODULES[name].read_text()
            assert not re.search(r"^\s*(import|from) (ipywidgets|matplotlib|IPython)\b", source, re.M), name


NOTEBOOKS = sorted((REPO / "notebooks").glob("[0-9][0-9]_*.ipynb"))


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name)
def test_a_notebook_reaches_what_it_shows_through_its_own_course_package(notebook: Path) -> None:
    topic = notebook.stem.split("_", 1)[1]
    assert (PACKAGE / "course" / topic / "__init__.py").exists(), f"no bulkhead_lab/course/{topic}/"
    cells = json.loads(notebook.read_text())["cells"]
    code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    imported = set(re.findall(r"^from bulkhead_lab\.course\.(\w+) import", code, re.M))
    assert imported == {topic}, f"{notebook.name} imports course packages {imported}"
    assert not re.search(r"^from bulkhead_lab\.course import", code, re.M)


def _imported_transitively(name: str) -> set[str]:
    """Every package module importing ``name`` runs, itself included: what it imports (at its top level or
    in a function), and the packages above each (``import a.b.c`` runs ``a`` and ``a.b`` first)."""
    seen, todo = {name}, [name]
    while todo:
        current = todo.pop()
        parents = {current.rsplit(".", k)[0] for k in range(1, current.count(".") + 1)} & MODULES.keys()
        for nxt in (_runtime_imports(current) | parents) - seen:
            seen.add(nxt)
            todo.append(nxt)
    return seen


LATER_MODELS = ("adaptive", "retries", "queues", "compartments")  # notebooks 05 to 09's models
# notebooks 05 to 07's live runs
LATER_RUNS = (
    "adaptive steady retrying metastable queued learners reading.adaptive reading.retries reading.metastable"
).split()
LATER = (*(f"bulkhead_lab.{m}" for m in LATER_MODELS), *(f"bulkhead_lab.live.orders.{m}" for m in LATER_RUNS))
LESSON_004_RUNS = "service settings socket_pools clients load schedule results reading.burst".split()
LESSON_004 = sorted(
    m
    for m in MODULES
    if m.startswith("bulkhead_lab.course.fail_fast_queue")
    or m.removeprefix("bulkhead_lab.live.orders.") in LESSON_004_RUNS
)


def test_every_module_the_lesson_004_check_names_exists() -> None:
    """A renamed module drops out of the lists below silently: each name must be a module of the package."""
    named = [f"bulkhead_lab.live.orders.{m}" for m in (*LATER_RUNS, *LESSON_004_RUNS)]
    assert [m for m in named if m not in MODULES] == []


@pytest.mark.parametrize("name", LESSON_004)
def test_lesson_004_imports_nothing_of_the_later_notebooks(name: str) -> None:
    """Later notebooks extend lesson 004's service, client and load (a subclass, a schedule), never the
    reverse."""
    assert sorted(m for m in _imported_transitively(name) if m.startswith(LATER)) == []


@pytest.mark.parametrize("name", sorted(m for m in MODULES if m.startswith("bulkhead_lab.pool")))
def test_notebook_02s_pool_imports_nothing_of_the_later_notebooks(name: str) -> None:
    """Lesson 000's round, as notebook 02 writes it: later notebooks extend it from their own packages."""
    assert sorted(m for m in _imported_transitively(name) if m.startswith((*LATER, *IMPURE))) == []


def _private(attr: str) -> bool:
    """``_x`` is private; a dunder or a sunder (``_repr_html_``, IPython's display hooks) is a protocol."""
    return attr.startswith("_") and not attr.endswith("_")


# Underscored names a library documents as its public API: used as such, never another's private name.
DOCUMENTED = {
    "_replace": "namedtuple's own methods start with _ so that no field name clashes with them",
    "_constructor": "pandas' guide to subclassing a DataFrame says to override it (claim_table.WideFrame)",
}
SELF = ("self", "cls")


def _own_names(nodes: list[ast.AST]) -> set[str]:
    """The names a module defines: its defs and classes, the names it assigns, and ``self._y``."""
    own = set(DOCUMENTED)
    for n in nodes:
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            own.add(n.name)
        elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            own.add(n.id)
        elif isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store) and ast.unparse(n.value) in SELF:
            own.add(n.attr)
    return own


def _library_names(nodes: list[ast.AST]) -> set[str]:
    """Local names bound to a library's module or class (``import aiohttp``, ``from pandas import X``)."""
    names = set()
    for n in nodes:
        if isinstance(n, ast.Import):
            names |= {a.asname or a.name.split(".")[0] for a in n.names}
        elif isinstance(n, ast.ImportFrom) and n.module and not n.level:
            if n.module.split(".")[0] not in ("bulkhead_lab", "typing"):
                names |= {a.asname or a.name for a in n.names}
    return names - {"bulkhead_lab"}


def _private_uses(name: str) -> list[str]:
    """Where module ``name`` uses a private name that is not its own: ``from x import _y``; ``obj._y`` (chains
    too: ``a.b.C._y``) or ``getattr(obj, "_y")`` on anything but ``self``/``cls``; or a private method of a
    class built on a library's class (``aiohttp.TCPConnector``), which overrides or shadows the library's.
    Its own private names a module may read on any of its objects."""
    nodes = list(ast.walk(ast.parse(MODULES[name].read_text())))
    own, libraries = _own_names(nodes), _library_names(nodes)
    found = []
    for n in nodes:
        if isinstance(n, ast.ImportFrom):
            found += [f"from {n.module} import {a.name}" for a in n.names if _private(a.name)]
        elif isinstance(n, ast.Attribute) and ast.unparse(n.value) not in SELF:
            if _private(n.attr) and n.attr not in own:
                found.append(f"line {n.lineno}: {ast.unparse(n)}")
        elif isinstance(n, ast.Call) and ast.unparse(n.func) == "getattr" and len(n.args) > 1:
            key = n.args[1]
            if isinstance(key, ast.Constant) and _private(str(key.value)) and key.value not in own:
                found.append(f"line {n.lineno}: {ast.unparse(n)}")
        elif isinstance(n, ast.ClassDef) and any(ast.unparse(b).split(".")[0] in libraries for b in n.bases):
            for m in n.body:
                if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef) and _private(m.name):
                    if m.name not in DOCUMENTED:
                        found.append(f"line {m.lineno}: {n.name}.{m.name} overrides a library's")
    return found


def test_no_module_uses_another_modules_or_a_librarys_private_names() -> None:
    uses = {name: _private_uses(name) for name in MODULES}
    assert {name: found for name, found in uses.items() if found} == {}
