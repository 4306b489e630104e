"""What README.md and docs/cli.md say about commands, checked against the commands."""

import os
import re
import subprocess
from pathlib import Path

import pytest

from conftest import REPO, run_script

PRESET_NAMES = (
    "smoke",
    "quick",
    "mid",
    "anchors",
    "seed",
    "steps",
    "models",
    "scaling",
    "ycsb",
    "maps",
    "durability",
)
TIME = r"\d+ h \d+ min|\d+ min \d+ s|\d+ s"


def text(name: str) -> str:
    return re.sub(r"\s+", " ", (REPO / name).read_text())


def planner(preset: str, tmp_path: Path) -> tuple[int, str]:
    done = run_script(
        "run_benchmarks.py",
        "--preset",
        preset,
        "--dry-run",
        "--out",
        str(tmp_path / f"{preset}.jsonl"),
    )
    assert done.returncode == 0, done.stderr
    trials = int(re.search(r"^plan: (\d+) trials", done.stdout, re.M).group(1))
    estimate = re.search(rf"estimated time ({TIME})$", done.stdout, re.M).group(1)
    return trials, estimate


def claimed_estimates(body: str) -> list[tuple[str, str]]:
    claims = re.findall(rf"`({'|'.join(PRESET_NAMES)})`[^`]{{0,200}}?estimated time ({TIME})", body)
    claims += re.findall(
        rf"--preset (\w+) (?:--dry-run )?# (?:the plan: \d+ trials, )?estimated time ({TIME})", body
    )
    return claims


def test_the_command_line_page_states_the_main_presets_estimates():
    claims = claimed_estimates(text("docs/cli.md"))
    assert {"smoke", "quick", "mid"} <= {preset for preset, _ in claims}, claims


@pytest.mark.parametrize(
    "doc",
    ["README.md", *sorted(p.relative_to(REPO).as_posix() for p in (REPO / "docs").glob("*.md"))],
)
def test_stated_sweep_estimates_are_the_planners(doc, tmp_path):
    body = text(doc)
    claims = claimed_estimates(body)
    for preset, stated in claims:
        assert stated == planner(preset, tmp_path)[1], f"{doc} says {preset} takes {stated}"
    for preset, count in re.findall(
        rf"`({'|'.join(PRESET_NAMES)})` \((?:[^()`]*?, )?(\d+) trials", body
    ):
        assert int(count) == planner(preset, tmp_path)[0], f"{doc} says {preset} has {count} trials"


DBF0_JAR = Path("com/dbfromzero/dbf0/0.1.0-SNAPSHOT/dbf0-0.1.0-SNAPSHOT.jar")


def library_install_command() -> str:
    section = (REPO / "README.md").read_text().split("## Using dbf0 as a library", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.S).group(1)
    return block.splitlines()[0].split("#")[0].strip()


@pytest.mark.slow
def test_the_library_install_command_finds_a_jdk_21_itself(tmp_path, java):
    """The README's command must work where the java on PATH and JAVA_HOME are older (Debian 12's
    17)."""
    if not java.startswith("/usr/lib/jvm/"):
        pytest.skip(f"the JDK 21+ here ({java}) is not where the scripts look without JAVA_HOME")
    command = library_install_command()
    assert command == "./build.sh install"
    old = tmp_path / "jdk17"
    (old / "bin").mkdir(parents=True)
    (old / "release").write_text('JAVA_VERSION="17.0.12"\n')
    for tool in ("java", "javac"):
        stub = old / "bin" / tool
        stub.write_text("#!/bin/sh\necho 'openjdk version \"17.0.12\"' >&2\nexit 1\n")
        stub.chmod(0o755)
    env = {**os.environ, "JAVA_HOME": str(old), "PATH": f"{old / 'bin'}:{os.environ['PATH']}"}
    env.pop("MAVEN_OPTS", None)
    env.pop("MAVEN_ARGS", None)
    # Install into a repository of the test's own, never the user's ~/.m2: plugins and dependencies
    # are read (never written) from the user's default repository when it is there.
    local = tmp_path / "m2"
    maven = [f"-Dmaven.repo.local={local}"]
    users = Path.home() / ".m2" / "repository"
    if users.is_dir():
        maven.append(f"-Dmaven.repo.local.tail={users}")
    users_jar = users / DBF0_JAR
    before = users_jar.stat().st_mtime_ns if users_jar.exists() else None
    done = subprocess.run(
        command.split() + maven, cwd=REPO, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "using JDK at /usr/lib/jvm/" in done.stderr
    assert (local / DBF0_JAR).is_file()
    after = users_jar.stat().st_mtime_ns if users_jar.exists() else None
    assert after == before, f"{users_jar} was written"


def test_the_docs_stay_within_their_size_budget():
    """Size is a cost, budgeted per page so that a new chapter has room: the README at most
    10 KB, a chapter (docs/N-*.md) 16 KB, a reference page 30 KB."""
    budgets = {REPO / "README.md": 10_000}
    for page in sorted((REPO / "docs").glob("*.md")):
        budgets[page] = 16_000 if page.name[0].isdigit() else 30_000
    over = {
        page.relative_to(REPO).as_posix(): f"{page.stat().st_size:,} bytes > {budget:,}"
        for page, budget in budgets.items()
        if page.stat().st_size > budget
    }
    assert not over, f"pages over their budget (what can a reader do without?): {over}"
