"""What postrender prints about the input is safe to show: terminal controls
in names, paths and `# Source:` comments are escaped on stderr and in the
log, and the log never follows a symbolic link."""

from __future__ import annotations

import os
import stat

import pytest

from conftest import run_postrender
from postrender.diagnostics import escape_controls

# Each one would act on a terminal if written raw: clear screen, set the
# window title, ring the bell, a C1 CSI, line and paragraph separators, a
# bidirectional override that reverses what follows, and a raw tab.
CONTROLS = ["\x1b[2J", "\x1b]0;owned\x07", "\x9b31m", "\u2028", "\u2029", "\u202e", "\u2066", "\x7f", "\t"]


def _yaml_quoted(text: str) -> str:
    """`text` as a YAML double-quoted scalar, every non-ASCII or control
    character written as an escape so the stream itself stays valid."""
    out = []
    for ch in text:
        code = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif 0x20 <= code < 0x7F:
            out.append(ch)
        elif code < 0x100:
            out.append(f"\\x{code:02x}")
        elif code < 0x10000:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    return '"' + "".join(out) + '"'


def _stream(name: str, ref: str) -> str:
    return (
        f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {_yaml_quoted(name)}\ndata:\n  k: v\n---\n"
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n"
        "      containers:\n        - name: c\n          envFrom:\n"
        f"            - configMapRef:\n                name: {_yaml_quoted(name)}\n"
        f"            - configMapRef:\n                name: {_yaml_quoted(ref)}\n"
    )


def _assert_clean(text: str) -> None:
    bad = [ch for ch in text if not ch.isprintable() and ch != "\n"]
    assert not bad, f"raw control characters reached the output: {bad!r}"


@pytest.mark.parametrize("control", CONTROLS, ids=[repr(c) for c in CONTROLS])
def test_verbose_lines_and_warnings_escape_controls_in_names(tmp_path, control):
    name = f"cfg{control}x"
    dangling = f"gone{control}"
    log = tmp_path / "log"
    result = run_postrender(["-v", "--log-file", str(log)], _stream(name, dangling))
    assert result.status == 0, result.stderr
    for text in (result.stderr, log.read_text()):
        _assert_clean(text)
        assert f"renamed ConfigMap/{escape_controls(name)} -> " in text
        assert "is not in the stream" in text


@pytest.mark.parametrize("control", ["\u202e", "\u2066", "\u200b"], ids=repr)
def test_error_lines_escape_source_comments_and_names(tmp_path, control):
    # Raw in a comment: YAML allows these characters there.
    text = (
        f"# Source: chart/templates/{control}evil.yaml\n"
        f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {_yaml_quoted('cm' + control)}\ndata:\n  k: 3\n"
    )
    log = tmp_path / "log"
    result = run_postrender(["--log-file", str(log)], text)
    assert result.status == 1 and result.stdout == ""
    for out in (result.stderr, log.read_text()):
        _assert_clean(out)
        assert "data.k must be a string" in out
        assert escape_controls(f"templates/{control}evil.yaml") in out


def test_escape_is_idempotent_and_keeps_printable_text():
    assert escape_controls("données/ConfigMap é ✓") == "données/ConfigMap é ✓"
    once = escape_controls("a\x1b[2Jb\u202e")
    assert once == "a\\x1b[2Jb\\u202e"
    assert escape_controls(once) == once


