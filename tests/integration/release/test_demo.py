"""scripts/demo on a fresh copy of the repository, as a first-time user runs it."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from conftest import ROOT

SKIP = {".venv", "dist", ".git", ".pytest_cache", ".hypothesis", "build"}


def _fresh_copy(target: Path) -> Path:
    shutil.copytree(ROOT, target, ignore=lambda d, names: [n for n in names if n in SKIP or n == "__pycache__"
                                                            or n.endswith(".egg-info")])
    return target


def test_demo_installs_only_what_it_needs_and_explains_its_warning(tmp_path):
    copy = _fresh_copy(tmp_path / "repo")
    first = subprocess.run([str(copy / "scripts" / "demo")], capture_output=True, text=True, timeout=900)
    assert first.returncode == 0, first.stderr
    log = first.stderr
    for progress in ("demo: creating .venv", "demo: installing postrender and ruamel.yaml", "demo: installed in"):
        assert progress in log, log
    assert "ConfigMap 'missing' is not in the stream" in log
    assert "on purpose" in log and "named `missing`" in log
    out = Path(re.search(r"the whole output is in (\S+)", log).group(1))
    assert out.exists() and out.name != "postrender-demo.yaml" and out.read_text().count("content-hash") == 2
    out.unlink()
    assert "+  name: app-config-798k5k7g9f" in first.stdout
    # The demo's .venv has postrender and ruamel.yaml, not the test or cluster extras.
    for extra in ("pytest", "hypothesis", "kubernetes"):
        probe = subprocess.run([str(copy / ".venv" / "bin" / "python"), "-c", f"import {extra}"], capture_output=True)
        assert probe.returncode != 0, extra

    again = subprocess.run([str(copy / "scripts" / "demo")], capture_output=True, text=True, timeout=300)
    assert again.returncode == 0 and "demo: using .venv" in again.stderr and "installing" not in again.stderr
    Path(re.search(r"the whole output is in (\S+)", again.stderr).group(1)).unlink()
