"""An input named twice: one rule, one message, for render (graph) and
diff. Run as a process where standard input must be a real pipe or file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  a: b\n"


def _run(argv: list[str], stdin: bytes | Path, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    command = [sys.executable, "-m", "postrender", *argv]
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    if isinstance(stdin, Path):
        with stdin.open("rb") as handle:
            return subprocess.run(command, stdin=handle, capture_output=True, env=env, cwd=cwd, timeout=60)
    return subprocess.run(command, input=stdin, capture_output=True, env=env, cwd=cwd, timeout=60)


@pytest.fixture
def app(tmp_path: Path) -> Path:
    (tmp_path / "app.yaml").write_text(CM)
    (tmp_path / "dir").mkdir()
    (tmp_path / "dir" / "x.yaml").write_text(CM.replace("cfg", "other"))
    return tmp_path / "app.yaml"


@pytest.mark.parametrize("command", [[], ["graph"]])
@pytest.mark.parametrize("argv,how,said", [
    # The second read of the pipe was empty: the stream rendered once, exit 0 (cli62).
    (["/dev/stdin", "/dev/stdin"], "pipe", "/dev/stdin is named twice"),
    (["/dev/stdin", "/dev/fd/0"], "pipe", "/dev/stdin and /dev/fd/0 name the same input"),
    (["-", "/dev/stdin"], "pipe", "- (standard input) and /dev/stdin name the same input"),
    # A file read twice into one stream: each object twice ("duplicate object", exit 1, before).
    (["-", "/dev/stdin"], "file", "- (standard input) and /dev/stdin name the same input"),
    (["-", "app.yaml"], "file", "- (standard input) and app.yaml name the same input"),
    (["app.yaml", "./app.yaml"], "pipe", "app.yaml and ./app.yaml name the same input"),
    (["app.yaml", "-f", "app.yaml"], "pipe", "app.yaml is named twice"),
    (["dir", "dir/"], "pipe", "dir and dir/ name the same input"),
    (["-", "-"], "file", "- (standard input) is named twice"),
])
def test_an_input_named_twice_is_a_usage_error(app, command, argv, how, said):
    done = _run([*command, *argv], app if how == "file" else CM.encode(), app.parent)
    assert (done.returncode, done.stdout) == (2, b""), done.stderr
    assert done.stderr.decode() == f"postrender: error: {said}; name each input once\n"


@pytest.mark.parametrize("argv,how,said", [
    (["-", "/dev/stdin"], "pipe", "- (standard input) and /dev/stdin name the same input"),
    (["/dev/stdin", "/dev/fd/0"], "pipe", "/dev/stdin and /dev/fd/0 name the same input"),
    (["-", "-"], "file", "- (standard input) is named twice"),  # `-` is read from its descriptor, once
])
def test_diff_takes_the_same_rule(app, argv, how, said):
    done = _run(["diff", *argv], app if how == "file" else CM.encode(), app.parent)
    assert (done.returncode, done.stdout) == (2, b""), done.stderr
    assert done.stderr.decode() == f"postrender: error: diff: {said}; name each input once\n"


@pytest.mark.parametrize("argv", [["-", "/dev/stdin"], ["app.yaml", "-"], ["app.yaml", "app.yaml"], ["dir", "dir"]])
def test_diff_reads_one_file_or_folder_whole_on_each_side(app, argv):
    # Its sides are two renders, not one stream: a file compared with itself (review61b).
    done = _run(["diff", *argv], app, app.parent)
    assert done.returncode == 0 and b"nothing rolls" in done.stdout, done.stderr


def test_different_inputs_are_not_refused(app):
    done = _run(["-", "app.yaml", "dir", "/dev/null"], CM.replace("cfg", "piped").encode(), app.parent)
    assert done.returncode == 0 and done.stdout.count(b"kind: ConfigMap") == 3, done.stderr
