"""postrender learns Helm's namespace, release and cluster from Helm's
command line and environment (postrender/helmcontext.py).

The flag tables are checked against the real helm 3.17 and 4.1; detection
runs under both real Helms through a probe post-renderer, directly and
through a shell wrapper; the rules themselves run on a fake process table.
"""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from conftest import require_tool
from manifests import CHART, tool_env
from postrender import helmcontext
from postrender.errors import UsageError
from postrender.helmcontext import HelmContext, ProcFS, PsTable, detect, fill, parse_command_line, parse_procargs2
from postrender.options import RenderOptions

HELMS = [pytest.param("helm3", id="helm3"), pytest.param("helm4", id="helm4")]
_FLAG_LINE = re.compile(r"^\s+(?:-(\w), )?--([\w-]+)(?: (\S+))?")


def _help_flags(helm: str, *command: str) -> dict[str, bool]:
    """Flag name -> takes a value without `=`, as `helm --help` lists them."""
    text = subprocess.run([helm, *command, "--help"], capture_output=True, text=True, check=True).stdout
    flags: dict[str, bool] = {}
    for line in text.splitlines():
        match = _FLAG_LINE.match(line)
        if match:
            kind = match.group(3)
            # `string[="client"]`: the value is optional, so it is only ever given with `=`.
            flags[match.group(2)] = bool(kind) and "[=" not in kind
    return flags


@pytest.mark.parametrize("binary", HELMS)
@pytest.mark.parametrize("command", helmcontext.COMMANDS)
def test_flag_tables_match_the_real_helm(binary, command):
    helm = require_tool(binary)
    listed = _help_flags(helm, command)
    assert "namespace" in listed and "post-renderer" in listed
    for name, takes in listed.items():
        assert helmcontext._takes_value(name, command) is takes, (binary, command, name)
    shorthand = subprocess.run([helm, command, "--help"], capture_output=True, text=True).stdout
    for short, long in re.findall(r"^\s+-(\w), --([\w-]+)", shorthand, re.M):
        assert helmcontext._SHORT[short] == long


@dataclass
class FakeProcesses:
    """pid -> (parent, argv, environ, cwd)."""

    table: dict[int, tuple[int, list[str] | None, dict[str, str] | None, str | None]] = field(default_factory=dict)
    exact: bool = True

    def parent(self, pid):
        return self.table[pid][0] if pid in self.table else None

    def argv(self, pid):
        return self.table[pid][1] if pid in self.table else None

    def environ(self, pid):
        return self.table[pid][2] if pid in self.table else None

    def cwd(self, pid):
        return self.table[pid][3] if pid in self.table else None


def _under(*chain: list[str] | None, env: dict[str, str] | None = None, cwd: str = "/work") -> FakeProcesses:
    """postrender (pid 100) under chain[0] (pid 101), under chain[1], ..."""
    table = {100: (101, ["postrender"], {}, cwd)}
    for i, argv in enumerate(chain):
        table[101 + i] = (102 + i, argv, dict(env or {}), cwd)
    table[101 + len(chain)] = (1, ["/sbin/init"], {}, "/")
    return FakeProcesses(table)


def _detect(*chain, env=None, our_env=None, cwd="/work"):
    return detect(our_env if our_env is not None else dict(env or {}), _under(*chain, env=env, cwd=cwd), 100)


def _helm(*args: str) -> list[str]:
    return ["/usr/local/bin/helm", *args]


