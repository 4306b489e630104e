"""The archive of the classes `dbf0 check` loads (scripts/lib/check_cache.sh): build.sh makes it
after the jar, the dbf0 launcher uses it, makes it again when it is stale, and runs without it when
asked to or when it is unusable.

Each test works on a copy of the launcher, build.sh, scripts/lib and the histories beside the
built jar (build.sh's Maven is a stub that leaves the jar as it is), so nothing in the repository's
own target/ changes."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import REPO

pytestmark = pytest.mark.slow

HISTORIES = Path("lab/src/test/resources/histories")
OK = HISTORIES / "kv" / "c01-ok.txt"
BAD = HISTORIES / "etcd" / "etcd_000.log"


@pytest.fixture
def tree(tmp_path: Path, jar: Path, java: str) -> Path:
    """A copy of what build.sh and the launcher use, with the jar built already."""
    root = tmp_path / "repo"
    (root / "target").mkdir(parents=True)
    shutil.copy2(jar, root / "target" / "dbf0.jar")
    for name in ("dbf0", "build.sh"):
        shutil.copy2(REPO / name, root / name)
    shutil.copytree(REPO / "scripts" / "lib", root / "scripts" / "lib")
    shutil.copytree(REPO / HISTORIES, root / HISTORIES)
    stub = root / "mvnw"
    stub.write_text("#!/usr/bin/env bash\nexit 0\n")
    stub.chmod(0o755)
    return root


def env(**extra: str) -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if not k.startswith("DBF0_")}
    e.update(extra)
    return e


def run(root: Path, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(root / args[0]), *args[1:]],
        cwd=root,
        env=env(**extra),
        capture_output=True,
        text=True,
        timeout=120,
    )


def archives(root: Path) -> list[Path]:
    return sorted((root / "target").glob("check-*"))


def classes_from_the_archive(root: Path, **extra: str) -> set[str]:
    """The dbf0 classes a check loaded from the archive (rather than from the jar)."""
    log = root / "classes.log"
    r = run(
        root,
        "dbf0",
        "check",
        "--format",
        "auto",
        str(OK),
        DBF0_JAVA_OPTS=f"-Xlog:class+load=info:file={log}",
        **extra,
    )
    assert r.returncode == 0, r.stderr
    return {
        line.split()[1]
        for line in log.read_text().splitlines()
        if " dbf0." in line and "shared objects file" in line
    }


def test_build_leaves_an_archive_that_the_first_check_uses(tree: Path) -> None:
    built = run(tree, "build.sh")
    assert built.returncode == 0, built.stderr
    assert "cached the classes dbf0 check loads" in built.stderr
    [archive] = archives(tree)
    assert archive.stat().st_size > 0
    assert archive.stat().st_mtime_ns > (tree / "target" / "dbf0.jar").stat().st_mtime_ns
    made = archive.stat().st_mtime_ns

    r = run(tree, "dbf0", "check", "--format", "auto", str(OK), str(BAD))
    assert r.returncode == 1
    assert r.stdout.startswith("c01-ok.txt: linearizable (58 ops, 10 partitions, ")
    assert "etcd_000.log: NOT LINEARIZABLE" in r.stdout
    assert r.stderr == ""  # nothing to cache first
    assert archive.stat().st_mtime_ns == made
    assert "dbf0.kv.check.LinearizabilityChecker" in classes_from_the_archive(tree)


def test_a_stale_archive_is_made_again_and_an_unusable_one_is_ignored(tree: Path) -> None:
    assert run(tree, "build.sh").returncode == 0
    [archive] = archives(tree)
    # Older than the jar (a build without build.sh): the first check makes it again.
    jar = tree / "target" / "dbf0.jar"
    earlier = jar.stat().st_mtime - 60
    os.utime(archive, (earlier, earlier))
    r = run(tree, "dbf0", "check", "--format", "auto", str(OK))
    assert r.returncode == 0
    assert "caching the classes check loads" in r.stderr
    assert archive.stat().st_mtime_ns > jar.stat().st_mtime_ns
    assert "dbf0.kv.check.LinearizabilityChecker" in classes_from_the_archive(tree)
    # One the JVM cannot use (not an archive at all): the check runs without it, silently.
    archive.write_bytes(b"not an archive " * 100)
    assert classes_from_the_archive(tree) == set()
    r = run(tree, "dbf0", "check", "--format", "auto", str(OK), str(BAD))
    assert r.returncode == 1
    assert r.stdout.startswith("c01-ok.txt: linearizable (58 ops, 10 partitions, ")
    assert r.stderr == ""


def test_off_makes_and_uses_no_archive(tree: Path) -> None:
    built = run(tree, "build.sh", DBF0_CHECK_CACHE="off")
    assert built.returncode == 0, built.stderr
    assert "cached" not in built.stderr
    assert archives(tree) == []
    assert classes_from_the_archive(tree, DBF0_CHECK_CACHE="off") == set()
    assert archives(tree) == []


def test_the_cds_archive_that_a_jdk_before_25_uses_works_too(tree: Path) -> None:
    built = run(tree, "build.sh", DBF0_CHECK_CACHE="cds")
    assert built.returncode == 0, built.stderr
    [archive] = archives(tree)
    assert archive.suffix == ".jsa"
    assert archive.stat().st_size > 0
    loaded = classes_from_the_archive(tree, DBF0_CHECK_CACHE="cds")
    assert "dbf0.kv.check.LinearizabilityChecker" in loaded


def test_a_plain_check_writes_the_bytes_picocli_would_in_any_locale(tree: Path) -> None:
    """`dbf0 check FILE` runs without picocli, `--html` through it: the same report, byte for
    byte, whatever the locale says about stdout (picocli writes UTF-8 unless told otherwise)."""
    history = tree / "accents.txt"
    history.write_text(
        '{:process 0, :type :invoke, :f :get, :key "é", :value nil}\n'
        '{:process 0, :type :ok, :f :get, :key "é", :value "ü"}\n',
        encoding="utf-8",
    )
    for locale in ("C.UTF-8", "C"):
        runs = [
            subprocess.run(
                [str(tree / "dbf0"), "check", "--format", "kv", *extra, str(history)],
                cwd=tree,
                env=env(LC_ALL=locale, LANG=locale, DBF0_CHECK_CACHE="off"),
                capture_output=True,
                timeout=120,
            )
            for extra in ([], ["--html", str(tree / "v.html")])
        ]
        plain, picocli = (re.sub(rb"[0-9.]+ s\)", b"T)", r.stdout).splitlines() for r in runs)
        assert runs[0].returncode == runs[1].returncode == 1
        assert "key é".encode() in runs[0].stdout
        assert plain == picocli[: len(plain)]
        assert picocli[len(plain)].startswith(b"  HTML timeline written to")
