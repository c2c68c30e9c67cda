"""postrender as shells run it: process substitution, FIFOs, closed and odd
descriptors, pipes that close, a full disk, signals, a terminal on stdin,
and completion in real bash, zsh and fish (terminals are pseudo-terminals)."""

from __future__ import annotations

import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import fcntl
import time
from pathlib import Path

import pytest

from conftest import ROOT, require_tool

BIN = Path(sys.executable).parent
EXE = str(BIN / "postrender")
# Opted in: a ConfigMap nothing references keeps its name otherwise.
CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  labels: {{postrender.io/versioned: \"true\"}}\ndata:\n  a: b\n"
# A reference to a ConfigMap not in the stream: a warning on stderr.
WARNS = CM.format(name="cfg") + (
    "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n"
    "    envFrom:\n    - configMapRef:\n        name: missing\n"
)


def env() -> dict[str, str]:
    return {**os.environ, "PATH": f"{BIN}:{os.environ['PATH']}", "POSTRENDER_LOG_FILE": ""}


def bash(script: str, stdin: bytes | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    shell = require_tool("bash")
    return subprocess.run([shell, "-c", "set -o pipefail\n" + script], input=stdin, capture_output=True,
                          env=env(), cwd=cwd, timeout=60)


@pytest.fixture
def cm(tmp_path) -> Path:
    path = tmp_path / "cm.yaml"
    path.write_text(CM.format(name="cfg"))
    return path


def _names(text: str) -> list[str]:
    return re.findall(r"^  name: (\S+)", text, re.M)


# --- inputs ----------------------------------------------------------------------


def test_process_substitution(cm):
    out = bash(f"postrender <(cat {cm}) <(sed s/cfg/other/ {cm})")
    assert out.returncode == 0, out.stderr
    assert [n.rsplit("-", 1)[0] for n in _names(out.stdout.decode())] == ["cfg", "other"]


def test_fifo(tmp_path, cm):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    out = bash(f"cat {cm} > {fifo} & postrender {fifo}")
    assert out.returncode == 0 and _names(out.stdout.decode())[0].startswith("cfg-"), out.stderr


def test_dash_among_files_in_a_pipe(tmp_path, cm):
    out = bash(f"sed s/cfg/piped/ {cm} | postrender {cm} -")
    assert out.returncode == 0, out.stderr
    assert [n.rsplit("-", 1)[0] for n in _names(out.stdout.decode())] == ["cfg", "piped"]


def test_dev_stdin(cm):
    out = bash(f"postrender /dev/stdin < {cm}")
    assert out.returncode == 0 and out.stdout


# --- descriptors in odd states: usage errors (exit 2), never an internal error ---------


@pytest.mark.parametrize(
    "redirect,message",
    [
        ("<&-", "standard input is closed"),
        ("0>{tmp}/w", "standard input: Bad file descriptor"),
        (">&-", "standard output is closed"),
        ("1</dev/null", "standard output is not open for writing"),
    ],
)
def test_odd_standard_descriptors_are_usage_errors(tmp_path, redirect, message):
    out = bash(f"postrender {redirect.format(tmp=tmp_path)}")
    assert out.returncode == 2, out
    assert out.stderr.decode() == f"postrender: error: {message}" + out.stderr.decode().split(message, 1)[1]
    assert out.stderr.count(b"\n") == 1 and b"internal error" not in out.stderr


def test_closed_stdin_is_fine_when_files_are_named(cm):
    out = bash(f"postrender {cm} <&-")
    assert out.returncode == 0 and out.stdout


def test_closed_stderr_keeps_diagnostics_out_of_the_stream(tmp_path):
    (tmp_path / "in.yaml").write_text(WARNS)
    normal = bash(f"postrender {tmp_path}/in.yaml")
    assert b"warning" in normal.stderr
    closed = bash(f"postrender -v {tmp_path}/in.yaml 2>&-")
    assert closed.returncode == 0 and closed.stdout == normal.stdout


def test_closed_pipe_ends_quietly(tmp_path):
    (tmp_path / "big.yaml").write_text("---\n".join(CM.format(name=f"c{i}") for i in range(4000)))
    out = bash(f'postrender {tmp_path}/big.yaml | head -1; echo "status ${{PIPESTATUS[0]}}" >&2')
    assert out.stdout == b"apiVersion: v1\n"
    assert out.stderr == b"status 141\n", out.stderr


# 2000 documents that render fine (far more than a pipe holds), then one whose
# edit is refused only when the edits are put together, the last check.
LATE_FAILURE = "---\n".join([*(CM.format(name=f"c{i}") for i in range(2000)), (
    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n"
    "      containers:\n      - name: app\n        image: nginx\n      volumes:\n      - name: c\n"
    "        configMap:\n          name: &c c0\n      hostname: *c\n")])


def test_a_late_failure_leaves_stdout_empty(tmp_path):
    """The stream is written part by part, but only once every document is
    known to be fine: a pipe reader never sees the documents before the bad one."""
    (tmp_path / "in.yaml").write_text(LATE_FAILURE)
    out = bash(f"postrender < {tmp_path}/in.yaml | wc -c")
    assert out.returncode == 1 and out.stdout.strip() == b"0"
    assert out.stderr.startswith(b"postrender: error: document 2001 (Deployment/web)"), out.stderr
    assert out.stderr.count(b"\n") == 1, out.stderr


def test_a_late_failure_leaves_the_output_file_as_it_was(tmp_path):
    (tmp_path / "in.yaml").write_text(LATE_FAILURE)
    (tmp_path / "out.yaml").write_text("before\n")
    out = bash(f"postrender {tmp_path}/in.yaml -o {tmp_path}/out.yaml")
    assert out.returncode == 1 and b"document 2001" in out.stderr
    assert (tmp_path / "out.yaml").read_text() == "before\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.yaml", "out.yaml"]  # no temporary file left


def test_help_into_a_closed_pipe_ends_quietly():
    out = bash('postrender --help | head -1; echo "status ${PIPESTATUS[0]}" >&2')
    assert out.stdout.startswith(b"usage: postrender") and out.stderr in (b"status 0\n", b"status 141\n")


def test_full_disk_is_one_line(cm):
    out = bash(f"postrender {cm} > /dev/full")
    assert out.returncode == 1
    assert out.stderr == b"postrender: error: standard output: No space left on device\n"


def test_full_disk_with_output_file_leaves_nothing(tmp_path, cm):
    out = bash(f"postrender {cm} -o /dev/full")
    assert out.returncode == 1 and out.stderr.count(b"\n") == 1 and b"No space left" in out.stderr


def test_stream_is_utf8_whatever_the_locale(tmp_path):
    (tmp_path / "in.yaml").write_text(CM.format(name="cfg").replace("a: b", "a: grüße ✓"), encoding="utf-8")
    utf8 = bash(f"postrender {tmp_path}/in.yaml")
    for setting in ("PYTHONIOENCODING=latin-1", "LC_ALL=C", "PYTHONIOENCODING=ascii LC_ALL=C"):
        other = bash(f"{setting} postrender {tmp_path}/in.yaml")
        assert other.returncode == 0 and other.stdout == utf8.stdout, setting


# --- signals ------------------------------------------------------------------------


def _wait_until_reading_stdin(pid: int) -> None:
    """Until the process blocks reading fd 0 (signal handlers are set by then)."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            syscall = Path(f"/proc/{pid}/syscall").read_text()
            wchan = Path(f"/proc/{pid}/wchan").read_text()
        except OSError:
            syscall = wchan = ""
        if syscall.startswith("0 0x0 ") or "pipe_read" in wchan:
            return
        time.sleep(0.05)
    raise AssertionError("postrender never waited on standard input")


@pytest.mark.parametrize("signum,status,why", [
    (signal.SIGINT, 130, ""), (signal.SIGTERM, 143, ""), (signal.SIGHUP, 129, ""),
    (signal.SIGXCPU, 152, " (the CPU time limit, RLIMIT_CPU or ulimit -t, was reached)"),
])
def test_signals_end_with_128_plus_n_and_one_line(tmp_path, signum, status, why):
    log = tmp_path / "log"
    proc = subprocess.Popen([EXE, "--log-file", str(log)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env())
    try:
        _wait_until_reading_stdin(proc.pid)
        proc.send_signal(signum)
        stdout, stderr = proc.communicate(timeout=20)
    finally:
        proc.kill()
    name = signal.Signals(signum).name
    assert proc.returncode == status
    assert stdout == b"" and stderr == f"postrender: error: interrupted by {name}{why}\n".encode()
    assert f"interrupted by {name}{why}" in log.read_text()


# --- a terminal on standard input ------------------------------------------------------


class Terminal:
    """A program on a pseudo-terminal, as a person at a keyboard runs it."""

    def __init__(self, argv: list[str], cwd: Path | None = None, extra_env: dict[str, str] | None = None):
        pid, fd = pty.fork()
        if pid == 0:  # the child: the terminal is its stdin, stdout and stderr
            if cwd:
                os.chdir(cwd)
            os.execve(argv[0], argv, {**env(), "TERM": "xterm", **(extra_env or {})})
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 200, 0, 0))
        self.pid, self.fd, self.screen = pid, fd, ""

    def send(self, text: str) -> None:
        os.write(self.fd, text.encode())

    def expect(self, pattern: str, timeout: float = 20) -> str:
        deadline = time.monotonic() + timeout
        while not re.search(pattern, self.screen):
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([self.fd], [], [], remaining)[0]:
                raise AssertionError(f"{pattern!r} never showed; screen:\n{self.screen}")
            try:
                data = os.read(self.fd, 65536)
            except OSError:  # the program ended and closed the terminal
                data = b""
            if not data:
                raise AssertionError(f"{pattern!r} never showed before the end; screen:\n{self.screen}")
            # Plain text: no escape sequences, no carriage returns or backspaces.
            text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[=>]", "", data.decode("utf-8", "replace"))
            self.screen += re.sub(r"[\x00-\x08\x0b-\x1f]", "", text)
        return self.screen

    def status(self, timeout: float = 20) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            # Drain output so the child never blocks writing to the terminal.
            if select.select([self.fd], [], [], 0.05)[0]:
                try:
                    self.screen += os.read(self.fd, 65536).decode("utf-8", "replace")
                except OSError:
                    pass
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                return os.waitstatus_to_exitcode(status)
        os.kill(self.pid, signal.SIGKILL)
        raise AssertionError(f"still running; screen:\n{self.screen}")

    def close(self) -> None:
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
        os.close(self.fd)


@pytest.fixture
def terminal():
    opened: list[Terminal] = []

    def start(argv: list[str], **kw) -> Terminal:
        opened.append(Terminal(argv, **kw))
        return opened[-1]

    yield start
    for t in opened:
        t.close()


def test_no_input_on_a_terminal_says_what_is_expected(terminal):
    t = terminal([EXE])
    t.expect(r"standard input is a terminal")
    assert t.status() == 2
    assert "helm template my-app ./chart | postrender" in t.screen and "Traceback" not in t.screen


def test_graph_on_a_terminal_too(terminal):
    t = terminal([EXE, "graph"])
    t.expect(r"standard input is a terminal")
    assert t.status() == 2


def test_dash_reads_what_is_typed(terminal):
    t = terminal([EXE, "-"])
    t.expect("end with Ctrl-D")
    t.send(CM.format(name="typed").replace("\n", "\r") + "\x04")
    t.expect(r"name: typed-\w{10}")
    assert t.status() == 0


def test_ctrl_c_at_the_terminal(terminal):
    t = terminal([EXE, "-"])
    t.expect("end with Ctrl-D")
    # Press it once postrender waits in read(): CPython sees a signal that
    # lands in the few instructions between its last check and the read()
    # call only when read() returns, which at a terminal is the next line.
    # No hand is that fast; a test right after the prompt is.
    _wait_until_reading_stdin(t.pid)
    t.send("\x03")
    t.expect("interrupted by SIGINT")
    assert t.status() == 130 and "Traceback" not in t.screen


# --- completion in real shells ------------------------------------------------------------


def _script(shell: str, tmp_path: Path) -> Path:
    path = tmp_path / f"postrender.{shell}"
    out = subprocess.run([EXE, "completion", shell], capture_output=True, check=True, env=env())
    path.write_bytes(out.stdout)
    return path


BASH_CASES = [
    (["postrender", "gr"], ["graph"]),
    (["postrender", "--stra"], ["--strategy"]),
    (["postrender", "--strategy", "an"], ["annotate"]),
    (["postrender", "--strategy", "=", "re"], ["rename"]),
    (["postrender", "--keep-previous", ""], ["argocd", "flux", "helm"]),
    (["postrender", "graph", "-o", ""], ["table", "json", "dot", "mermaid"]),
    (["postrender", "graph", "--keep-or"], ["--keep-original"]),
    (["postrender", "completion", ""], ["bash", "zsh", "fish"]),
    (["postrender", "version", "--out"], ["--output"]),
    (["postrender", "gc", "--min"], ["--min-age"]),
    (["postrender", "-f", "fix"], ["fixtures"]),
    (["postrender", "--config", "pyp"], ["pyproject.toml"]),
    # --keep-original takes its mode only as --keep-original=MODE: a word
    # after it is a path, so no mode is offered there (it failed as a file).
    (["postrender", "--keep-original", "=", "se"], ["secrets"]),
    (["postrender", "--keep-original", "pyp"], ["pyproject.toml"]),
]


def test_bash_completion(tmp_path):
    script = _script("bash", tmp_path)
    root = ROOT
    lines = []
    for words, _ in BASH_CASES:
        quoted = " ".join(f"'{w}'" for w in words)
        lines.append(f'COMP_WORDS=({quoted}); COMP_CWORD={len(words) - 1}; COMPREPLY=(); _postrender; '
                     'echo "${COMPREPLY[*]}"')
    out = bash(f"source {script}\n" + "\n".join(lines), cwd=root)
    assert out.returncode == 0, out.stderr
    got = out.stdout.decode().splitlines()
    for (words, expected), line in zip(BASH_CASES, got, strict=True):
        assert sorted(line.split()) == sorted(expected), (words, line)


def test_bash_completion_is_registered(tmp_path):
    out = bash(f"source {_script('bash', tmp_path)}; complete -p postrender")
    assert out.stdout.strip() == b"complete -F _postrender postrender"


def test_fish_completion(tmp_path):
    fish = require_tool("fish")
    script = _script("fish", tmp_path)
    cases = {
        "postrender --strat": {"--strategy"},
        "postrender --strategy ": {"rename", "annotate"},
        "postrender gr": {"graph"},
        "postrender graph -o ": {"table", "json", "dot", "mermaid"},
        "postrender graph --keep-pre": {"--keep-previous"},
        "postrender completion ": {"bash", "zsh", "fish"},
        "postrender gc --ke": {"--keep"},
        "postrender --keep-original=s": {"--keep-original=secrets"},
    }
    commands = "; ".join(f"echo '#'; complete -C '{line}'" for line in cases)
    out = subprocess.run([fish, "--no-config", "-c", f"source {script}; {commands}"], capture_output=True,
                         env=env(), timeout=60)
    assert out.returncode == 0, out.stderr
    answers = out.stdout.decode().split("#\n")[1:]
    for (line, expected), answer in zip(cases.items(), answers, strict=True):
        got = {row.split("\t")[0] for row in answer.splitlines() if row}
        assert expected <= got, (line, got)
        if line == "postrender --strat":
            assert got == {"--strategy", "--strict"} - ({"--strict"} - got)


def test_fish_describes_each_value_by_itself(tmp_path):
    """fish shows a flag's description beside each of its values unless a
    value has its own: `annotate` read "rename: version ConfigMaps and
    Secrets by content", and `dot` "table, json" (newcomer60)."""
    fish = require_tool("fish")
    script = _script("fish", tmp_path)
    lines = ["postrender --strategy ", "postrender --strategy=", "postrender graph -o ", "postrender --keep-original="]
    commands = "; ".join(f"echo '#'; complete -C '{line}'" for line in lines)
    out = subprocess.run([fish, "--no-config", "-c", f"source {script}; {commands}"], capture_output=True,
                         env=env(), timeout=60)
    assert out.returncode == 0, out.stderr
    answers = [dict(row.partition("\t")[::2] for row in answer.splitlines() if row)
               for answer in out.stdout.decode().split("#\n")[1:]]
    assert answers[0] == {"rename": "version ConfigMaps and Secrets by content",
                          "annotate": "keep names, roll pod templates by a postrender.io/config-hash annot..."}
    assert answers[1] == {f"--strategy={k}": v for k, v in answers[0].items()}
    assert answers[2] == {"table": "", "json": "with the render's warnings", "dot": "Graphviz", "mermaid": ""}
    assert answers[3]["--keep-original=auto"] == "Secrets, for Helm `lookup`"
    assert answers[3]["--keep-original=none"] == ""  # not its "(default: auto)"


@pytest.mark.parametrize(
    "typed,shows",
    [
        ("postrender --strat\t", r"postrender --strategy="),
        ("postrender --strategy=\t\t", r"annotate.*rename|rename.*annotate"),
        ("postrender gra\t", r"postrender graph"),
        ("postrender graph -o \t\t", r"mermaid"),
        ("postrender completion \t\t", r"fish"),
        ("postrender gc --skip\t", r"--skip-unavailable"),
        ("postrender --keep-original=se\t", r"postrender --keep-original=secrets"),
    ],
)
def test_zsh_completion(tmp_path, terminal, typed, shows):
    zsh = require_tool("zsh")
    script = _script("zsh", tmp_path)
    t = terminal([zsh, "-f", "-i"], cwd=tmp_path, extra_env={"PS1": "READY> ", "HOME": str(tmp_path)})
    t.send(f"autoload -U compinit && compinit -u -D && source {script} && echo LOADED\r")
    t.expect(r"LOADED\n")
    t.send(typed)
    t.expect(shows)
    t.send("\x03")