@pytest.mark.parametrize(
    "argv,namespace,release,context,kubeconfig",
    [
        (_helm("upgrade", "--install", "web", "./chart", "-n", "shop", "--post-renderer", "pr"),
         "shop", "web", None, None),
        (_helm("-nshop", "install", "web", "./chart", "--post-renderer=pr", "--kube-context", "live"),
         "shop", "web", "live", None),
        (_helm("template", "web", "./chart", "--namespace=shop", "-f", "v.yaml", "--set", "a=b,c=d",
               "--post-renderer", "pr", "--post-renderer-args", "--retain=2", "--kubeconfig", "kc"),
         "shop", "web", None, "/work/kc"),
        (_helm("template", "./chart", "-n=shop", "--dry-run", "--wait", "--post-renderer", "pr"),
         "shop", "release-name", None, None),
        (_helm("upgrade", "-in", "shop", "web", "./chart", "--post-renderer", "pr", "--", "--x"),
         "shop", None, None, None),  # three arguments after --: not NAME CHART
        (_helm("install", "./chart", "-g", "-n", "shop", "--post-renderer", "pr"), "shop", None, None, None),
        (_helm("install", "./chart", "--generate-name=true", "-n", "shop", "--post-renderer", "pr"),
         "shop", None, None, None),
    ],
)
def test_command_line_with_helms_flag_rules(argv, namespace, release, context, kubeconfig):
    found = _detect(argv)
    assert found is not None and found.major == 3 and found.pid == 101
    assert (found.namespace, found.release, found.context, found.kubeconfig) == (namespace, release, context, kubeconfig)
    assert found.doubt is None


def test_values_that_look_like_flags_are_values():
    line = parse_command_line(_helm("template", "n", "c", "--post-renderer-args", "-n", "--set", "--namespace=x"))
    assert line.doubt is None and "namespace" not in line.values
    assert line.values["post-renderer-args"] == "-n" and line.values["set"] == "--namespace=x"


def test_an_unknown_flag_stops_the_reading():
    line = parse_command_line(_helm("template", "--frobnicate", "n", "c", "-n", "x"))
    assert line.doubt and "--frobnicate" in line.doubt
    found = _detect(_helm("template", "--frobnicate", "n", "c", "-n", "x", "--post-renderer", "p"))
    assert found.doubt and found.namespace is None and found.release is None
    # With `=` it cannot swallow a word: harmless.
    found = _detect(_helm("template", "--frobnicate=1", "n", "c", "-n", "x", "--post-renderer", "p"))
    assert found.doubt is None and (found.namespace, found.release) == ("x", "n")


def test_environment_precedence_as_helm_has_it(tmp_path):
    kubeconfig = tmp_path / "config"
    kubeconfig.write_text(
        "apiVersion: v1\nkind: Config\ncurrent-context: dead\ncontexts:\n"
        "- name: dead\n  context: {cluster: a, user: a, namespace: from-current}\n"
        "- name: live\n  context: {cluster: b, user: b, namespace: from-live}\n"
        "- name: bare\n  context: {cluster: b, user: b}\n"
    )
    base = {"KUBECONFIG": str(kubeconfig), "HOME": str(tmp_path)}
    argv = _helm("template", "web", "./chart", "--post-renderer", "p")
    assert _detect(argv, env=base).namespace == "from-current"
    assert _detect(argv, env={**base, "HELM_KUBECONTEXT": "live"}).namespace == "from-live"
    assert _detect(argv, env={**base, "HELM_KUBECONTEXT": "bare"}).namespace == "default"
    assert _detect(argv, env={**base, "HELM_NAMESPACE": "env"}).namespace == "env"
    assert _detect([*argv, "-n", "flag"], env={**base, "HELM_NAMESPACE": "env"}).namespace == "flag"
    live = _detect([*argv, "--kube-context", "live"], env={**base, "HELM_KUBECONTEXT": "bare"})
    assert (live.namespace, live.context) == ("from-live", "live")
    # --kubeconfig replaces $KUBECONFIG, relative to Helm's working directory.
    other = tmp_path / "other"
    other.write_text("contexts: [{name: dead, context: {namespace: from-other}}]\ncurrent-context: dead\n")
    found = _detect([*argv, "--kubeconfig", "other"], env=base, cwd=str(tmp_path))
    assert (found.kubeconfig, found.namespace) == (str(other), "from-other")
    # No kubeconfig at all: "default".
    assert _detect(argv, env={"HOME": str(tmp_path / "none")}).namespace == "default"
    # An unreadable kubeconfig is a doubt, not a guess.
    broken = tmp_path / "broken"
    broken.write_text("contexts: [unclosed\n")
    assert "cannot be read" in _detect(argv, env={"KUBECONFIG": str(broken)}).doubt