def test_log_file_refuses_a_symbolic_link(tmp_path):
    target = tmp_path / "target"
    target.write_text("precious\n")
    target.chmod(0o644)
    link = tmp_path / "log"
    link.symlink_to(target)
    for args, env in ((["--log-file", str(link)], None), ([], {"POSTRENDER_LOG_FILE": str(link)})):
        result = run_postrender(args, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {k: v}\n", env=env)
        assert result.status == 2 and result.stdout == ""
        assert "symbolic link" in result.stderr
    assert target.read_text() == "precious\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o644


def test_log_file_refuses_what_is_not_a_regular_file(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    result = run_postrender(["--log-file", str(fifo)], "")
    assert result.status == 2 and "not a regular file" in result.stderr
    # A dangling link is still a link: nothing is created at its target.
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "nowhere")
    result = run_postrender(["--log-file", str(dangling)], "")
    assert result.status == 2 and not (tmp_path / "nowhere").exists()


@pytest.mark.parametrize("flag", [True, False])
def test_a_refused_log_is_named_where_it_was_set(tmp_path, flag):
    # $POSTRENDER_LOG_FILE was said as --log-file, a flag the user never passed (cli62).
    (tmp_path / "in.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {k: v}\n")
    named = "--log-file" if flag else "$POSTRENDER_LOG_FILE"
    for log, said in ((tmp_path, "not a regular file"), (tmp_path / "in.yaml", "is also an input"),
                      (tmp_path / "no" / "x.log", "No such file or directory")):
        args, env = (["--log-file", str(log)], None) if flag else ([], {"POSTRENDER_LOG_FILE": str(log)})
        result = run_postrender([*args, str(tmp_path / "in.yaml")], env=env)
        assert result.status == 2 and result.stdout == "", result
        assert result.stderr.startswith(f"postrender: error: {named} {log}"), result.stderr
        assert said in result.stderr


@pytest.mark.parametrize("fails_at", ["header", "a warning", "closing"])
def test_a_log_that_cannot_be_written_is_said_once_and_the_run_goes_on(tmp_path, monkeypatch, fails_at):
    """A full disk or a file-size limit under the log turned every run into
    some forty lines of chained tracebacks, and a good input into exit 1.
    Now: one warning on stderr, the stream written whole, exit 0."""
    import errno

    import postrender.report as report

    opened = report.open_private_log

    class Full:
        """The log, on a disk that fills at `fails_at`."""

        def __init__(self, path, what):
            self.handle = opened(path, what)

        def write(self, text):
            if fails_at == "header" or fails_at == "a warning" and "warning" in text:
                raise OSError(errno.ENOSPC, "No space left on device")
            return self.handle.write(text)

        def flush(self):
            self.handle.flush()

        def close(self):
            self.handle.close()
            if fails_at == "closing":
                raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(report, "open_private_log", Full)
    stream = ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {k: v}\n---\napiVersion: v1\nkind: Pod\n"
              "metadata: {name: p}\nspec:\n  containers:\n  - {name: c, image: x, envFrom: [{configMapRef: {name: gone}}]}\n")
    result = run_postrender(["--log-file", str(tmp_path / "log")], stream)
    assert result.status == 0 and "kind: Pod" in result.stdout, result.stderr
    assert "Traceback" not in result.stderr
    lost = [line for line in result.stderr.splitlines() if "cannot write to it (No space left on device)" in line]
    assert len(lost) == (0 if fails_at == "closing" else 1), result.stderr
    # On stderr only: not among the warnings graph's JSON and KRM results carry.
    shown = run_postrender(["graph", "-o", "json", "--log-file", str(tmp_path / "log2")], stream)
    assert shown.status == 0 and "cannot write" not in shown.stdout, shown.stdout


