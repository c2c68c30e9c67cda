"""The Argo CD Config Management Plugin, run as Argo CD runs it.

Each test takes the command straight from integrations/argocd/cmp-plugin.yaml
and runs it in a copy of an application directory (a Helm chart, a
kustomization, a folder of manifests) with the environment the CMP server
provides: ARGOCD_APP_*, ARGOCD_ENV_* for the Application's plugin env,
ARGOCD_APP_PARAMETERS and PARAM_* for its parameters, KUBE_*.
"""

from __future__ import annotations

import base64
import json
import os
import re
import runpy
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from conftest import FIXTURES, ROOT, require_tool
from manifests import CHART, all_references, configs, documents, ident, tool_env, unresolved, versioned, without_copies

PLUGIN = ROOT / "integrations" / "argocd" / "cmp-plugin.yaml"
ARGOCD_KEEP = "argocd.argoproj.io/sync-options"


def plugin() -> dict:
    return YAML(typ="safe").load(PLUGIN.read_text())


def command(phase: str) -> list[str]:
    spec = plugin()["spec"][phase]
    return [*spec["command"], *spec.get("args", [])]


def argocd_parameters(parameters: list[dict]) -> dict[str, str]:
    """The variables Argo CD derives from an Application's plugin parameters:
    the JSON list, and PARAM_<NAME>[_<i>|_<KEY>] with every character other
    than a letter or digit made `_` and letters upper-cased."""
    def name(text: str) -> str:
        return re.sub(r"[^A-Za-z0-9]", "_", text).upper()

    env = {"ARGOCD_APP_PARAMETERS": json.dumps(parameters)}
    for parameter in parameters:
        base = "PARAM_" + name(parameter["name"])
        if "string" in parameter:
            env[base] = parameter["string"]
        for i, item in enumerate(parameter.get("array", [])):
            env[f"{base}_{i}"] = item
        for key, value in parameter.get("map", {}).items():
            env[f"{base}_{name(key)}"] = value
    return env


def plugin_env(**entries: str) -> dict[str, str]:
    """An Application's `plugin.env` entries, as Argo CD prefixes them."""
    return {f"ARGOCD_ENV_{key}": value for key, value in entries.items()}


def argocd_envsubst(value: str, build_env: dict[str, str]) -> str:
    """What Argo CD makes of a plugin env value before the plugin sees it
    (Env.Envsubst: Go's os.Expand over the build environment): $NAME and
    ${NAME} substituted, empty where unknown; $$ is $; `$(` is left."""
    def name(match: re.Match[str]) -> str:
        word = match.group(1) or match.group(2) or match.group(3)
        return "$" if word == "$" else build_env.get(word, "")
    return re.sub(r"\$(?:\{([^}]+)\}|([*#$@!?0-9-])|([A-Za-z0-9_]+))", name, value)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """The sidecar: `helm` (Helm 3, as in the Dockerfile), kubectl, postrender
    and postrender-cmp on PATH."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "helm").symlink_to(require_tool("helm3"))
    require_tool("kubectl")
    base = tool_env(
        HELM_DATA_HOME=str(tmp_path / "helm" / "data"),
        HELM_CONFIG_HOME=str(tmp_path / "helm" / "config"),
        HELM_CACHE_HOME=str(tmp_path / "helm" / "cache"),
        ARGOCD_APP_NAME="shop",
        ARGOCD_APP_NAMESPACE="prod",
        ARGOCD_APP_REVISION="0123456789abcdef",
        ARGOCD_APP_SOURCE_PATH="fixtures/charts/app",
        ARGOCD_APP_SOURCE_REPO_URL="https://example.com/repo.git",
    )
    base["PATH"] = f"{bin_dir}:{ROOT / 'integrations' / 'argocd'}:{base['PATH']}"
    return base


@pytest.fixture
def app(tmp_path: Path) -> Path:
    """The application source directory Argo CD hands the plugin: the chart."""
    target = tmp_path / "app"
    shutil.copytree(CHART, target)
    return target


@pytest.fixture
def kustomize_app(tmp_path: Path) -> Path:
    """A kustomization (base and overlay) without the exec plugin: the CMP runs postrender."""
    shutil.copytree(FIXTURES / "kustomize" / "base", tmp_path / "repo" / "base")
    overlay = tmp_path / "repo" / "overlay"
    shutil.copytree(FIXTURES / "kustomize" / "overlay", overlay)
    (overlay / "postrender.yaml").unlink()
    kustomization = overlay / "kustomization.yaml"
    kustomization.write_text(kustomization.read_text().replace("transformers:\n  - postrender.yaml\n", ""))
    assert "transformers" not in kustomization.read_text()
    return overlay


@pytest.fixture
def plain_app(tmp_path: Path) -> Path:
    """A folder of manifests, with files and folders the plugin must not read."""
    target = tmp_path / "manifests"
    target.mkdir()
    (target / "config.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {mode: fast}\n"
    )
    (target / "web.json").write_text(json.dumps({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
        "spec": {"template": {"spec": {"containers": [
            {"name": "web", "image": "x", "envFrom": [{"configMapRef": {"name": "settings"}}]}]}}},
    }))
    (target / "README.md").write_text("not a manifest\n")
    (target / ".github").mkdir()
    (target / ".github" / "ci.yaml").write_text("on: push\njobs: {}\n")
    (target / "docs").mkdir()
    (target / "docs" / "example.yaml").write_text("kind: NotDeployed\n")
    return target


def run(phase: str, app: Path, env: dict[str, str], **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command(phase), cwd=app, env={**env, **extra}, capture_output=True, text=True, timeout=120)


def test_plugin_definition():
    data = plugin()
    assert data["apiVersion"] == "argoproj.io/v1alpha1" and data["kind"] == "ConfigManagementPlugin"
    assert data["metadata"]["name"] == "postrender"
    assert command("init") == ["postrender-cmp", "init"]
    assert command("generate") == ["postrender-cmp", "generate"]
    assert "discover" not in data["spec"]
    parameters = {p["name"]: p["collectionType"] for p in data["spec"]["parameters"]["static"]}
    assert parameters == {"values-files": "array", "release-name": "string", "helm-parameters": "map",
                          "helm-string-parameters": "map", "postrender-args": "array"}
    dockerfile = (ROOT / "integrations" / "argocd" / "Dockerfile").read_text()
    assert "COPY --chown=999:999 integrations/argocd/cmp-plugin.yaml /home/argocd/cmp-server/config/plugin.yaml" \
        in dockerfile
    assert "COPY integrations/argocd/postrender-cmp /usr/local/bin/postrender-cmp" in dockerfile
    # kustomize directories build with kubectl's built-in kustomize (no binary downloaded).
    assert "/usr/local/bin/kubectl" in dockerfile and "curl" not in dockerfile


# --- a Helm chart --------------------------------------------------------------------


def test_generate_renders_the_chart_with_argo_cds_environment(app, env):
    result = run("generate", app, env)
    assert result.returncode == 0, result.stderr
    every = documents(result.stdout)
    docs = without_copies(every)
    assert len(docs) == 14
    assert unresolved(every) == []  # hooks included: the whole helm output went through postrender
    assert all(versioned(d) for d in configs(docs).values())
    assert {d["metadata"]["labels"]["postrender.io/base-name"] for d in configs(docs).values()} >= {"shop-settings"}
    worker = next(d for d in docs if ident(d) == "Deployment/shop-worker")
    assert worker["metadata"]["namespace"] == "prod"
    # ARGOCD_APP_NAMESPACE reached postrender: no cross-namespace guess was needed.
    assert "warning" not in result.stderr


@pytest.mark.parametrize("given, release", [
    ({}, "shop"),
    # Applications in any namespace: Argo CD names the app `<namespace>_<name>`.
    ({"ARGOCD_APP_NAME": "team-a_shop"}, "shop"),
    ({"ARGOCD_APP_PARAMETERS": json.dumps([{"name": "release-name", "string": "store"}])}, "store"),
    ({"PARAM_RELEASE_NAME": "store"}, "store"),
    ({"ARGOCD_ENV_RELEASE_NAME": "store"}, "store"),
])
def test_the_release_name(app, env, given, release):
    result = run("generate", app, env, **given)
    assert result.returncode == 0, result.stderr
    names = {d["metadata"]["name"] for d in documents(result.stdout)}
    assert f"{release}-worker" in names, names


def test_kube_version_from_argo_cd_selects_the_cronjob_api(app, env):
    modern = documents(run("generate", app, env).stdout)
    old = run("generate", app, env, KUBE_VERSION="1.20.2", KUBE_API_VERSIONS="v1,apps/v1,batch/v1,batch/v1beta1")
    assert old.returncode == 0, old.stderr
    api = {ident(d): d["apiVersion"] for d in documents(old.stdout)}
    assert api["CronJob/shop-report"] == "batch/v1beta1"
    assert {ident(d): d["apiVersion"] for d in modern}["CronJob/shop-report"] == "batch/v1"


def _settings(out: str) -> dict:
    (settings,) = [d for (_, n), d in configs(documents(out)).items() if n.startswith("shop-settings-")]
    return settings


@pytest.mark.parametrize("how", ["parameter", "parameter-variables-only", "plugin-env"])
def test_values_files(app, env, how):
    default = _settings(run("generate", app, env).stdout)
    if how == "parameter":
        extra = argocd_parameters([{"name": "values-files", "array": ["values-prod.yaml"]}])
    elif how == "parameter-variables-only":
        extra = {"PARAM_VALUES_FILES_0": "values-prod.yaml"}
    else:
        extra = plugin_env(VALUES_FILES="values.yaml, values-prod.yaml")
    result = run("generate", app, env, **extra)
    assert result.returncode == 0, result.stderr
    prod = _settings(result.stdout)
    assert prod["data"]["greeting"] == "bonjour" and default["data"]["greeting"] == "hello"
    assert prod["metadata"]["name"] != default["metadata"]["name"]
    users = {r.referrer for r in all_references(documents(result.stdout)) if r.name == prod["metadata"]["name"]}
    assert users == {"Deployment/shop-web", "CronJob/shop-report"}
    # The pre-upgrade hook runs before the new version exists: it keeps the
    # unsuffixed copy, which holds the previous release's data until applied.
    hook_refs = {r.name for r in all_references(documents(result.stdout)) if r.referrer == "Job/shop-migrate"}
    assert hook_refs == {"shop-settings"}


def test_helm_parameters_are_set_values(app, env):
    extra = argocd_parameters([{"name": "helm-parameters", "map": {"greeting": "hallo", "worker.replicas": "3"}}])
    result = run("generate", app, env, **extra)
    assert result.returncode == 0, result.stderr
    assert _settings(result.stdout)["data"]["greeting"] == "hallo"
    worker = next(d for d in documents(result.stdout) if ident(d) == "Deployment/shop-worker")
    assert worker["spec"]["replicas"] == 3


def _db_password(out: str) -> str:
    (secret,) = [d for (kind, n), d in configs(without_copies(documents(out))).items()
                 if kind == "Secret" and n.startswith("shop-db-")]
    return base64.b64decode(secret["data"]["password"]).decode()


@pytest.mark.parametrize("value", ["12345678", "true", "null", "1e3", "0x1F", "x,y"])
def test_helm_string_parameters_keep_a_value_a_string(app, env, value):
    """Argo CD's forceString: with --set, helm made `12345678` a number and
    `null` deleted the key, and the chart's b64enc failed (argocd62)."""
    result = run("generate", app, env, **argocd_parameters(
        [{"name": "helm-string-parameters", "map": {"database.password": value}}]))
    assert result.returncode == 0, result.stderr
    assert _db_password(result.stdout) == value