def test_helm_4_is_told_apart_by_its_plugin_environment():
    argv = _helm("template", "web", "./chart", "--post-renderer", "postrender")
    plugin_env = {"HELM_PLUGIN_NAME": "postrender", "HELM_PLUGIN_DIR": "/p"}
    assert _detect(argv).major == 3 and _detect(argv).hooks_hidden
    helm4 = _detect(argv, our_env=plugin_env)
    assert helm4.major == 4 and not helm4.hooks_hidden
    # Helm 3 run from inside some other Helm plugin is still Helm 3.
    assert _detect(argv, our_env={"HELM_PLUGIN_NAME": "diff", "HELM_PLUGIN_DIR": "/d"}).major == 3


def test_walks_past_shells_but_not_past_other_programs():
    argv = _helm("upgrade", "web", "./chart", "-n", "shop", "--post-renderer", "./wrap.sh")
    through_shells = _detect(["/bin/sh", "./wrap.sh"], ["-bash"], argv)
    assert through_shells.doubt is None and through_shells.namespace == "shop" and through_shells.pid == 103
    through_python = _detect(["/bin/sh", "./wrap.sh"], ["python3", "wrap.py"], argv)
    assert through_python.doubt and "python3" in through_python.doubt and through_python.namespace is None
    assert _detect(["/bin/bash"], ["sshd: me"]) is None
    # Helm without a post-renderer (a Helm plugin, say) is not the Helm that runs us.
    assert _detect(["/bin/sh", "plugin.sh"], _helm("myplugin", "-n", "x")) is None
    # Another helm command running a post-renderer (helm-diff's `helm diff upgrade`): not understood.
    diff = _detect(["diff"], _helm("diff", "upgrade", "web", "c", "--post-renderer", "p"))
    assert diff.doubt and diff.release is None


def test_unreadable_parents_under_a_helm_4_plugin_are_a_doubt():
    processes = FakeProcesses({100: (101, ["postrender"], {}, None)})  # 101 unreadable
    plugin_env = {"HELM_PLUGIN_NAME": "postrender", "HELM_PLUGIN_DIR": "/p"}
    found = detect(plugin_env, processes, 100)
    assert found.major == 4 and found.doubt == "Helm's command line cannot be read"
    assert detect({}, processes, 100) is None


def test_a_connection_postrender_cannot_replicate_is_a_cluster_doubt():
    argv = _helm("upgrade", "web", "./chart", "-n", "shop", "--post-renderer", "p")
    found = _detect([*argv, "--kube-apiserver", "https://elsewhere:6443"])
    assert found.doubt is None and found.namespace == "shop" and "--kube-apiserver" in found.cluster_doubt
    assert "HELM_KUBEAPISERVER" in _detect(argv, env={"HELM_KUBEAPISERVER": "https://x"}).cluster_doubt
    assert "KUBECONFIG" in _detect(argv, env={"KUBECONFIG": "/a"}, our_env={"KUBECONFIG": "/b"}).cluster_doubt


