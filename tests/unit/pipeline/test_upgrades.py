"""What keeps `helm upgrade` working: unsuffixed copies (--keep-original) and
pod templates the API server never lets change (a Job's, a bare Pod's).

tests/integration/cluster/test_upgrades.py runs the same cases through helm 3 and 4
against a real API server.
"""

from __future__ import annotations

import io

import json

import pytest
from ruamel.yaml import YAML

from conftest import FIXTURES, run_postrender
from postrender.errors import UsageError
from postrender.frontends.kustomize_exec import parse
from postrender.options import RenderOptions
from postrender.pipeline.read.documents import Source
from postrender.pipeline.render import render
from postrender.report import Reporter

STREAM = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
data: {MODE: fast}
---
apiVersion: v1
kind: Secret
metadata: {name: db}
data: {password: aHVudGVyMg==}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  template:
    spec:
      containers:
        - name: web
          envFrom:
            - configMapRef: {name: settings}
            - secretRef: {name: db}
"""


def _docs(text: str) -> list[dict]:
    return [d for d in YAML(typ="safe").load_all(text) if d]


def copies(text: str) -> set[str]:
    """Kind/name of every unsuffixed keep-original copy."""
    return {f"{d['kind']}/{d['metadata']['name']}" for d in _docs(text)
            if "postrender.io/copy-of" in (d["metadata"].get("annotations") or {})}


def _render(options: RenderOptions, text: str = STREAM) -> str:
    with open("/dev/null", "w") as sink:
        return render([Source(None, text)], options, Reporter(stderr=sink)).output


@pytest.mark.parametrize("args,expected", [
    ([], {"Secret/db"}),
    (["--keep-original=auto"], {"Secret/db"}),
    (["--keep-original"], {"Secret/db", "ConfigMap/settings"}),
    (["--keep-original=all"], {"Secret/db", "ConfigMap/settings"}),
    (["--keep-original=secrets"], {"Secret/db"}),
    (["--keep-original=none"], set()),
])
def test_keep_original_modes(args, expected):
    result = run_postrender(args, STREAM)
    assert result.status == 0, result.stderr
    assert copies(result.stdout) == expected


def test_a_copy_keeps_the_original_name_and_data_and_is_mutable():
    docs = _docs(run_postrender([], STREAM).stdout)
    (copy,) = [d for d in docs if d["metadata"]["name"] == "db"]
    (version,) = [d for d in docs if d["kind"] == "Secret" and d["metadata"]["name"].startswith("db-")]
    assert copy["data"] == version["data"] and "immutable" not in copy
    assert copy["metadata"]["annotations"] == {"postrender.io/versioned": "false",
                                               "postrender.io/copy-of": version["metadata"]["name"]}


def test_under_helm_3_every_versioned_object_keeps_a_copy_for_the_hooks():
    assert copies(_render(RenderOptions())) == {"Secret/db"}
    assert copies(_render(RenderOptions(hooks_hidden=True))) == {"Secret/db", "ConfigMap/settings"}
    # An explicit mode is what the user asked for, Helm 3 or not.
    assert copies(_render(RenderOptions(hooks_hidden=True, keep_original="secrets"))) == {"Secret/db"}
    assert copies(_render(RenderOptions(hooks_hidden=True, keep_original="none"))) == set()


@pytest.mark.parametrize("mode, warned", [("none", ["ConfigMap/settings", "Secret/db"]),
                                           ("secrets", ["ConfigMap/settings"]), ("auto", []), ("all", [])])
def test_under_helm_3_an_explicit_mode_that_drops_copies_says_hidden_hooks_name_nothing(mode, warned):
    # Helm 3 never shows hooks or test pods to a post-renderer: done as
    # asked, and said (the user may not know a hook names the config).
    err = io.StringIO()
    render([Source(None, STREAM)], RenderOptions(hooks_hidden=True, keep_original=mode), Reporter(stderr=err))
    lines = [line for line in err.getvalue().splitlines() if "Helm 3 never shows hooks" in line]
    if not warned:
        assert lines == []
        return
    (line,) = lines
    assert f"under --keep-original={mode}, {', '.join(warned)} keep no unsuffixed copy" in line
    # Not under Helm 4, which shows its hooks (and keeps what they need).
    err = io.StringIO()
    render([Source(None, STREAM)], RenderOptions(keep_original=mode), Reporter(stderr=err))
    assert "Helm 3 never shows hooks" not in err.getvalue()


@pytest.mark.parametrize("mark,mode,expected", [
    ('"false"', "auto", set()),
    ('"false"', "all", {"ConfigMap/settings"}),
    ('"true"', "none", {"Secret/db"}),
])
def test_the_objects_own_annotation_wins(mark, mode, expected):
    stream = STREAM.replace("metadata: {name: db}", f"metadata: {{name: db, annotations: {{postrender.io/keep-original: {mark}}}}}")
    result = run_postrender([f"--keep-original={mode}"], stream)
    assert result.status == 0, result.stderr
    assert copies(result.stdout) == expected


def test_a_bare_flag_never_takes_the_next_argument(tmp_path):
    (tmp_path / "in.yaml").write_text(STREAM)
    result = run_postrender(["--keep-original", str(tmp_path)])
    assert result.status == 0, result.stderr
    assert copies(result.stdout) == {"Secret/db", "ConfigMap/settings"}


@pytest.mark.parametrize("value", ["sometimes", "", "yes"])
def test_an_unknown_mode_is_a_usage_error(value):
    result = run_postrender([f"--keep-original={value}"], STREAM)
    assert result.status == 2 and result.stdout == ""
    assert "--keep-original" in result.stderr and "'auto', 'all', 'secrets', 'none'" in result.stderr


@pytest.mark.parametrize("value,mode", [(True, "all"), (False, "none"), ("secrets", "secrets"), ("auto", "auto")])
def test_plugin_config_keep_original(value, mode):
    config = parse({"apiVersion": "postrender.io/v1alpha1", "kind": "PostRender", "keepOriginal": value}, "t")
    assert config.apply(RenderOptions()).keep_original == mode


@pytest.mark.parametrize("value,mode", [("true", "all"), ("false", "none"), ("secrets", "secrets")])
def test_function_config_configmap_keep_original(value, mode):
    config = parse({"apiVersion": "v1", "kind": "ConfigMap", "data": {"keepOriginal": value}}, "fc")
    assert config.apply(RenderOptions()).keep_original == mode


@pytest.mark.parametrize("value", [1, "maybe", None])
def test_plugin_config_refuses_other_values(value):
    data = {"apiVersion": "postrender.io/v1alpha1", "kind": "PostRender", "keepOriginal": value}
    if value is None:
        assert "keep_original" not in parse(data, "t").values  # absent: the flag's value stands
        return
    with pytest.raises(UsageError, match="keepOriginal must be one of auto, all, secrets, none"):
        parse(data, "t")


# --- immutable pod templates ----------------------------------------------

IMMUTABLE = (FIXTURES / "golden" / "immutable-templates" / "input.yaml").read_text()


def _by_name(text: str) -> dict[str, dict]:
    return {f"{d['kind']}/{d['metadata']['name']}": d for d in _docs(text)}


def _env_from(pod_spec: dict) -> list[str]:
    return [ref["configMapRef"]["name"] for ref in pod_spec["containers"][0]["envFrom"]]


def test_a_jobs_references_stay_and_still_find_their_objects():
    out = _by_name(run_postrender(["--keep-original=none"], IMMUTABLE).stdout)
    assert _env_from(out["Job/migrate"]["spec"]["template"]["spec"]) == ["shared", "migrate-only"]
    assert _env_from(out["Pod/debug"]["spec"]) == ["shared"]
    # Used elsewhere: versioned for the others, plus a copy for the Job;
    # used by the Job alone: it keeps its name, mutable.
    assert out["ConfigMap/shared"]["metadata"]["annotations"]["postrender.io/copy-of"].startswith("shared-")
    assert "immutable" not in out["ConfigMap/migrate-only"] and "labels" not in out["ConfigMap/migrate-only"]["metadata"]
    # A post-upgrade hook is re-created once the new versions exist, a
    # CronJob's jobTemplate may change: both are rewritten.
    assert _env_from(out["Job/report"]["spec"]["template"]["spec"])[0].startswith("shared-")
    nightly = out["CronJob/nightly"]["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    assert _env_from(nightly)[0].startswith("shared-")
    # A pre-upgrade hook runs before they exist: it keeps the names that do.
    # A ConfigMap that is itself a hook keeps its name (its deployer creates
    # and deletes it by that name), and the hook rolls by its hash.
    seed = _env_from(out["Job/seed"]["spec"]["template"]["spec"])
    assert seed == ["hook-config", "shared", "seed-data"]
    assert "labels" not in out["ConfigMap/seed-data"]["metadata"]
    assert "postrender.io/config-hash" in out["Job/seed"]["spec"]["template"]["metadata"]["annotations"]
    assert "labels" not in out["ConfigMap/hook-config"]["metadata"]


def test_a_changed_config_leaves_the_job_byte_for_byte_the_same():
    before = _by_name(run_postrender([], IMMUTABLE).stdout)
    after = _by_name(run_postrender([], IMMUTABLE.replace("MODE: fast", "MODE: slow").replace('STEP: "3"', 'STEP: "4"')).stdout)
    assert before["Job/migrate"] == after["Job/migrate"] and before["Pod/debug"] == after["Pod/debug"]
    assert before["Deployment/web"] != after["Deployment/web"], "the Deployment still rolls"


@pytest.mark.parametrize("args", [["--strategy=annotate"], ["--keep-previous=argocd"], ["-n", "x", "--scope=s", "--keep-previous=flux"]])
def test_no_annotation_lands_in_an_immutable_template(args):
    changed = IMMUTABLE.replace("MODE: fast", "MODE: slow")
    first, second = (_by_name(run_postrender(args, text).stdout) for text in (IMMUTABLE, changed))
    assert first["Job/migrate"] == second["Job/migrate"]
    template = first["Job/migrate"]["spec"]["template"]
    assert not (template["metadata"].get("annotations") or {}), template["metadata"]
    assert "annotations" not in first["Pod/debug"]["metadata"]


def test_verbose_says_why_and_the_graph_shows_it():
    result = run_postrender(["-v"], IMMUTABLE)
    assert "warning" not in result.stderr
    assert ("ConfigMap/migrate-only keeps its name: only referenced where it is left as written "
            "(Job/migrate has an immutable pod template)") in result.stderr
    graph = run_postrender(["graph"], IMMUTABLE)
    assert "left as written: Job/migrate has an immutable pod template" in graph.stdout
    assert "left as written: Job/seed is a hook that runs before the release is applied" in graph.stdout
    assert "left as written: Job/report" not in graph.stdout


@pytest.mark.parametrize("annotations,held", [
    ({"helm.sh/hook": "pre-upgrade"}, True),
    ({"helm.sh/hook": "pre-install, post-install"}, True),
    ({"helm.sh/hook": "post-install,post-upgrade"}, False),
    ({"helm.sh/hook": "test"}, False),
    # Helm lowercases each phase it reads (its manifest sorter).
    ({"helm.sh/hook": "Pre-Upgrade"}, True),
    ({"helm.sh/hook": "POST-INSTALL, PRE-ROLLBACK"}, True),
    ({"helm.sh/hook": "Post-Install"}, False),
    ({"argocd.argoproj.io/hook": "PreSync"}, True),
    ({"argocd.argoproj.io/hook": "Sync"}, False),
])
def test_which_hooks_run_before_the_release_is_applied(annotations, held):
    hook = ("---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: h\n  annotations: "
            + json.dumps(annotations) + "\nspec:\n  template:\n    spec:\n      containers:\n"
            "        - name: c\n          envFrom: [{configMapRef: {name: settings}}]\n")
    out = _by_name(run_postrender([], STREAM + hook).stdout)
    name = _env_from(out["Deployment/h"]["spec"]["template"]["spec"])[0]
    assert (name == "settings") == held
    if held:
        assert out["ConfigMap/settings"]["data"] == {"MODE": "fast"}, "still there, under its name"


@pytest.mark.parametrize("phases,rolls", [
    ("pre-install,pre-upgrade", True),
    ("Pre-Install,Pre-Upgrade", True),  # Helm reads each phase in lower case
    (" PRE-UPGRADE , pre-install ", True),
    ("Pre-Install", False),  # created once: its readers keep naming it, as without postrender
])
def test_a_hook_config_created_before_every_apply_rolls_its_readers_in_any_case(phases, rolls):
    stream = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: hookcfg\n  annotations:\n"
              f"    helm.sh/hook: {json.dumps(phases)}\ndata: {{a: one}}\n---\n"
              "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    spec:\n"
              "      containers:\n        - name: c\n          envFrom: [{configMapRef: {name: hookcfg}}]\n")
    out = _by_name(run_postrender([], stream).stdout)
    template = out["Deployment/web"]["spec"]["template"]
    assert _env_from(template["spec"]) == ["hookcfg"], "a hook config keeps its name"
    assert ("postrender.io/config-hash" in (template.get("metadata") or {}).get("annotations", {})) == rolls


def test_the_immutable_mark_is_data(tmp_path):
    """A user's podSpecs row marks a custom kind's template immutable too."""
    config = tmp_path / "specs.yaml"
    config.write_text("podSpecs:\n  - {kind: Task, group: example.com, path: spec/podTemplate/spec, immutable: true}\n")
    task = ("---\napiVersion: example.com/v1\nkind: Task\nmetadata: {name: t}\nspec:\n  podTemplate:\n    spec:\n"
            "      containers:\n        - name: c\n          envFrom:\n            - configMapRef: {name: settings}\n")
    # Without the row no spec covers the Task: the guard's finding is a warning here.
    plain = _by_name(run_postrender(["--allow-broken-references"], STREAM + task).stdout)
    marked = _by_name(run_postrender(["--config", str(config)], STREAM + task).stdout)
    assert _env_from(marked["Task/t"]["spec"]["podTemplate"]["spec"]) == ["settings"]
    assert plain["Task/t"] == marked["Task/t"], "no built-in spec: neither rewritten"
    config.write_text("podSpecs:\n  - {kind: Task, group: example.com, path: spec/podTemplate/spec}\n")
    mutable = _by_name(run_postrender(["--config", str(config)], STREAM + task).stdout)
    assert _env_from(mutable["Task/t"]["spec"]["podTemplate"]["spec"])[0].startswith("settings-")


@pytest.mark.parametrize("kind,data,args", [
    ("Secret", "data:\n  pw: b2xk\n", []),  # a Secret keeps a copy under the default
    ("ConfigMap", "data:\n  pw: old\n", ["--keep-original=all"]),
])
def test_an_earlier_version_edited_in_committed_output_keeps_no_copy_under_its_own_name(kind, data, args):
    # modes61: a GitOps repo commits the output and edits a version's data.
    # Rendered again, the old version's name came back as a "copy" holding
    # the new data, immutable: the API server refuses it, and the old name
    # no longer said what it held.
    ref = "secretRef" if kind == "Secret" else "configMapRef"
    stream = (f"apiVersion: v1\nkind: {kind}\nmetadata:\n  name: creds\n{data}---\n"
              "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    spec:\n"
              f"      containers: [{{name: c, envFrom: [{{{ref}: {{name: creds}}}}]}}]\n")
    first = run_postrender(args, stream)
    assert first.status == 0, first.stderr
    old = _by_name(first.stdout)
    (versioned,) = [name for name in old if name.startswith(f"{kind}/creds-")]
    edited = first.stdout.replace("b2xk", "bmV3") if kind == "Secret" else first.stdout.replace("pw: old", "pw: new")
    again = run_postrender(args, edited)
    assert again.status == 0 and "immutable" not in again.stderr, again.stderr
    out = _by_name(again.stdout)
    assert versioned not in out, "the old version's name holds the new data nowhere"
    (new,) = [name for name in out if name.startswith(f"{kind}/creds-")]
    assert out[new]["metadata"]["labels"]["postrender.io/base-name"] == "creds"
    assert f"{kind}/creds" in out, "the copy under the base name stays"
    [named] = _env_from(out["Deployment/web"]["spec"]["template"]["spec"]) if kind == "ConfigMap" else [
        e["secretRef"]["name"] for e in out["Deployment/web"]["spec"]["template"]["spec"]["containers"][0]["envFrom"]]
    assert f"{kind}/{named}" == new
