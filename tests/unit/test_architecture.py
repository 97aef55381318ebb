"""Rules of the code base that a linter does not hold: they read the source, so a crossed
rule fails `make test` with the file and line.

The layers themselves (and "SQL only in the store") are import-linter contracts in
pyproject.toml, run by `make lint`; ``test_the_import_contracts_are_kept`` runs them here
too.
"""

from __future__ import annotations

import ast
import inspect
import subprocess
import sys
import typing
from pathlib import Path

import pytest

from jobctrl.testing import hooks
from jobctrl.workflows import activity_defs
from jobctrl.workflows.activities import PreparationActivities
from jobctrl.workflows.apply_activities import ApplyActivities
from jobctrl.workflows.availability_activities import AvailabilityActivities
from jobctrl.workflows.contact_activities import ContactActivities
from jobctrl.workflows.discover_activities import DiscoveryActivities
from jobctrl.workflows.recovery_activities import RecoveryActivities

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "jobctrl"
MODULES = sorted(p for p in SRC.rglob("*.py") if "migrations" not in p.parts)
# Modules allowed past ~400 lines, and why: the code map (docs/DEVELOPING.md) says the same.
LONG_MODULES = {
    "llm/offline.py": "the offline scorer's requirement reading and matching rules",
    "fetch/safe.py": "the safe fetch client: address checks, redirects, limits in one place",
    "fetch/extract.py": "JSON-LD and main-text extraction with their fallbacks",
    "domain/truth/quantities.py": "the truth check's one scan of numbers, dates and durations",
    "domain/truth/sentences.py": "the truth check's reading of names, tools and claim words",
    "domain/truth/claims.py": "the truth check's rules for one sentence against its facts",
    "domain/events.py": "the event registry: one small typed class per event",
    "domain/errors.py": "the catalogue of error codes and their exit/HTTP status table",
    "workflows/starts.py": "the one module that starts, describes and cancels executions",
    "store/stage_states.py": "a stage row's whole life: claim, fence, finish, reset, skip",
    "worker/reconcile.py": "runs, orphans and stop requests against what Temporal reports",
}
STAGE_ERRORS = {"StageError", "SourceError", "ProviderError"}


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _where(path: Path, node: ast.AST) -> str:
    return f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 0)}"


def test_error_codes_are_constants_never_string_literals() -> None:
    """A typo in a code must be an import error, not a silent 400."""
    found = []
    for path in MODULES:
        for node in ast.walk(_tree(path)):
            if not isinstance(node, ast.Call):
                continue
            for kw in node.keywords:
                if kw.arg == "code" and isinstance(kw.value, ast.Constant):
                    found.append(f"{_where(path, node)} code={kw.value.value!r}")
            name = getattr(node.func, "id", getattr(node.func, "attr", ""))
            if name in STAGE_ERRORS and node.args and isinstance(node.args[0], ast.Constant):
                found.append(f"{_where(path, node)} {name}({node.args[0].value!r}, ...)")
    assert not found, "use a constant from jobctrl.domain.errors:\n" + "\n".join(found)


def _function_imports(tree: ast.Module) -> list[ast.stmt]:
    found: list[ast.stmt] = []
    for fn in ast.walk(tree):
        if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            found += [n for n in ast.walk(fn) if isinstance(n, ast.Import | ast.ImportFrom)]
    return found


def _is_reason(comment: str) -> bool:
    """A comment that says something: not just a linter or type-checker pragma."""
    text = comment.lstrip("#").strip()
    return bool(text) and not text.startswith(("noqa", "type:", "fmt:", "pragma"))


def _has_reason(lines: list[str], lineno: int) -> bool:
    """A comment on the import's line, or on the line above its group of imports."""
    here = lines[lineno - 1]
    if "#" in here and _is_reason(here[here.index("#") :]):
        return True
    above = lineno - 2
    while above >= 0 and lines[above].strip().startswith(("from ", "import ")):
        above -= 1
    return above >= 0 and lines[above].strip().startswith("#") and _is_reason(lines[above])


