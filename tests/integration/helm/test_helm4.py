"""Helm 4.1 runs postrender as the `postrender` plugin (plugin.yaml at the root).

Helm 4 hands hooks to the post-renderer in the same stream, tags every
document with the postrender-filename annotation, drops the plugin's stderr
and passes no namespace (postrender reads it from Helm's command line): each
is checked here against the real binary.
"""

from __future__ import annotations

import json
import re
import shutil
import socket
import stat
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from conftest import ROOT, require_tool
from manifests import (
    CHART,
    HELM4_FILENAME,
    all_references,
    base_name,
    configs,
    documents,
    helm_cluster_flags,
    ident,
    is_hook,
    tool_env,
    unresolved,
    venv_bin,
    versioned,
    without_copies,
)

SEMVER = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$")
# helm/helm internal/plugin/metadata_v1.go: the keys Helm 4 knows.
PLUGIN_KEYS = {"apiVersion", "name", "type", "runtime", "version", "sourceURL", "config", "runtimeConfig"}


@pytest.fixture(scope="module")
def helm4(tmp_path_factory) -> tuple[str, dict[str, str]]:
    """helm 4 with the plugin installed from this checkout, in private Helm dirs."""
    helm = require_tool("helm4")
    home = tmp_path_factory.mktemp("helm4")
    env = tool_env(
        # `helm plugin install` writes under HELM_DATA_HOME/plugins whatever
        # HELM_PLUGINS says, while lookup reads HELM_PLUGINS: keep them equal.
        HELM_DATA_HOME=str(home / "data"),
        HELM_PLUGINS=str(home / "data" / "plugins"),
        HELM_CONFIG_HOME=str(home / "config"),
        HELM_CACHE_HOME=str(home / "cache"),
        KUBECONFIG=str(home / "no-kubeconfig"),
    )
    version = subprocess.run([helm, "version", "--short"], capture_output=True, text=True, env=env)
    assert version.stdout.startswith("v4.1.4"), version.stdout
    installed = subprocess.run([helm, "plugin", "install", str(ROOT)], capture_output=True, text=True, env=env)
    assert installed.returncode == 0, installed.stderr + installed.stdout
    return helm, env