def test_helm_string_parameters_win_over_helm_parameters_for_one_key(app, env):
    result = run("generate", app, env, **argocd_parameters([
        {"name": "helm-parameters", "map": {"database.password": "from-set", "greeting": "hallo"}},
        {"name": "helm-string-parameters", "map": {"database.password": "007"}},
    ]))
    assert result.returncode == 0, result.stderr
    assert _db_password(result.stdout) == "007" and _settings(result.stdout)["data"]["greeting"] == "hallo"


def test_postrender_args_from_the_plugin_env_and_the_parameter(app, env):
    by_env = run("generate", app, env, **plugin_env(POSTRENDER_ARGS="--keep-previous=argocd --scope 'shop-v1'"))
    assert by_env.returncode == 0, by_env.stderr
    settings = _settings(by_env.stdout)
    assert settings["metadata"]["annotations"][ARGOCD_KEEP] == "Prune=false"
    assert settings["metadata"]["labels"]["postrender.io/scope"] == "shop-v1"

    by_parameter = run("generate", app, env, **argocd_parameters(
        [{"name": "postrender-args", "array": ["--keep-previous=argocd", "--mutable"]}]))
    assert by_parameter.returncode == 0, by_parameter.stderr
    settings = _settings(by_parameter.stdout)
    assert settings["metadata"]["annotations"][ARGOCD_KEEP] == "Prune=false" and "immutable" not in settings

    # The Application's flags come after the plugin's own: --namespace is theirs to change.
    moved = run("generate", app, env, **plugin_env(POSTRENDER_ARGS="--namespace=elsewhere -v"))
    assert moved.returncode == 0 and "'shop-shared' is not in namespace" in moved.stderr


def test_config_file_inside_the_application_is_read(app, env):
    (app / "postrender-specs.yaml").write_text(
        "nameReference:\n- kind: ConfigMap\n  fieldSpecs:\n  - {kind: Widget, path: spec/settings}\n"
    )
    (app / "widget.yaml").write_text(
        "extraManifests:\n- apiVersion: example.com/v1\n  kind: Widget\n  metadata: {name: w}\n"
        "  spec: {settings: shop-settings}\n"
    )
    extra = {**argocd_parameters([{"name": "values-files", "array": ["widget.yaml"]}]),
             **plugin_env(POSTRENDER_ARGS="--config postrender-specs.yaml --strict")}
    result = run("generate", app, env, **extra)
    assert result.returncode == 0, result.stderr
    widget = next(d for d in documents(result.stdout) if d["kind"] == "Widget")
    assert widget["spec"]["settings"] == _settings(result.stdout)["metadata"]["name"]


@pytest.mark.parametrize(
    "args,message",
    [
        ("--log-file=/tmp/elsewhere.log", "--log-file is not available"),
        ("--retain=2", "--retain is not available"),
        ("--context prod", "--context is not available"),
        ("--plugin-config x.yaml", "--plugin-config is not available"),
        ("/etc/passwd", "/etc/passwd: not a flag"),
        ("gc", "gc: not a flag"),
        ("-v graph", "graph: not a flag"),
        ("not-there.yaml", "not-there.yaml: not a flag"),
        ("--config=/etc/hostname", "--config file must be a relative path inside the application"),
        ("--config ../outside.yaml", "--config file must be a relative path inside the application"),
        ("--keep-previous=argocd 'unclosed", "POSTRENDER_ARGS: No closing quotation"),
        ("--no-such-flag", "unrecognized arguments"),
        ("--help", "--help and --version print no manifests"),
        # What postrender reads and where it writes are the plugin's: a
        # manifest written to a file leaves Argo CD an empty one to prune
        # against, and a file read replaces helm's output.
        ("-o /tmp/written-outside.yaml", "-o/--output is not available"),
        ("--output=../escape.yaml", "-o/--output is not available"),
        ("-f /etc/hostname", "-f/--filename is not available"),
        ("--filename=-", "-f/--filename is not available"),
        ("-- /etc/hostname", "-- is not available in the Argo CD plugin"),
        ("--strict -- --version-all", "-- is not available in the Argo CD plugin"),
    ],
)
def test_refused_postrender_args_yield_no_manifest(app, env, args, message, tmp_path):
    result = run("generate", app, env, **plugin_env(POSTRENDER_ARGS=args))
    assert result.returncode != 0 and result.stdout == ""
    assert message in result.stderr
    assert not (tmp_path / "escape.yaml").exists() and not Path("/tmp/written-outside.yaml").exists()


@pytest.mark.parametrize("args, message", [
    ("--keep-original none", "none: no such file or folder; --keep-original takes its value only after =: write"
                             " --keep-original=none"),
    ("-v 1", "1: no such file or folder; -v takes its value only after =: write -v=1"),
])
def test_a_flags_value_given_apart_keeps_postrenders_hint(app, env, args, message):
    """The plugin refuses a command word after its flags as no flag
    (`-v graph`); postrender's other hints, which the Application can
    follow in its postrender-args, are shown (review62d)."""
    result = run("generate", app, env, **plugin_env(POSTRENDER_ARGS=args))
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == f"postrender-cmp: error: postrender arguments (env POSTRENDER_ARGS): {message}\n"


def test_a_command_word_after_the_flags_is_no_flag(app, env):
    """postrender's hint says the command goes first, which the plugin
    cannot take: the plugin says it chooses what postrender reads."""
    result = run("generate", app, env, **plugin_env(POSTRENDER_ARGS="-v graph"))
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == ("postrender-cmp: error: postrender arguments (env POSTRENDER_ARGS): graph: not a flag; the"
                             " plugin chooses what postrender reads\n")
    assert "goes first" not in result.stderr