def test_fill_explicit_flags_win_and_retain_refuses_to_guess():
    helm = HelmContext(3, 7, "upgrade", "web", "shop", "/kc", "live")
    filled = fill(RenderOptions(namespace="from-env"), None, helm)
    # Helm's cluster is --retain's: a render without it reads none, and sets none.
    assert (filled.namespace, filled.scope, filled.kubeconfig, filled.context, filled.hooks_hidden) == (
        "shop", "web", None, None, True)
    retained = fill(RenderOptions(namespace="from-env", retain=2), None, helm)
    assert (retained.namespace, retained.scope, retained.kubeconfig, retained.context) == ("shop", "web", "/kc", "live")
    explicit = fill(RenderOptions(namespace="mine", scope="s", kubeconfig="/k", context="c"), "mine", helm)
    assert (explicit.namespace, explicit.scope, explicit.kubeconfig, explicit.context) == ("mine", "s", "/k", "c")
    assert fill(RenderOptions(), None, HelmContext(4, 7, "template", "web", "shop")).hooks_hidden is False
    # A release name that is not a label value is no scope.
    assert fill(RenderOptions(), None, HelmContext(3, 7, "install", "x" * 64, "shop")).scope is None

    unsure = HelmContext(4, 7, doubt="postrender runs under python3, not directly under Helm")
    with pytest.raises(UsageError) as refused:
        fill(RenderOptions(retain=2), None, unsure)
    message = str(refused.value)
    assert "python3" in message and "\n" not in message
    assert "--post-renderer-args=--context=CONTEXT --post-renderer-args=--namespace=NAMESPACE" in message
    # Told both explicitly, it goes on; a plain render never refuses.
    assert fill(RenderOptions(retain=2, context="c", namespace="n"), "n", unsure).context == "c"
    assert fill(RenderOptions(namespace="n"), None, unsure).namespace == "n"
    remote = HelmContext(3, 7, "upgrade", "web", "shop", cluster_doubt="Helm is told --kube-apiserver")
    with pytest.raises(UsageError, match="--context=CONTEXT$"):
        fill(RenderOptions(retain=1), None, remote)
    assert fill(RenderOptions(retain=1, context="c"), None, remote).namespace == "shop"


def test_procargs2_buffer():
    argv = [b"helm", b"upgrade", b"web", b"./my chart", b"-n", b"shop"]
    env = [b"HELM_NAMESPACE=x", b"KUBECONFIG=/k=v"]
    data = len(argv).to_bytes(4, sys.byteorder) + b"/usr/local/bin/helm\0\0\0\0" + b"\0".join(argv) + b"\0" \
        + b"\0".join(env) + b"\0\0garbage"
    assert parse_procargs2(data) == (["helm", "upgrade", "web", "./my chart", "-n", "shop"],
                                     {"HELM_NAMESPACE": "x", "KUBECONFIG": "/k=v"})
    assert parse_procargs2(b"\x01") is None


def test_process_readers_on_this_machine(tmp_path):
    # A real child: `sleep` with a known command line, under this process.
    child = subprocess.Popen(["sleep", "30"], cwd=tmp_path)
    try:
        proc = ProcFS()
        deadline = time.monotonic() + 10
        while proc.argv(child.pid) != ["sleep", "30"] and time.monotonic() < deadline:
            time.sleep(0.05)  # until the child has exec'd
        assert proc.parent(child.pid) == os.getpid()
        assert proc.argv(child.pid) == ["sleep", "30"]
        assert proc.cwd(child.pid) == str(tmp_path)
        assert proc.environ(os.getpid())["PATH"] == os.environ["PATH"]
        ps = PsTable()  # the macOS reader, with this machine's `ps`
        assert ps.parent(child.pid) == os.getpid()
        assert ps.argv(child.pid) == ["sleep", "30"] and ps.exact is False
    finally:
        child.kill()
        child.wait()


# --- under the real Helms ----------------------------------------------------------

PROBE = """#!{python}
import json, sys
from postrender import helmcontext
from postrender.records import fields
found = helmcontext.current()
with open({out!r}, "w") as handle:
    json.dump({{name: getattr(found, name) for name in fields(found)}} if found else None, handle)
sys.stdout.write(sys.stdin.read())
"""


@pytest.fixture
def probe(tmp_path) -> tuple[Path, Path, Path]:
    """A post-renderer that records what it learns; a shell wrapper around
    it; and a Helm 4 plugin directory naming the probe."""
    out = tmp_path / "learned.json"
    script = tmp_path / "probe.py"
    script.write_text(PROBE.format(python=sys.executable, out=str(out)))
    wrapper = tmp_path / "wrap.sh"
    wrapper.write_text(f'#!/bin/sh\n"{script}" "$@" | cat\n')
    for path in (script, wrapper):
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
    for name, command in (("probe", script), ("wrapped", wrapper)):
        plugin = tmp_path / "plugins" / name
        plugin.mkdir(parents=True)
        (plugin / "plugin.yaml").write_text(
            f"apiVersion: v1\nname: {name}\ntype: postrenderer/v1\nruntime: subprocess\nversion: 0.1.0\n"
            f"runtimeConfig:\n  platformCommand:\n    - command: {command}\n"
        )
    return out, script, wrapper