@pytest.fixture
def capture(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """POSTRENDER_BIN wrapper recording what Helm gives postrender and gets back."""
    script = tmp_path / "capture.sh"
    script.write_text(
        "#!/bin/sh\n"
        f'printf "%s\\n" "$@" > "{tmp_path}/args"\n'
        f'tee "{tmp_path}/in.yaml" | "{venv_bin()}/postrender" "$@" > "{tmp_path}/out.yaml"\n'
        "status=$?\n"
        f'cat "{tmp_path}/out.yaml"\n'
        "exit $status\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return tmp_path, {"POSTRENDER_BIN": str(script)}


def helm(helm4, *args: str, env: dict[str, str] | None = None, ok: bool = True) -> subprocess.CompletedProcess[str]:
    binary, base_env = helm4
    result = subprocess.run([binary, *args], capture_output=True, text=True, env={**base_env, **(env or {})},
                            start_new_session=True)
    if ok:
        assert result.returncode == 0, result.stderr
    return result


def test_plugin_yaml_is_shaped_as_helms_own():
    data = YAML(typ="safe").load((ROOT / "plugin.yaml").read_text())
    assert set(data) <= PLUGIN_KEYS
    assert "config" not in data
    assert data["apiVersion"] == "v1"
    assert data["name"] == "postrender"
    assert data["type"] == "postrenderer/v1"
    assert data["runtime"] == "subprocess"
    assert SEMVER.match(data["version"])
    (command,) = data["runtimeConfig"]["platformCommand"]
    assert command["command"] == "${HELM_PLUGIN_DIR}/bin/postrender"
    assert (ROOT / "bin" / "postrender").stat().st_mode & stat.S_IXUSR


def test_helm_lists_the_installed_plugin(helm4):
    listed = helm(helm4, "plugin", "list").stdout
    row = next(line.split() for line in listed.splitlines() if line.startswith("postrender"))
    assert row[1:3] == ["0.1.0", "postrenderer/v1"]


def test_template_sees_hooks_in_the_same_stream(helm4, capture):
    folder, env = capture
    out = helm(helm4, "template", "app", str(CHART), "--post-renderer", "postrender", env=env).stdout
    docs = documents(out)
    hook = next(d for d in docs if is_hook(d))
    assert ident(hook) == "Job/app-migrate"
    # A pre-upgrade hook runs before the new versions exist: it keeps naming
    # the unsuffixed copy (the previous release's data, as without postrender).
    (settings_ref,) = all_references([hook])
    assert settings_ref.name == "app-settings"
    copy = configs(docs)[("ConfigMap", "app-settings")]
    assert copy["metadata"]["annotations"]["postrender.io/copy-of"].startswith("app-settings-")
    assert unresolved(docs) == []
    assert all(versioned(d) for d in configs(without_copies(docs)).values())
    # Helm itself handed the hook to postrender, annotated like the rest.
    given = documents((folder / "in.yaml").read_text())
    assert "Job/app-migrate" in {ident(d) for d in given}


def test_filename_annotation_survives_on_every_document(helm4, capture):
    folder, env = capture
    helm(helm4, "template", "app", str(CHART), "--post-renderer", "postrender", env=env)
    given = documents((folder / "in.yaml").read_text())
    returned = without_copies(documents((folder / "out.yaml").read_text()))
    assert len(given) == len(returned) == 14
    filename_in = {base_name(ident(d)): d["metadata"]["annotations"][HELM4_FILENAME] for d in given}
    filename_out = {base_name(ident(d)): d["metadata"]["annotations"][HELM4_FILENAME] for d in returned}
    assert filename_out == filename_in
    assert filename_in["Job/app-migrate"] == "app/templates/hook-migrate.yaml"


def test_install_dry_run_uses_the_plugin(helm4):
    out = helm(
        helm4, "install", "app", str(CHART), "--dry-run=client", "--namespace", "prod",
        "--post-renderer", "postrender", "--post-renderer-args=--namespace=prod",
    ).stdout
    manifest = out.split("HOOKS:", 1)[1].replace("MANIFEST:", "---", 1).split("NOTES:", 1)[0]
    every = documents(manifest)
    docs = without_copies(every)
    assert len(docs) == 14
    assert unresolved(every) == []
    assert all(versioned(d) for d in configs(docs).values())


def test_options_pass_through_post_renderer_args(helm4, capture):
    folder, env = capture
    out = helm(
        helm4, "template", "app", str(CHART), "--post-renderer", "postrender",
        "--post-renderer-args=--mutable", "--post-renderer-args", "--keep-original", env=env,
    ).stdout
    assert (folder / "args").read_text().split() == ["--mutable", "--keep-original"]
    docs = documents(out)
    assert not any(d.get("immutable") for d in configs(docs).values())
    copies = [d for d in configs(docs).values() if (d["metadata"].get("annotations") or {}).get("postrender.io/copy-of")]
    assert {d["metadata"]["name"] for d in copies} >= {"app-settings", "app-db"}


BAD_SECRET = {
    "apiVersion": "v1",
    "kind": "Secret",
    "metadata": {"name": "broken"},
    "data": {"token": "not*base64-SENSITIVE"},
}


def test_errors_reach_the_log_file(helm4, tmp_path):
    values = tmp_path / "broken.yaml"
    values.write_text(json.dumps({"extraManifests": [BAD_SECRET]}))
    by_flag = tmp_path / "flag.log"
    result = helm(
        helm4, "template", "app", str(CHART), "-f", str(values), "--post-renderer", "postrender",
        f"--post-renderer-args=--log-file={by_flag}", ok=False,
    )
    assert result.returncode != 0 and result.stdout == ""
    assert "postrender: error:" in by_flag.read_text()
    assert "Secret/broken" in by_flag.read_text() and "data.token is not valid base64" in by_flag.read_text()

    by_env = tmp_path / "env.log"
    result = helm(
        helm4, "template", "app", str(CHART), "-f", str(values), "--post-renderer", "postrender",
        env={"POSTRENDER_LOG_FILE": str(by_env)}, ok=False,
    )
    assert result.returncode != 0
    assert "data.token is not valid base64" in by_env.read_text()
    for log in (by_flag, by_env):
        assert "SENSITIVE" not in log.read_text()


def test_a_refused_command_line_reaches_the_log_it_names(helm4, tmp_path):
    # Helm 4 hides stderr: a flag postrender refuses while reading its command
    # line, before it knows the log, is said in the log the run names all the same.
    for refused, said in ((["--bogus"], "unrecognized arguments: --bogus"),
                          (["--namespace=Prod"], "--namespace 'Prod' is not a valid namespace name"),
                          (["--strategy=sideways"], "invalid choice: 'sideways'")):
        by_flag, by_env = tmp_path / f"flag{len(said)}.log", tmp_path / f"env{len(said)}.log"
        for log, args, env in ((by_flag, [f"--post-renderer-args=--log-file={by_flag}"], None),
                               (by_env, [], {"POSTRENDER_LOG_FILE": str(by_env)})):
            result = helm(helm4, "template", "app", str(CHART), "--post-renderer", "postrender",
                          *args, *(f"--post-renderer-args={word}" for word in refused), env=env, ok=False)
            assert result.returncode != 0 and result.stdout == ""
            assert said in log.read_text(), (refused, log.read_text())


def test_helms_cluster_flags_are_no_postrender_flags(helm4, tmp_path):
    """As under Helm 3 (test_helm3): Helm's cluster flags are --retain's;
    without it, a render renders as without them."""
    plain = helm(helm4, "template", "app", str(CHART), "-n", "prod", "--post-renderer", "postrender").stdout
    for args, extra in helm_cluster_flags(tmp_path):
        result = helm(helm4, "template", "app", str(CHART), "-n", "prod", *args, "--post-renderer", "postrender",
                      env=extra, ok=False)
        assert result.returncode == 0, (args, extra, result.stderr)
        assert result.stdout == plain, (args, extra)


def _worker_ref(out: str) -> str:
    worker = next(d for d in documents(out) if ident(d) == "Deployment/app-worker")
    assert worker["metadata"]["namespace"] == "prod"
    (ref,) = all_references([worker])
    return ref.name


def test_namespace_and_release_come_from_helm(helm4, tmp_path):
    # The worker subchart pins metadata.namespace to the release namespace; the
    # parent's ConfigMap has none. Helm 4 does not tell postrender "prod":
    # postrender reads it from Helm's command line.
    log = tmp_path / "learned.log"
    out = helm(helm4, "template", "app", str(CHART), "-n", "prod", "--post-renderer", "postrender",
               f"--post-renderer-args=--log-file={log}").stdout
    assert base_name(_worker_ref(out)) == "app-shared" and _worker_ref(out) != "app-shared"
    assert "warning" not in log.read_text()
    # The release name is the scope of every versioned object.
    assert {d["metadata"]["labels"]["postrender.io/scope"] for d in configs(without_copies(documents(out))).values()} == {"app"}

    # An explicit --namespace wins: the unnamespaced ConfigMap now lives
    # elsewhere, so the worker's reference is left alone.
    log = tmp_path / "elsewhere.log"
    out = helm(helm4, "template", "app", str(CHART), "-n", "prod", "--post-renderer", "postrender",
               "--post-renderer-args=--namespace=elsewhere", f"--post-renderer-args=--log-file={log}").stdout
    assert _worker_ref(out) == "app-shared"
    assert "'app-shared' is not in namespace" in log.read_text()


# --- bin/postrender, the plugin's command --------------------------------------

STREAM = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {k: v}\n"


def _fake_bin(tmp_path: Path, **scripts: str) -> Path:
    folder = tmp_path / "fake-bin"
    folder.mkdir()
    for name, body in scripts.items():
        path = folder / name
        path.write_text("#!/bin/sh\n" + body)
        path.chmod(0o755)
    return folder


def _wrapper(env_path: str, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": env_path, **extra}
    # --version-all: the stream's lone ConfigMap is referenced by nothing.
    return subprocess.run([str(ROOT / "bin" / "postrender"), "--version-all"], input=STREAM, capture_output=True,
                          text=True, env=env)


def test_wrapper_runs_this_checkout_when_postrender_is_not_installed(tmp_path):
    # A python3 that has ruamel.yaml, with no postrender anywhere on PATH.
    folder = _fake_bin(tmp_path, python3=f'exec "{sys.executable}" "$@"\n')
    result = _wrapper(f"{folder}:/usr/bin:/bin")
    assert result.returncode == 0, result.stderr
    assert "name: c-" in result.stdout and "immutable: true" in result.stdout


def test_wrapper_starts_python_once_besides_a_bare_version_check(tmp_path):
    # A probe that imported postrender before running it cost a small
    # chart's render twice over: the plugin's command took 0.41 s where
    # `python -m postrender` takes 0.22 s (ingress-nginx's chart).
    calls = tmp_path / "calls"
    # Each start logs its first argument, and its arguments' count.
    folder = _fake_bin(tmp_path, python3=f'echo "$1 $#" >> "{calls}"\nexec "{sys.executable}" "$@"\n')
    result = _wrapper(f"{folder}:/usr/bin:/bin")
    assert result.returncode == 0, result.stderr
    assert "name: c-" in result.stdout
    # `-S -c CHECK`, then `-P -c LAUNCH --version-all`.
    assert calls.read_text().splitlines() == ["-S 3", "-P 4"]


def test_wrapper_falls_back_to_python_when_python3_lacks_ruamel_yaml(tmp_path):
    # python3 runs the launcher, finds no ruamel.yaml and hands over to
    # `python` before it reads a byte of the stream.
    folder = _fake_bin(tmp_path, python3=f'exec "{sys.executable}" -S "$@"\n',
                       python=f'exec "{sys.executable}" "$@"\n')
    result = _wrapper(f"{folder}:/usr/bin:/bin")
    assert result.returncode == 0, result.stderr
    assert "name: c-" in result.stdout and "immutable: true" in result.stdout
    assert "POSTRENDER_WRAPPER" not in result.stderr


@pytest.fixture(scope="module")
def bare_python(tmp_path_factory) -> Path:
    """A Python with ruamel.yaml and without postrender, as a user's is: the
    tests' own has postrender installed (editable), which would hide a
    wrapper that fails to put the plugin's source on sys.path."""
    import _ruamel_yaml

    venv = tmp_path_factory.mktemp("bare") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    (site,) = venv.glob("lib/python3*/site-packages")
    (site / "deps.pth").write_text(str(Path(_ruamel_yaml.__file__).parent) + "\n")
    python = venv / "bin" / "python"
    check = subprocess.run([python, "-c", "import ruamel.yaml, _ruamel_yaml; import postrender"], cwd=venv,
                           capture_output=True, text=True)
    assert "No module named 'postrender'" in check.stderr, check.stderr
    return python


def _plugin_copy(where: Path) -> Path:
    """The plugin's command and source, as `helm plugin install` lays them out."""
    where.mkdir(parents=True)
    shutil.copytree(ROOT / "bin", where / "bin")
    shutil.copytree(ROOT / "postrender", where / "postrender", ignore=shutil.ignore_patterns("__pycache__"))
    return where / "bin" / "postrender"


def test_wrapper_runs_through_a_symlink_and_from_a_folder_with_a_colon(tmp_path, bare_python):
    # Linked onto PATH as `postrender` (it must not run itself for another
    # postrender there), or installed where a path holds a `:` (PYTHONPATH
    # would split it): the plugin's source is found either way.
    folder = _fake_bin(tmp_path, python3=f'exec "{bare_python}" "$@"\n')
    for n, wrapper in enumerate((_plugin_copy(tmp_path / "plug:in"), _plugin_copy(tmp_path / "plugin"))):
        links = tmp_path / f"links-{n}"
        links.mkdir()
        (links / "postrender").symlink_to(wrapper)
        for command in (wrapper, links / "postrender"):
            # (Run elsewhere than this checkout, whose source would be found as the working directory.)
            result = subprocess.run([str(command), "--version-all"], input=STREAM, capture_output=True, text=True,
                                    env={"PATH": f"{links}:{folder}:/usr/bin:/bin"}, cwd=tmp_path, timeout=60)
            assert result.returncode == 0, (command, result.stderr)
            assert "name: c-" in result.stdout


def test_wrapper_never_imports_a_postrender_folder_where_it_runs(tmp_path, bare_python):
    # Helm runs the plugin in the user's working directory.
    folder = _fake_bin(tmp_path, python3=f'exec "{bare_python}" "$@"\n')
    here = tmp_path / "work"
    (here / "postrender").mkdir(parents=True)
    (here / "postrender" / "__init__.py").write_text("raise SystemExit('imported from the working directory')\n")
    result = subprocess.run([str(ROOT / "bin" / "postrender"), "--version-all"], input=STREAM, capture_output=True,
                            text=True, env={"PATH": f"{folder}:/usr/bin:/bin"}, cwd=here, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "name: c-" in result.stdout


def test_wrapper_leaves_stdin_to_postrender_when_a_python_fails_its_check(tmp_path, bare_python):
    # A `python3` that reads its standard input, then is no Python 3.11: the
    # version check must not hand it the stream meant for postrender.
    eater = _fake_bin(tmp_path, python3="cat >/dev/null\nexit 1\n")
    good = tmp_path / "good"
    good.mkdir()
    (good / "python").write_text(f'#!/bin/sh\nexec "{bare_python}" "$@"\n')
    (good / "python").chmod(0o755)
    result = _wrapper(f"{eater}:{good}:/usr/bin:/bin")
    assert result.returncode == 0, result.stderr
    assert "name: c-" in result.stdout


def test_wrapper_hands_over_when_ruamel_yaml_is_broken_not_missing(tmp_path, bare_python):
    # python3's ruamel.yaml raises something other than ImportError as it
    # loads (half an upgrade); `python` has a working one.
    broken = tmp_path / "broken"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(broken)], check=True)
    (site,) = broken.glob("lib/python3*/site-packages")
    (site / "ruamel" / "yaml").mkdir(parents=True)
    (site / "ruamel" / "yaml" / "__init__.py").write_text("raise AttributeError('half an upgrade')\n")
    folder = _fake_bin(tmp_path, python3=f'exec "{broken / "bin" / "python"}" "$@"\n',
                       python=f'exec "{bare_python}" "$@"\n')
    result = _wrapper(f"{folder}:/usr/bin:/bin")
    assert result.returncode == 0, result.stderr
    assert "name: c-" in result.stdout


def test_wrapper_says_why_when_the_plugins_source_cannot_load(tmp_path, bare_python):
    wrapper = _plugin_copy(tmp_path / "plugin")
    (wrapper.parent.parent / "postrender" / "cli.py").write_text("raise RuntimeError('a half-copied plugin')\n")
    folder = _fake_bin(tmp_path, python3=f'exec "{bare_python}" "$@"\n')
    result = subprocess.run([str(wrapper)], input=STREAM, capture_output=True, text=True,
                            env={"PATH": f"{folder}:/usr/bin:/bin"}, cwd=tmp_path, timeout=60)
    assert result.returncode == 127 and result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"postrender: error: cannot load postrender from {wrapper.parent.parent} (RuntimeError: ")


def test_wrapper_prints_its_message_as_written(tmp_path):
    # A backslash in the plugin's path is text, not an escape for echo.
    wrapper = _plugin_copy(tmp_path / "back\\cslash")
    fake = _fake_bin(tmp_path, python3="exit 1\n", python="exit 1\n")
    result = subprocess.run([str(wrapper)], input=STREAM, capture_output=True, text=True,
                            env={"PATH": f"{fake}:/usr/bin:/bin"}, timeout=60)
    assert result.returncode == 127
    (line,) = result.stderr.splitlines()
    assert f"run: pipx install '{wrapper.parent.parent}'  (or," in line


def test_wrapper_prefers_postrender_bin(tmp_path):
    fake = _fake_bin(tmp_path, marker='echo "kind: Marker"\n')
    result = _wrapper("/usr/bin:/bin", POSTRENDER_BIN=str(fake / "marker"))
    assert result.returncode == 0 and result.stdout == "kind: Marker\n"


@pytest.mark.parametrize("named", ["/opt/nowhere/postrender", "no-such-postrender", "not-executable", "stale"])
def test_wrapper_says_so_when_postrender_bin_cannot_run(tmp_path, named):
    # The shell's own message for a failed exec goes to the stderr Helm 4
    # discards: the wrapper says it where the user sees it, and in the log.
    fake = _fake_bin(tmp_path, stale="true\n")
    (fake / "stale").write_text("#!/opt/gone/python3\nprint(1)\n")
    (tmp_path / "not-executable").write_text("#!/bin/sh\n")
    path = {"not-executable": str(tmp_path / "not-executable"), "stale": str(fake / "stale")}.get(named, named)
    log = tmp_path / "plugin.log"
    result = _wrapper(f"{fake}:/usr/bin:/bin", POSTRENDER_BIN=path, POSTRENDER_LOG_FILE=str(log))
    assert result.returncode == 127 and result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"postrender: error: POSTRENDER_BIN={path} is no program that runs")
    assert line in log.read_text()