def test_a_refused_argument_says_whether_the_parameter_or_the_env_gave_it(app, env):
    both = {**plugin_env(POSTRENDER_ARGS="--mutable"),
            **argocd_parameters([{"name": "postrender-args", "array": ["--no-such-flag"]}])}
    result = run("generate", app, env, **both)
    assert result.returncode != 0 and result.stdout == ""
    assert "postrender arguments (parameter postrender-args): " in result.stderr, result.stderr
    result = run("generate", app, env, **plugin_env(POSTRENDER_ARGS="--retain=2"))
    assert "postrender arguments (env POSTRENDER_ARGS): --retain is not available" in result.stderr
    # Refused only together (a flag in one, its value in the other): neither is blamed alone.
    split = {**plugin_env(POSTRENDER_ARGS="--config"),
             **argocd_parameters([{"name": "postrender-args", "array": ["../outside.yaml"]}])}
    result = run("generate", app, env, **split)
    assert result.returncode == 1 and "error: --config file must be a relative path" in result.stderr


@pytest.mark.parametrize("words", ["version", "help", "diff a b", "completion bash", "gc -n x", "graph", "--version",
                                   "--help", "--strict version"])
@pytest.mark.parametrize("source", ["env POSTRENDER_ARGS", "parameter postrender-args"])
def test_a_refused_command_word_says_where_it_came_from(app, env, words, source):
    """Alone, `version` or `diff a b` read as postrender's command and was
    refused otherwise than among the plugin's flags: the line named no
    source, where `gc` and `graph` had theirs (argocd61)."""
    given = plugin_env(POSTRENDER_ARGS=words) if source.startswith("env") else \
        argocd_parameters([{"name": "postrender-args", "array": words.split()}])
    result = run("generate", app, env, **given)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr.startswith(f"postrender-cmp: error: postrender arguments ({source}): "), result.stderr


def test_a_manifest_link_to_a_folder_is_not_read(plain_app, env, tmp_path):
    (tmp_path / "vendor.yaml").mkdir()
    (plain_app / "vendor.yaml").symlink_to(tmp_path / "vendor.yaml")
    result = run("generate", plain_app, env)
    assert result.returncode == 0, result.stderr


def test_the_manifest_is_written_as_utf8_whatever_the_locale(plain_app, env):
    (plain_app / "config.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {mode: früh}\n", encoding="utf-8")
    result = subprocess.run(command("generate"), cwd=plain_app, env={**env, "PYTHONIOENCODING": "ascii"},
                            capture_output=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "mode: früh".encode() in result.stdout


def test_a_closed_standard_output_is_an_error_not_a_traceback(plain_app, env):
    result = subprocess.run(command("generate"), cwd=plain_app, env=env, stderr=subprocess.PIPE, text=True,
                            timeout=120, preexec_fn=lambda: os.close(1))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith("postrender-cmp: error: cannot write the manifest")


@pytest.mark.parametrize("phase", ["generate", "usage"])
def test_an_error_with_standard_error_closed_leaves_the_standard_output_empty(plain_app, env, phase):
    # print(file=None) writes to the standard output: the error line was
    # the manifest Argo CD read (an outside tester, `2>&-`).
    (plain_app / "config.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: s}\ndata: {n: 3}\n")
    argv = command("generate") if phase == "generate" else ["postrender-cmp", "bogus"]
    result = subprocess.run(argv, cwd=plain_app, env=env, stdout=subprocess.PIPE, timeout=120,
                            preexec_fn=lambda: os.close(2))
    assert (result.returncode, result.stdout) == (1, b"")


def test_a_standard_output_closed_is_said_so(plain_app, env):
    result = subprocess.run(command("generate"), cwd=plain_app, env=env, stderr=subprocess.PIPE, text=True,
                            timeout=120, stdout=subprocess.DEVNULL, preexec_fn=lambda: os.close(1))
    assert result.returncode == 1
    assert "NoneType" not in result.stderr and "standard output is closed" in result.stderr, result.stderr


_SHORT_OF_MEMORY = """
import importlib.abc, runpy, sys
class Failing(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "postrender.cli":
            raise MemoryError()
sys.meta_path.insert(0, Failing())
sys.argv = ["postrender-cmp", "generate"]
runpy.run_path(sys.argv.pop(), run_name="__main__")
"""


def test_memory_short_is_one_line_not_a_traceback(plain_app, env):
    script = _SHORT_OF_MEMORY.replace('sys.argv.pop()', repr(str(ROOT / "integrations" / "argocd" / "postrender-cmp")))
    result = subprocess.run([sys.executable, "-c", script], cwd=plain_app, env=env, capture_output=True, text=True,
                            timeout=120)
    assert (result.returncode, result.stdout) == (1, ""), result.stderr
    assert result.stderr.startswith("postrender-cmp: error: out of memory") and result.stderr.count("\n") == 1, \
        result.stderr


def test_messages_escape_control_characters_from_the_application(app, env):
    result = run("generate", app, env, **plugin_env(POSTRENDER_ARGS="evil\x1b[2J\u202e.yaml"))
    assert result.returncode != 0 and result.stdout == ""
    assert "evil\\x1b[2J\\u202e.yaml: not a flag" in result.stderr
    assert "\x1b" not in result.stderr and "\u202e" not in result.stderr


def test_postrender_args_are_never_evaluated_by_a_shell(app, env, tmp_path):
    marker = tmp_path / "evaluated"
    for text in (f"--scope $(touch {marker})", f"--scope `touch {marker}`", f"--strict; touch {marker}",
                 f"--strict && touch {marker}", f"--scope=$HOME --strict | touch {marker}"):
        result = run("generate", app, env, **plugin_env(POSTRENDER_ARGS=text))
        assert result.returncode != 0 and result.stdout == ""
        assert not marker.exists(), text
    # Quoted words stay words: the literal text reaches postrender, which refuses it as a label.
    literal = run("generate", app, env, **plugin_env(POSTRENDER_ARGS="--scope '$HOME'"))
    assert literal.returncode != 0 and "'$HOME' is not a valid label value" in literal.stderr


def test_argo_cd_substitutes_variables_in_postrender_args_as_the_readme_says(app, env):
    """The README said $VAR stays literal text; Argo CD has substituted it
    from its build environment before the plugin runs (argocd61)."""
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("### Argo CD"):readme.index("<!-- end: integrations -->")]
    assert "`$VAR`, globs" not in section
    assert "`--scope $ARGOCD_APP_NAME` scopes by the Application's name" in section
    assert "`--scope $TEAM` arrives as\n`--scope `" in section and "`$$` is a `$`" in section
    build_env = {key: value for key, value in env.items() if key.startswith(("ARGOCD_APP_", "KUBE_"))}

    def given(value: str) -> subprocess.CompletedProcess[str]:
        return run("generate", app, env, **plugin_env(POSTRENDER_ARGS=argocd_envsubst(value, build_env)))

    named = given("--scope $ARGOCD_APP_NAME")
    assert named.returncode == 0, named.stderr
    assert _settings(named.stdout)["metadata"]["labels"]["postrender.io/scope"] == "shop"
    unknown = given("--scope $TEAM")
    assert unknown.returncode == 1 and "argument --scope: expected one argument" in unknown.stderr
    escaped = given("--scope $$HOME")
    assert escaped.returncode == 1 and "'$HOME' is not a valid label value" in escaped.stderr


def _first_on_path(env: dict[str, str], tmp_path: Path, name: str, script: str) -> dict[str, str]:
    """`env` with a command `name` running the shell `script` first on PATH."""
    folder = tmp_path / f"first-{name}"
    folder.mkdir()
    (folder / name).write_text(f"#!/bin/sh\n{script}\n")
    (folder / name).chmod(0o755)
    return {**env, "PATH": f"{folder}:{env['PATH']}"}


def test_postrender_runs_in_the_plugins_own_process(app, env, tmp_path):
    # The plugin imports postrender to check its arguments, and runs it
    # there: a `postrender` process would start Python and import it all
    # again. A `postrender` command that fails, first on PATH, is never run.
    result = run("generate", app, _first_on_path(env, tmp_path, "postrender", "echo 'a postrender process ran' >&2\nexit 3"))
    assert result.returncode == 0, result.stderr
    assert "a postrender process ran" not in result.stderr
    assert "name: shop-settings-" in result.stdout


def test_a_postrender_failure_yields_no_manifest(app, env):
    (app / "broken.yaml").write_text(
        "extraManifests:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: bad}\n  data: {count: 3}\n"
    )
    result = run("generate", app, env, **argocd_parameters([{"name": "values-files", "array": ["broken.yaml"]}]))
    assert result.returncode != 0
    assert result.stdout == ""
    assert "data.count must be a string" in result.stderr


def test_a_helm_failure_yields_no_manifest(app, env):
    result = run("generate", app, env, **argocd_parameters([{"name": "values-files", "array": ["missing.yaml"]}]))
    assert result.returncode != 0 and result.stdout == ""
    assert "helm template failed" in result.stderr


