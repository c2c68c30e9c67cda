"""The command line as a Unix tool: inputs, outputs, numbers, help, version.

Shell and terminal cases (FIFOs, closed descriptors, pipes, signals, a
terminal on stdin, completion) run in real shells in tests/integration/shell/test_shell.py.
"""

from __future__ import annotations

import json
import os
import re
import stat
from importlib import metadata
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from conftest import ROOT, run_cli, run_postrender

from postrender import __version__, records
from postrender.cli import COMMANDS, build_parser
from postrender.options import OPTIONS, RenderOptions, parse_size

# Opted in: a ConfigMap nothing references keeps its name otherwise.
CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  labels:\n    postrender.io/versioned: \"true\"\ndata:\n  a: b\n"
DEPLOY = (
    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n"
    "      containers:\n        - name: web\n          envFrom:\n            - configMapRef:\n"
    "                name: {name}\n"
)


def names(stream: str) -> list[str]:
    return [d["metadata"]["name"] for d in YAML(typ="safe").load_all(stream) if d]


# --- inputs --------------------------------------------------------------------


def test_dash_among_files_reads_standard_input_in_its_place(tmp_path):
    first, last = tmp_path / "first.yaml", tmp_path / "last.yaml"
    first.write_text(CM.format(name="first"))
    last.write_text(CM.format(name="last"))
    out = run_postrender([str(first), "-", str(last)], CM.format(name="piped"))
    assert out.status == 0, out.stderr
    assert [n.rsplit("-", 1)[0] for n in names(out.stdout)] == ["first", "piped", "last"]


def test_errors_in_standard_input_among_files_name_it(tmp_path):
    good = tmp_path / "good.yaml"
    good.write_text(CM.format(name="good"))
    out = run_postrender([str(good), "-"], "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x\n")
    assert out.status == 1 and out.stdout == ""
    assert "document 2 (standard input)" in out.stderr


def test_dash_twice_is_a_usage_error(tmp_path):
    out = run_postrender(["-", "-"], CM.format(name="a"))
    assert out.status == 2 and "- (standard input) is named twice" in out.stderr and out.stdout == ""


def test_filename_flag_is_repeatable_and_takes_folders(tmp_path):
    (tmp_path / "dir").mkdir()
    (tmp_path / "dir" / "b.yaml").write_text(CM.format(name="b"))
    (tmp_path / "a.yaml").write_text(CM.format(name="a"))
    (tmp_path / "c.yaml").write_text(CM.format(name="c"))
    out = run_postrender(["-f", str(tmp_path / "a.yaml"), str(tmp_path / "c.yaml"), "--filename",
                          str(tmp_path / "dir"), "-v"])
    assert out.status == 0, out.stderr
    # -f paths first, in order; then the PATH arguments.
    assert [n.rsplit("-", 1)[0] for n in names(out.stdout)] == ["a", "b", "c"]


@pytest.mark.parametrize("command", [[], ["graph", "-o", "json"]], ids=["render", "graph"])
def test_after_a_double_dash_every_argument_is_a_path(tmp_path, command, monkeypatch):
    # A file named like a flag (Argo CD's plugin passes a folder's files
    # after `--`): parse_intermixed_args alone read it as a flag again.
    (tmp_path / "-weird.yaml").write_text(CM.format(name="weird"))
    (tmp_path / "--help").write_text(CM.format(name="flag-named"))
    monkeypatch.chdir(tmp_path)
    out = run_postrender([*command, "-v", "--", "-weird.yaml", "--help"])
    assert out.status == 0, out.stderr
    # Both read as files, the second not the flag it is named after.
    assert "weird" in out.stdout and "flag-named" in out.stdout and "usage" not in out.stdout


def test_flags_after_paths(tmp_path):
    (tmp_path / "a.yaml").write_text(CM.format(name="a"))
    out = run_postrender([str(tmp_path / "a.yaml"), "--mutable", "-n", "shop"])
    assert out.status == 0 and "immutable" not in out.stdout


def test_missing_path_is_a_usage_error(tmp_path):
    out = run_postrender([str(tmp_path / "nope.yaml")])
    assert out.status == 2 and "no such file or folder" in out.stderr


@pytest.mark.parametrize("argv, shows", [
    (["help"], "usage: postrender [render]"),
    (["help", "graph"], "usage: postrender graph"),
    (["help", "diff"], "usage: postrender diff"),
    # Help on help is postrender's own, as helm's and kubectl's (cli62).
    (["help", "help"], "usage: postrender [render]"),
    (["help", "-h"], "usage: postrender [render]"),
    (["help", "--help"], "usage: postrender [render]"),
])
def test_help_is_a_command(tmp_path, monkeypatch, argv, shows):
    # As in helm and kubectl; it read as a file named help (newcomer60).
    monkeypatch.chdir(tmp_path)
    out = run_postrender(argv)
    assert out.status == 0 and out.stdout.startswith(shows), out.stderr