def test_wrapper_passes_over_a_postrender_on_path_that_cannot_run(tmp_path):
    # A pipx install whose venv's Python is gone: its script's #! names a
    # missing interpreter, and exec would fail unseen under Helm 4.
    fake = _fake_bin(tmp_path, python3=f'exec "{sys.executable}" "$@"\n')
    (fake / "postrender").write_text("#!/opt/gone/python3\nprint(1)\n")
    (fake / "postrender").chmod(0o755)
    result = _wrapper(f"{fake}:/usr/bin:/bin")
    assert result.returncode == 0, result.stderr
    assert "name: c-" in result.stdout


def test_wrapper_says_what_to_run_when_python_lacks_ruamel_yaml(tmp_path):
    # A Python 3.11+ without site-packages: postrender's source imports, ruamel.yaml does not.
    fake = _fake_bin(tmp_path, python3=f'exec "{sys.executable}" -S "$@"\n')
    result = _wrapper(f"{fake}:/usr/bin:/bin")
    assert result.returncode == 127 and result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"postrender: error: {fake / 'python3'} has no ruamel.yaml with its C parser (ruamel.yaml.clib); run: ")
    # pipx first: a distribution's own Python refuses `pip install --user` (PEP 668, Debian 12, Ubuntu 23.04+).
    command = line.split("run: ", 1)[1].split("  (or", 1)[0]
    assert command == f"pipx install '{ROOT}'"
    assert (f"{fake / 'python3'} -m pip install --user 'ruamel.yaml>=0.18,<0.20' 'ruamel.yaml.clib>=0.2.8';"
            " or set POSTRENDER_BIN)") in line


