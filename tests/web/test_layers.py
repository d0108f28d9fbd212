"""One door: the web layer and the CLI reach the database only through the application, the
application reads only its typed settings and gives each use case its own collaborators, and
storage depends on nothing above it (read from the source, so a new shortcut fails here)."""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "ibiportal"


def _modules(folder: str) -> list[Path]:
    return sorted((PACKAGE / folder).rglob("*.py"))


def _imported(path: Path) -> set[str]:
    """Every module ``path`` imports, as an absolute dotted name."""
    package = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1])
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            module = ".".join(part for part in (base, node.module or "") if part)
            names.add(module)
            names.update(f"{module}.{alias.name}" for alias in node.names)
    return names


def _importers(folder: str, forbidden: str) -> list[str]:
    return [str(path.relative_to(PACKAGE)) for path in _modules(folder)
            if any(name == forbidden or name.startswith(forbidden + ".") for name in _imported(path))]


def _store_builders(folder: str) -> list[str]:
    """The modules that call a ``…Store(...)`` themselves."""
    found = []
    for path in _modules(folder):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
                if name.endswith("Store"):
                    found.append(f"{path.relative_to(PACKAGE)}: {name}")
    return found


def test_no_view_imports_storage():
    assert _importers("web", "ibiportal.storage") == []


def test_no_view_imports_the_minter():
    """Views mint through ``application().minter()`` / ``idempotent_minting()``; what they read of a
    mint request is the core's (``ibi.mint_request``)."""
    assert _importers("web", "ibiportal.application.minting") == []


def test_no_view_or_command_builds_a_store():
    assert _store_builders("web") + _store_builders("cli") == []


def test_storage_depends_on_no_layer_above_it():
    """Storage keeps values of the core; it imports nothing of the resolver, the Archive side,
    the application or the web (a value both sides share lives in the core)."""
    above = ("ibiportal.resolver", "ibiportal.archive", "ibiportal.application", "ibiportal.web", "flask")
    assert {layer: _importers("storage", layer) for layer in above} == {layer: [] for layer in above}


def test_the_application_layer_knows_no_flask():
    assert _importers("application", "flask") == []


def test_the_application_layer_reads_no_flask_configuration():
    """It is given the typed, frozen settings once (``create_app``): no ``…config`` read, so a
    setting changed on a running app reaches none of it, and no test can lean on that."""
    reads = [f"{path.relative_to(PACKAGE)}:{node.lineno}" for path in _modules("application")
             for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
             if isinstance(node, ast.Attribute) and node.attr == "config"]
    assert reads == []


def test_no_use_case_holds_the_whole_application():
    """Each use case is given the collaborators it uses, wired once by ``Application``: none
    takes the application itself (a service locator)."""
    holders = [path.name for path in _modules("application") if path.name != "__init__.py"
               and "Application" in _imported(path) | {name.rsplit(".", 1)[-1] for name in _imported(path)}]
    assert holders == []


def test_reference_check_threads_need_no_request_context():
    """Its resolutions run on the application's own threads, each a unit of work of its own."""
    assert "copy_current_request_context" not in (PACKAGE / "web" / "references" / "checking.py").read_text()
