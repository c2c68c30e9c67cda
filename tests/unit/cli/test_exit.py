"""The process entry (cli.run) ends with os._exit once main() is done: what
Python's normal exit would still do (flush stdout and stderr, report a
failed flush) must be done before, and nothing main() promised may be lost."""

from __future__ import annotations

import resource
import signal
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from postrender.errors import OUT_OF_MEMORY

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
    assert [e.value for e in scripts] == ["postrender.entry:run"]
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
    assert done.stderr.decode().startswith("postrender: error: document 1 line 2: invalid YAML")  # its last line
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


# A finder that sends the process a signal as one of postrender's modules
# (the cli, unless told) starts to load, then lets the import go on: the
# signal lands while postrender is still loading, before cli.main handles
# signals.
_SIGNAL_WHILE_LOADING = """
import os, runpy, signal, sys
class Finder:
    def find_spec(self, name, path=None, target=None):
        if name == "{module}":
            os.kill(os.getpid(), signal.{signal})
        return None
sys.meta_path.insert(0, Finder())
sys.argv = ["postrender"]
runpy.run_module("postrender", run_name="__main__")
"""


# postrender.signals and .printable loaded before the handlers were set
# (cli62): the entry's own imports, a signal there a traceback too.
@pytest.mark.parametrize("module", ["postrender.cli", "postrender.signals", "postrender.printable"])
@pytest.mark.parametrize("name,why", [("SIGINT", ""), ("SIGTERM", ""), ("SIGHUP", ""),
                                      ("SIGXCPU", " (the CPU time limit, RLIMIT_CPU or ulimit -t, was reached)")])
def test_a_signal_while_postrender_loads_ends_it_in_one_line(name, why, module):
    # Ctrl-C printed the import's traceback; SIGTERM and SIGHUP ended the
    # process without a word.
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", _SIGNAL_WHILE_LOADING.format(signal=name, module=module)], input=b"",
                          env=env, capture_output=True)
    number = getattr(signal, name)
    assert (done.returncode, done.stdout) == (128 + number, b""), done.stderr
    assert done.stderr.decode() == f"postrender: error: interrupted by {name}{why}\n"


# A SIGTERM as the render starts, and a second signal as that run ends
# (here, as its reporter closes); then how the process goes on.
_TWO_SIGNALS = """
import os, signal, sys
import postrender.report as report
import postrender.pipeline.render as render
close, analyse = report.Reporter.close, render.analyse
def closing(self):
    os.kill(os.getpid(), signal.SIGINT)
    close(self)
def analysing(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGTERM)
    return analyse(*args, **kwargs)
report.Reporter.close, render.analyse = closing, analysing
"""
_RUN = """
from postrender.entry import run
run()
"""
_SECOND_SIGNAL = _TWO_SIGNALS + 'sys.argv = ["postrender"]' + _RUN


def test_a_second_signal_as_the_run_ends_leaves_at_once_without_a_traceback():
    # It raised again inside the first one's cleanup: a traceback, and a status of -2.
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", _SECOND_SIGNAL], input=_stream(1), env=env,
                          capture_output=True)
    assert (done.returncode, done.stdout) == (128 + signal.SIGINT, b""), done.stderr
    assert done.stderr.decode() == ("postrender: error: interrupted by SIGTERM\n"
                                    "postrender: error: interrupted by SIGINT\n")


def test_a_second_signal_as_the_run_ends_still_writes_the_log_lines_held(tmp_path):
    # The run's log block (its lines are held until its output is written)
    # was lost with the second signal: the log said nothing of either.
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    log = tmp_path / "log"
    script = _TWO_SIGNALS + f"sys.argv = ['postrender', '--log-file', {str(log)!r}]" + _RUN
    done = subprocess.run([sys.executable, "-c", script], input=_stream(1), env=env, capture_output=True)
    assert done.returncode == 128 + signal.SIGINT, done.stderr
    lines = log.read_text().splitlines()
    assert lines[0].startswith("--- ") and "postrender" in lines[0]
    assert lines[1:] == ["postrender: error: interrupted by SIGTERM", "postrender: error: interrupted by SIGINT"]


