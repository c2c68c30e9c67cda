from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"


@dataclass
class Run:
    status: int
    stdout: str
    stderr: str


def run_postrender(args: list[str], stdin: str | bytes = "", env: dict[str, str] | None = None, **given) -> Run:
    """postrender in this process: the same main() the console script
    calls (`given`: its keywords, as a caller such as the Argo CD plugin
    passes them)."""
    from postrender.cli import main

    data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
    saved = sys.stdin, sys.stdout, sys.stderr, dict(os.environ)
    sys.stdin = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    sys.stdout, sys.stderr = out, err
    try:
        os.environ.pop("HELM_NAMESPACE", None)
        os.environ.pop("POSTRENDER_LOG_FILE", None)
        os.environ.update(env or {})
        status = main(args, **given)
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved[:3]
        os.environ.clear()
        os.environ.update(saved[3])
    return Run(status, out.getvalue(), err.getvalue())


def run_cli(args: list[str], stdin: str | bytes = "", env: dict[str, str] | None = None, **kw) -> Run:
    """postrender as a separate process, as Helm and kustomize run it."""
    exe = shutil.which("postrender", path=str(Path(sys.executable).parent)) or "postrender"
    data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
    proc = subprocess.run([exe, *args], input=data, capture_output=True, env={**os.environ, **(env or {})}, **kw)
    return Run(proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace"))


def require_tool(name: str) -> str:
    """Tests that need a real tool fail, never skip, when it is missing."""
    path = shutil.which(name)
    if path is None:
        pytest.fail(f"{name} is not on PATH; run scripts/tools (scripts/test does)")
    return path


@pytest.fixture
def postrender():
    return run_postrender