def test_a_helm_killed_by_a_signal_says_so(app, env, tmp_path):
    result = run("generate", app, _first_on_path(env, tmp_path, "helm", "kill -9 $$"))
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.strip().splitlines()[-1] == "postrender-cmp: error: helm template was killed by signal 9"


@pytest.mark.parametrize("path", ["../outside.yaml", "/etc/passwd", "values/../../x.yaml", "link.yaml"])
def test_values_files_must_stay_inside_the_application(app, env, path, tmp_path):
    (tmp_path / "outside.yaml").write_text("greeting: outside\n")
    (app / "link.yaml").symlink_to(tmp_path / "outside.yaml")
    result = run("generate", app, env, **plugin_env(VALUES_FILES=path))
    assert result.returncode != 0 and result.stdout == ""
    assert ("is a symbolic link to ../outside.yaml, outside the application" if path == "link.yaml"
            else "relative path inside the application") in result.stderr


@pytest.mark.parametrize("path, shown", [
    ("http://127.0.0.1:9/v.yaml", "not a URL: http://127.0.0.1:9/v.yaml"),
    ("https://user:hunter2@example.com/v.yaml", "not a URL: https://…@example.com/v.yaml"),
    # Go's userinfo runs to the authority's last `@` (review62d: `…@3xyz@example.com` was shown).
    ("https://deploy:hunter2@3xyz@example.com/v.yaml", "not a URL: https://…@example.com/v.yaml"),
    ("https://deploy:hunter2@example.com/a@b.yaml", "not a URL: https://…@example.com/a@b.yaml"),
    ("https://deploy:hunter2@example.com?x@y", "not a URL: https://…@example.com?x@y"),
    ("https:deploy:hunter2@example.com/v.yaml", "not a URL: https:…@example.com/v.yaml"),
    ("oci://registry.example.com/values", "not a URL: oci://registry.example.com/values"),
    ("s3://bucket/v.yaml", "not a URL: s3://bucket/v.yaml"),
    ("HTTP://example.com/v.yaml", "not a URL: HTTP://example.com/v.yaml"),
    ("git+ssh:repo/v.yaml", "not a URL: git+ssh:repo/v.yaml (a file of that name: write ./git+ssh:repo/v.yaml)"),
    # Said how to name a file whose name only looks so (fixa62b's note).
    ("env:prod.yaml", "not a URL: env:prod.yaml (a file of that name: write ./env:prod.yaml)"),
    ("file:///etc/passwd", "not a URL: file:///etc/passwd"),
    (" - ", "not ' - ' (standard input)"),
    ("-", "not '-' (standard input)"),
])
@pytest.mark.parametrize("how", ["parameter", "plugin-env"])
def test_a_values_file_given_as_a_url_or_stdin_is_refused_before_helm_runs(app, env, path, shown, how, tmp_path):
    """Helm reads a values file through the getter for its URL scheme (http,
    https, oci, a plugin's), `-` from its standard input: `inside()` took
    `http://host/v.yaml` for a path, and helm fetched it (argocd62)."""
    ran = tmp_path / "helm-ran"
    watched = _first_on_path(env, tmp_path, "helm", f"touch {ran}; exit 1")
    given = (argocd_parameters([{"name": "values-files", "array": [path]}]) if how == "parameter"
             else plugin_env(VALUES_FILES=path))
    if how == "plugin-env" and path != path.strip():
        pytest.skip("the env entry is split at blanks: ' - ' arrives as '-'")
    result = run("generate", app, watched, **given)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == ("postrender-cmp: error: values file must be a relative path inside the application, "
                             f"{shown}\n"), result.stderr
    assert "hunter2" not in result.stderr and not ran.exists()


def test_a_config_file_given_as_a_url_is_refused(app, env):
    result = run("generate", app, env, **plugin_env(POSTRENDER_ARGS="--config=https://example.com/specs.yaml"))
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == ("postrender-cmp: error: --config file must be a relative path inside the application,"
                             " not a URL: https://example.com/specs.yaml\n"), result.stderr


def test_a_values_file_path_like_a_url_but_without_a_scheme_is_read(app, env):
    (app / "values").mkdir()
    (app / "values" / "prod.yaml").write_text("greeting: servus\n")
    for path in ["values/prod.yaml", "./values/prod.yaml"]:
        result = run("generate", app, env, **argocd_parameters([{"name": "values-files", "array": [path]}]))
        assert result.returncode == 0, result.stderr
        assert _settings(result.stdout)["data"]["greeting"] == "servus"


@pytest.mark.parametrize("parameters, message", [
    ([{"name": "values-files", "array": ["values.yaml", ""]}], "values-files item 2 is empty"),
    ([{"name": "values-files", "array": ["  "]}], "values-files item 1 is blank: '  '"),
    ({"PARAM_VALUES_FILES_0": "values.yaml", "PARAM_VALUES_FILES_1": ""}, "values-files item 2 is empty"),
])
def test_an_empty_values_file_item_is_named_by_its_number(app, env, parameters, message):
    """An empty row left in the UI's array editor: the message named nothing (argocd62)."""
    given = argocd_parameters(parameters) if isinstance(parameters, list) else parameters
    result = run("generate", app, env, **given)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == f"postrender-cmp: error: {message}\n"


def test_a_multi_source_values_ref_says_a_plugin_source_has_none(app, env):
    result = run("generate", app, env,
                 **argocd_parameters([{"name": "values-files", "array": ["$values/envs/prod/values.yaml"]}]))
    assert (result.returncode, result.stdout) == (1, "")
    assert "values file $values/envs/prod/values.yaml: Argo CD resolves a `$ref/...` values file" in result.stderr
    assert "never for a plugin source" in result.stderr and "no such file" not in result.stderr


def test_init_builds_dependencies_only_when_missing(app, env, tmp_path):
    before = sorted(p.relative_to(app) for p in app.rglob("*"))
    vendored = run("init", app, env)
    assert vendored.returncode == 0, vendored.stderr
    assert sorted(p.relative_to(app) for p in app.rglob("*")) == before

    # The same dependency fetched from a repository instead of vendored.
    shutil.rmtree(app / "charts")
    chart = app / "Chart.yaml"
    declared = "  - name: worker\n    version: 0.1.0\n"
    assert declared in chart.read_text()
    chart.write_text(
        chart.read_text().replace(declared, declared + f"    repository: file://{CHART / 'charts' / 'worker'}\n")
    )
    built = run("init", app, env)
    assert built.returncode == 0, built.stderr
    assert (app / "charts" / "worker-0.1.0.tgz").is_file()
    result = run("generate", app, env)
    assert result.returncode == 0, result.stderr
    assert "Deployment/shop-worker" in {ident(d) for d in documents(result.stdout)}


# --- a kustomization ----------------------------------------------------------------


@pytest.fixture(params=["kustomize", "kubectl"])
def kustomize_env(env, tmp_path, request) -> dict[str, str]:
    """With a `kustomize` binary (as in the image; here kubectl's kustomize
    behind that name), or with only kubectl."""
    if request.param == "kustomize":
        shim = tmp_path / "bin" / "kustomize"
        shim.write_text(f'#!/bin/sh\n[ "$1" = build ] || exit 2\nshift\nexec "{require_tool("kubectl")}" kustomize "$@"\n')
        shim.chmod(0o755)
    return env


def test_generate_builds_a_kustomization_through_postrender(kustomize_app, kustomize_env):
    # The app's Widget names `settings` in a field no spec covers: a warning here, not the render's error.
    result = run("generate", kustomize_app, kustomize_env,
                 **plugin_env(POSTRENDER_ARGS="--keep-previous=argocd --allow-broken-references"))
    assert result.returncode == 0, result.stderr
    docs = documents(result.stdout)
    assert unresolved(docs) == []
    # Versions only: the Secret's unsuffixed copy (the default) is no version.
    plain = {name: d for (_, name), d in configs(without_copies(docs)).items() if not name.startswith("generated")}
    assert {re.sub(r"-[a-z0-9]{10}$", "", n) for n in plain} == {"settings", "features", "credentials"}
    assert all(versioned(d) and d["metadata"]["annotations"][ARGOCD_KEEP] == "Prune=false" for d in plain.values())
    # kustomize's generator output is there, and every reference to it resolves (above).
    assert {name.split("-")[0] for (_, name) in configs(docs)} == {"settings", "features", "credentials", "generated"}


def test_a_kustomize_failure_yields_no_manifest(kustomize_app, kustomize_env):
    (kustomize_app / "kustomization.yaml").write_text("resources:\n  - missing.yaml\n")
    result = run("generate", kustomize_app, kustomize_env)
    assert result.returncode != 0 and result.stdout == ""
    assert re.search(r"postrender-cmp: error: (kustomize build|kubectl kustomize) failed", result.stderr)