def test_a_second_signal_as_the_run_ends_still_delivers_to_a_host_that_hides_stderr(tmp_path):
    # Helm 4 discards a post-renderer's stderr: its lines go to a default
    # log as the run closes, which the second signal cut short.
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    log = tmp_path / "default.log"
    hidden = (f"import postrender.diagnostics as diagnostics, postrender.report as report\n"
              f"helm = diagnostics.Host('Helm 4', False, {str(log)!r})\n"
              f"diagnostics.host = report.host = lambda: helm\n")
    script = _TWO_SIGNALS + hidden + 'sys.argv = ["postrender"]' + _RUN
    done = subprocess.run([sys.executable, "-c", script], input=_stream(1), env=env, capture_output=True)
    assert done.returncode == 128 + signal.SIGINT, done.stderr
    lines = log.read_text().splitlines()
    assert lines[1:] == ["postrender: error: interrupted by SIGTERM", "postrender: error: interrupted by SIGINT"]


def _logged(log) -> list[str]:
    """A log's lines, its runs' separators left out."""
    return [line for line in log.read_text().splitlines() if not line.startswith("--- ")]


def test_a_second_signal_as_lines_are_delivered_to_a_host_loses_none(tmp_path):
    # The second signal came while the run's lines were being delivered to
    # the default log (Reporter.flush): those, the first signal's line among
    # them, were taken off the run's list already, and lost.
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    log = tmp_path / "default.log"
    script = _TWO_SIGNALS.replace("os.kill(os.getpid(), signal.SIGINT)\n    close(self)", "close(self)") + (
        "import postrender.diagnostics as diagnostics\n"
        f"helm = diagnostics.Host('Helm 4', False, {str(log)!r})\n"
        "diagnostics.host = report.host = lambda: helm\n"
        "delivering = report.deliver\n"
        "def deliver(*args, **kwargs):\n"
        "    os.kill(os.getpid(), signal.SIGINT)\n"
        "    delivering(*args, **kwargs)\n"
        "report.deliver = deliver\n"
        'sys.argv = ["postrender"]') + _RUN
    done = subprocess.run([sys.executable, "-c", script], input=_stream(1), env=env, capture_output=True)
    assert done.returncode == 128 + signal.SIGINT, done.stderr
    assert _logged(log) == ["postrender: error: interrupted by SIGTERM", "postrender: error: interrupted by SIGINT"]


def test_a_third_signal_as_the_second_ends_the_run_writes_nothing_twice(tmp_path):
    # A third signal while the second's handler wrote the held lines ran the
    # handler again inside it: the lines written twice, or one lost.
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    log = tmp_path / "log"
    script = _TWO_SIGNALS + (
        "last_words = report.Reporter._last_words\n"
        "def third(self, said):\n"
        "    os.kill(os.getpid(), signal.SIGHUP)\n"
        "    last_words(self, said)\n"
        "report.Reporter._last_words = third\n"
        f"sys.argv = ['postrender', '--log-file', {str(log)!r}]") + _RUN
    done = subprocess.run([sys.executable, "-c", script], input=_stream(1), env=env, capture_output=True)
    assert done.returncode == 128 + signal.SIGINT, done.stderr
    expected = ["postrender: error: interrupted by SIGTERM", "postrender: error: interrupted by SIGINT"]
    assert _logged(log) == expected
    assert done.stderr.decode().splitlines() == expected


# A render that runs into the CPU-time limit its runner set (RLIMIT_CPU,
# `ulimit -t`): the kernel sends SIGXCPU at the soft limit, then SIGKILL at
# the hard one. Here the soft limit is a second, and the render spins.
_CPU_LIMIT = """
import resource, sys
resource.setrlimit(resource.RLIMIT_CPU, (1, 60))
import postrender.pipeline.render as render
def analysing(*args, **kwargs):
    while True:
        pass
render.analyse = analysing
sys.argv = ["postrender", "--log-file", sys.argv[1]]
from postrender.entry import run
run()
"""


