"""Standard output closed or open only for reading: a usage error (exit 2,
one line) for everything postrender writes there, help included, with
advice that fits the command."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


def _shell(command: str, redirect: str) -> subprocess.CompletedProcess[bytes]:
    # The checkout's code, run as a process: the descriptor is the shell's to close.
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "POSTRENDER_LOG_FILE": ""}
    return subprocess.run(["bash", "-c", f"{sys.executable} -m postrender {command} {redirect}"], input=b"",
                          env=env, capture_output=True, timeout=60, check=False)


HELP = ["--help", "-h", "help", "help diff", "graph --help", "diff -h", "gc --help", "version --help",
        "completion --help"]
REDIRECTS = {">&-": "standard output is closed", "1</dev/null": "standard output is not open for writing"}


@pytest.mark.parametrize("redirect", REDIRECTS)
@pytest.mark.parametrize("command", HELP)
def test_help_into_a_closed_stdout_is_a_usage_error(command, redirect):
    done = _shell(command, redirect)
    assert done.returncode == 2, done.stderr
    assert done.stderr.decode() == f"postrender: error: {REDIRECTS[redirect]}\n"


@pytest.mark.parametrize("redirect", REDIRECTS)
@pytest.mark.parametrize("command,advice", [
    ("", "; pass -o FILE"),  # render: -o names a file
    ("version", ""),  # version's, graph's and diff's -o is a format
    ("completion bash", ""),
    ("graph /dev/null", ""),
    ("diff /dev/null /dev/null", ""),
])
def test_the_advice_fits_the_command(command, advice, redirect):
    done = _shell(command, redirect)
    assert done.returncode == 2, done.stderr
    assert done.stderr.decode() == f"postrender: error: {REDIRECTS[redirect]}{advice}\n"
