"""The problem folder format: what instructors write, and what is refused."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from runner.format.problem import ProblemFormatError, load_problem_dir, write_problem_dir
from tests.runner.conftest import BANK, FIXTURES


def copy_fixture(tmp_path: Path, name: str = "add-one") -> Path:
    target = tmp_path / name
    shutil.copytree(FIXTURES / name, target)
    return target


def test_bank_problems_load() -> None:
    slugs = [p.name for p in BANK.iterdir() if (p / "problem.toml").exists()]
    assert len(slugs) >= 8
    for slug in slugs:
        problem = load_problem_dir(BANK / slug)
        assert problem.mutants, f"{slug} has no mutants"


def test_round_trip_is_exact(tmp_path: Path) -> None:
    source = BANK / "backward-hook-gradients"
    problem = load_problem_dir(source)
    out = tmp_path / "backward-hook-gradients"
    write_problem_dir(problem, out)
    for rel, text in problem.files().items():
        assert (source / rel).read_text() == (out / rel).read_text() == text


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ('title = "x"\n', "missing key 'difficulty'"),
        ('title = "x"\ndifficulty = "extreme"\ncategory = "c"\nentry_point = "f"\n', "must be one of easy"),
        (
            'title = "x"\ndifficulty = "easy"\ncategory = "c"\nentry_point = "not valid"\n',
            "not a Python identifier",
        ),
        (
            'title = "x"\ndifficulty = "easy"\ncategory = "c"\nentry_point = "f"\n[limits]\ntime_s = 999\n',
            "time_s",
        ),
        (
            'title = "x"\ndifficulty = "easy"\ncategory = "c"\nentry_point = "f"\ncolour = 1\n',
            "unknown keys: colour",
        ),
        (
            'title = "x"\ndifficulty = "easy"\ncategory = "c"\nentry_point = "f"\n[limits]\nthreads = 1\n',
            "limits.threads must be true or false",
        ),
        ('title = = "x"\n', "invalid TOML"),
    ],
)
def test_bad_metadata_is_refused_with_the_cause(tmp_path: Path, toml: str, message: str) -> None:
    folder = copy_fixture(tmp_path)
    (folder / "problem.toml").write_text(toml)
    with pytest.raises(ProblemFormatError, match=message) as err:
        load_problem_dir(folder)
    assert err.value.file == "problem.toml"


def test_threads_are_refused_unless_the_problem_allows_them(tmp_path: Path) -> None:
    folder = copy_fixture(tmp_path)
    assert load_problem_dir(folder).limits.threads is False
    toml = (folder / "problem.toml").read_text()
    (folder / "problem.toml").write_text(
        toml.rstrip() + "\n" + ("" if "[limits]" in toml else "[limits]\n") + "threads = true\n"
    )
    allowed = load_problem_dir(folder)
    assert allowed.limits.threads is True
    out = tmp_path / "written"
    write_problem_dir(allowed, out)
    assert load_problem_dir(out).limits.threads is True  # kept through a round trip


def test_symlinks_are_refused(tmp_path: Path) -> None:
    folder = copy_fixture(tmp_path)
    (folder / "tests.py").unlink()
    os.symlink("/etc/passwd", folder / "tests.py")
    with pytest.raises(ProblemFormatError, match="symlinks are not allowed"):
        load_problem_dir(folder)


def test_symlinked_mutant_is_refused(tmp_path: Path) -> None:
    folder = copy_fixture(tmp_path)
    (folder / "mutants").mkdir()
    os.symlink("/etc/passwd", folder / "mutants" / "m.py")
    with pytest.raises(ProblemFormatError, match="symlink"):
        load_problem_dir(folder)


def test_missing_file_is_named(tmp_path: Path) -> None:
    folder = copy_fixture(tmp_path)
    (folder / "solution.py").unlink()
    with pytest.raises(ProblemFormatError) as err:
        load_problem_dir(folder)
    assert err.value.file == "solution.py"


def test_writing_through_a_symlink_is_refused(tmp_path: Path) -> None:
    problem = load_problem_dir(FIXTURES / "add-one")
    out = tmp_path / "out"
    out.mkdir()
    victim = tmp_path / "victim"
    victim.write_text("keep me")
    os.symlink(victim, out / "tests.py")
    with pytest.raises(ProblemFormatError, match="symlink"):
        write_problem_dir(problem, out)
    assert victim.read_text() == "keep me"