def test_the_cpu_time_limit_ends_the_run_with_its_line(tmp_path):
    # It ended with status 152 and not a word: in Helm 4, which discards
    # stderr, nothing said why the render stopped.
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    log = tmp_path / "log"
    done = subprocess.run([sys.executable, "-c", _CPU_LIMIT, str(log)], input=_stream(1), env=env,
                          capture_output=True, timeout=60)
    line = "postrender: error: interrupted by SIGXCPU (the CPU time limit, RLIMIT_CPU or ulimit -t, was reached)\n"
    assert (done.returncode, done.stdout) == (128 + signal.SIGXCPU, b""), done.stderr
    assert done.stderr.decode() == line
    assert log.read_text().endswith(line)


@pytest.mark.parametrize("limit, lowered", [
    ((10, 10), (9, 10)),        # `ulimit -t 10`: SIGKILL at 10 s, and no SIGXCPU before it
    ((600, 600), (599, 600)),
    ((5, 5), (5, 5)),           # a second is more than a tenth of it: left
    ((3, 10), (3, 10)),         # SIGXCPU comes at 3 s already
])
def test_a_cpu_limit_with_no_room_for_sigxcpu_gets_a_second(limit, lowered):
    # With soft and hard alike the kernel kills at the limit with no SIGXCPU
    # first: the run ended with status 137 and not a word (an outside review).
    code = ("import resource\n"
            f"resource.setrlimit(resource.RLIMIT_CPU, {limit})\n"
            "from postrender import signals\n"
            "signals.warn_before_the_cpu_limit()\n"
            "print(resource.getrlimit(resource.RLIMIT_CPU))\n")
    done = subprocess.run([sys.executable, "-c", code], env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
                          capture_output=True, text=True)
    assert done.stdout.strip() == str(lowered), done.stderr


def test_the_entry_gives_a_cpu_limit_its_second():
    code = ("import resource, sys\n"
            "resource.setrlimit(resource.RLIMIT_CPU, (30, 30))\n"
            "import postrender.cli as cli\n"
            "cli.run = lambda: print(resource.getrlimit(resource.RLIMIT_CPU))\n"
            "from postrender.entry import run\n"
            "run()\n")
    done = subprocess.run([sys.executable, "-c", code], env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
                          capture_output=True, text=True)
    assert done.stdout.strip() == "(29, 30)", done.stderr


def test_a_signal_started_ignored_stays_ignored():
    """A shell starts `cmd &` with SIGINT ignored, nohup with SIGHUP: a
    Ctrl-C at the script's process group left postrender running, and must
    still. Sent while postrender loads, and while it renders."""
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    script = _SIGNAL_WHILE_LOADING.format(signal="SIGINT", module="postrender.cli").replace(
        "import os, runpy, signal, sys\n", "import os, runpy, signal, sys\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\n")
    done = subprocess.run([sys.executable, "-c", script], input=_stream(1), env=env, capture_output=True)
    assert done.returncode == 0 and b"kind: ConfigMap" in done.stdout, done.stderr