def test_no_import_inside_a_function_without_a_reason() -> None:
    """An import inside a function hides a dependency (or a cycle): allowed only with a
    comment that says why, on it or above its group of imports."""
    found = []
    for path in MODULES:
        lines = path.read_text(encoding="utf-8").splitlines()
        for node in _function_imports(_tree(path)):
            if not _has_reason(lines, node.lineno):
                found.append(_where(path, node))
    assert not found, "imports inside functions without a reason:\n" + "\n".join(found)


def test_no_module_imports_a_private_name_of_another() -> None:
    found = []
    for path in MODULES:
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("jobctrl"):
                private = [
                    a.name
                    for a in node.names
                    if a.name.startswith("_") and not a.name.endswith("__")
                ]
                if private:
                    found.append(f"{_where(path, node)} {node.module}: {', '.join(private)}")
    assert not found, "make these public where they belong:\n" + "\n".join(found)


def test_a_test_hook_is_read_only_through_the_testing_hooks() -> None:
    """A fault, timing or guard the tests switch on is named once, in
    ``jobctrl.testing.hooks``; production asks ``hooks.hook`` for it and never reads such a
    variable from the environment itself."""
    found = []
    for path in MODULES:
        if path.is_relative_to(SRC / "testing"):
            continue
        for node in ast.walk(_tree(path)):
            value = node.value if isinstance(node, ast.Constant) else None
            if isinstance(value, str) and (
                value in hooks.HOOKS or value.startswith(("JOBCTRL_FAULT_", "JOBCTRL_TEST_"))
            ):
                found.append(f"{_where(path, node)} {value}")
    assert not found, "read these through jobctrl.testing.hooks:\n" + "\n".join(found)


def test_modules_stay_small_unless_the_code_map_says_why() -> None:
    long = [
        f"{p.relative_to(SRC)} ({n} lines)"
        for p in MODULES
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > 420
        and str(p.relative_to(SRC)) not in LONG_MODULES
    ]
    assert not long, "split these, or say why in the code map:\n" + "\n".join(long)
    code_map = (ROOT / "docs" / "DEVELOPING.md").read_text(encoding="utf-8")
    for module in LONG_MODULES:
        assert f"`{module}`" in code_map, f"the code map does not mention {module}"


def _implementations() -> dict[str, object]:
    found: dict[str, object] = {}
    for cls in (
        PreparationActivities,
        DiscoveryActivities,
        AvailabilityActivities,
        ApplyActivities,
        RecoveryActivities,
        ContactActivities,
    ):
        for _, method in inspect.getmembers(cls, inspect.isfunction):
            definition = getattr(method, "__temporal_activity_definition", None)
            if definition is not None:
                found[definition.name] = method
    return found


@pytest.mark.parametrize(
    "declared",
    [
        *activity_defs.PREPARATION,
        *activity_defs.DISCOVERY,
        *activity_defs.UPKEEP,
        *activity_defs.APPLY,
        *activity_defs.RECOVERY,
        *activity_defs.CONTACTS,
    ],
    ids=lambda f: f.__name__,
)
def test_each_declared_activity_is_implemented_with_the_same_types(declared) -> None:
    """Workflows call activities through ``activity_defs``; the worker registers the
    implementations: a name or type that drifted apart would fail only at run time."""
    name = declared.__temporal_activity_definition.name
    implementation = _implementations().get(name)
    assert implementation is not None, f"no implementation registers activity {name!r}"
    want = typing.get_type_hints(declared)
    got = typing.get_type_hints(implementation)
    assert list(got.values()) == list(want.values()), f"{name}: {got} != {want}"


def test_every_implementation_is_declared() -> None:
    declared = {
        f.__temporal_activity_definition.name
        for f in (
            *activity_defs.PREPARATION,
            *activity_defs.DISCOVERY,
            *activity_defs.UPKEEP,
            *activity_defs.APPLY,
            *activity_defs.RECOVERY,
            *activity_defs.CONTACTS,
        )
    }
    assert set(_implementations()) == declared


def test_the_import_contracts_are_kept() -> None:
    """The layers, "SQL only in the store", light workflow modules, no cycles."""
    lint_imports = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run(
        [str(lint_imports), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