def _run_helm(binary: str, tmp_path: Path, *args: str, **env: str) -> dict:
    helm = require_tool(binary)
    environ = tool_env(
        HELM_DATA_HOME=str(tmp_path / "data"), HELM_CONFIG_HOME=str(tmp_path / "config"),
        HELM_CACHE_HOME=str(tmp_path / "cache"), HELM_PLUGINS=str(tmp_path / "plugins"),
        KUBECONFIG=str(tmp_path / "no-kubeconfig"), HOME=str(tmp_path), **env,
    )
    result = subprocess.run([helm, *args], capture_output=True, text=True, env=environ, cwd=tmp_path,
                            start_new_session=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return json.loads((tmp_path / "learned.json").read_text())


@pytest.mark.parametrize("binary", HELMS)
@pytest.mark.parametrize("wrapped", [False, True], ids=["direct", "shell-wrapper"])
def test_detection_under_the_real_helm(binary, wrapped, probe, tmp_path):
    _, script, wrapper = probe
    if binary == "helm4":
        renderer = "wrapped" if wrapped else "probe"
    else:
        renderer = str(wrapper if wrapped else script)
    learned = _run_helm(binary, tmp_path, "template", "web", str(CHART), "-n", "shop", "--kube-context", "live",
                        "--kubeconfig", "kc", "--post-renderer", renderer, "--post-renderer-args=-n=x")
    assert learned["major"] == int(binary[-1])
    assert learned["doubt"] is None and learned["cluster_doubt"] is None
    assert (learned["command"], learned["release"], learned["namespace"], learned["context"]) == (
        "template", "web", "shop", "live")
    assert learned["kubeconfig"] == str(tmp_path / "kc")
    assert learned["cache_home"] == str(tmp_path / "cache")


@pytest.mark.parametrize("binary", HELMS)
def test_helm_environment_and_default_release_under_the_real_helm(binary, probe, tmp_path):
    _, script, _ = probe
    renderer = "probe" if binary == "helm4" else str(script)
    learned = _run_helm(binary, tmp_path, "template", str(CHART), "--post-renderer", renderer,
                        HELM_NAMESPACE="from-env", HELM_KUBECONTEXT="ctx")
    assert (learned["release"], learned["namespace"], learned["context"]) == ("release-name", "from-env", "ctx")
    generated = _run_helm(binary, tmp_path, "template", str(CHART), "--generate-name", "--post-renderer", renderer)
    assert generated["release"] is None and generated["namespace"] == "default"


@pytest.mark.parametrize("binary", HELMS)
@pytest.mark.parametrize("environ", [
    {}, {"HOME": "/home/someone"}, {"XDG_CACHE_HOME": "/var/cache/x"}, {"HELM_CACHE_HOME": "/c"},
    {"HOME": "/h", "XDG_CACHE_HOME": "/x"},
], ids=["no-home", "home", "xdg", "helm-cache-home", "home-and-xdg"])
def test_cache_home_is_where_helm_env_says(binary, environ, tmp_path):
    """The default log goes under Helm's cache, which a CI job reads as
    `$(helm env HELM_CACHE_HOME)/postrender/postrender.log`: the same folder,
    with $HOME unset too (Helm then says `.cache/helm`, relative)."""
    helm = require_tool(binary)
    env = {"PATH": os.environ["PATH"], **environ}
    said = subprocess.run([helm, "env", "HELM_CACHE_HOME"], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert said.returncode == 0, said.stderr
    assert helmcontext._cache_home(environ) == said.stdout.strip()