def test_the_entry_module_handles_the_signals_from_its_first_line_and_leaves_none_held():
    # entry is the process's entry, imported by nothing else: its first line
    # holds the signals, which stop_at_once handles once it is loaded
    # (cli62); the kernel's mask is then as the process was started.
    code = ("import signal\nbefore = signal.pthread_sigmask(signal.SIG_BLOCK, [])\n"
            "import postrender.entry as entry, postrender.signals as signals\n"
            "assert entry.HELD_WHILE_LOADING == signals.HANDLED_SIGNALS\n"
            "assert all(signal.getsignal(s) is signals.stop_at_once for s in signals.HANDLED_SIGNALS)\n"
            "assert signal.pthread_sigmask(signal.SIG_BLOCK, []) == before\n")
    done = subprocess.run([sys.executable, "-c", code], env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


# A program that calls cli.main() itself: a second signal as the run ends
# must not end the program (it gets its own handlers back once main returns).
_CALLER = _TWO_SIGNALS + """
from postrender.cli import main
status = main([])
report.Reporter.close, render.analyse = close, analyse
print("the caller goes on", status, signal.getsignal(signal.SIGINT) is signal.default_int_handler)
"""


def test_a_second_signal_in_a_callers_process_leaves_the_caller_running():
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", _CALLER], input=_stream(1).decode(), env=env, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith(f"the caller goes on {128 + signal.SIGTERM} True\n"), done.stdout


def test_a_signal_python_swallowed_still_fails_the_run(monkeypatch):
    """Raised inside a weakref callback of the import system, Interrupted is
    printed as "Exception ignored" and the run went on, to exit 0."""
    from postrender import signals
    import postrender.pipeline.render as render

    analyse = render.analyse

    def analysing(*args, **kwargs):
        try:
            signals.on_signal(signal.SIGHUP, None)
        except signals.Interrupted:
            pass  # as Python does with an exception in a weakref callback
        return analyse(*args, **kwargs)

    monkeypatch.setattr(render, "analyse", analysing)
    result = run_postrender([], _stream(1).decode())
    assert result.status == 128 + signal.SIGHUP
    assert result.stderr == "postrender: error: interrupted by SIGHUP\n"


def test_a_failed_write_to_a_file_leaves_none_of_the_stream(tmp_path):
    # `> out.yaml` on a full disk, or past a file size limit: the stream
    # written so far was left, cut in the middle of a document.
    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, resource.RLIM_INFINITY))

    stdin = _stream(2000)
    for mode, before in (("wb", b""), ("ab", b"previous\n")):
        out = tmp_path / f"out-{mode}.yaml"
        out.write_bytes(before)
        with open(out, mode) as stdout:
            done = subprocess.run([sys.executable, "-m", "postrender"], input=stdin, stdout=stdout, stderr=subprocess.PIPE,
                                  env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, preexec_fn=small_files)
        assert done.returncode == 1 and done.stderr.decode() == "postrender: error: standard output: File too large\n"
        assert out.read_bytes() == before
    # `> log 2>&1`: the message lands where the stream would have started,
    # not past a hole where it was cut.
    log = tmp_path / "log.txt"
    with open(log, "wb") as both:
        done = subprocess.run([sys.executable, "-m", "postrender"], input=stdin, stdout=both, stderr=both,
                              env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, preexec_fn=small_files)
    assert done.returncode == 1
    assert log.read_bytes() == b"postrender: error: standard output: File too large\n"


def test_a_signal_while_the_stream_is_written_to_a_file_leaves_none_of_it(tmp_path):
    # The writer pauses half way (a slow disk), and is stopped there.
    script = """
import io, sys, time
from postrender import cli
class Slow(io.BufferedWriter):
    written = 0
    def write(self, data):
        Slow.written += len(data)
        if Slow.written > 100_000:
            sys.stderr.write("half\\n"); sys.stderr.flush(); time.sleep(60)
        return super().write(data)
sys.stdout = io.TextIOWrapper(Slow(io.FileIO(1, "w", closefd=False)), encoding="utf-8")
cli.run()
"""
    out = tmp_path / "out.yaml"
    with open(out, "wb") as stdout:
        child = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=stdout,
                                 stderr=subprocess.PIPE, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
        child.stdin.write(_stream(2000))
        child.stdin.close()
        assert child.stderr.readline() == b"half\n"
        assert out.stat().st_size > 0
        child.send_signal(signal.SIGTERM)
        assert child.wait(timeout=30) == 128 + signal.SIGTERM
    assert child.stderr.read() == b"postrender: error: interrupted by SIGTERM\n"
    assert out.read_bytes() == b""


@pytest.mark.parametrize("errno_name, usage", [("EISDIR", True), ("EBADF", True), ("EIO", False), ("ENXIO", False)])
def test_standard_input_that_fails_to_read_is_a_usage_error_only_when_it_is_how_it_was_started(errno_name, usage):
    """`< /` and `0>file` are how postrender was started (status 2); an I/O
    error is the environment's (status 1, as a file that fails to read)."""
    import errno
    import io
    import os

    from postrender.errors import PostrenderError, UsageError
    from postrender.inputs import gather

    class Failing(io.RawIOBase):
        def readable(self):
            return True

        def readinto(self, buffer):
            code = getattr(errno, errno_name)
            raise OSError(code, os.strerror(code))

    with pytest.raises((PostrenderError, UsageError)) as raised:
        gather(["-"], io.BufferedReader(Failing()), 1 << 20, lambda message: None)
    assert isinstance(raised.value, UsageError) == usage
    assert str(raised.value).startswith("standard input: ")