def test_runs_sharing_a_log_each_write_their_lines_under_their_own_separator(tmp_path):
    """Parallel renders (an Argo CD repo-server's) sharing --log-file: each
    run's lines follow its separator together, as in the default log (an
    outside tester found 20 separators, then 80 lines, none telling whose)."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[3]
    log = tmp_path / "shared.log"
    runs = []
    for run in range(8):
        stream = "---\n".join(f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: run{run}-c{i}}}\ndata: {{k: v}}\n"
                              for i in range(300))
        runs.append(subprocess.Popen([sys.executable, "-m", "postrender", "-v", "--log-file", str(log)],
                                     stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"}))
        runs[-1].stdin.write(stream.encode())
        runs[-1].stdin.close()
    assert [run.wait(timeout=120) for run in runs] == [0] * 8
    # A block per run, or more where a run took longer than a block holds
    # (report._LOG_HELD_SECONDS), each after its run's own separator.
    blocks = log.read_text().split("--- ")[1:]
    said: dict[str, set[str]] = {}
    for block in blocks:
        header, *lines = block.splitlines()
        assert header.startswith("20") and " (pid " in header, header
        pid = header.partition(" (pid ")[2].partition(")")[0].removesuffix(", continued")
        said.setdefault(pid, set()).update(line.partition("ConfigMap/run")[2][:1] for line in lines)
    assert len(said) == 8 and all(len(runs) == 1 for runs in said.values()), said


def test_a_run_that_says_much_writes_its_log_in_blocks(tmp_path, monkeypatch):
    import postrender.report as report

    monkeypatch.setattr(report, "_LOG_BLOCK", 2000)
    log = tmp_path / "log"
    stream = "---\n".join(f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c{i}}}\ndata: {{k: v}}\n"
                          for i in range(200))
    assert run_postrender(["-v", "--log-file", str(log)], stream).status == 0
    lines = log.read_text().splitlines()
    # Alone in the log: its separator, then its lines, in order, none twice.
    assert lines[0].startswith("--- ") and not any(line.startswith("--- ") for line in lines[1:])
    said = [line.partition("ConfigMap/c")[2].partition(" ")[0] for line in lines if "ConfigMap/c" in line]
    assert said == [str(i) for i in range(200)]


def test_what_a_run_waits_for_is_in_the_log_at_once(tmp_path):
    # Its other lines wait for the run's end; this one says why it has not ended.
    from postrender.report import Reporter

    log = tmp_path / "log"
    reporter = Reporter(log_file=str(log), stderr=None)
    reporter.open_log()
    reporter.info("said before")
    reporter.notice("reading manifests from the terminal; end with Ctrl-D")
    assert log.read_text().splitlines()[1:] == ["postrender: said before",
                                                "postrender: reading manifests from the terminal; end with Ctrl-D"]
    reporter.info("said after")
    reporter.close()
    assert log.read_text().splitlines()[-1] == "postrender: said after"


def test_lines_held_past_a_second_are_written(tmp_path, monkeypatch):
    # A run killed outright (a deployer's timeout) loses no more than that.
    # Its next block says whose it is where another run wrote in between.
    import postrender.report as report
    from postrender.report import Reporter

    clock = [100.0]
    monkeypatch.setattr(report, "monotonic", lambda: clock[0])
    log = tmp_path / "log"
    reporter = Reporter(log_file=str(log), stderr=None)
    reporter.open_log()
    assert log.read_text().startswith("--- ")  # at once: a run killed outright still leaves it
    reporter.info("first")
    clock[0] += 0.5
    reporter.info("second")
    assert len(log.read_text().splitlines()) == 1
    clock[0] += 0.6
    reporter.info("third")
    assert log.read_text().splitlines()[1:] == ["postrender: first", "postrender: second", "postrender: third"]
    with open(log, "a") as other:
        other.write("--- 2026-01-01T00:00:00Z postrender 0 (pid 1) ---\npostrender: another run's\n")
    reporter.info("fourth")
    reporter.close()
    tail = log.read_text().splitlines()[-2:]
    assert ", continued)" in tail[0] and tail[1] == "postrender: fourth", tail


@pytest.mark.parametrize("control", [*CONTROLS, "\U000e0001", "\u200b"], ids=repr)
def test_graph_json_writes_what_cannot_be_shown_as_json_escapes(control):
    # json.dumps escapes only below U+0020: bidi controls and line separators
    # in names went out raw, where every other output spells them out
    # (an outside tester). The values read back the same.
    import json

    name, namespace = f"cfg{control}x", f"ns{control}"
    stream = _stream(name, "gone").replace("  name: web\n", f"  name: web\n  namespace: {_yaml_quoted(namespace)}\n")
    stream = stream.replace(f"  name: {_yaml_quoted(name)}\ndata:",
                            f"  name: {_yaml_quoted(name)}\n  namespace: {_yaml_quoted(namespace)}\ndata:", 1)
    result = run_postrender(["graph", "-o", "json"], stream)
    assert result.status == 0, result.stderr
    _assert_clean(result.stdout)
    data = json.loads(result.stdout)
    assert {(c["name"], c["namespace"]) for c in data["configObjects"]} == {(name, namespace)}
    assert any(r["referrer"]["namespace"] == namespace and r["name"] == name for r in data["references"])
