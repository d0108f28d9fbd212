"""One door: the web layer and the CLI reach the database only through the application, the
application reads only its typed settings and gives each use case its own collaborators, and
storage depends on nothing above it (read from the source, so a new shortcut fails here)."""
from __future__ import annotations

import ast
import re
from dataclasses import fields
from pathlib import Path

from ibiportal.config import Settings

PACKAGE = Path(__file__).resolve().parents[2] / "ibiportal"
TEMPLATES = PACKAGE.parent / "templates"


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


#: Every ``IBIPORTAL_*`` setting by the key ``create_app`` gives it in Flask's configuration.
SETTING_KEYS = {entry.name.upper() for entry in fields(Settings)}
#: How a key is read from a configuration: ``config["KEY"]``, ``config.get("KEY")``, ``config.setdefault("KEY")``.
KEY_READS = ("get", "setdefault")
#: A template's read of Flask's configuration (``config.KEY``, ``config["KEY"]``).
TEMPLATE_CONFIG = re.compile(r"""\bconfig(?:\.|\[\s*['"])(\w+)""")


def _configuration_reads(source: str) -> list[int]:
    """The lines where ``source`` reads an ``IBIPORTAL_*`` setting from a Flask configuration (any
    ``….config``): by its key, or by a key or a whole mapping the source does not spell out (a
    variable key, the configuration handed on or kept). Flask's own keys read by their name, and
    writes, pass."""
    tree = ast.parse(source)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and node.attr == "config"):
            continue
        parent = parents[node]
        if isinstance(parent, ast.Subscript) and parent.value is node:
            key, written = parent.slice, isinstance(parent.ctx, ast.Store)
        elif isinstance(parent, ast.Attribute) and parent.attr in KEY_READS and isinstance(parents[parent], ast.Call):
            arguments = parents[parent].args
            key, written = (arguments[0] if arguments else None), False
        else:
            key, written = None, False
        if written:
            continue
        if not (isinstance(key, ast.Constant) and isinstance(key.value, str)) or key.value in SETTING_KEYS:
            found.append(node.lineno)
    return sorted(found)


def test_the_web_layer_and_the_cli_read_settings_through_the_one_door():
    """Every ``IBIPORTAL_*`` setting a view, hook, template or command needs is an attribute of the
    typed, frozen settings (``web.context.settings()``), never ``app.config["…"]``: a setting
    changed on a running app would otherwise reach some readers and not others. Flask's own keys,
    which Flask and its extensions read themselves, may still be read by their name."""
    reads = [f"{path.relative_to(PACKAGE)}:{line}" for folder in ("web", "cli") for path in _modules(folder)
             for line in _configuration_reads(path.read_text(encoding="utf-8"))]
    templates = [f"{path.relative_to(PACKAGE.parent)}: config.{key}" for path in sorted(TEMPLATES.rglob("*.html"))
                 for key in TEMPLATE_CONFIG.findall(path.read_text(encoding="utf-8")) if key in SETTING_KEYS]
    assert reads + templates == []


def test_the_check_sees_a_setting_read_from_flask():
    """The check above fails on each way a setting can be read back from Flask's configuration."""
    source = ('current_app.config["RESOLVER_BASE"]\napp.config.get("MAX_FILE_BYTES")\nconfig = current_app.config\n'
              'current_app.config[name]\napp.config["TRUSTED_HOSTS"] = []\ncurrent_app.config["MAX_CONTENT_LENGTH"]\n')
    assert _configuration_reads(source) == [1, 2, 3, 4]


def test_no_test_changes_a_setting_of_a_built_app():
    """A test that needs another setting builds its app with it (``@pytest.mark.settings``, or
    ``create_app`` given it): written into a built app's ``….config``, it would reach nothing."""
    tests = PACKAGE.parent / "tests"
    writes = [f"{path.relative_to(tests)}:{node.lineno}" for path in sorted(tests.rglob("*.py"))
              for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
              if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store)
              and isinstance(node.value, ast.Attribute) and node.value.attr == "config"
              and isinstance(node.slice, ast.Constant) and node.slice.value in SETTING_KEYS]
    assert writes == []