def test_wrapper_explains_a_missing_python_in_the_log_and_helms_cache(tmp_path):
    fake = _fake_bin(tmp_path, python3="exit 1\n", python="exit 1\n")
    log = tmp_path / "log"
    result = _wrapper(f"{fake}:/usr/bin:/bin", POSTRENDER_LOG_FILE=str(log))
    assert result.returncode == 127 and result.stdout == ""
    assert "no Python 3.11 or newer found" in log.read_text()
    # As a Helm 4 plugin, with no log named: Helm's cache directory, 0600.
    cache = tmp_path / "helm-cache"
    result = _wrapper(f"{fake}:/usr/bin:/bin", HELM_PLUGIN_NAME="postrender", HELM_CACHE_HOME=str(cache),
                      HOME=str(tmp_path))
    default = cache / "postrender" / "postrender.log"
    text = default.read_text()
    assert text.startswith("--- ") and "no Python 3.11 or newer found" in text
    assert stat.S_IMODE(default.stat().st_mode) == 0o600


@pytest.mark.parametrize("home", [None, "", "{tmp}/home"])
def test_wrapper_logs_where_helm_caches_whatever_home_is(tmp_path, home):
    # With $HOME unset the wrapper wrote /.cache/helm/postrender/postrender.log,
    # at the root, where Helm's cache (and postrender's own log) is
    # .cache/helm where Helm runs (an outside tester).
    fake = _fake_bin(tmp_path, python3="exit 1\n", python="exit 1\n")
    work = tmp_path / "work"
    work.mkdir()
    env = {"PATH": f"{fake}:/usr/bin:/bin", "HELM_PLUGIN_NAME": "postrender"}
    if home is not None:
        env["HOME"] = home.format(tmp=tmp_path)
    said = subprocess.run([require_tool("helm4"), "env", "HELM_CACHE_HOME"], capture_output=True, text=True, env=env,
                          cwd=work)
    assert said.returncode == 0, said.stderr
    result = subprocess.run([str(ROOT / "bin" / "postrender")], input="", capture_output=True, text=True, env=env,
                            cwd=work)
    assert result.returncode == 127 and "no Python 3.11 or newer found" in result.stderr
    log = work / said.stdout.strip() / "postrender" / "postrender.log"
    assert "no Python 3.11 or newer found" in log.read_text()