# A module that fails to load as it does when the process is short of memory
# (`ulimit -v`): MemoryError, or the loader's ImportError for a shared object.
_FAILING_LOAD = """
import importlib.abc, runpy, sys
class Failing(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == {module!r}:
            raise {error}
sys.meta_path.insert(0, Failing())
sys.argv = ["postrender"]
runpy.run_module("postrender", run_name="__main__")
"""


_MAP_FAILED = "ImportError('{0}.so: failed to map segment from shared object', name='{0}')"


@pytest.mark.parametrize("module, error, limited, said", [
    ("postrender.cli", "MemoryError()", False, "out of memory"),
    ("postrender.cli", _MAP_FAILED.format("x"), True, "out of memory"),
    ("postrender.cli", "ImportError('no module', name='postrender.cli')", True, "cannot load the module 'postrender.cli'"),
    ("array", _MAP_FAILED.format("array"), True, "out of memory"),
    # The loader says the same of a module on a noexec mount: without a memory limit, no memory is short.
    ("array", _MAP_FAILED.format("array"), False, "cannot load the module 'array'"),
])
def test_a_load_short_of_memory_is_said_in_one_line(module, error, limited, said):
    """Short of memory while postrender loads, or as it loads a module later:
    one line saying so, exit 1, not a traceback nor "reinstall postrender"."""
    def limit() -> None:
        if limited:  # a limit far above what the run needs: the loader's words are what is tested
            resource.setrlimit(resource.RLIMIT_AS, (1 << 40, resource.getrlimit(resource.RLIMIT_AS)[1]))

    done = subprocess.run([sys.executable, "-c", _FAILING_LOAD.format(module=module, error=error)],
                          input=b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {k: v}\n",
                          capture_output=True, timeout=60, preexec_fn=limit)
    stderr = done.stderr.decode()
    assert done.returncode == 1 and done.stdout == b"", stderr
    assert stderr.count("\n") == 1 and stderr.startswith("postrender: error: ") and said in stderr, stderr


_BROKEN = b"apiVersion: v1\nkind: ConfigMap\ndata: {k: v}\n"  # no name: refused


