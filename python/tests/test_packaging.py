"""pyproject.toml against requirements.txt and the package: the same pins in both, and every
console command pointing at a function that exists."""

from __future__ import annotations

import importlib
import re
import subprocess
import tomllib

from conftest import REPO


def pins(lines):
    found = {}
    for line in lines:
        line = line.split("#", 1)[0].strip()
        if line:
            m = re.fullmatch(r"([A-Za-z0-9_.\-]+)==(\S+)", line)
            assert m, f"not pinned with ==: {line!r}"
            found[m.group(1).lower().replace("_", "-")] = m.group(2)
    return found


def test_every_dependency_in_pyproject_is_pinned_as_in_requirements_txt():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())
    lock = pins((REPO / "requirements.txt").read_text().splitlines())
    declared = pins(project["project"]["dependencies"])
    declared_test = pins(project["project"]["optional-dependencies"]["test"])
    build = pins(project["build-system"]["requires"])
    assert declared and declared_test and build
    assert not set(declared) & set(declared_test), "a package both runtime and test-only"
    for name, version in {**declared, **declared_test, **build}.items():
        assert lock.get(name) == version, (
            f"{name}: pyproject.toml pins {version}, requirements.txt {lock.get(name)}"
        )


def test_console_commands_point_at_main_functions():
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
    assert set(scripts) == {"dbf0-sweep", "dbf0-analyze", "dbf0-notebook", "dbf0-compare-redis"}
    for target in scripts.values():
        module, _, function = target.partition(":")
        assert callable(getattr(importlib.import_module(module), function)), target


def test_default_output_directories_are_ignored_by_git():
    from dbf0lab import analyze_cli, notebook

    for directory in (analyze_cli.FIGURES / "some-results", notebook.OWN_FIGURES):
        probe = directory / "figure.png"
        done = subprocess.run(["git", "-C", str(REPO), "check-ignore", "-q", str(probe)])
        assert done.returncode == 0, (
            f"{directory} is not ignored by git: figures would land in the tracked tree"
        )