# --- installing the plugin ------------------------------------------------------


def _work_tree_files() -> list[str]:
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode()
    return [f for f in listed.split("\0") if f and (ROOT / f).exists()]


def _clone(target: Path) -> Path:
    """This work tree's files, as a fresh clone has them."""
    for file in _work_tree_files():
        (target / file).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / file, target / file)
    return target


def _private_helm4(tmp_path: Path) -> tuple[str, dict[str, str]]:
    home = tmp_path / "helm-home"
    return require_tool("helm4"), tool_env(
        HELM_DATA_HOME=str(home / "data"), HELM_PLUGINS=str(home / "data" / "plugins"),
        HELM_CONFIG_HOME=str(home / "config"), HELM_CACHE_HOME=str(home / "cache"),
        KUBECONFIG=str(home / "no-kubeconfig"),
    )


def _renders_with_the_installed_source(helm4_binary: str, env: dict[str, str], tmp_path: Path) -> None:
    """The installed plugin's own source renders: no postrender on PATH, only
    a python3 that has ruamel.yaml."""
    fake = tmp_path / "python-only"
    fake.mkdir()
    (fake / "python3").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    (fake / "python3").chmod(0o755)
    bare = {**env, "PATH": f"{fake}:/usr/bin:/bin"}
    result = subprocess.run([helm4_binary, "template", "app", str(CHART), "--post-renderer", "postrender"],
                            capture_output=True, text=True, env=bare)
    assert result.returncode == 0, result.stderr
    docs = documents(result.stdout)
    # Versions, and the Secrets' unsuffixed copies (the default): nothing else.
    assert unresolved(docs) == [] and all(versioned(d) for d in configs(without_copies(docs)).values())