def test_a_load_short_of_memory_as_an_error_is_reported_is_said_in_one_line():
    """A module loaded only as an error is reported (an outside tester,
    `ulimit -v`, uid 999: a traceback from the KRM module's import, raised
    inside the handler of the input's own error)."""
    script = _FAILING_LOAD.format(module="postrender.frontends.krm", error="MemoryError()")
    done = subprocess.run([sys.executable, "-c", script], input=_BROKEN, capture_output=True, timeout=60,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    stderr = done.stderr.decode()
    assert done.returncode == 1 and done.stdout == b"", stderr
    assert stderr == "postrender: error: " + OUT_OF_MEMORY + "\n", stderr


@pytest.mark.parametrize("where", ["reporting", "writing"])
def test_memory_short_where_no_handler_of_the_run_is_said_in_one_line(monkeypatch, where):
    from postrender import cli
    from postrender.errors import PostrenderError

    def short(*args, **kwargs):
        raise MemoryError()

    if where == "reporting":
        monkeypatch.setattr(PostrenderError, "problems", short)
    else:
        monkeypatch.setattr(cli, "write_stdout", short)
    out = run_postrender([], _BROKEN.decode() if where == "reporting" else _stream(1).decode())
    assert (out.status, out.stdout) == (1, "")
    assert out.stderr == "postrender: error: " + OUT_OF_MEMORY + "\n", out.stderr


def test_a_signal_as_the_run_closes_lets_it_end_as_it_would_have(tmp_path, monkeypatch):
    # Raised in the middle of writing the log, it was a traceback (exit 1)
    # and the log lost its last lines (an outside reviewer). The run is done
    # by then, its output written: it ends as it would have, its log whole,
    # and the caller's handlers are given back.
    import os

    from postrender import report

    flush = report.Reporter.flush
    sent = []

    def flush_after_a_signal(self):
        if not sent:
            sent.append(True)
            os.kill(os.getpid(), signal.SIGTERM)
        flush(self)

    monkeypatch.setattr(report.Reporter, "flush", flush_after_a_signal)
    caught = []
    before = signal.signal(signal.SIGTERM, lambda signum, frame: caught.append(signum))
    try:
        log = tmp_path / "log"
        out = run_postrender(["-v", "--log-file", str(log)], _stream(3).decode())
        assert out.status == 0 and "Traceback" not in out.stderr, out.stderr
        assert out.stdout.count("kind: ConfigMap") == 3
        lines = log.read_text().splitlines()
        assert lines[0].startswith("--- ") and not any(line.startswith("--- ") for line in lines[1:])
        assert sum("ConfigMap/c" in line for line in lines) == 3  # nothing the run said is lost
        assert signal.getsignal(signal.SIGTERM).__name__ == "<lambda>"
    finally:
        signal.signal(signal.SIGTERM, before)


# Sends SIGTERM as the first block after the log's separator is written:
# before its write, or after it, before it is let go of.
_SIGNAL_IN_A_BLOCK = """
import contextlib, os, runpy, signal, sys
from postrender import report
log, when = sys.argv[1], sys.argv[2]
locked, size, sent = report._locked, report._size, []
def send():
    if not sent and open(log).read():
        sent.append(True)
        os.kill(os.getpid(), signal.SIGTERM)
@contextlib.contextmanager
def sending_before(handle):
    with locked(handle) as alone:
        if when == "before":
            send()
        yield alone
def sending_after(handle):
    if when == "after" and "ConfigMap/c" in open(log).read():
        send()
    return size(handle)
report._locked, report._size = sending_before, sending_after
sys.argv = ["postrender", "-v", "--log-file", log]
runpy.run_module("postrender", run_name="__main__")
"""


@pytest.mark.parametrize("when", ["before", "after"])
def test_a_block_of_the_log_is_written_once_whatever_signal_comes_as_it_is(tmp_path, when):
    # A signal raised between the block's let go of and its write lost it;
    # one after its write but before its let go of wrote it twice (an
    # outside reviewer): the signals wait for it. In a process of its own:
    # signals reach a process's main thread.
    log = tmp_path / "log"
    done = subprocess.run([sys.executable, "-c", _SIGNAL_IN_A_BLOCK, str(log), when], input=_stream(3),
                          capture_output=True, timeout=60, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    stderr = done.stderr.decode()
    assert done.returncode == 128 + signal.SIGTERM and done.stdout == b"", stderr
    # The log says what stderr said, each line once.
    logged = [line for line in log.read_text().splitlines() if not line.startswith("--- ")]
    assert logged == stderr.splitlines() and sum("ConfigMap/c" in line for line in logged) == 3, (logged, stderr)


def test_debug_tracebacks_never_reach_the_standard_output():
    # With stderr closed, traceback.print_exception printed to stdout: the stream.
    script = ("import runpy, sys\nfrom postrender import cli\n"
              "def broken(*args):\n    raise RuntimeError('input text')\n"
              "cli._check_stdout = broken\nsys.argv = ['postrender']\nrunpy.run_module('postrender', run_name='__main__')\n")
    done = subprocess.run([sys.executable, "-c", script], input=_stream(1), capture_output=True, timeout=60,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "POSTRENDER_DEBUG": "1"},
                          preexec_fn=lambda: __import__("os").close(2))
    assert (done.returncode, done.stdout) == (1, b"")


def test_the_signals_held_while_loading_are_let_through_when_loading_fails():
    # entry holds SIGINT/TERM/HUP/XCPU while postrender loads; an import that
    # fails must not leave them held, for the rest of the process (the Helm 4
    # wrapper goes on without postrender.entry) and every program it starts
    # (review62b).
    probe = (
        "import signal, sys\n"
        "sys.modules['postrender.signals'] = None\n"
        "try:\n    import postrender.entry\nexcept ImportError:\n    pass\n"
        "print(sorted(int(s) for s in signal.pthread_sigmask(signal.SIG_BLOCK, [])))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]", done.stdout