@pytest.fixture
def helm_charts_app(tmp_path: Path) -> Path:
    """A kustomization inflating a chart (helmCharts:) from its charts/ folder."""
    folder = tmp_path / "inflating"
    shutil.copytree(CHART / "charts" / "worker", folder / "charts" / "worker")
    (folder / "kustomization.yaml").write_text(
        "namespace: prod\nresources: [shared.yaml]\nhelmCharts:\n  - {name: worker, releaseName: rel}\n")
    (folder / "shared.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: rel-shared}\ndata: {k: v}\n")
    return folder


SIDECAR_ENABLE_HELM = "POSTRENDER_CMP_KUSTOMIZE_ENABLE_HELM"


def test_a_kustomization_with_helm_charts_builds_where_the_sidecar_enables_helm(helm_charts_app, kustomize_env):
    result = run("generate", helm_charts_app, kustomize_env, **{SIDECAR_ENABLE_HELM: "true"})
    assert result.returncode == 0, result.stderr
    docs = without_copies(documents(result.stdout))
    assert sorted(ident(d) for d in docs if d["kind"] == "Deployment") == ["Deployment/rel-worker"]
    assert unresolved(documents(result.stdout)) == [] and all(versioned(d) for d in configs(docs).values())


@pytest.mark.parametrize("given", [{}, {SIDECAR_ENABLE_HELM: "false"}, {SIDECAR_ENABLE_HELM: ""}])
def test_a_kustomization_with_helm_charts_without_the_opt_in_names_it(helm_charts_app, kustomize_env, given):
    """kustomize says `must specify --enable-helm`, which nothing could pass
    (argocd62); the line says who can: the admin, in the sidecar."""
    result = run("generate", helm_charts_app, kustomize_env, **given)
    assert (result.returncode, result.stdout) == (1, "")
    assert "must specify --enable-helm" in result.stderr  # kustomize's own words, shown
    assert re.search(r"postrender-cmp: error: (kustomize build|kubectl kustomize) failed \(exit status 1\); a"
                     r" kustomization with helmCharts: needs --enable-helm, which the Argo CD admin turns on in the"
                     r" sidecar container's env: POSTRENDER_CMP_KUSTOMIZE_ENABLE_HELM=true\n$", result.stderr), \
        result.stderr


@pytest.mark.parametrize("sidecar", [{}, {SIDECAR_ENABLE_HELM: "true"}])
@pytest.mark.parametrize("value", ["true", "false"])
def test_the_applications_kustomize_enable_helm_is_refused_as_the_admins(helm_charts_app, kustomize_env, tmp_path,
                                                                          sidecar, value):
    """With it any Application author turned on what Argo CD keeps for its
    admin (argocd-cm kustomize.buildOptions): helm pulls from any repo URL,
    values files from URLs, a helm home outside the application (review62d)."""
    ran = tmp_path / "kustomize-ran"
    watched = _first_on_path(kustomize_env, tmp_path, "kustomize", f"touch {ran}; exit 1")
    result = run("generate", helm_charts_app, watched, **sidecar, **plugin_env(KUSTOMIZE_ENABLE_HELM=value))
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == ("postrender-cmp: error: KUSTOMIZE_ENABLE_HELM is an admin setting of the sidecar, not the"
                             " Application's plugin env: the admin sets POSTRENDER_CMP_KUSTOMIZE_ENABLE_HELM=true in"
                             " the sidecar container's env\n"), result.stderr
    assert not ran.exists()


def test_the_sidecars_enable_helm_takes_true_or_false(helm_charts_app, kustomize_env):
    result = run("generate", helm_charts_app, kustomize_env, **{SIDECAR_ENABLE_HELM: "yes"})
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == ("postrender-cmp: error: the sidecar's POSTRENDER_CMP_KUSTOMIZE_ENABLE_HELM is 'yes': it"
                             " takes true or false\n")


def test_a_kustomize_failure_of_another_kind_gets_no_helm_hint(kustomize_app, kustomize_env):
    (kustomize_app / "kustomization.yaml").write_text("resources:\n  - missing.yaml\n")
    result = run("generate", kustomize_app, kustomize_env)
    assert result.returncode == 1 and "KUSTOMIZE_ENABLE_HELM" not in result.stderr
    assert "missing.yaml" in result.stderr  # kustomize's words, still shown


def test_a_kustomization_beside_a_chart_is_built_as_argo_cd_builds_it(app, env, tmp_path):
    """Argo CD's own discovery takes a folder holding both for a
    kustomization: the plugin rendered the chart, without what the
    kustomization adds, which Argo CD would then prune (argocd61)."""
    (app / "extra.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: extra}\ndata: {k: v}\n")
    (app / "kustomization.yaml").write_text("resources: [extra.yaml]\n")
    ran = tmp_path / "helm-ran"
    with_helm_watched = _first_on_path(env, tmp_path, "helm", f"touch {ran}; exit 1")
    assert run("init", app, with_helm_watched).returncode == 0
    result = run("generate", app, with_helm_watched)
    assert result.returncode == 0, result.stderr
    assert [ident(d) for d in without_copies(documents(result.stdout))] == ["ConfigMap/extra"]
    assert not ran.exists()  # neither `helm dependency` nor `helm template`