def test_only_the_plugin_root_holds_a_plugin_yaml():
    # Helm 4 reads the first plugin.yaml it meets in an archive.
    assert [f for f in _work_tree_files() if Path(f).name == "plugin.yaml"] == ["plugin.yaml"]


def test_a_package_of_a_clean_clone_installs(tmp_path):
    helm4_binary, env = _private_helm4(tmp_path)
    clone = _clone(tmp_path / "postrender")
    subprocess.run(["git", "init", "-q", str(clone)], check=True)
    out = tmp_path / "out"
    packaged = subprocess.run([helm4_binary, "plugin", "package", str(clone), "--sign=false", "-d", str(out)],
                              capture_output=True, text=True, env=env)
    assert packaged.returncode == 0, packaged.stderr
    archive = out / "postrender-0.1.0.tgz"
    unverified = subprocess.run([helm4_binary, "plugin", "install", str(archive)], capture_output=True, text=True,
                                env=env)
    assert unverified.returncode != 0  # no .prov: Helm 4.1 insists on verification by default
    installed = subprocess.run([helm4_binary, "plugin", "install", str(archive), "--verify=false"],
                               capture_output=True, text=True, env=env)
    assert installed.returncode == 0, installed.stderr
    _renders_with_the_installed_source(helm4_binary, env, tmp_path)


