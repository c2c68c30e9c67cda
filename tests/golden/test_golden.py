"""Golden fixtures: fixtures/golden/<case>/{input.yaml,expected.yaml[,args]}.

`UPDATE_GOLDEN=1 pytest tests/golden/test_golden.py` rewrites expected files; review
the diff before committing.
"""

import os
import shlex
from pathlib import Path

import pytest

from conftest import FIXTURES, run_postrender

CASES = sorted(p for p in (FIXTURES / "golden").iterdir() if (p / "input.yaml").exists())


def _args(case: Path) -> list[str]:
    path = case / "args"
    return shlex.split(path.read_text()) if path.exists() else []


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_golden(case: Path):
    result = run_postrender(_args(case), (case / "input.yaml").read_bytes())
    expected_path = case / "expected.yaml"
    if os.environ.get("UPDATE_GOLDEN"):
        assert result.status == 0, result.stderr
        expected_path.write_text(result.stdout, encoding="utf-8", newline="")
    assert result.status == 0, result.stderr
    assert result.stdout == expected_path.read_bytes().decode("utf-8")
    again = run_postrender(_args(case), result.stdout)
    assert again.stdout == result.stdout, "a second run must change nothing"


@pytest.mark.parametrize("block", [1, 200])
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_golden_whatever_the_blocks(case: Path, block: int, monkeypatch):
    # Documents' texts are held in compressed blocks of about 64 KiB
    # (pipeline/packed.py), compressed only in a large stream, so a golden
    # input is one block, never compressed: compressed and cut smaller, each
    # document is a block of its own held as it is (1), or blocks of a few
    # (200), and the output must not change.
    from postrender.pipeline import packed

    monkeypatch.setattr(packed, "BLOCK", block)
    monkeypatch.setattr(packed, "COMPRESS_FROM", 0)
    result = run_postrender(_args(case), (case / "input.yaml").read_bytes())
    assert result.status == 0, result.stderr
    assert result.stdout == (case / "expected.yaml").read_bytes().decode("utf-8")