@pytest.mark.parametrize("given", [
    argocd_parameters([{"name": "values-files", "array": ["values-prod.yaml"]}]),
    argocd_parameters([{"name": "helm-parameters", "map": {"greeting": "hallo"}}]),
    argocd_parameters([{"name": "helm-string-parameters", "map": {"greeting": "hallo"}}]),
    plugin_env(VALUES_FILES="values-prod.yaml"),
])
@pytest.mark.parametrize("layout", ["kustomization beside the chart", "folder of manifests"])
def test_helms_parameters_for_an_application_not_built_as_a_chart_are_refused(app, env, given, layout):
    """Unread, the render lacks what they ask, exit 0: a chart's folder that
    gains a kustomization is built as the kustomization (as Argo CD does).
    A release name, which an ApplicationSet may give every application, is
    not refused (below)."""
    if layout == "folder of manifests":
        (app / "Chart.yaml").unlink()
        for template in ("templates", "charts"):
            shutil.rmtree(app / template)
        for values in app.glob("values*.yaml"):
            values.unlink()
        (app / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {k: v}\n")
        built = "a folder of manifests"
    else:
        (app / "kustomization.yaml").write_text("resources: [extra.yaml]\n")
        (app / "extra.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: extra}\ndata: {k: v}\n")
        built = "a kustomization"
    assert run("generate", app, env).returncode == 0
    result = run("generate", app, env, **given)
    assert (result.returncode, result.stdout) == (1, "")
    assert "is for a Helm chart, and the application is built as " + built in result.stderr, result.stderr


@pytest.mark.parametrize("given", [
    argocd_parameters([{"name": "release-name", "string": "store"}]),
    plugin_env(RELEASE_NAME="store"),
])
def test_a_release_name_given_to_an_application_not_built_as_a_chart_is_let_be(app, env, given):
    (app / "kustomization.yaml").write_text("resources: [extra.yaml]\n")
    (app / "extra.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: extra}\ndata: {k: v}\n")
    result = run("generate", app, env, **given)
    assert result.returncode == 0, result.stderr
    assert [ident(d) for d in without_copies(documents(result.stdout))] == ["ConfigMap/extra"]


@pytest.mark.parametrize("origins", [False, True])
def test_a_kustomize_error_names_the_stream_kustomize_built_not_a_file_line(tmp_path, kustomize_env, origins):
    """`line 3` is a line of kustomize's output, which the Argo CD user never
    sees (in s.yaml the value is on line 6): the source says so, as for the
    exec transformer; with origin annotations the file is named (argocd61)."""
    app = tmp_path / "secret-app"
    app.mkdir()
    (app / "s.yaml").write_text("apiVersion: v1\nkind: Secret\nmetadata:\n  name: web-creds\ndata:\n"
                                "  password: not-base64!!\n")
    (app / "kustomization.yaml").write_text(
        "resources: [s.yaml]\n" + ("buildMetadata: [originAnnotations]\n" if origins else ""))
    result = run("generate", app, kustomize_env)
    assert (result.returncode, result.stdout) == (1, "")
    where = "s.yaml, Secret/web-creds) stream line" if origins else \
        "(the stream kustomize built, Secret/web-creds) line 3"
    assert f"document 1 ({where}" in result.stderr if origins else where in result.stderr, result.stderr
    assert "not-base64" not in result.stderr


# --- a folder of manifests ------------------------------------------------------------


def test_generate_renders_a_folder_of_manifests(plain_app, env):
    result = run("generate", plain_app, env, **argocd_parameters(
        [{"name": "postrender-args", "array": ["--keep-previous=argocd"]}]))
    assert result.returncode == 0, result.stderr
    docs = documents(result.stdout)
    assert {d["kind"] for d in docs} == {"ConfigMap", "Deployment"}  # no docs/, no .github/
    (settings,) = configs(docs).values()
    assert versioned(settings) and settings["metadata"]["annotations"][ARGOCD_KEEP] == "Prune=false"
    web = next(d for d in docs if d["kind"] == "Deployment")
    assert [r.name for r in all_references([web])] == [settings["metadata"]["name"]]


@pytest.mark.parametrize("libsonnet", [False, True])
def test_a_folder_holding_jsonnet_is_refused_not_rendered_without_it(plain_app, env, libsonnet):
    """Argo CD's own directory source renders *.jsonnet: left out, its
    Deployment went missing, exit 0, and Argo CD would prune it (argocd62)."""
    (plain_app / "b.jsonnet").write_text("(import 'lib.libsonnet') { metadata: { name: 'j' } }\n")
    if libsonnet:
        (plain_app / "lib.libsonnet").write_text("{ apiVersion: 'v1', kind: 'ConfigMap' }\n")
    result = run("generate", plain_app, env)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == ("postrender-cmp: error: b.jsonnet: the plugin renders no jsonnet, and its objects would be"
                             " missing from the render; render it to YAML in the application first, or use Argo CD's"
                             " directory source\n")


def test_a_lone_libsonnet_beside_manifests_is_let_be(plain_app, env):
    """Argo CD renders *.jsonnet only; a *.libsonnet is imported, never
    rendered alone, so the folder renders as Argo CD's directory source
    renders it (review62d: refused as if objects went missing)."""
    (plain_app / "lib.libsonnet").write_text("{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'j' } }\n")
    result = run("generate", plain_app, env)
    assert result.returncode == 0, result.stderr
    assert "ConfigMap/j" not in {ident(d) for d in documents(result.stdout)}


def test_jsonnet_in_a_subfolder_or_a_dot_file_is_let_be_as_its_yaml_would_be(plain_app, env):
    (plain_app / "docs" / "b.jsonnet").write_text("{}\n")
    (plain_app / ".b.jsonnet").write_text("{}\n")
    result = run("generate", plain_app, env)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("given", [
    plugin_env(POSTRENDER_ARGS="--config=postrender-specs.yaml --strict"),
    plugin_env(POSTRENDER_ARGS="--config ./postrender-specs.yaml --strict"),
    argocd_parameters([{"name": "postrender-args", "array": ["--config", "specs-link.yaml", "--strict"]}]),
])
def test_a_config_file_in_a_folder_of_manifests_is_no_manifest(plain_app, env, given):
    """Read as a manifest too, it failed as `object has no kind` (argocd61):
    left out by any name it is given, a link's too."""
    (plain_app / "postrender-specs.yaml").write_text(
        "nameReference:\n- kind: ConfigMap\n  fieldSpecs:\n  - {kind: Widget, path: spec/settings}\n")
    (plain_app / "specs-link.yaml").symlink_to("postrender-specs.yaml")
    (plain_app / "widget.yaml").write_text(
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {settings: settings}\n")
    result = run("generate", plain_app, env, **given)
    assert result.returncode == 0, result.stderr
    docs = documents(result.stdout)
    assert sorted(d["kind"] for d in docs) == ["ConfigMap", "Deployment", "Widget"]
    widget = next(d for d in docs if d["kind"] == "Widget")
    assert widget["spec"]["settings"] == next(iter(configs(docs).values()))["metadata"]["name"] != "settings"


def test_a_folder_holding_only_a_config_file_is_an_error(tmp_path, env):
    folder = tmp_path / "only-specs"
    folder.mkdir()
    (folder / "postrender-specs.yaml").write_text("nameReference: []\n")
    result = run("generate", folder, env, **plugin_env(POSTRENDER_ARGS="--config=postrender-specs.yaml"))
    assert (result.returncode, result.stdout) == (1, "")
    assert "no Chart.yaml, kustomization or *.yaml/*.yml/*.json manifests in the application" in result.stderr


def test_an_empty_folder_is_an_error_not_an_empty_manifest(tmp_path, env):
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "README.md").write_text("nothing to deploy\n")
    result = run("generate", empty, env)
    assert result.returncode != 0 and result.stdout == ""
    assert "no Chart.yaml, kustomization or" in result.stderr


def test_a_broken_manifest_yields_no_manifest(plain_app, env):
    (plain_app / "zz-broken.yaml").write_text("apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata: {k: '*'}\n")
    result = run("generate", plain_app, env)
    assert result.returncode != 0 and result.stdout == ""
    assert "data.k is not valid base64" in result.stderr


def test_the_readme_sidecar_runs_the_image_as_the_dockerfile_builds_it():
    """The sidecar snippet and the Dockerfile agree: the user the image's
    files belong to, and the folders Argo CD and postrender-cmp write to."""
    readme = (ROOT / "README.md").read_text()
    snippet = readme.split("# argocd-repo-server Deployment, spec.template.spec\n", 1)[1].split("```", 1)[0]
    spec = YAML(typ="safe").load(snippet)
    (sidecar,) = spec["containers"]
    dockerfile = (ROOT / "integrations" / "argocd" / "Dockerfile").read_text()
    assert f"USER {sidecar['securityContext']['runAsUser']}\n" in dockerfile
    assert sidecar["command"] == ["/var/run/argocd/argocd-cmp-server"]
    mounts = {mount["mountPath"]: mount["name"] for mount in sidecar["volumeMounts"]}
    assert mounts["/var/run/argocd"] == "var-files" and mounts["/home/argocd/cmp-server/plugins"] == "plugins"
    # HELM_*_HOME point under /tmp, which must be writable: an emptyDir of the pod's own.
    assert "HELM_CACHE_HOME=/tmp/" in dockerfile
    assert {"name": mounts["/tmp"], "emptyDir": {}} in spec["volumes"]
    # The plugin's definition is where argocd-cmp-server reads it.
    assert "/home/argocd/cmp-server/config/plugin.yaml" in dockerfile


@pytest.mark.parametrize("parameters", [
    [{"name": "helm-parameters", "map": {"db.password": "x\u0000y"}}],
    [{"name": "release-name", "string": "a\u0000b"}],
    [{"name": "values-files", "array": ["values\u0000.yaml"]}],
])
def test_a_nul_byte_in_a_parameter_is_one_line_not_a_traceback(app, env, parameters):
    result = run("generate", app, env, ARGOCD_APP_PARAMETERS=json.dumps(parameters))
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.startswith("postrender-cmp: error: ") and "Traceback" not in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "x\\x00y" not in result.stderr


@pytest.mark.parametrize("where", [{"ARGOCD_ENV_POSTRENDER_ARGS": "--config=loop1"}, plugin_env(VALUES_FILES="loop1")])
def test_a_symbolic_link_loop_in_the_application_is_one_line_not_a_traceback(app, env, where):
    (app / "loop1").symlink_to("loop2")
    (app / "loop2").symlink_to("loop1")
    result = run("generate", app, env, **where)
    assert result.returncode == 1 and result.stdout == ""
    assert "cannot be resolved (a symbolic link loop): loop1" in result.stderr and "Traceback" not in result.stderr


# --- what the Application gives, checked as Argo CD's own Helm source does ---------------


@pytest.mark.parametrize("given", [
    argocd_parameters([{"name": "release-name", "string": "--post-renderer=sh"}]),
    plugin_env(RELEASE_NAME="--values=/etc/hostname"),
    argocd_parameters([{"name": "release-name", "string": "Shop"}]),
    argocd_parameters([{"name": "release-name", "array": ["a", "b"]}]),
])
def test_a_release_name_helm_would_not_take_is_refused_before_helm_runs(app, env, given, tmp_path):
    """A release name is a word of helm's command line: one that starts with
    `-` was read as a flag of helm's (`--post-renderer=sh` ran the render as a
    shell script)."""
    ran = tmp_path / "helm-ran"
    result = run("generate", app, _first_on_path(env, tmp_path, "helm", f"touch {ran}; exit 1"), **given)
    assert result.returncode == 1 and result.stdout == ""
    assert "release name" in result.stderr or "release-name" in result.stderr, result.stderr
    assert not ran.exists()


def test_a_helm_parameter_value_keeps_its_commas(app, env):
    """As Argo CD's own Helm source passes them (cleanSetParameters): a comma
    is the value's, unless the value is a `{a,b}` list."""
    result = run("generate", app, env, **argocd_parameters(
        [{"name": "helm-parameters", "map": {"greeting": "hello, world,image=evil"}}]))
    assert result.returncode == 0, result.stderr
    assert _settings(result.stdout)["data"]["greeting"] == "hello, world,image=evil"


def script() -> dict:
    """postrender-cmp's functions, loaded without running it (__name__ is not __main__)."""
    return runpy.run_path(str(ROOT / "integrations" / "argocd" / "postrender-cmp"))


@pytest.fixture(params=["helm3", "helm4"])
def any_helm_env(env, request) -> dict[str, str]:
    """The sidecar's environment with Helm 3 (the image's) or Helm 4 as `helm`."""
    helm = Path(env["PATH"].split(":")[0]) / "helm"
    helm.unlink()
    helm.symlink_to(require_tool(request.param))
    return env


@pytest.mark.parametrize("value, read", [
    ("{x}Sup3rS3cret.Pa55word", None),     # helm: key "Pa55word" has no value (review62d)
    ("{x}a[0].secretpart", None),          # key "secretpart" has no value
    ("{a,b}.Pa55word}", None),             # a list to Argo CD; key "Pa55word}" has no value
    ("{x},hunter2", None),                 # key ",hunter2" has no value (argocd62)
    ("{x}hunter2", None),
    ("{x}s3cr3t{y}", None),
    ("{x},[k3y]", None),
    ("{x}y=z", None),                      # rendered [x] and set y, exit 0
    ("a\\\\,Pa55word", "a\\,Pa55word"),     # Argo CD's form: the backslash escaped, the comma ended the value
    ("a\\,b", "a,b"),                      # as Argo CD has it: `\,` a comma
    ("{a,b},pa\"ss\\word", '{a,b},pa"ssword'),  # and a backslash eaten by --set's parser, as in Argo CD
    ("{a,b}", "[a b]"),                    # a whole list stays a list
])
@pytest.mark.parametrize("name", ["helm-parameters", "helm-string-parameters"])
def test_a_helm_parameter_value_helm_would_misread_reaches_the_chart_as_given(app, any_helm_env, name, value, read):
    """A value starting with `{` that is no whole `{a,b}` list was read by
    --set's parser as a list and the rest as keys: a piece of it (after
    `.`, `,`, `[`) was quoted in helm's error, or the chart got [x], exit 0
    (argocd62, review62d). The leading `{` is escaped: helm reads the value."""
    result = run("generate", app, any_helm_env, **argocd_parameters([{"name": name, "map": {"greeting": value}}]))
    assert result.returncode == 0, result.stderr
    assert _settings(result.stdout)["data"]["greeting"] == (read or value)


@pytest.mark.parametrize("value, said, secret", [
    ("{x}Sup3rS3cret.Pa55word", 'key "Pa55word" has no value', "Pa55word"),
    ("{x}a[0].secretpart", 'key "secretpart" has no value', "secretpart"),
    ("{a,b}.Pa55word}", 'key "Pa55word}" has no value', "Pa55word"),
    ("{x},hunter2", 'key ",hunter2" has no value', "hunter2"),
    ("{a,b},pa\"ss\\word", 'key ",pa\\"ssword" has no value', "ssword"),
])
def test_the_scrub_behind_the_escape_hides_what_helms_misreading_quoted(value, said, secret):
    """A backup for a parser helm may change: what helm 3.17 said of these
    values before _set_value escaped them is shown without any of them."""
    cmp = script()
    shown = cmp["Stderr"](hidden=tuple(cmp["_hidden_forms"](value))).shown(f"Error: {said}\n".encode())
    assert shown.startswith(b'Error: key "') and cmp["HIDDEN"] in shown and secret.encode() not in shown, shown


@pytest.mark.parametrize("text, quoted", [
    ("hunter2\x01z", "hunter2\\x01z"),
    ("a\u00adb\x7fc\u2028d\u00a0e", "a\\u00adb\\x7fc\\u2028d\\u00a0e"),
    ("\a\b\f\n\r\t\v\\\"'", "\\a\\b\\f\\n\\r\\t\\v\\\\\\\"'"),
    ("\U000e0001 hünter2 ✓ \x85", "\\U000e0001 hünter2 ✓ \\u0085"),
])
def test_a_value_is_hidden_as_gos_quote_writes_it(text, quoted):
    """Go's strconv.Quote, which helm's `key %q` and Sprig's `quote` use:
    `\\x01` where json.dumps wrote `\\u0001`, and U+00AD, U+2028, DEL
    escaped where json.dumps left them (review62d)."""
    assert script()["_go_quoted"](text) == quoted


@pytest.fixture
def failing_app(app: Path) -> Path:
    """The chart, failing with a value as Sprig's `quote` (Go's %q) writes it."""
    (app / "templates" / "fail.yaml").write_text(
        "{{- if .Values.failWith }}{{ fail (quote .Values.failWith) }}{{ end }}\n")
    return app


@pytest.mark.parametrize("value", ["hunter2\x01z", "hunter2\u00adz", "hunter2\x7fz", 'hun"ter2\\z\x01'])
def test_a_charts_failure_quoting_a_value_shows_none_of_it(failing_app, any_helm_env, value):
    """Helm 4 quotes its whole error line again (level=ERROR ... error="...")."""
    result = run("generate", failing_app, any_helm_env, **argocd_parameters(
        [{"name": "helm-string-parameters", "map": {"failWith": value}}]))
    assert (result.returncode, result.stdout) == (1, "")
    assert "<a helm-parameters value>" in result.stderr and "ter2" not in result.stderr, result.stderr


@pytest.mark.parametrize("value, digits", [("+48213377", "48213377"), ("+0048213377", "48213377"),
                                           ("-48213377", "48213377")])
def test_a_number_helm_prints_without_its_sign_is_hidden(app, any_helm_env, value, digits):
    """--set types `+48213377` as an int64, and helm says `%!t(int64=48213377)`."""
    result = run("generate", app, any_helm_env,
                 **argocd_parameters([{"name": "helm-parameters", "map": {"worker": value}}]))
    assert (result.returncode, result.stdout) == (1, "")
    assert "type mismatch on worker" in result.stderr and digits not in result.stderr, result.stderr


def test_a_short_value_leaves_helms_words_whole(app, env):
    """Hidden, `app` took the chart's name out of helm's template paths, and
    `tem` the letters out of `template` (review62d)."""
    result = run("generate", app, env, **argocd_parameters(
        [{"name": "helm-parameters", "map": {"database.password": "12345678", "image": "app", "greeting": "tem"}}]))
    assert (result.returncode, result.stdout) == (1, "")
    assert "Error: template: app/templates/" in result.stderr and "12345678" not in result.stderr, result.stderr


def test_helms_error_about_a_value_of_the_wrong_type_shows_no_value(app, env):
    """Helm: `type mismatch on worker: %!t(string=hunter2)`."""
    result = run("generate", app, env, **argocd_parameters([{"name": "helm-parameters", "map": {"worker": "hunter2"}}]))
    assert (result.returncode, result.stdout) == (1, "")
    assert "type mismatch on worker" in result.stderr and "hunter2" not in result.stderr, result.stderr


def test_helms_warnings_on_success_show_no_helm_parameters_value(app, env, tmp_path):
    """A helm that says its command line (as --debug would) among warnings:
    shown, the value left out, the render kept; other words stay."""
    real = shutil.which("helm", path=env["PATH"])
    watched = _first_on_path(env, tmp_path, "helm", f'echo "warning: ran with $*" >&2\nexec "{real}" "$@"')
    result = run("generate", app, watched, **argocd_parameters([
        {"name": "helm-parameters", "map": {"database.password": "hunter2,x", "greeting": "hi", "image": "app"}},
        {"name": "helm-string-parameters", "map": {"database.user": "0042-admin"}},
    ]))
    assert result.returncode == 0, result.stderr
    assert "warning: ran with template shop . --include-crds" in result.stderr
    assert "--set database.password=<a helm-parameters value>" in result.stderr
    assert "--set-string database.user=<a helm-parameters value>" in result.stderr
    assert "hunter2" not in result.stderr and "0042-admin" not in result.stderr
    # Under four characters a value is left: hidden, it would hide letters of helm's words.
    assert "--set greeting=hi" in result.stderr and "--set image=app" in result.stderr
    assert _db_password(result.stdout) == "hunter2,x"


def test_helms_standard_error_is_shown_as_it_was_without_helm_parameters(app, env, tmp_path):
    real = shutil.which("helm", path=env["PATH"])
    watched = _first_on_path(env, tmp_path, "helm", f'echo "warning: $*" >&2\nexec "{real}" "$@"')
    result = run("generate", app, watched, **argocd_parameters([{"name": "values-files", "array": ["values.yaml"]}]))
    assert result.returncode == 0, result.stderr
    assert "warning: template shop . --include-crds --namespace prod --values values.yaml\n" in result.stderr


@pytest.mark.parametrize("files", [
    {"a.yaml": ""},
    {"a.yaml": "# only a comment\n---\n---\n"},
    {"a.yaml": "apiVersion: v1\nkind: List\nitems: []\n"},
    {"a.json": '{"apiVersion": "v1", "kind": "List", "items": []}'},
    {"kustomization.yaml": "resources: []\n"},
])
def test_a_render_without_an_object_is_an_error_not_an_empty_manifest(tmp_path, env, files):
    """Argo CD would prune the whole application against it."""
    folder = tmp_path / "nothing"
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text)
    result = run("generate", folder, env)
    assert result.returncode == 1 and result.stdout == ""
    assert "holds no Kubernetes object" in result.stderr, result.stderr


