"""The process entry (cli.run) ends with os._exit once main() is done: what
Python's normal exit would still do (flush stdout and stderr, report a
failed flush) must be done before, and nothing main() promised may be lost."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

from conftest import run_postrender

ROOT = Path(__file__).resolve().parents[3]


def _module(args: list[str], stdin: bytes, **kw) -> subprocess.CompletedProcess[bytes]:
    # The checkout's code, whatever the venv has installed.
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-m", "postrender", *args], input=stdin, env=env, capture_output=True,
                          check=False, **kw)


def _stream(copies: int) -> bytes:
    # Enough documents that the output is many pipe buffers long.
    parts = []
    for i in range(copies):
        parts.append(
            f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\ndata:\n  k: v{i}\n---\n"
            f"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d{i}\nspec:\n  template:\n    spec:\n"
            f"      containers:\n      - name: a\n        envFrom:\n        - configMapRef:\n            name: c{i}\n"
        )
    return "---\n".join(parts).encode()


def test_the_console_script_and_python_m_run_through_run():
    scripts = [e for e in entry_points(group="console_scripts") if e.name == "postrender"]
    assert [e.value for e in scripts] == ["postrender.cli:run"]
    assert (ROOT / "postrender" / "__main__.py").read_text().strip().endswith("run()")


def test_the_whole_output_is_written_before_the_process_ends():
    stdin = _stream(300)
    expected = run_postrender([], stdin)
    assert expected.status == 0
    done = _module([], stdin)
    assert done.returncode == 0
    assert done.stdout.decode() == expected.stdout
    assert len(done.stdout) > 100_000
    assert done.stderr == b""


def test_output_to_a_file_is_complete(tmp_path):
    stdin = _stream(50)
    out = tmp_path / "out.yaml"
    done = _module(["-o", str(out)], stdin)
    assert (done.returncode, done.stdout) == (0, b"")
    assert out.read_text() == run_postrender([], stdin).stdout


def test_messages_and_status_of_a_failure_still_come_out():
    done = _module([], b"kind: ConfigMap\nmetadata: {name: a\n")
    assert done.returncode == 1
    assert done.stdout == b""
    assert done.stderr.decode().startswith("postrender: error: document 1 line 3: invalid YAML")
    assert _module(["--no-such-flag"], b"").returncode == 2


def test_a_reader_that_stops_early_ends_the_run_quietly():
    stdin = _stream(300)
    proc = subprocess.Popen([sys.executable, "-m", "postrender"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    proc.stdin.write(stdin)
    proc.stdin.close()
    assert proc.stdout.read(10) == b"apiVersion"
    proc.stdout.close()
    status = proc.wait(timeout=60)
    assert status == 141  # 128 + SIGPIPE, as a shell reports cat's
    assert proc.stderr.read() == b""  # no "Exception ignored" from a flush at exit


def test_a_failed_last_flush_is_a_failure():
    # /dev/full takes the writes into Python's buffer and fails them on flush.
    with open("/dev/full", "wb") as full:
        done = subprocess.run([sys.executable, "-m", "postrender"], input=_stream(2), stdout=full,
                              stderr=subprocess.PIPE, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, check=False)
    assert done.returncode == 1
    assert b"No space left on device" in done.stderr


def test_a_missing_dependency_is_one_line_naming_it_without_a_traceback(tmp_path):
    # A broken install (ruamel.yaml missing, say): the error names the
    # module to mend, and reporting it, which loads more of postrender,
    # fails no further. Under Helm (HELM_BIN set) the reporter looks for
    # where to deliver it as well, the path that once raised again.
    blocker = tmp_path / "sitecustomize.py"
    blocker.write_text(
        "import sys\n"
        "class _Missing:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('ruamel', '_ruamel_yaml'):\n"
        "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
        "sys.meta_path.insert(0, _Missing())\n"
    )
    for extra in ({}, {"HELM_BIN": "helm", "HELM_CACHE_HOME": str(tmp_path / "cache")}):
        env = {"PYTHONPATH": f"{tmp_path}:{ROOT}", "PATH": "/usr/bin:/bin", **extra}
        done = subprocess.run([sys.executable, "-m", "postrender"], input=b"apiVersion: v1\n", env=env,
                              capture_output=True, check=False)
        assert done.returncode == 1
        assert done.stdout == b""
        lines = done.stderr.decode().splitlines()
        assert lines[0].startswith("postrender: error: cannot load the module 'ruamel")
        assert "reinstall postrender" in lines[0]
        assert "Traceback" not in done.stderr.decode()