def test_help_on_no_command_says_so(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = run_postrender(["help", "nosuch"])
    assert out.status == 2 and out.stdout == ""
    assert "help nosuch: no such command; the commands are render, graph, diff, gc, version, completion" in out.stderr


def test_help_on_two_commands_is_refused_not_half_read(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = run_postrender(["help", "graph", "diff"])
    assert out.status == 2 and out.stdout == ""
    assert "help takes one command, not graph diff" in out.stderr


def test_a_file_named_help_is_still_read(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "help").write_text(CM.format(name="a"))
    out = run_postrender(["help"])
    assert out.status == 0 and "kind: ConfigMap" in out.stdout


@pytest.mark.parametrize("word, meant", [("grpah", "graph"), ("verison", "version"), ("dif", "diff"),
                                         ("hlep", "help"), ("completions", "completion")])
def test_a_mistyped_command_is_named_as_one(tmp_path, monkeypatch, word, meant):
    monkeypatch.chdir(tmp_path)
    out = run_postrender([word, "x.yaml"])
    assert out.status == 2 and out.stdout == ""
    assert f"{word}: no such command, file or folder; did you mean `postrender {meant}`?" in out.stderr


@pytest.mark.parametrize("word", ["app", "nope.yaml", "dir/graph", "-"])
def test_other_missing_paths_are_missing_paths(tmp_path, monkeypatch, word):
    monkeypatch.chdir(tmp_path)
    out = run_postrender([word], "" if word == "-" else CM.format(name="a"))
    if word == "-":
        assert out.status == 0
        return
    assert out.status == 2 and out.stderr.strip() == f"postrender: error: {word}: no such file or folder"


# --- -o FILE -----------------------------------------------------------------------


def test_output_file_is_written_whole(tmp_path):
    target = tmp_path / "out.yaml"
    out = run_postrender(["-o", str(target)], CM.format(name="a"))
    assert out.status == 0 and out.stdout == ""
    assert names(target.read_text())[0].startswith("a-")
    assert os.listdir(tmp_path) == ["out.yaml"]


def test_output_file_keeps_its_mode_and_is_untouched_on_failure(tmp_path):
    target = tmp_path / "out.yaml"
    target.write_text("previous\n")
    target.chmod(0o640)
    failed = run_postrender(["--output", str(target)], "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {n: 1}\n")
    assert failed.status == 1 and target.read_text() == "previous\n"
    assert sorted(os.listdir(tmp_path)) == ["out.yaml"], "no temporary file left behind"
    assert run_postrender(["--output", str(target)], CM.format(name="a")).status == 0
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert "previous" not in target.read_text()


def test_output_file_through_a_symlink_replaces_the_target(tmp_path):
    (tmp_path / "real.yaml").write_text("old\n")
    (tmp_path / "link.yaml").symlink_to("real.yaml")
    assert run_postrender(["-o", str(tmp_path / "link.yaml")], CM.format(name="a")).status == 0
    assert (tmp_path / "link.yaml").is_symlink()
    assert "ConfigMap" in (tmp_path / "real.yaml").read_text()


def _kill_while_writing(target, signal_number: int) -> list[str]:
    """postrender -o target, killed by the signal while it writes the
    output: what the folder holds then."""
    import signal
    import subprocess
    import sys
    import textwrap

    # The writer pauses half way, in the child, until it is killed.
    script = textwrap.dedent(f"""
        import os, signal, sys, time
        from postrender import cli
        write = cli._write_parts
        def slow(handle, parts):
            parts = list(parts)
            write(handle, parts[: len(parts) // 2])
            handle.flush()
            print("half", flush=True)
            time.sleep(60)
        cli._write_parts = slow
        sys.exit(cli.main(["-o", {str(target)!r}]))
    """)
    stream = "---\n".join(CM.format(name=f"c{i}") for i in range(50))
    child = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    child.stdin.write(stream)
    child.stdin.close()
    assert child.stdout.readline() == "half\n", child.stderr.read()
    child.send_signal(signal_number)
    child.wait(timeout=30)
    return sorted(os.listdir(target.parent))


@pytest.mark.parametrize("signal_name", ["SIGKILL", "SIGQUIT", "SIGUSR1", "SIGALRM"])
def test_a_run_killed_while_it_writes_leaves_no_partial_stream_behind(tmp_path, signal_name):
    # A stream of Secrets half written under a hidden name beside the
    # output, after the OOM killer or a CI timeout, was for `git add -A`
    # to commit. The file has no name until it is whole (O_TMPFILE).
    import signal

    target = tmp_path / "out.yaml"
    target.write_text("previous\n")
    assert _kill_while_writing(target, getattr(signal, signal_name)) == ["out.yaml"]
    assert target.read_text() == "previous\n"


def test_without_unnamed_files_the_output_is_written_under_a_hidden_name(tmp_path, monkeypatch):
    # Where the system or file system makes no O_TMPFILE file: a named
    # temporary file, renamed over the target, removed on failure.
    from postrender import cli

    monkeypatch.setattr(cli, "_unnamed_file", lambda directory: None)
    target = tmp_path / "out.yaml"
    target.write_text("previous\n")
    target.chmod(0o640)
    assert run_postrender(["-o", str(target)], CM.format(name="a")).status == 0
    assert names(target.read_text())[0].startswith("a-") and stat.S_IMODE(target.stat().st_mode) == 0o640
    monkeypatch.setattr(cli, "_write_parts", lambda handle, parts: (_ for _ in ()).throw(OSError(28, "No space left")))
    failed = run_postrender(["-o", str(target)], CM.format(name="b"))
    assert failed.status == 1 and "No space left" in failed.stderr
    assert os.listdir(tmp_path) == ["out.yaml"] and names(target.read_text())[0].startswith("a-")


def test_without_proc_the_output_is_written_under_a_hidden_name(tmp_path, monkeypatch):
    # An unnamed file is given its name through /proc/self/fd: a container
    # without /proc falls back to the named temporary file.
    exists, link = os.path.exists, os.link

    def no_proc_link(source, *args, **kwargs):
        if str(source).startswith("/proc/"):
            raise FileNotFoundError(2, "No such file or directory", source)
        return link(source, *args, **kwargs)

    monkeypatch.setattr(os.path, "exists", lambda p: False if str(p).startswith("/proc/self/fd/") else exists(p))
    monkeypatch.setattr(os, "link", no_proc_link)
    target = tmp_path / "out.yaml"
    assert run_postrender(["-o", str(target)], CM.format(name="a")).status == 0
    assert names(target.read_text())[0].startswith("a-") and os.listdir(tmp_path) == ["out.yaml"]


def test_output_file_keeps_its_group_and_extended_attributes(tmp_path):
    # `> FILE` keeps them; a file renamed over it did not: a manifest shared
    # with one group only became readable by the writer's own group.
    target = tmp_path / "out.yaml"
    target.write_text("previous\n")
    target.chmod(0o640)
    group = next(g for g in (4, 100, 1) if g != os.getegid())
    os.chown(target, -1, group)
    os.setxattr(target, "user.postrender-test", b"kept")
    assert run_postrender(["-o", str(target)], CM.format(name="a")).status == 0
    written = target.stat()
    assert (written.st_gid, stat.S_IMODE(written.st_mode)) == (group, 0o640)
    assert os.getxattr(target, "user.postrender-test") == b"kept"
    assert "previous" not in target.read_text()


def test_a_group_the_writer_cannot_keep_loses_its_permissions(tmp_path, monkeypatch):
    # A user outside the file's group cannot give the new file that group
    # (chown refuses it, as it refuses anyone but root): the group's bits
    # are dropped, not handed to the user's own group.
    target = tmp_path / "out.yaml"
    target.write_text("previous\n")
    target.chmod(0o660)
    group = next(g for g in (4, 100, 1) if g != os.getegid())
    os.chown(target, -1, group)

    def refused(*args):
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "fchown", refused)
    assert run_postrender(["-o", str(target)], CM.format(name="a")).status == 0
    written = target.stat()
    assert (written.st_gid, stat.S_IMODE(written.st_mode)) == (os.getegid(), 0o600)
    assert "previous" not in target.read_text()


def test_output_to_a_missing_folder_fails_in_one_line(tmp_path):
    target = tmp_path / "no" / "out.yaml"
    out = run_postrender(["-o", str(target)], CM.format(name="a"))
    assert out.status == 1 and out.stderr == f"postrender: error: {target}: No such file or directory\n"


def test_output_errors_name_the_path_given():
    # Not the temporary file written beside it, nor nothing at all.
    out = run_postrender(["-o", "/dev/full"], CM.format(name="a"))
    assert out.status == 1 and out.stderr == "postrender: error: /dev/full: No space left on device\n"


def test_an_empty_output_path_is_a_usage_error(tmp_path):
    out = run_postrender(["-o", ""], CM.format(name="a"))
    assert (out.status, out.stdout) == (2, "") and out.stderr.startswith("postrender: error: -o/--output: an empty path")


def test_a_read_only_output_file_is_refused_as_by_the_shell(tmp_path, monkeypatch):
    # `>` refuses a file its user may not write; one renamed over it did
    # not ask. (The test runs as root, who may write anything: the user's
    # answer is given.)
    from postrender import cli

    target = tmp_path / "out.yaml"
    target.write_text("previous\n")
    target.chmod(0o444)
    access = os.access
    monkeypatch.setattr(os, "access", lambda path, mode: False if str(path) == str(target) else access(path, mode))
    done = run_postrender(["-o", str(target)], CM.format(name="a"))
    assert (done.status, done.stderr) == (1, f"postrender: error: {target}: Permission denied\n")
    assert target.read_text() == "previous\n"
    # A writable file in a folder its user may not write: said so.
    monkeypatch.setattr(os, "access", access)
    monkeypatch.setattr(cli, "_unnamed_file", lambda directory: None)
    import tempfile

    def no_new_files(*args, **kwargs):
        raise PermissionError(13, "Permission denied", str(tmp_path / ".out.yaml.x.tmp"))

    monkeypatch.setattr(tempfile, "mkstemp", no_new_files)
    done = run_postrender(["-o", str(target)], CM.format(name="a"))
    assert done.status == 1 and done.stderr == (
        f"postrender: error: {target}: cannot create a file in its folder, to rename over it (Permission denied)\n")
    assert target.read_text() == "previous\n"


def test_output_dash_is_standard_output():
    out = run_postrender(["-o", "-"], CM.format(name="a"))
    assert out.status == 0 and "ConfigMap" in out.stdout


def test_output_to_a_device_is_written_directly(tmp_path):
    proc = run_cli(["-o", "/dev/stdout"], CM.format(name="a"))
    assert proc.status == 0 and names(proc.stdout)[0].startswith("a-")


def test_krm_failure_still_writes_the_resource_list_to_the_output_file(tmp_path):
    target = tmp_path / "out.yaml"
    stream = ("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
              "- {apiVersion: v1, kind: ConfigMap, metadata: {name: x}, data: {n: 1}}\n")
    out = run_postrender(["-o", str(target)], stream)
    assert out.status == 1 and "results" in target.read_text()


# --- numbers -------------------------------------------------------------------------


def test_sizes_as_kubectl_writes_them():
    assert parse_size("256Mi", "--max-bytes") == 256 * 2**20
    assert parse_size("10M", "--max-bytes") == 10**7
    assert parse_size("1Ki", "--max-bytes") == 1024 and parse_size("2k", "--max-bytes") == 2000
    assert parse_size("1048576", "--max-bytes") == 1048576


def test_max_bytes_takes_a_quantity():
    big = CM.format(name="a") * 1
    assert run_postrender(["--max-bytes", "1Ki"], big).status == 0
    refused = run_postrender(["--max-bytes", "10"], big)
    assert refused.status == 1 and "raise it with --max-bytes" in refused.stderr


def test_the_max_bytes_suggested_holds_the_files_read(tmp_path):
    # A regular file's size is known: the limit suggested holds it and the
    # files before it, not merely twice the limit (cli62: 2Mi for 3.7 MB).
    first, second = tmp_path / "a.yaml", tmp_path / "b.yaml"
    first.write_text(CM.format(name="a"))
    second.write_text(CM.format(name="b") + "# " + "x" * (3 << 20) + "\n")
    refused = run_postrender(["--max-bytes", "1Mi", str(first), str(second)], "")
    assert refused.status == 1 and refused.stdout == ""
    suggested = re.search(r"say --max-bytes (\d+)Mi\)", refused.stderr)
    assert suggested and int(suggested.group(1)) << 20 >= first.stat().st_size + second.stat().st_size, refused.stderr
    assert run_postrender(["--max-bytes", suggested.group(1) + "Mi", str(first), str(second)], "").status == 0
    # Through a pipe the size is not known: twice the limit.
    piped = run_postrender(["--max-bytes", "1Mi"], second.read_text())
    assert "say --max-bytes 2Mi)" in piped.stderr, piped.stderr


# Every numeric flag, with every odd way to write a number: usage error, exit 2, one line.
ODD_NUMBERS = ["10**30", str(10**30), "-1", "0", "1.5", "1e3", "", " ", "0x10", "١٢", "1_000", "nan", "9" * 400]


@pytest.mark.parametrize(
    "flag,value",
    [(flag, value) for flag in ("--max-bytes", "--max-depth", "--retain", "-v") for value in ODD_NUMBERS
     if (flag, value) != ("-v", "0")],  # -v=0 is valid: no extra output
)
@pytest.mark.parametrize("command", [[], ["graph"]])
def test_odd_numbers_are_usage_errors(command, flag, value):
    args = [*command, f"{flag}={value}"]
    out = run_postrender(args, CM.format(name="a"))
    assert out.status == 2 and out.stdout == "", (args, out)
    assert out.stderr.count("\n") == 1 and "internal error" not in out.stderr and flag in out.stderr


@pytest.mark.parametrize("value", ["-1", "10**30", str(10**30), "١", "1.5"])
@pytest.mark.parametrize("flag", ["--keep", "--min-age"])
def test_gc_numbers_are_usage_errors_before_any_cluster(flag, value):
    if flag == "--min-age" and value == str(10**30):
        value += "d"
    out = run_postrender(["gc", f"{flag}={value}", "--kubeconfig", "/nonexistent"])
    assert out.status == 2 and "internal error" not in out.stderr and flag in out.stderr, out


def test_max_bytes_ceiling_is_a_usage_error():
    out = run_postrender(["--max-bytes", "2Ti"], CM.format(name="a"))
    assert out.status == 2 and "1Ti" in out.stderr


def test_verbosity_as_kubectl_spells_it():
    stream = CM.format(name="a")
    quiet = run_postrender([], stream)
    assert quiet.status == 0 and quiet.stderr == ""
    for spelling in (["-v"], ["-v=2"], ["-v3"], ["--v=4"], ["--verbose=1"], ["-vv"], ["--verbose"]):
        out = run_postrender(spelling, stream)
        assert out.status == 0 and "renamed ConfigMap/a" in out.stderr, spelling
    silent = run_postrender(["-v=0"], stream)
    assert silent.status == 0 and silent.stderr == ""
    # The last word wins, whichever spelling each is.
    for spelling, said in ((["-v=0", "-v"], True), (["-v", "-v=0"], False), (["-v=2", "-v=0"], False),
                           (["-v=0", "--verbose"], True)):
        out = run_postrender(spelling, stream)
        assert out.status == 0 and ("renamed ConfigMap/a" in out.stderr) is said, spelling


@pytest.mark.parametrize("level", ["100", "2147483647"])
def test_verbosity_takes_any_level_kubectl_takes(level):
    # klog's level is an int32: -v=100 was refused as not from 0 to 99 (cli62).
    out = run_postrender([f"-v={level}"], CM.format(name="a"))
    assert out.status == 0 and "renamed ConfigMap/a" in out.stderr, out
    refused = run_postrender(["-v=2147483648"], CM.format(name="a"))
    assert refused.status == 2 and "from 0 to 2147483647" in refused.stderr, refused


def test_verbosity_applies_to_graph_and_gc_parsing():
    assert run_postrender(["graph", "-v=2"], CM.format(name="a")).status == 0
    gc = build_parser("gc").parse_args(["--verbosity=3"])
    assert gc.verbose == 3


# --- help ------------------------------------------------------------------------------


def test_help_lists_every_render_option():
    out = run_postrender(["--help"])
    assert out.status == 0
    for option in OPTIONS:
        for flag in option.flags:
            assert re.search(rf"(^|[ ,]){re.escape(flag)}\b", out.stdout), flag


@pytest.mark.parametrize("command", ["graph", "diff"])
def test_graph_and_diff_help_list_every_render_option_but_those_that_read_a_cluster(command):
    """graph shows one render's references and diff compares two renders:
    neither reads a cluster, and both refuse --retain. Their help listed
    --retain, --kubeconfig and --context all the same; graph even read the
    cluster for --retain, and showed nothing of what it read."""
    out = run_postrender([command, "--help"])
    assert out.status == 0
    for option in OPTIONS:
        for flag in option.flags:
            listed = re.search(rf"(^|[ ,]){re.escape(flag)}\b", out.stdout) is not None
            assert listed == (not option.cluster), flag
    assert {o.flag for o in OPTIONS if o.cluster} == {"--retain", "--kubeconfig", "--context"}
    assert "Cluster" not in out.stdout
    # Still parsed, so each can say why it refuses --retain, before reading
    # a cluster (there is none here) or any input.
    inputs = ["a.yaml", "b.yaml"] if command == "diff" else ["a.yaml"]
    refused = run_postrender([command, "--retain", "2", "--kubeconfig", "/nowhere", *inputs])
    assert refused.status == 2 and refused.stdout == ""
    assert f"{command}: --retain reads a cluster" in refused.stderr, refused.stderr


def test_top_level_help_is_the_render_help_with_every_command():
    top = run_postrender(["--help"]).stdout
    assert top == run_postrender(["render", "--help"]).stdout
    for command in COMMANDS:
        assert re.search(rf"^  {command.name} ", top, re.M), command.name


@pytest.mark.parametrize("command", [c.name for c in COMMANDS])
def test_every_command_has_examples_and_grouped_flags(command):
    text = run_postrender([command, "--help"]).stdout
    assert "\nExamples:\n" in text and f"postrender {'' if command == 'render' else command}" in text
    assert "\noptions:\n" not in text and "positional arguments" not in text, "flags sit in named groups"


def test_defaults_are_shown():
    text = run_postrender(["--help"]).stdout
    assert "(default: 256Mi)" in text and "(default: 512)" in text and "(default: rename)" in text
    assert "$HELM_NAMESPACE" in text


def test_usage_error_points_to_help():
    out = run_postrender(["--no-such-flag"])
    assert out.status == 2 and "postrender --help" in out.stderr


@pytest.mark.parametrize("argv, abbreviated", [
    (["--version-al"], "--version-al"),  # not --version-all: the stream came back, exit 0
    (["--strat", "annotate"], "--strat"),
    (["--namesp", "prod"], "--namesp"),
    (["graph", "-o", "json", "--name", "prod"], "--name"),
    (["diff", "--show-val", "a.yaml", "b.yaml"], "--show-val"),
    (["gc", "--dry", "-n", "prod"], "--dry"),
])
def test_abbreviated_flags_are_usage_errors(argv, abbreviated):
    """As in kubectl and helm: a flag is spelt whole, so a flag added later
    never changes what a command line meant."""
    out = run_postrender(argv, CM.format(name="a"))
    assert out.status == 2 and out.stdout == ""
    assert f"unrecognized arguments: {abbreviated} " in out.stderr


@pytest.mark.parametrize("namespace", ["BAD NS", "Prod", "-lead", "trail-", "a" * 64, "a.b", "ns_1"])
def test_a_namespace_kubernetes_refuses_is_a_usage_error(namespace):
    """A misspelt namespace would pair no object without one with those that
    state the real one: refused, from the flag and from a plugin config alike."""
    out = run_postrender([f"--namespace={namespace}"], CM.format(name="a"))
    assert out.status == 2 and out.stdout == "" and f"--namespace {namespace!r} is not a valid namespace name" in out.stderr


@pytest.mark.parametrize("key, value, said", [
    ("namespace", "Prod", "namespace 'Prod' is not a valid namespace name"),
    ("scope", "'a b'", "scope 'a b' is not a valid label value"),
])
def test_a_checked_value_names_where_it_was_written(tmp_path, key, value, said):
    """A value refused by its check names its flag, config key and file, as
    every other refused value does (not `--scope` for a config's `scope`)."""
    config = tmp_path / "cfg.yaml"
    config.write_text(f"apiVersion: postrender.io/v1alpha1\nkind: PostRender\nmetadata: {{name: p}}\n{key}: {value}\n")
    out = run_postrender(["--plugin-config", str(config)], CM.format(name="a"))
    assert out.status == 2 and out.stdout == ""
    assert f"--plugin-config {config} (PostRender/p): {said}" in out.stderr
    flag = run_postrender([f"--{key}={value.strip(chr(39))}"], CM.format(name="a"))
    assert flag.status == 2 and f"--{said}" in flag.stderr
    env = run_postrender([], CM.format(name="a"), env={"HELM_NAMESPACE": "Prod"})
    assert env.status == 2 and "$HELM_NAMESPACE 'Prod' is not a valid namespace name" in env.stderr


@pytest.mark.parametrize("argv, said", [
    (["--config", ""], "--config: an empty path"), (["--config="], "--config: an empty path"),
    (["--plugin-config", ""], "--plugin-config: an empty path"), (["--log-file="], "--log-file: an empty path"),
    (["-f", ""], "an empty argument where a file or folder goes"), ([""], "an empty argument where a file"),
    (["graph", ""], "an empty argument where a file"), (["diff", "", "-"], "old: an empty argument"),
    (["gc", "--kubeconfig=", "-n", "x"], "--kubeconfig: an empty path"), (["gc", "--context=", "-n", "x"], "--context: an empty name"),
])
def test_an_empty_path_is_a_usage_error(argv, said):
    """`--config "$CFG"` with CFG unset, Helm's `--post-renderer-args ''`:
    said as such, not read as the current folder ("Is a directory"), a
    file named '' (": no such file"), or for the log as no flag."""
    out = run_postrender(argv, CM.format(name="a"))
    assert out.status == 2 and out.stdout == "", argv
    assert said in out.stderr, out.stderr


def test_a_folder_without_a_manifest_is_a_usage_error(tmp_path):
    """As kubectl refuses it: a mistyped folder rendered as an empty stream,
    exit 0, and a deployer that prunes deletes the app."""
    (tmp_path / "readme.txt").write_text("not a manifest\n")
    (tmp_path / "sub").mkdir()
    out = run_postrender([str(tmp_path)])
    assert out.status == 2 and out.stdout == "" and "a folder without a manifest" in out.stderr
    # A manifest below it is one: a file of comments only renders, empty.
    (tmp_path / "sub" / "empty.yaml").write_text("# nothing yet\n")
    assert run_postrender([str(tmp_path)]).status == 0


@pytest.mark.parametrize("refused", [["--bogus"], ["--namespace=Prod"], ["--retain=0"], ["--strategy=x"]])
def test_a_refused_command_line_is_said_in_the_log_it_names(tmp_path, refused):
    """Helm 4 hides stderr: the log named by --log-file or
    $POSTRENDER_LOG_FILE says a refusal that comes before the command line is
    read whole."""
    by_flag, by_env = tmp_path / "flag.log", tmp_path / "env.log"
    out = run_postrender(["--log-file", str(by_flag), *refused], CM.format(name="a"))
    assert out.status == 2 and out.stdout == ""
    said = out.stderr.strip().splitlines()[-1]
    assert said.startswith("postrender: error:") and said in by_flag.read_text()
    out = run_postrender(refused, CM.format(name="a"), env={"POSTRENDER_LOG_FILE": str(by_env)})
    assert out.status == 2 and said in by_env.read_text()


def test_a_refused_command_line_never_logs_into_a_file_it_names(tmp_path, monkeypatch):
    """Which words of a refused line are inputs, configs or the -o file is
    not known (`-fin.yaml`, `--output=x`): its log is written only where it
    is no such file, one not there yet or a postrender log."""
    monkeypatch.chdir(tmp_path)
    manifest = tmp_path / "in.yaml"
    manifest.write_text(CM.format(name="a"))
    before = manifest.read_bytes()
    for argv in (["--log-file", "in.yaml", "--bogus", "in.yaml"], ["--filename=in.yaml", "--log-file", "in.yaml", "--bogus"],
                 ["-fin.yaml", "--log-file=in.yaml", "--bogus"], ["--output=in.yaml", "--log-file", "in.yaml", "-v=x"],
                 ["--config=in.yaml", "--log-file", "in.yaml", "--bogus"]):
        out = run_postrender(argv)
        assert out.status == 2 and manifest.read_bytes() == before, argv
        assert oct(manifest.stat().st_mode & 0o777) == oct(0o644 & ~_umask()), argv
    out = run_postrender(["--filename=in.yaml", "--bogus"], env={"POSTRENDER_LOG_FILE": "in.yaml"})
    assert out.status == 2 and manifest.read_bytes() == before
    # A flag is no log's name (argparse refuses `--log-file --bogus`): no file named --bogus.
    assert run_postrender(["--log-file", "--bogus", "in.yaml"]).status == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.yaml"]
    # A log already written to is written to again; an empty --log-file= leaves $POSTRENDER_LOG_FILE's.
    run_postrender(["--log-file=run.log", "in.yaml"])
    assert run_postrender(["--log-file=run.log", "--bogus"]).status == 2
    assert "unrecognized arguments: --bogus" in (tmp_path / "run.log").read_text()
    assert run_postrender(["--log-file=", "in.yaml"], env={"POSTRENDER_LOG_FILE": "env.log"}).status == 2
    assert "--log-file: an empty path" in (tmp_path / "env.log").read_text()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_the_log_is_never_a_file_the_run_reads(tmp_path):
    manifest, config = tmp_path / "in.yaml", tmp_path / "specs.yaml"
    manifest.write_text(CM.format(name="a"))
    config.write_text("nameReference: []\n")
    for argv, what in ((["--config", str(config), "--log-file", str(config), str(manifest)], "a --config file"),
                       (["diff", "--log-file", str(manifest), str(manifest), "-"], "diff's OLD")):
        out = run_postrender(argv, CM.format(name="a"))
        assert out.status == 2 and f"is also {what}" in out.stderr, out.stderr
    assert config.read_text() == "nameReference: []\n"


def test_a_valid_namespace_is_taken():
    for namespace in ("prod", "a", "team-1", "9" * 63):
        assert run_postrender(["-n", namespace], CM.format(name="a")).status == 0, namespace


# --- version ----------------------------------------------------------------------------


def test_version_names_the_yaml_parser():
    text = run_postrender(["version"]).stdout
    assert text.startswith(f"postrender {__version__}\n")
    assert f"ruamel.yaml {metadata.version('ruamel.yaml')}" in text
    assert f"ruamel.yaml.clib {metadata.version('ruamel.yaml.clib')}" in text
    assert run_postrender(["--version"]).stdout == text


def test_version_as_json():
    data = json.loads(run_postrender(["version", "-o", "json"]).stdout)
    assert data["postrender"] == __version__ and data["cParser"] is True
    assert data["ruamel.yaml"] == metadata.version("ruamel.yaml")
    assert data["ruamel.yaml.clib"] == metadata.version("ruamel.yaml.clib")
    assert re.fullmatch(r"\d+\.\d+\.\d+", data["libyaml"])


def test_one_version_everywhere():
    """The package, the Helm plugin and the changelog's latest release agree."""
    assert metadata.version("postrender") == __version__
    plugin = YAML(typ="safe").load((ROOT / "plugin.yaml").read_text())
    assert plugin["version"] == __version__
    changelog = (ROOT / "CHANGELOG.md").read_text()
    released = re.findall(r"^## \[(\d[^\]]*)\] - \d{4}-\d{2}-\d{2}$", changelog, re.M)
    assert released and released[0] == __version__


def test_package_metadata_has_license_and_urls():
    meta = metadata.metadata("postrender")
    assert meta["License-Expression"] == "Apache-2.0"
    urls = dict(u.split(", ", 1) for u in meta.get_all("Project-URL"))
    assert {"Homepage", "Issues", "Changelog"} <= set(urls)
    assert "Apache License" in (ROOT / "LICENSE").read_text() and "Version 2.0" in (ROOT / "LICENSE").read_text()


# --- the option table -------------------------------------------------------------------------


def test_every_option_is_a_render_options_field():
    fields = set(records.fields(RenderOptions))
    for option in OPTIONS:
        assert option.field.split(".")[0] in fields, option.field


def test_config_keys_and_flags_set_the_same_field():
    """A PostRender key and its flag give the same RenderOptions."""
    from postrender.cli import parse, render_options
    from postrender.frontends.kustomize_exec import parse as parse_config

    cases = {"namespace": "shop", "strategy": "annotate", "mutable": True, "keepOriginal": True,
             "strict": True, "scope": "web", "keepPrevious": "argocd"}
    config = parse_config({"apiVersion": "postrender.io/v1alpha1", "kind": "PostRender", **cases}, "t")
    argv: list[str] = []
    for option in OPTIONS:
        if option.config in cases:
            value = cases[option.config]
            argv += [option.flag] if value is True else [option.flag, value]
    assert config.apply(RenderOptions()) == render_options(parse(argv))


# --- internal errors ----------------------------------------------------------------------------


def test_an_internal_error_is_one_line_and_its_traceback_only_under_postrender_debug(monkeypatch):
    from postrender.pipeline import render

    def broken(*args, **kwargs):
        raise RuntimeError("input text that must not be shown")

    monkeypatch.setattr(render, "render", broken)
    plain = run_postrender([], CM.format(name="a"))
    assert plain.status == 1 and plain.stdout == ""
    assert plain.stderr.count("\n") == 1 and "internal error (RuntimeError)" in plain.stderr, plain.stderr
    assert "must not be shown" not in plain.stderr
    debug = run_postrender([], CM.format(name="a"), env={"POSTRENDER_DEBUG": "1"})
    assert debug.status == 1 and debug.stdout == ""
    assert "Traceback (most recent call last)" in debug.stderr and "internal error (RuntimeError)" in debug.stderr


def test_running_out_of_memory_is_said_so_not_reported_as_a_bug(monkeypatch):
    from postrender.pipeline import render

    def too_big(*args, **kwargs):
        raise MemoryError()

    monkeypatch.setattr(render, "read", too_big)
    out = run_postrender([], CM.format(name="a"))
    assert (out.status, out.stdout) == (1, "")
    assert out.stderr.startswith("postrender: error: out of memory") and "report" not in out.stderr


def test_version_says_what_is_not_installed(monkeypatch):
    from postrender import version

    monkeypatch.setattr(version, "_distribution", lambda name: None)
    assert "ruamel.yaml not installed\n" in version.describe()


@pytest.mark.parametrize("how", ["the input", "the -o file"])
def test_a_log_file_that_is_an_input_or_the_output_is_a_usage_error(tmp_path, how):
    # The log is appended to and made mode 0600: the input was spoiled (the
    # next run failed on it), or the -o file replaced the log (outside tester).
    stream = tmp_path / "in.yaml"
    stream.write_text(CM.format(name="a"))
    out = tmp_path / "out.yaml"
    log = stream if how == "the input" else out
    result = run_postrender(["-v", "--log-file", str(log), "-o", str(out), str(stream)])
    assert (result.status, result.stdout) == (2, "") and "--log-file" in result.stderr, result.stderr
    assert stream.read_text() == CM.format(name="a") and not out.exists()


@pytest.mark.parametrize("how", ["standard input", "a hard link to the input"])
def test_a_log_file_that_is_the_input_under_another_name_is_a_usage_error(tmp_path, how):
    """`--log-file in.yaml < in.yaml`, or a hard link to an input: the paths
    compared alone let the log be appended to the input."""
    import subprocess
    import sys

    stream = tmp_path / "in.yaml"
    stream.write_text(CM.format(name="a"))
    log = stream
    args = ["--log-file", str(log)]
    if how != "standard input":
        log = tmp_path / "link.yaml"
        os.link(stream, log)
        args = ["--log-file", str(log), str(stream)]
    with open(stream, "rb") as stdin:  # a file as standard input, as the shell's `<` gives it
        result = subprocess.run([sys.executable, "-m", "postrender", *args], stdin=stdin, capture_output=True, text=True,
                                cwd=ROOT)
    assert (result.returncode, result.stdout) == (2, ""), result.stderr
    assert f"is also {'standard input' if how == 'standard input' else 'an input'}" in result.stderr
    assert stream.read_text() == CM.format(name="a")
    # Standard output redirected to the log (`> log`): the log's lines went into the stream.
    with open(stream, "rb") as stdin, open(tmp_path / "out.yaml", "wb") as stdout:
        into_output = subprocess.run([sys.executable, "-m", "postrender", "--log-file", str(tmp_path / "out.yaml")],
                                     stdin=stdin, stdout=stdout, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    assert into_output.returncode == 2 and "is also standard output" in into_output.stderr
    # Standard input that is not read (files named) may be any file.
    with open(tmp_path / "log", "wb"):
        pass
    with open(tmp_path / "log", "rb") as stdin:
        unread = subprocess.run([sys.executable, "-m", "postrender", "--log-file", str(tmp_path / "log"), str(stream)],
                                stdin=stdin, capture_output=True, text=True, cwd=ROOT)
    assert unread.returncode == 0, unread.stderr
    # A log of its own beside an input read from standard input is no error.
    with open(stream, "rb") as stdin:
        fine = subprocess.run([sys.executable, "-m", "postrender", "--log-file", str(tmp_path / "log")], stdin=stdin,
                              capture_output=True, text=True, cwd=ROOT)
    assert fine.returncode == 0, fine.stderr


# Where the cluster is: read only by --retain.
_CLUSTER_FLAGS = [option.flag for option in OPTIONS if option.cluster and option.field != "retain"]
_CONFIG = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {k: v}\n"


@pytest.mark.parametrize("flag", _CLUSTER_FLAGS)
def test_a_cluster_flag_without_retain_is_a_usage_error_not_a_silent_render(flag):
    # `postrender --context prod` alone reads no cluster: rendering as if it
    # had would let the user believe it did.
    out = run_postrender([flag, "x"], _CONFIG)
    assert (out.status, out.stdout) == (2, ""), out.stderr
    assert f"{flag} is read only with --retain" in out.stderr
    assert "Traceback" not in out.stderr


@pytest.mark.parametrize("flag", [*_CLUSTER_FLAGS, "--retain"])
@pytest.mark.parametrize("command", ["graph", "diff"])
def test_graph_and_diff_refuse_every_cluster_flag(tmp_path, command, flag):
    path = tmp_path / "in.yaml"
    path.write_text(_CONFIG)
    files = [str(path)] * (2 if command == "diff" else 1)
    out = run_postrender([command, flag, "1" if flag == "--retain" else "x", *files])
    assert (out.status, out.stdout) == (2, ""), out.stderr
    assert f"{command}: {flag} reads a cluster" in out.stderr


def test_the_cluster_flags_are_there_to_test():
    assert _CLUSTER_FLAGS == ["--kubeconfig", "--context"]


@pytest.mark.parametrize("stream", ["", "# only a comment\n---\n---\n", "apiVersion: v1\nkind: List\nitems: []\n",
                                    '{"apiVersion": "v1", "kind": "List", "items": []}'])
def test_require_objects_refuses_an_input_without_one(stream, tmp_path):
    """An empty stream renders as itself, as Helm's empty charts need; a
    deployer that prunes asks for --require-objects (the Argo CD plugin does)."""
    assert run_postrender([], stream).status == 0
    out = run_postrender(["--require-objects"], stream)
    assert out.status == 1 and out.stdout == "" and "holds no Kubernetes object (--require-objects)" in out.stderr
    config = tmp_path / "cfg.yaml"
    config.write_text("apiVersion: postrender.io/v1alpha1\nkind: PostRender\nmetadata: {name: p}\nrequireObjects: true\n")
    assert run_postrender(["--plugin-config", str(config)], stream).status == 1
    assert run_postrender(["--require-objects"], stream + "\n---\n" + CM.format(name="a")).status == 0


def test_a_chart_folder_given_as_input_says_to_render_it_first(tmp_path):
    # "object has no kind" on Chart.yaml left a newcomer guessing (newcomer60).
    chart = tmp_path / "mychart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: mychart\nversion: 0.1.0\n")
    (chart / "values.yaml").write_text("replicaCount: 1\n")
    (chart / "templates" / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n")
    out = run_postrender([str(chart)])
    assert out.status == 1 and out.stdout == ""
    assert ("Chart.yaml) line 1: object has no kind (Chart.yaml is a Helm chart's file, not a manifest: render the"
            " chart first, `helm template NAME CHART | postrender`") in out.stderr, out.stderr
    (tmp_path / "plain.yaml").write_text("apiVersion: v1\nmetadata: {name: x}\n")
    out = run_postrender([str(tmp_path / "plain.yaml")])
    assert out.status == 1 and out.stderr.rstrip().endswith("object has no kind"), out.stderr


@pytest.mark.parametrize("earlier", [[], ["a.yaml"], ["a.yaml", "ab.yaml"]])
def test_invalid_utf8_in_a_later_file_counts_the_documents_before_it(tmp_path, earlier):
    # It said `document 1` in any file, where every other error counts the
    # stream's documents, earlier files' too (errors60).
    (tmp_path / "a.yaml").write_text(CM.format(name="a"))
    (tmp_path / "ab.yaml").write_text(CM.format(name="b") + "---\n" + CM.format(name="c"))
    (tmp_path / "bad.yaml").write_bytes(CM.format(name="d").encode() + b"---\n" + b"kind: x\xff\n")
    out = run_postrender([*(str(tmp_path / name) for name in earlier), str(tmp_path / "bad.yaml")])
    assert out.status == 1 and out.stdout == ""
    documents = {0: 2, 1: 3, 2: 5}[len(earlier)]
    assert out.stderr.startswith(f"postrender: error: document {documents} ({tmp_path / 'bad.yaml'}) line "), out.stderr


def test_a_folder_holding_a_link_to_nothing_fails_naming_it(tmp_path):
    # It was left out with exit 0, its objects missing (determinism60); kubectl fails too.
    folder = tmp_path / "m"
    folder.mkdir()
    (folder / "a.yaml").write_text(CM.format(name="a"))
    (folder / "b.yaml").symlink_to("../elsewhere/b.yaml")
    out = run_postrender([str(folder)])
    assert out.status == 1 and out.stdout == ""
    assert f"{folder / 'b.yaml'}: a symbolic link to nothing (../elsewhere/b.yaml does not exist)" in out.stderr
    (folder / "c.txt").symlink_to("nowhere.txt")  # not a manifest's name: never read, as before
    (folder / "b.yaml").unlink()
    assert run_postrender([str(folder)]).status == 0


def test_a_folder_that_cannot_be_read_fails_naming_it(tmp_path, monkeypatch):
    # (As root, as tests may run, no mode makes a folder unreadable: os.scandir says so instead.)
    folder = tmp_path / "m"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.yaml").write_text(CM.format(name="a"))
    (folder / "sub" / "b.yaml").write_text(CM.format(name="b"))
    real = os.scandir

    def scandir(path):
        if os.fspath(path).endswith("sub"):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    out = run_postrender([str(folder)])
    assert out.status == 1 and out.stdout == ""
    assert f"{folder / 'sub'}: Permission denied (a folder of the input that cannot be read)" in out.stderr


def test_a_folder_is_read_in_kubectls_order_whatever_the_locale(tmp_path):
    # By the names' bytes, folder by folder: a name that is no UTF-8 sorted
    # by the locale's reading of it (determinism60).
    folder = tmp_path / "ord"
    (folder / "sub").mkdir(parents=True)
    names = [b"a-c.yaml", b"a.yaml", b"r\x80.yaml", b"r\xc3\xa9.yaml", b"sub/b.yaml", b"Z.yaml"]
    for i, name in enumerate(names):
        (folder / os.fsdecode(name)).write_text(CM.format(name=f"c{i}"))
    out = run_postrender([str(folder)])
    assert out.status == 0, out.stderr
    order = re.findall(r"^  name: (c\d)", out.stdout, re.M)
    expected = sorted(range(len(names)), key=lambda i: tuple(names[i].split(b"/")))
    assert order == [f"c{i}" for i in expected] == ["c5", "c0", "c1", "c2", "c3", "c4"]


def test_a_json_file_after_another_input_is_told_why_its_escapes_are_refused(tmp_path):
    # kubectl reads each file as a stream of its own; postrender writes one,
    # which a JSON file given second does not start (oracle60b).
    (tmp_path / "a.yaml").write_text(CM.format(name="a"))
    (tmp_path / "b.json").write_text('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b"},"data":{"k":"x\\/y"}}\n')
    out = run_postrender([str(tmp_path / "a.yaml"), str(tmp_path / "b.json")])
    assert out.status == 1 and out.stdout == ""
    assert out.stderr.rstrip().endswith("write / instead (postrender writes all its inputs as one stream, which only"
                                        " the first input starts: give that file first, or run postrender on it alone)")
    assert run_postrender([str(tmp_path / "b.json"), str(tmp_path / "a.yaml")]).status == 0
    # Within one stream the note would not help: not said.
    joined = run_postrender([], (tmp_path / "a.yaml").read_text() + "---\n" + (tmp_path / "b.json").read_text())
    assert joined.status == 1 and joined.stderr.rstrip().endswith("write / instead")


def test_a_file_named_only_by_its_extension_is_a_manifest(tmp_path):
    # `.yaml`: Go's filepath.Ext (kubectl's) says `.yaml`, Python's suffix ""; it was left out (review60b).
    folder = tmp_path / "d"
    folder.mkdir()
    (folder / ".yaml").write_text(CM.format(name="hidden"))
    (folder / "app.yaml").write_text(CM.format(name="app"))
    out = run_postrender([str(folder)])
    assert out.status == 0, out.stderr
    assert re.findall(r"^  name: (\w+)", out.stdout, re.M) == ["hidden", "app"]


def test_a_link_to_a_folder_named_as_a_manifest_fails(tmp_path):
    # kubectl takes it for a file and fails to read it ("is a directory"); it was skipped.
    folder = tmp_path / "d"
    (folder / "sub").mkdir(parents=True)
    (folder / "app.yaml").write_text(CM.format(name="app"))
    (folder / "more.yaml").symlink_to("sub")
    out = run_postrender([str(folder)])
    assert out.status == 1 and out.stdout == ""
    assert f"{folder / 'more.yaml'}: a symbolic link to a folder, named as a manifest" in out.stderr


# --- a path that was meant as something else ------------------------------------------------


@pytest.mark.parametrize("argv,write", [
    (["--keep-original", "none"], "--keep-original=none"),
    (["--keep-original", "all", "in.yaml"], "--keep-original=all"),
    (["graph", "--keep-original", "secrets"], "--keep-original=secrets"),
    (["-v", "1"], "-v=1"),
    (["--verbose", "2"], "--verbose=2"),
])
def test_a_value_written_apart_from_its_optional_value_flag_says_how_to_write_it(tmp_path, monkeypatch, argv,
                                                                                   write):
    # "none: no such file or folder", and nothing more (cli62).
    monkeypatch.chdir(tmp_path)
    (tmp_path / "in.yaml").write_text(CM.format(name="a"))
    out = run_postrender(argv, CM.format(name="a"))
    assert out.status == 2 and out.stdout == "", out
    value = write.split("=")[1]
    assert out.stderr == f"postrender: error: {value}: no such file or folder; {write.split('=')[0]} takes its " \
                         f"value only after =: write {write}\n"


def test_such_a_word_that_is_a_file_is_read(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "none").write_text(CM.format(name="a"))
    out = run_postrender(["--keep-original", "none"])
    assert out.status == 0 and "kind: ConfigMap" in out.stdout, out


@pytest.mark.parametrize("argv,hint", [
    (["-v", "graph", "in.yaml"], "postrender graph -v ..."),
    (["--strategy", "annotate", "diff", "a", "b"], "postrender diff --strategy annotate ..."),
    # A command that takes no render flags is not handed them (review62b).
    (["--keep-original=none", "version"], "postrender version ..."),
    (["in.yaml", "gc"], "postrender gc ..."),
])
def test_a_command_after_flags_says_the_command_goes_first(tmp_path, monkeypatch, argv, hint):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "in.yaml").write_text(CM.format(name="a"))
    out = run_postrender(argv, CM.format(name="a"))
    word = next(w for w in argv[1:] if w in ("graph", "diff", "version", "gc"))
    assert out.status == 2 and out.stderr == (
        f"postrender: error: {word}: no such file or folder; a command goes first: {hint}\n"), out


@pytest.mark.parametrize("argv", [["render", "graph"], ["graph", "-v", "diff"]])
def test_a_command_named_after_another_is_a_missing_file_only(tmp_path, monkeypatch, argv):
    # A command came first: the later word is a path, not a command to move
    # before it (review62b: `graph render` was told to run `postrender render`).
    monkeypatch.chdir(tmp_path)
    out = run_postrender(argv, CM.format(name="a"))
    assert out.status == 2 and out.stderr == f"postrender: error: {argv[-1]}: no such file or folder\n", out