def test_a_chart_whose_values_turn_every_template_off_is_an_error(app, env):
    for template in (app / "templates").iterdir():
        if template.suffix == ".yaml":
            template.write_text("{{- if .Values.never }}\n" + template.read_text() + "\n{{- end }}\n")
    shutil.rmtree(app / "charts")
    chart = app / "Chart.yaml"
    chart.write_text(re.sub(r"(?ms)^dependencies:.*", "", chart.read_text()))
    result = run("generate", app, env)
    assert result.returncode == 1 and result.stdout == ""
    assert "holds no Kubernetes object" in result.stderr, result.stderr


def test_a_manifest_link_must_stay_inside_the_application_and_lead_somewhere(plain_app, env, tmp_path):
    (tmp_path / "outside.yaml").write_text("apiVersion: v1\nkind: Secret\nmetadata: {name: stolen}\n")
    (plain_app / "link.yaml").symlink_to(tmp_path / "outside.yaml")
    result = run("generate", plain_app, env)
    assert result.returncode == 1 and result.stdout == "" and "outside the application" in result.stderr
    (plain_app / "link.yaml").unlink()
    (plain_app / "gone.yaml").symlink_to(plain_app / "nothing-here.yaml")
    result = run("generate", plain_app, env)
    assert result.returncode == 1 and "gone.yaml is a symbolic link to nothing" in result.stderr
    (plain_app / "gone.yaml").unlink()
    (plain_app / "inside.yaml").symlink_to(plain_app / "config.yaml")
    assert run("generate", plain_app, env).returncode != 0  # the same object twice: refused as a duplicate


