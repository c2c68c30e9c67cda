"""Helm 3.17 runs postrender as `--post-renderer postrender`, found on PATH.

Helm 3 never passes hooks to a post-renderer: they keep the names the chart
gave them, which is what `--keep-original` is for.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT, require_tool
from manifests import (
    CHART,
    all_references,
    base_name,
    configs,
    documents,
    helm_cluster_flags,
    ident,
    is_hook,
    source_comments,
    tool_env,
    unresolved,
    versioned,
    without_copies,
)


@pytest.fixture(scope="module")
def helm3(tmp_path_factory) -> tuple[str, dict[str, str]]:
    helm = require_tool("helm3")
    home = tmp_path_factory.mktemp("helm3")
    env = tool_env(
        HELM_DATA_HOME=str(home / "data"),
        HELM_CONFIG_HOME=str(home / "config"),
        HELM_CACHE_HOME=str(home / "cache"),
        KUBECONFIG=str(home / "no-kubeconfig"),
    )
    version = subprocess.run([helm, "version", "--short"], capture_output=True, text=True, env=env)
    assert version.stdout.startswith("v3.17.2"), version.stdout
    return helm, env


def template(helm3, *args: str, post_render: bool = True) -> str:
    helm, env = helm3
    command = [helm, "template", "app", str(CHART), *args]
    if post_render:
        command += ["--post-renderer", "postrender"]
    result = subprocess.run(command, capture_output=True, text=True, env=env, start_new_session=True)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_every_reference_resolves_except_the_hooks(helm3):
    docs = documents(template(helm3))
    main = [d for d in without_copies(docs) if not is_hook(d)]
    assert len(configs(main)) == 8
    assert all(versioned(d) for d in configs(main).values())
    assert {d["kind"] for d in main} >= {"Deployment", "StatefulSet", "DaemonSet", "CronJob"}
    # The hook was not shown to postrender and still names the unversioned
    # ConfigMap; under Helm 3 every version keeps an unsuffixed copy, so it resolves.
    hook = next(d for d in docs if ident(d) == "Job/app-migrate")
    assert [(r.kind, r.name) for r in all_references([hook])] == [("ConfigMap", "app-settings")]
    assert unresolved(docs) == []
    assert unresolved(main) == []
    subchart = next(d for d in docs if ident(d) == "Deployment/app-worker")
    assert [base_name(r.name) for r in all_references([subchart])] == ["app-shared"]


def test_keep_original_keeps_hooks_working(helm3):
    docs = documents(template(helm3, "--post-renderer-args=--keep-original"))
    assert unresolved(docs) == []
    copy = configs(docs)[("ConfigMap", "app-settings")]
    annotations = copy["metadata"]["annotations"]
    assert annotations["postrender.io/versioned"] == "false"
    versioned_settings = annotations["postrender.io/copy-of"]
    assert configs(docs)[("ConfigMap", versioned_settings)]["data"] == copy["data"]
    web = next(d for d in docs if ident(d) == "Deployment/app-web")
    assert "ConfigMap" in {r.kind for r in all_references([web]) if r.name == versioned_settings}


def test_source_comments_survive(helm3):
    before = template(helm3, post_render=False)
    after = template(helm3, "--post-renderer-args=--keep-original=none")
    # Helm prints hooks after the post-rendered stream; the multiset is the same.
    assert sorted(source_comments(after)) == sorted(source_comments(before))
    assert len(source_comments(after)) == len(documents(after))


def test_changing_a_value_changes_one_hash_and_only_its_workloads(helm3):
    first = [d for d in documents(template(helm3)) if not is_hook(d)]
    second = [d for d in documents(template(helm3, "--set", "greeting=bonjour")) if not is_hook(d)]
    names_before, names_after = set(configs(first)), set(configs(second))
    assert names_before - names_after and len(names_before - names_after) == 1
    ((_, old),) = names_before - names_after
    ((_, new),) = names_after - names_before
    assert base_name(old) == base_name(new) == "app-settings"

    users = {r.referrer for r in all_references(first) if r.name == old}
    assert users == {"Deployment/app-web", "CronJob/app-report"}
    others_before = {ident(d): d for d in first if d["kind"] not in ("ConfigMap", "Secret")}
    others_after = {ident(d): d for d in second if d["kind"] not in ("ConfigMap", "Secret")}
    changed = {who for who in others_before if others_before[who] != others_after[who]}
    assert changed == users


def test_helms_cluster_flags_are_no_postrender_flags(helm3, tmp_path):
    """Helm's --kube-context, --kubeconfig and $HELM_KUBECONTEXT say where
    --retain reads; without it a render reads no cluster, and renders as
    without them (they failed every run: "--context is read only with
    --retain", though the user gave postrender no flag)."""
    plain = template(helm3, "-n", "prod")
    helm, env = helm3
    for args, extra in helm_cluster_flags(tmp_path):
        result = subprocess.run([helm, "template", "app", str(CHART), "-n", "prod", *args, "--post-renderer",
                                 "postrender"], capture_output=True, text=True, env={**env, **extra},
                                start_new_session=True)
        assert result.returncode == 0, (args, extra, result.stderr)
        assert result.stdout == plain, (args, extra)


def test_namespace_and_release_come_from_helm(helm3, tmp_path):
    # The worker subchart pins metadata.namespace to the release namespace, the
    # parent's ConfigMap has none: only Helm's -n makes the match exact.
    log = tmp_path / "postrender.log"
    docs = documents(template(helm3, "-n", "prod", f"--post-renderer-args=--log-file={log}"))
    worker = next(d for d in docs if ident(d) == "Deployment/app-worker")
    assert worker["metadata"]["namespace"] == "prod"
    (ref,) = all_references([worker])
    assert base_name(ref.name) == "app-shared" and ref.name != "app-shared"
    assert "warning" not in log.read_text()
    assert {d["metadata"]["labels"]["postrender.io/scope"] for d in configs(without_copies(docs)).values()} == {"app"}


def test_installing_the_helm_4_plugin_breaks_helm_3(helm3, tmp_path):
    """Why the README tells Helm 3 users not to `helm plugin install` this
    repository: Helm 3 rejects plugin.yaml's apiVersion, after installing it,
    and then neither lists nor uninstalls any plugin until the folder goes."""
    helm, env = helm3
    env = {**env, "HELM_DATA_HOME": str(tmp_path / "data")}
    plugins = subprocess.run([helm, "env", "HELM_PLUGINS"], capture_output=True, text=True, env=env).stdout.strip()
    assert plugins == str(tmp_path / "data" / "plugins")
    installed = subprocess.run([helm, "plugin", "install", str(ROOT)], capture_output=True, text=True, env=env)
    assert installed.returncode != 0 and 'unknown field "apiVersion"' in installed.stderr
    left = Path(plugins) / ROOT.name
    assert left.exists()
    for command in (["plugin", "list"], ["plugin", "uninstall", "postrender"], ["plugin", "uninstall", ROOT.name]):
        assert subprocess.run([helm, *command], capture_output=True, env=env).returncode != 0
    # The README's way out.
    subprocess.run(["rm", "-rf", str(left)], check=True)
    assert subprocess.run([helm, "plugin", "list"], capture_output=True, env=env).returncode == 0


# --- errors name the line in the chart file's own output --------------------------

LINES_CHART = CHART.parent / "lines"


def test_error_names_the_line_in_the_files_own_output(helm3):
    helm, env = helm3
    failed = subprocess.run([helm, "template", "r", str(LINES_CHART), "--post-renderer", "postrender"],
                            capture_output=True, text=True, env=env)
    assert failed.returncode != 0
    (line,) = [l for l in failed.stderr.splitlines() if l.startswith("postrender: error:")]
    found = re.search(r"\(lines/templates/settings\.yaml, rendered line (\d+), ConfigMap/r-second\) line (\d+): "
                      r'data\.replicas must be a string \(quote it: "3"; unquoted, Kubernetes reads it as a number under YAML 1\.1\)$', line)
    assert found, line
    rendered, stream = int(found.group(1)), int(found.group(2))
    # The line in the template the user edits (this template adds and drops no lines).
    source = (LINES_CHART / "templates" / "settings.yaml").read_text().splitlines()
    assert source[rendered - 1] == "  replicas: {{ .Values.replicas }}"
    assert stream != rendered, "the chart is laid out so the stream line differs"


def test_no_rendered_line_where_helm_sorted_a_files_documents(helm3, tmp_path):
    # Helm 3 sorts manifests by kind before the post-renderer sees them: a
    # file's ConfigMap then Secret come Secret first, and where either sits
    # in the file's rendered text is not known. The stream line is.
    chart = tmp_path / "sorted"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: sorted\nversion: 0.1.0\n")
    (chart / "templates" / "both.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: v\n---\n"
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: b\ndata:\n  k: not*base64\n")
    helm, env = helm3
    failed = subprocess.run([helm, "template", "r", str(chart), "--post-renderer", "postrender"],
                            capture_output=True, text=True, env=env)
    assert failed.returncode != 0
    (line,) = [l for l in failed.stderr.splitlines() if l.startswith("postrender: error:")]
    # The Secret came first: in the file, its `k` is line 12, not the 6 of its
    # place in the stream.
    assert "document 1 (sorted/templates/both.yaml, Secret/b) line 8: data.k is not valid base64" in line, line


def test_a_flag_naming_a_service_does_not_pin_the_config_sharing_its_name(helm3):
    # ingress-nginx's shape (fixtures/charts/controller): --publish-service
    # names the Service that shares the controller ConfigMap's name. The
    # ConfigMap is versioned, --configmap follows it, the Service and the
    # flags naming other kinds keep theirs, and a new setting rolls the
    # controller through the rewritten --configmap.
    helm, env = helm3
    chart = ROOT / "fixtures" / "charts" / "controller"

    def render(*args: str) -> dict[str, dict]:
        command = [helm, "template", "rel", str(chart), "-n", "edge", "--post-renderer", "postrender", *args]
        result = subprocess.run(command, capture_output=True, text=True, env=env, start_new_session=True)
        assert result.returncode == 0, result.stderr
        return {ident(d): d for d in documents(result.stdout)}

    first = render()
    (config,) = configs(without_copies(list(first.values()))).values()
    assert config["metadata"]["name"] != "rel-controller" and base_name(config["metadata"]["name"]) == "rel-controller"
    assert config.get("immutable") is True
    assert "Service/rel-controller" in first
    deployment = first["Deployment/rel-controller"]
    pod = deployment["spec"]["template"]
    assert pod["spec"]["containers"][0]["args"] == [
        "/controller",
        "--publish-service=$(POD_NAMESPACE)/rel-controller",
        "--election-id=rel-controller-leader",
        "--watch-namespace=$(POD_NAMESPACE)",
        f"--configmap=$(POD_NAMESPACE)/{config['metadata']['name']}",
    ]
    assert "postrender.io/config-hash" not in (pod.get("metadata", {}).get("annotations") or {})
    second = render("--set", "controller.config.a=b")
    assert second["Deployment/rel-controller"]["spec"]["template"] != pod


@pytest.mark.parametrize("args,said", [
    (["-o", "{tmp}/out.yaml"], "-o {tmp}/out.yaml: Helm 3 deploys what its post-renderer writes on standard output"),
    (["--output={tmp}/out.yaml"], "-o {tmp}/out.yaml: Helm 3 deploys"),
    (["-o {tmp}/out.yaml"], "error: -o {tmp}/out.yaml: Helm 3 deploys"),  # one argument: -o " FILE"
    (["/dev/null"], "/dev/null: under Helm 3, the chart's manifest comes on standard input"),
    (["-f", "{tmp}/extra.yaml"], "{tmp}/extra.yaml: under Helm 3, the chart's manifest comes on standard input"),
    # Text that is no manifest, which Helm 3 took as an empty release (rc 0).
    (["--version"], "error: --version: Helm 3 deploys what its post-renderer writes on standard output as the"
                    " manifest"),
    (["version"], "error: version: Helm 3 deploys"),
    (["--help"], "--help: Helm 3 deploys"),
    (["render", "-h"], "-h: Helm 3 deploys"),
    (["-hv"], "-hv: Helm 3 deploys"),  # -h in a cluster of short flags, as argparse reads it
    (["completion", "bash"], "completion: Helm 3 deploys"),
    (["graph"], "graph: Helm 3 deploys"),
])
def test_flags_that_would_give_helm_an_empty_manifest_are_refused(helm3, tmp_path, args, said):
    """Helm 3 deploys whatever its post-renderer writes, nothing too: an
    upgrade would then delete every object of the release."""
    helm, env = helm3
    (tmp_path / "extra.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: extra}\ndata: {a: b}\n")
    command = [helm, "template", "app", str(CHART), "--post-renderer", "postrender",
               *(f"--post-renderer-args={arg.format(tmp=tmp_path)}" for arg in args)]
    result = subprocess.run(command, capture_output=True, text=True, env=env, start_new_session=True)
    assert result.returncode != 0 and "kind:" not in result.stdout
    assert said.format(tmp=tmp_path) in result.stderr, result.stderr
    assert not (tmp_path / "out.yaml").exists()


def test_a_file_read_with_the_manifest_is_added_to_it(helm3, tmp_path):
    (tmp_path / "extra.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: extra}\ndata: {a: b}\n")
    docs = documents(template(helm3, "--post-renderer-args=-", f"--post-renderer-args={tmp_path / 'extra.yaml'}"))
    assert "ConfigMap/extra" in {ident(d) for d in docs}
    assert "Deployment/app-web" in {ident(d) for d in docs}


def test_a_script_helm_runs_may_give_postrender_files_and_write_the_result_itself(helm3, tmp_path):
    """Only what Helm runs itself writes Helm's manifest: a wrapper script
    that hands postrender a file and -o, then prints the result, works."""
    helm, env = helm3
    script = tmp_path / "render.sh"
    script.write_text('#!/bin/sh\nset -e\nd=$(mktemp -d)\ncat > "$d/in.yaml"\n'
                      'postrender "$d/in.yaml" -o "$d/out.yaml"\ncat "$d/out.yaml"\n')
    script.chmod(0o755)
    result = subprocess.run([helm, "template", "app", str(CHART), "--post-renderer", str(script)],
                            capture_output=True, text=True, env=env, start_new_session=True)
    assert result.returncode == 0, result.stderr
    docs = documents(result.stdout)
    assert "Deployment/app-web" in {ident(d) for d in docs} and configs(docs)
    assert any(versioned(d) for d in configs(docs).values())


def test_output_dir_gives_the_post_renderer_nothing_and_postrender_says_so(helm3, tmp_path):
    """Helm 3's `template --output-dir` writes the chart's files itself and
    runs its post-renderer on an empty stream (Helm 4 post-renders them):
    the files are not versioned, which the run says where a person sees it
    (Helm 3 shows a post-renderer's stderr only when it fails)."""
    log = tmp_path / "postrender.log"
    template(helm3, "--output-dir", str(tmp_path / "out"), f"--post-renderer-args=--log-file={log}")
    written = "".join(path.read_text() for path in (tmp_path / "out").rglob("*.yaml"))
    assert "postrender.io/versioned" not in written and "kind: ConfigMap" in written  # Helm's own files
    assert "Helm 3 writes `helm template --output-dir` files itself" in log.read_text()
    # Without --output-dir the stream comes, and nothing of the kind is said.
    other = tmp_path / "other.log"
    template(helm3, f"--post-renderer-args=--log-file={other}")
    assert "--output-dir" not in other.read_text()
