"""How soon the command line answers (issue 26): `jobctrl --version` and `--help` (goal
≤ 0.3 s) and the reads `jobctrl jobs` and `jobctrl show ID` (goal ≤ 0.6 s), each against
`python -c pass` measured in the same run.

    .venv/bin/python bench/cli_startup.py                 # --n 15 --jobs 20
    .venv/bin/python bench/cli_startup.py --tree before=/tmp/before/src --tree after=src

Every command runs N times as a fresh process, interleaved round by round (a warm-up
round first, not counted), and the medians are reported with each command's ratio to and
difference from `python -c pass`, in wall-clock time and in the CPU time (user + system)
of the process (on a shared machine the CPU time is the steadier of the two). The reads
run against a temporary home with a few jobs written through the store; no Temporal
server or network is needed. Every process finds its modules' bytecode cached, as an
installed program does (in a temporary PYTHONPYCACHEPREFIX, filled by the warm-up round:
with PYTHONDONTWRITEBYTECODE set, every run would compile jobctrl's sources again).

By default the installed console script (`.venv/bin/jobctrl`) is measured. `--tree
NAME=SRC` measures the jobctrl package in SRC instead (on PYTHONPATH, launched as the
console script launches it; say, an older commit's `git archive`), each tree with a home
its own code made, all trees interleaved in the same rounds.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

# What the console script does (`.venv/bin/jobctrl`), for a tree given by --tree.
LAUNCH = "import sys; sys.argv[0] = 'jobctrl'; from jobctrl.cli import run; sys.exit(run())"

# A home with N jobs, made by the tree's own code; prints one job's id.
MAKE_HOME = """
import sys
from jobctrl.app.home import init_home
from jobctrl.home import Home
from jobctrl.store import jobs
from jobctrl.store.store import Store

home = Home.resolve()
init_home(home)
store = Store.open(home)
urls = [f"https://jobs.example.com/{i}" for i in range(int(sys.argv[1]))]
print([jobs.create_job(store, url).job_id for url in urls][0])
"""

GOALS = {"--version": 0.3, "--help": 0.3, "jobs": 0.6, "show": 0.6}
QUIET = (
    "JOBCTRL_DATABASE_URL",
    "JOBCTRL_TENANT",
    "JOBCTRL_TEMPORAL_ADDRESS",
    "PYTHONPATH",
    "PYTHONDONTWRITEBYTECODE",
)
# Bytecode of every tree and of the libraries, written once, outside the source trees.
PYCACHE = tempfile.mkdtemp(prefix="jobctrl-bench-cli-pycache-")


@dataclass
class Command:
    label: str
    argv: list[str]
    env: dict[str, str]
    goal: float | None = None
    seconds: list[float] = field(default_factory=list)  # wall clock
    cpu: list[float] = field(default_factory=list)  # user + system time of the process

    def run(self, keep: bool) -> None:
        before = _children_cpu()
        start = time.perf_counter()
        subprocess.run(
            self.argv,
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=True,
        )
        if keep:
            self.seconds.append(time.perf_counter() - start)
            self.cpu.append(_children_cpu() - before)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _base_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in QUIET}
    env["PYTHONPYCACHEPREFIX"] = PYCACHE
    return env


def _commands(name: str, src: str | None, jobs: int) -> list[Command]:
    """The four jobctrl commands of one tree, with a home of its own."""
    env = _base_env()
    env["JOBCTRL_HOME"] = tempfile.mkdtemp(prefix=f"jobctrl-bench-cli-{name}-")
    if src is not None:
        env["PYTHONPATH"] = str(Path(src).resolve())
        jobctrl = [sys.executable, "-c", LAUNCH]
    else:
        jobctrl = [str(Path(sys.executable).with_name("jobctrl"))]
    made = subprocess.run(
        [sys.executable, "-c", MAKE_HOME, str(jobs)], env=env, capture_output=True, text=True
    )
    if made.returncode:
        sys.exit(f"{name}: could not make a home:\n{made.stderr}")
    job_id = made.stdout.split()[-1]
    prefix = f"{name}: " if src is not None else ""
    return [
        Command(f"{prefix}jobctrl {' '.join(args)}", [*jobctrl, *args], env, GOALS[args[0]])
        for args in (["--version"], ["--help"], ["jobs"], ["show", job_id])
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=15, help="runs of each command")
    parser.add_argument("--jobs", type=int, default=20, help="jobs in the home")
    parser.add_argument(
        "--tree",
        action="append",
        default=[],
        metavar="NAME=SRC",
        help="measure the jobctrl package in SRC (repeatable); default: the installed one",
    )
    opts = parser.parse_args()

    baseline = Command("python -c pass", [sys.executable, "-c", "pass"], _base_env())
    commands = [baseline]
    trees = [tuple(t.split("=", 1)) for t in opts.tree] or [("installed", None)]
    for name, src in trees:
        commands += _commands(name, src, opts.jobs)

    for round_ in range(opts.n + 1):  # round 0 warms the page cache and .pyc files
        for command in commands:
            command.run(keep=round_ > 0)

    base = statistics.median(baseline.seconds)
    base_cpu = statistics.median(baseline.cpu)
    width = max(len(c.label) for c in commands)
    load = " / ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"median of {opts.n} runs each, interleaved; {opts.jobs} jobs in each home")
    print(f"load average at the end (1, 5, 15 min): {load} on {os.cpu_count()} cores")
    print(
        f"{'command':<{width}} {'wall':>7} {'× pass':>7} {'+ pass':>7} {'cpu':>7} {'× pass':>7} "
        f"{'+ pass':>7}  goal (wall)"
    )
    for command in commands:
        wall, cpu = statistics.median(command.seconds), statistics.median(command.cpu)
        goal = ""
        if command.goal is not None:
            goal = f"≤ {command.goal:.1f} s {'met' if wall <= command.goal else 'MISSED'}"
        print(
            f"{command.label:<{width}} {_ms(wall)} {wall / base:>7.1f} {_ms(wall - base)} "
            f"{_ms(cpu)} {cpu / base_cpu:>7.1f} {_ms(cpu - base_cpu)}  {goal}"
        )


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:>5.0f}ms"


if __name__ == "__main__":
    main()
