"""JobPreparationWorkflow runs outside Temporal's sandbox (workflows/prep.py says why): what
the sandbox would catch at run time, this checks in its source. The module imports only
Temporal's workflow API, asyncio, builtins, timedelta and the light jobctrl modules a
workflow may use; its module-level names are constants; nothing in it reads a clock,
draws a random number or touches a file."""

from __future__ import annotations

import ast
import inspect

from jobctrl.workflows import prep

ALLOWED_IMPORTS = {
    "__future__",
    "asyncio",
    "builtins",
    "datetime",
    "temporalio",
    "temporalio.common",
    "temporalio.exceptions",
    "jobctrl.domain.errors",
    "jobctrl.domain.executions",
    "jobctrl.workflows.activity_defs",
    "jobctrl.workflows.models",
}
# Names whose use in workflow code would make a replay differ from the run.
FORBIDDEN_NAMES = {"time", "random", "uuid", "open", "os", "datetime", "sleep", "now"}


def _tree() -> ast.Module:
    return ast.parse(inspect.getsource(prep))


def test_the_unsandboxed_workflow_is_the_one_the_worker_runs():
    defn = prep.JobPreparationWorkflow.__temporal_workflow_definition
    assert defn.name == "JobPreparationWorkflow"
    assert defn.sandboxed is False


def test_it_imports_only_workflow_safe_modules():
    imported = set()
    for node in ast.walk(_tree()):
        if isinstance(node, ast.Import):
            imported |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add(node.module or "")
    assert imported <= ALLOWED_IMPORTS, imported - ALLOWED_IMPORTS
    from_datetime = [
        alias.name
        for node in ast.walk(_tree())
        if isinstance(node, ast.ImportFrom) and node.module == "datetime"
        for alias in node.names
    ]
    assert from_datetime == ["timedelta"]


def test_its_module_level_names_are_constants():
    for node in _tree().body:
        if isinstance(node, ast.Assign | ast.AnnAssign):
            value = node.value
            constant = isinstance(value, ast.Constant) or (
                isinstance(value, ast.Call)
                and isinstance(value.func, ast.Name)
                and value.func.id == "timedelta"
                and all(isinstance(k.value, ast.Constant) for k in value.keywords)
            )
            assert constant, ast.unparse(node)


def test_it_reads_no_clock_randomness_or_file():
    used = {
        node.id if isinstance(node, ast.Name) else node.attr
        for node in ast.walk(_tree())
        if isinstance(node, ast.Name | ast.Attribute)
    }
    assert not used & FORBIDDEN_NAMES, used & FORBIDDEN_NAMES