@pytest.mark.parametrize("what, given, message", [
    ("manifest", {}, "manifest cm.yaml is a symbolic link to ../shared/cm.yaml, outside the application"),
    ("values file", plugin_env(VALUES_FILES="cm.yaml"),
     "values file cm.yaml is a symbolic link to ../shared/cm.yaml, outside the application"),
    ("values file", plugin_env(VALUES_FILES="common/cm.yaml"),
     "values file common/cm.yaml: common is a symbolic link to ../shared, outside the application"),
    ("--config file", plugin_env(POSTRENDER_ARGS="--config=cm.yaml"),
     "--config file cm.yaml is a symbolic link to ../shared/cm.yaml, outside the application"),
])
def test_a_link_leading_outside_the_application_is_named_with_where_it_leads(tmp_path, env, app, what, given,
                                                                              message):
    """`cm.yaml` is a relative path inside the application: the message
    said it must be one; where the link leads is what is not (argocd61)."""
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: '1'}\n")
    if what == "manifest":
        app = tmp_path / "manifests"
        app.mkdir()
    (app / "cm.yaml").symlink_to(Path("..") / "shared" / "cm.yaml")
    (app / "common").symlink_to(Path("..") / "shared")
    result = run("generate", app, env, **given)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr.endswith(f"postrender-cmp: error: {message}\n"), result.stderr


def test_init_reads_helms_table_not_its_warnings(app, env):
    """An undeclared subchart in charts/ makes helm warn above its table; its
    last word is no dependency's status, and no build may follow (offline)."""
    shutil.copytree(app / "charts" / "worker", app / "charts" / "vendored-extra")
    chart = app / "charts" / "vendored-extra" / "Chart.yaml"
    chart.write_text(chart.read_text().replace("name: worker", "name: vendored-extra"))
    before = sorted(p.relative_to(app) for p in app.rglob("*"))
    result = run("init", app, env)
    assert result.returncode == 0, result.stderr
    assert sorted(p.relative_to(app) for p in app.rglob("*")) == before


def test_parameters_nested_past_reason_are_one_line(app, env):
    result = run("generate", app, env, ARGOCD_APP_PARAMETERS="[" * 20000 + "]" * 20000)
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.strip() == "postrender-cmp: error: ARGOCD_APP_PARAMETERS nests deeper than any parameter does"


# --- what the Application gives, in the shape cmp-plugin.yaml declares -------------------


@pytest.mark.parametrize("parameters, message", [
    # The tester's three (argocd61): each rendered as if absent, exit 0.
    ([{"name": "values-files", "map": {"prod": "values-prod.yaml"}}],
     "parameter values-files: expected an array (or a string), got a map"),
    ([{"name": "helm-parameters", "string": "greeting=fromset"}],
     "parameter helm-parameters: expected a map, got a string"),
    ([{"name": "postrender-args", "map": {"k": "--keep-previous=argocd"}}],
     "parameter postrender-args: expected an array (or a string), got a map"),
    ([{"name": "release-name", "map": {"name": "store"}}],
     "parameter release-name: expected a string (or an array), got a map"),
    ([{"name": "helm-parameters", "array": ["greeting=x"]}], "parameter helm-parameters: expected a map, got an array"),
    ([{"name": "values-files", "array": ["values-prod.yaml"], "string": "values.yaml"}],
     "parameter values-files: expected an array (or a string), got a string and an array"),
    ([{"name": "values-files", "array": "values-prod.yaml"}],
     "parameter values-files: expected an array (or a string), got `array` as a string"),
    ([{"name": "values-files", "array": ["values-prod.yaml", 3]}],
     "parameter values-files: expected an array (or a string), got an array holding a number"),
    ([{"name": "helm-parameters", "map": {"greeting": None}}],
     "parameter helm-parameters: expected a map, got a map holding null"),
    ([{"name": "values-files", "value": "values-prod.yaml"}],
     "parameter values-files: expected an array (or a string), got no value"),
    # Malformed otherwise: a typo, a repeat, no name, no list.
    ([{"name": "value-files", "array": ["values-prod.yaml"]}],
     "parameter value-files: the plugin has no such parameter (it reads values-files, release-name, helm-parameters,"
     " helm-string-parameters, postrender-args)"),
    ([{"name": "values-files", "array": ["values-prod.yaml"]}, {"name": "values-files", "array": []}],
     "parameter values-files is given twice"),
    ([{"array": ["values-prod.yaml"]}], "ARGOCD_APP_PARAMETERS item 1 is no parameter (an object with a name)"),
    ([{"name": "values-files", "array": []}, "values-prod.yaml"],
     "ARGOCD_APP_PARAMETERS item 2 is no parameter (an object with a name)"),
    ({"name": "values-files", "array": ["values-prod.yaml"]},
     "ARGOCD_APP_PARAMETERS is a map, not a list of parameters"),
])
def test_a_parameter_in_a_shape_the_plugin_does_not_take_is_refused(app, env, parameters, message):
    """Read as absent, it rendered without the values files, the --set or
    the --keep-previous the Application asked for, exit 0, with nothing on
    stderr (which Argo CD shows only on failure)."""
    result = run("generate", app, env, ARGOCD_APP_PARAMETERS=json.dumps(parameters))
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == f"postrender-cmp: error: {message}\n"


def test_the_shapes_taken_begin_with_the_declared_collection_types():
    script = runpy.run_path(str(ROOT / "integrations" / "argocd" / "postrender-cmp"))  # not run: __name__ is not __main__
    taken = {name: shapes[0] for name, shapes in script["PARAMETER_SHAPES"].items()}
    assert taken == {p["name"]: p["collectionType"] for p in plugin()["spec"]["parameters"]["static"]}


@pytest.mark.parametrize("name", ["helm-parameters", "helm-string-parameters"])
def test_a_helm_parameter_given_only_as_variables_is_refused(app, env, name):
    """PARAM_HELM_PARAMETERS_IMAGE_TAG no longer says the key is image.tag."""
    variable = "PARAM_" + name.upper().replace("-", "_")
    result = run("generate", app, env, **{f"{variable}_GREETING": "hallo"})
    assert (result.returncode, result.stdout) == (1, "")
    assert f"{name} given only as {variable}_* variables" in result.stderr


@pytest.mark.parametrize("parameters", ["null", "[]"])
def test_no_parameters_render_the_defaults(app, env, parameters):
    """Argo CD writes an Application without parameters as `null`."""
    result = run("generate", app, env, ARGOCD_APP_PARAMETERS=parameters)
    assert result.returncode == 0, result.stderr
    assert _settings(result.stdout)["data"]["greeting"] == "hello"
