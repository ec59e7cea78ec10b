"""The shape of the code, as STYLE.md asks it: no private name is imported from another file, and
every package says what each of its modules is for — one job per module, named by its concept.
(The import layers and the absence of cycles are checked by import-linter in scripts/check-layers.)

A package's map is its __init__.py docstring (services/lobby/__init__.py is the model): each of
its modules and sub-packages named in double backticks, with its one job in a few words. A bullet
line that starts with a name in double backticks is an entry, and must name a module or
sub-package of that package; a bullet may also group several ("pure rules: ``tables`` (a table's
life), ``glicko2``"). Any other lower-case name in double backticks must name something that
exists: a module of the repository (``engine.game.play``, ``manager``) or a name the package's code
uses — so a module that is gone cannot stay on the map. Every module's docstring starts with a line
that says what it is.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("engine", "services", "clients")
# The packages that carry a map: wordarena's own, and the maintainers' training tools.
MAPPED = (*SOURCES, "training")

_NAMED = re.compile(r"``([^`]+)``")
_ENTRY = re.compile(r"^\s*[*-]\s+``([^`]+)``", re.MULTILINE)
_MODULE_LIKE = re.compile(r"[a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)*")


def _modules(*folders: str) -> list[Path]:
    return sorted(p for folder in folders for p in (ROOT / folder).rglob("*.py")
                  if "migrations" not in p.parts)


def _packages(*folders: str, root: Path = ROOT) -> list[Path]:
    return sorted(init.parent for folder in folders for init in (root / folder).rglob("__init__.py")
                  if "migrations" not in init.parts and "node_modules" not in init.parts)


def _parts(package: Path) -> dict[str, str]:
    """A package's modules and sub-packages: name → what to call it in a message."""
    parts = {p.stem: p.name for p in package.glob("*.py") if p.name != "__init__.py"}
    parts |= {p.name: f"{p.name}/" for p in package.iterdir() if (p / "__init__.py").is_file()}
    return parts


def _docstring(path: Path) -> str:
    return ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""


def _names_in_code(package: Path) -> set[str]:
    """Every identifier and identifier-like string the package's code uses or defines."""
    names: set[str] = set()
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            match node:
                case ast.FunctionDef(name=n) | ast.AsyncFunctionDef(name=n) | ast.ClassDef(name=n):
                    names.add(n)
                case ast.Name(id=n) | ast.Attribute(attr=n) | ast.arg(arg=n) | ast.keyword(arg=str(n)):
                    names.add(n)
                case ast.ImportFrom(module=str(n)) | ast.alias(name=n):
                    names.update(n.split("."))
                case ast.Constant(value=str(n)):
                    names.add(n)
    return names


def _in_repository(dotted: str, root: Path) -> bool:
    """``engine.game.play``, ``wordarena.services.common.db.Database.run``: a module of the repository
    (and attributes of it)."""
    parts = dotted.removeprefix("wordarena.").split(".")
    here, matched = root, 0
    for part in parts:
        if (here / part / "__init__.py").is_file() or (here / f"{part}.py").is_file():
            here, matched = here / part, matched + 1
        else:
            break
    return matched >= min(2, len(parts))


@functools.cache
def _module_names(root: Path) -> set[str]:
    """The name of every module and package of the repository (``manager``, ``wordarena``)."""
    return {p.stem if p.name != "__init__.py" else p.parent.name
            for folder in (*MAPPED, "protos", "bench", "tests") for p in (root / folder).rglob("*.py")
            if "node_modules" not in p.parts} | {"wordarena"}


def _map_problems(package: Path, root: Path = ROOT) -> list[str]:
    where = str(package.relative_to(root))
    doc = _docstring(package / "__init__.py")
    parts = _parts(package)
    named = set(_NAMED.findall(doc))
    problems = [] if doc else [f"{where}/__init__.py: no docstring (the package's map of its modules)"]
    problems += [f"{where}: ``{name}`` ({shown}) is missing from the map in {where}/__init__.py"
                for name, shown in sorted(parts.items()) if name not in named]
    entries = {e.split(".")[0] for e in _ENTRY.findall(doc) if _MODULE_LIKE.fullmatch(e)}
    problems += [f"{where}: the map's entry ``{name}`` names no module or sub-package here"
                 for name in sorted(entries - set(parts))]
    unknown = {n for n in named if _MODULE_LIKE.fullmatch(n) and n.split(".")[0] not in {*parts, *entries}
               and n.split(".")[0] not in _module_names(root) and not _in_repository(n, root)
               and not (root / n).exists()}
    unknown -= _names_in_code(package) if unknown else set()
    problems += [f"{where}: the map names ``{name}``, which is nothing in {where} (a module that is gone?)"
                 for name in sorted(unknown)]
    return problems


def _docstring_problems(path: Path, root: Path = ROOT) -> list[str]:
    doc = _docstring(path)
    first = doc.strip().splitlines()[0].strip() if doc.strip() else ""
    return [] if first else [f"{path.relative_to(root)}: no docstring saying what the module is"]


def _private_imports(path: Path, root: Path = ROOT) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("wordarena"):
            found += [f"{path.relative_to(root)}:{node.lineno}: {node.module}.{a.name}"
                      for a in node.names if a.name.startswith("_") and not a.name.startswith("__")]
    return found


def test_no_private_name_is_imported_from_another_file() -> None:
    found = [hit for path in _modules(*SOURCES, "tests", "bench", "training")
             for hit in _private_imports(path)]
    assert not found, "\n".join(found)


def test_the_private_name_check_sees_an_import_of_one(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("from wordarena.engine.movegen import generator\n"
                      "from wordarena.engine.movegen.generator import _Generation, __all__\n")
    assert _private_imports(sample, tmp_path) == [
        "sample.py:2: wordarena.engine.movegen.generator._Generation"]


def test_every_package_maps_its_modules_and_every_module_says_what_it_is() -> None:
    problems = [p for package in _packages(*MAPPED) for p in _map_problems(package)]
    problems += [p for path in _modules(*MAPPED) if path.name != "__init__.py"
                 for p in _docstring_problems(path)]
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems)


def test_the_map_check_sees_a_missing_module_a_gone_one_and_a_module_without_a_docstring(
        tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text(
        '"""A package.\n\n* ``kept`` the one kept\n* ``gone`` a module deleted since\n'
        '* ``sub`` a sub-package\n* pure rules: ``rules`` (what ``helper`` and ``vanished`` do)\n"""\n')
    (package / "sub" / "__init__.py").write_text('"""A sub-package.\n\n* ``inner`` its module\n"""\n')
    for name in ("kept", "rules", "new"):
        (package / f"{name}.py").write_text(f'"""The {name} module."""\n\ndef helper() -> None: ...\n')
    (package / "sub" / "inner.py").write_text("X = 1\n")
    assert _map_problems(package, tmp_path) == [
        "pkg: ``new`` (new.py) is missing from the map in pkg/__init__.py",
        "pkg: the map's entry ``gone`` names no module or sub-package here",
        "pkg: the map names ``vanished``, which is nothing in pkg (a module that is gone?)",
    ]
    assert _map_problems(package / "sub", tmp_path) == []
    assert _docstring_problems(package / "sub" / "inner.py", tmp_path) == [
        "pkg/sub/inner.py: no docstring saying what the module is"]
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "__init__.py").write_text("")
    assert _map_problems(tmp_path / "empty", tmp_path) == [
        "empty/__init__.py: no docstring (the package's map of its modules)"]