def test_the_release_package_holds_only_what_the_plugin_runs(tmp_path):
    helm4_binary, env = _private_helm4(tmp_path)
    tree = _clone(tmp_path / "checkout")
    subprocess.run(["git", "init", "-q", str(tree)], check=True)
    # What a checkout where the demo and tests ran also holds.
    for junk in (".venv/lib/site.py", "build/lib/postrender/cli.py", "dist/old.tgz",
                 "postrender/__pycache__/cli.cpython-311.pyc", ".pytest_cache/v/x"):
        (tree / junk).parent.mkdir(parents=True, exist_ok=True)
        (tree / junk).write_text("junk\n")
    out = tmp_path / "release"
    built = subprocess.run([str(tree / "scripts" / "package-plugin"), str(out)], capture_output=True, text=True,
                           env={**env, "HELM": helm4_binary}, cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    archive = Path(built.stdout.strip())
    assert archive == out / "postrender-0.1.0.tgz"
    with tarfile.open(archive) as tar:
        members = [m.name for m in tar.getmembers() if m.isfile()]
    assert set(members) >= {"postrender/plugin.yaml", "postrender/bin/postrender", "postrender/pyproject.toml",
                            "postrender/README.md", "postrender/LICENSE", "postrender/postrender/cli.py",
                            "postrender/postrender/fieldspecs/builtin.yaml"}
    assert all(m.startswith(("postrender/postrender/", "postrender/bin/")) or m in (
        "postrender/plugin.yaml", "postrender/pyproject.toml", "postrender/README.md", "postrender/LICENSE")
        for m in members), members
    # pyproject.toml names LICENSE (license-files): without it the folder
    # would not build, and the wrapper's `pipx install '<plugin folder>'` fails.
    pyproject = (tree / "pyproject.toml").read_text()
    assert 'license-files = ["LICENSE"]' in pyproject
    assert not any("__pycache__" in m for m in members)
    # The source and README compress to some 500 KB (301,065 bytes at 0.1.0
    # with an early round's fixes, 403,013 with the field specs and fixes of
    # the rounds since, 502,270 with stop 65's: 126 files, none but the
    # package, its field specs, README, LICENSE and the plugin's own); a
    # venv, build tree or cache would add megabytes.
    assert archive.stat().st_size < 600_000
    installed = subprocess.run([helm4_binary, "plugin", "install", str(archive), "--verify=false"],
                               capture_output=True, text=True, env=env)
    assert installed.returncode == 0, installed.stderr
    _renders_with_the_installed_source(helm4_binary, env, tmp_path)


def test_a_git_url_installs_with_verify_false(tmp_path):
    helm4_binary, env = _private_helm4(tmp_path)
    work = _clone(tmp_path / "work")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-C", str(work)]
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "snapshot"], check=True)
    served = tmp_path / "served"
    served.mkdir()
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(served / "postrender.git")], check=True)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    daemon = subprocess.Popen(["git", "daemon", f"--base-path={served}", "--export-all", "--reuseaddr",
                               "--listen=127.0.0.1", f"--port={port}", str(served)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        url = f"git://127.0.0.1:{port}/postrender.git"
        for _ in range(50):
            if subprocess.run(["git", "ls-remote", url], capture_output=True).returncode == 0:
                break
            time.sleep(0.1)
        refused = subprocess.run([helm4_binary, "plugin", "install", url], capture_output=True, text=True, env=env)
        assert refused.returncode != 0 and "--verify=false" in refused.stderr
        installed = subprocess.run([helm4_binary, "plugin", "install", url, "--verify=false"], capture_output=True,
                                   text=True, env=env)
        assert installed.returncode == 0, installed.stderr
    finally:
        daemon.terminate()
        daemon.wait()
    _renders_with_the_installed_source(helm4_binary, env, tmp_path)


# --- errors name the line in the chart file's own output --------------------------


def test_error_names_the_chart_file_and_no_rendered_line(helm4, tmp_path):
    """Helm 4 hands the post-renderer each document with its filename
    annotation, written again by Helm (blank lines dropped, folded text
    folded anew): the error names the file, and claims no line in it, which
    would be the template's only where Helm 4 writes it as the template did:
    the line it gives is called the stream's."""
    chart = CHART.parent / "lines"
    log = tmp_path / "log"
    result = helm(helm4, "template", "r", str(chart), "--post-renderer", "postrender",
                  f"--post-renderer-args=--log-file={log}", ok=False)
    assert result.returncode != 0
    found = re.search(r"\(lines/templates/settings\.yaml, ConfigMap/r-second\) stream line \d+: "
                      r'data\.replicas must be a string \(quote it: "3"', log.read_text())
    assert found, log.read_text()
    assert "rendered line" not in log.read_text()


def test_a_structural_error_names_the_chart_file(helm4, tmp_path):
    # Keys that collide are found before any object is made of the
    # document: the file is read from Helm 4's annotation all the same.
    chart = tmp_path / "dup"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: dup\nversion: 0.1.0\n")
    (chart / "templates" / "cm.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  1: bar\n  '1': baz\n")
    log = tmp_path / "log"
    result = helm(helm4, "template", "r", str(chart), "--post-renderer", "postrender",
                  f"--post-renderer-args=--log-file={log}", ok=False)
    assert result.returncode != 0
    assert re.search(r"\(dup/templates/cm\.yaml, ConfigMap/settings\) stream line \d+: keys `1` and `'1'`",
                     log.read_text()), log.read_text()


def test_a_key_written_twice_renders_as_helm_reads_it(helm4, tmp_path):
    # A chart's values often set a key its template sets too (a logFormat
    # in kube-prometheus-stack's additionalConfig): Helm takes the last,
    # and so does postrender, which leaves the earlier out of its output.
    chart = tmp_path / "dup"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: dup\nversion: 0.1.0\n")
    (chart / "templates" / "cm.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  logFormat: logfmt\n"
        "  level: info\n  logFormat: json\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n"
        "  template:\n    spec:\n      containers:\n      - name: c\n        image: x\n        envFrom:\n"
        "        - configMapRef: {name: settings}\n")
    log = tmp_path / "log"
    result = helm(helm4, "template", "r", str(chart), "--post-renderer", "postrender",
                  f"--post-renderer-args=--log-file={log}")
    assert "logFormat: json" in result.stdout and "logfmt" not in result.stdout, result.stdout
    assert "configMapRef: {name: settings-" in result.stdout, result.stdout
    assert re.search(r"\(dup/templates/cm\.yaml, ConfigMap/settings\) stream line \d+: duplicate key 'logFormat'",
                     log.read_text()), log.read_text()


def test_an_output_file_in_the_plugins_arguments_is_refused_and_said(helm4, tmp_path):
    """Helm 4 refuses an empty manifest itself, but only postrender knows
    why it was empty: its log says so (Helm 4 hides its stderr)."""
    log = tmp_path / "postrender.log"
    result = helm(helm4, "template", "app", str(CHART), "--post-renderer", "postrender",
                  f"--post-renderer-args=--log-file={log}", f"--post-renderer-args=-o={tmp_path / 'out.yaml'}",
                  ok=False)
    assert result.returncode != 0 and result.stdout == ""
    assert f"-o {tmp_path / 'out.yaml'}: Helm 4 deploys what its post-renderer writes" in log.read_text()
    assert not (tmp_path / "out.yaml").exists()
