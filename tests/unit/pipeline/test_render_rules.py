"""Namespace, selection, naming and diagnostics rules of the core renderer."""

from __future__ import annotations

import os
import stat

import pytest

from ruamel.yaml import YAML

from conftest import run_postrender

CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}{ns}\ndata:\n  k: v\n"
DEPLOY = (
    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app{ns}\n"
    "spec:\n  template:\n    spec:\n      containers:\n        - name: c\n          envFrom:\n"
    "            - configMapRef:\n                name: {ref}\n"
)


def _ns(namespace: str | None) -> str:
    return f"\n  namespace: {namespace}" if namespace else ""


def docs(text: str) -> list[dict]:
    return [d for d in YAML(typ="safe").load_all(text) if d]


def ref_of(output: str) -> str:
    deploy = next(d for d in docs(output) if d["kind"] == "Deployment")
    return deploy["spec"]["template"]["spec"]["containers"][0]["envFrom"][0]["configMapRef"]["name"]


def name_of(output: str) -> str:
    return next(d for d in docs(output) if d["kind"] == "ConfigMap")["metadata"]["name"]


def test_implicit_namespace_is_shared_by_namespaceless_objects():
    out = run_postrender([], CM.format(name="cfg", ns="") + "---\n" + DEPLOY.format(ns="", ref="cfg"))
    assert out.status == 0
    assert ref_of(out.stdout) == name_of(out.stdout) != "cfg"
    assert out.stderr == ""


def test_explicit_namespaces_must_match():
    stream = CM.format(name="cfg", ns=_ns("a")) + "---\n" + DEPLOY.format(ns=_ns("b"), ref="cfg")
    out = run_postrender([], stream)
    assert out.status == 0
    assert ref_of(out.stdout) == "cfg"
    assert "'cfg' is not in namespace 'b' (the stream holds ConfigMap/a/cfg)" in out.stderr


def test_match_across_implicit_and_explicit_namespace_warns_and_suggests_namespace_flag():
    stream = CM.format(name="cfg", ns=_ns("prod")) + "---\n" + DEPLOY.format(ns="", ref="cfg")
    out = run_postrender([], stream)
    assert out.status == 0
    assert ref_of(out.stdout) == name_of(out.stdout)
    assert "--namespace" in out.stderr and "Deployment/app" in out.stderr


def test_namespace_flag_makes_the_match_exact_and_silent():
    stream = CM.format(name="cfg", ns=_ns("prod")) + "---\n" + DEPLOY.format(ns="", ref="cfg")
    for args, env in ((["--namespace", "prod"], {}), ([], {"HELM_NAMESPACE": "prod"})):
        out = run_postrender(args, stream, env=env)
        assert out.status == 0
        assert ref_of(out.stdout) == name_of(out.stdout)
        assert out.stderr == "", (args, env)


def test_namespace_flag_separates_a_different_namespace():
    stream = CM.format(name="cfg", ns=_ns("other")) + "---\n" + DEPLOY.format(ns="", ref="cfg")
    out = run_postrender(["-n", "prod"], stream)
    assert ref_of(out.stdout) == "cfg"


def test_optional_dangling_reference_is_silent_and_required_one_warns():
    optional = DEPLOY.format(ns="", ref="gone").replace("name: gone", "name: gone\n                optional: true")
    assert run_postrender([], optional).stderr == ""
    warned = run_postrender([], DEPLOY.format(ns="", ref="gone"))
    assert warned.status == 0 and "'gone' is not in the stream" in warned.stderr


def test_long_names_are_shortened_to_253_characters_and_stay_distinct():
    base_a = "a" * 250
    base_b = "a" * 249 + "b"
    out = run_postrender(["--version-all"], CM.format(name=base_a, ns="") + "---\n" + CM.format(name=base_b, ns=""))
    names = [d["metadata"]["name"] for d in docs(out.stdout)]
    assert all(len(n) <= 253 for n in names)
    assert names[0] != names[1]
    originals = [d["metadata"]["annotations"]["postrender.io/original-name"] for d in docs(out.stdout)]
    assert originals == [base_a, base_b]
    labels = [d["metadata"]["labels"]["postrender.io/base-name"] for d in docs(out.stdout)]
    assert all(len(v) <= 63 for v in labels) and labels[0] != labels[1]
    assert run_postrender([], out.stdout).stdout == out.stdout


def test_mutable_flag_leaves_immutable_out():
    stream = CM.format(name="cfg", ns="") + "---\n" + DEPLOY.format(ns="", ref="cfg")
    out = run_postrender(["--mutable"], stream)
    assert name_of(out.stdout) != "cfg" and "immutable" not in docs(out.stdout)[0]
    assert docs(run_postrender([], stream).stdout)[0]["immutable"] is True


def test_changed_data_after_a_previous_run_gets_a_new_version_from_the_base_name():
    first = run_postrender([], CM.format(name="cfg", ns="") + "---\n" + DEPLOY.format(ns="", ref="cfg")).stdout
    edited = first.replace("k: v", "k: changed")
    second = run_postrender([], edited).stdout
    # The referrer still points at the old versioned name, which is gone now:
    # it is no longer a reference to anything in the stream.
    assert name_of(second).startswith("cfg-") and name_of(second) != name_of(first)
    assert docs(second)[0]["metadata"]["labels"]["postrender.io/base-name"] == "cfg"


def test_verbose_and_log_file_record_renames_and_rewrites(tmp_path):
    log = tmp_path / "postrender.log"
    stream = CM.format(name="cfg", ns="") + "---\n" + DEPLOY.format(ns="", ref="cfg")
    out = run_postrender(["-v", "--log-file", str(log)], stream)
    assert "renamed ConfigMap/cfg -> cfg-" in out.stderr
    assert "rewrote Deployment/app spec.template.spec.containers[0].envFrom[0].configMapRef.name" in out.stderr
    assert log.read_text().count("rewrote Deployment/app") == 1
    assert stat.S_IMODE(os.stat(log).st_mode) == 0o600
    via_env = tmp_path / "env.log"
    run_postrender([], stream, env={"POSTRENDER_LOG_FILE": str(via_env)})
    assert "renamed ConfigMap/cfg" in via_env.read_text()


def test_same_input_gives_the_same_bytes():
    stream = CM.format(name="cfg", ns="") + "---\n" + DEPLOY.format(ns="", ref="cfg")
    outputs = {run_postrender([], stream).stdout for _ in range(3)}
    assert len(outputs) == 1


def test_files_and_folders_as_arguments(tmp_path):
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "a.yaml").write_text(CM.format(name="cfg", ns=""))
    (tmp_path / "m" / "b.yml").write_text(DEPLOY.format(ns="", ref="cfg"))
    (tmp_path / "m" / "notes.txt").write_text("ignored")
    out = run_postrender([str(tmp_path / "m")])
    assert out.status == 0
    assert ref_of(out.stdout) == name_of(out.stdout)
    assert len(docs(out.stdout)) == 2


@pytest.mark.parametrize("marks", [
    # A chart's common labels copied from another, versioned object.
    '\n  labels: {postrender.io/versioned: "true", postrender.io/base-name: other, postrender.io/content-hash: abc}',
    '\n  labels: {postrender.io/versioned: "true"}\n  annotations: {postrender.io/original-name: other}',
])
def test_marks_another_objects_name_carries_do_not_rename_this_one_after_it(marks):
    # The base is taken from the marks only where the name holds it (or the
    # hash of a base cut to fit): `cm` is no version of `other`.
    out = run_postrender([], CM.format(name="cm", ns=marks) + "---\n" + DEPLOY.format(ns="", ref="cm"))
    assert out.status == 0, out.stderr
    config, deploy = docs(out.stdout)
    assert config["metadata"]["name"].startswith("cm-") and config["metadata"]["labels"]["postrender.io/base-name"] == "cm"
    assert deploy["spec"]["template"]["spec"]["containers"][0]["envFrom"][0]["configMapRef"]["name"] == config["metadata"]["name"]


@pytest.mark.parametrize("original", ["zzz", "cf", "cfg-x", "c"])
def test_an_original_name_a_run_never_writes_is_not_trusted_the_next_run(original):
    # A run writes postrender.io/original-name only for a base too long (or
    # odd) for a label. One a label could hold was written by hand or copied:
    # the second run named the version after it (`zzz-<hash>`), so a second
    # run over the output changed it (oracle60). The second run is a no-op.
    marks = f"\n  annotations: {{postrender.io/original-name: {original}}}"
    out = run_postrender([], CM.format(name="cfg", ns=marks) + "---\n" + DEPLOY.format(ns="", ref="cfg"))
    assert out.status == 0, out.stderr
    assert name_of(out.stdout).startswith("cfg-")
    again = run_postrender([], out.stdout)
    assert again.status == 0 and again.stdout == out.stdout, again.stderr


@pytest.mark.parametrize("kind,data", [("ConfigMap", "data: {a: b}"), ("Secret", "data: {a: Yg==}")])
def test_an_admission_binding_of_a_policy_not_in_the_stream_keeps_the_config_it_may_name(kind, data):
    # refs61: a platform chart ships the policy, each app its binding and
    # parameters. The paramRef's kind is unknown; the config it may name had
    # been versioned with no copy, the binding left naming nothing.
    ref = "configMapRef" if kind == "ConfigMap" else "secretRef"
    stream = "---\n".join([
        f"apiVersion: v1\nkind: {kind}\nmetadata: {{name: params, namespace: ns}}\n{data}\n",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: ns}\nspec:\n  template:\n"
        f"    spec:\n      containers: [{{name: c, envFrom: [{{{ref}: {{name: params}}}}]}}]\n",
        "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\n"
        "metadata: {name: b}\nspec:\n  policyName: elsewhere\n"
        "  paramRef: {name: params, namespace: ns, parameterNotFoundAction: Deny}\n",
        "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\n"
        "metadata: {name: other}\nspec:\n  policyName: elsewhere\n"
        "  paramRef: {name: not-here, namespace: ns, parameterNotFoundAction: Allow}\n",
    ])
    result = run_postrender(["--keep-original=none"], stream)
    assert result.status == 0, result.stderr
    assert result.stderr == "", "a paramRef naming nothing in the stream, of a kind unknown, is no reference"
    docs = list(YAML(typ="safe").load_all(result.stdout))
    names = {d["metadata"]["name"] for d in docs if d["kind"] == kind}
    assert "params" in names and len(names) == 2, names
    (binding,) = [d for d in docs if d["kind"] == "ValidatingAdmissionPolicyBinding" and d["metadata"]["name"] == "b"]
    assert binding["spec"]["paramRef"]["name"] == "params"


@pytest.mark.parametrize("args", [[], ["--keep-original=none"], ["--version-all"]])
def test_a_service_accounts_pull_secrets_keep_the_name_its_pods_are_given(args):
    # refs61: the ServiceAccount was pointed at each new version, which no pod
    # made before it learns (Kubernetes copies the names in at creation, and
    # nothing rolled them): those went on naming a version Helm prunes.
    stream = "---\n".join([
        "apiVersion: v1\nkind: Secret\nmetadata: {name: regcred}\ntype: kubernetes.io/dockerconfigjson\n"
        "data: {.dockerconfigjson: e30=}\n",
        "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: app}\nimagePullSecrets: [{name: regcred}]\n",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    spec:\n"
        "      serviceAccountName: app\n      containers: [{name: c, image: private.example/web}]\n",
        # Its own pull secrets are its pod template's, which rolls: rewritten.
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: api}\nspec:\n  template:\n    spec:\n"
        "      imagePullSecrets: [{name: regcred}]\n      containers: [{name: c, image: private.example/api}]\n",
    ])
    result = run_postrender(args, stream)
    assert result.status == 0, result.stderr
    docs = list(YAML(typ="safe").load_all(result.stdout))
    (account,) = [d for d in docs if d["kind"] == "ServiceAccount"]
    assert account["imagePullSecrets"] == [{"name": "regcred"}]
    secrets = {d["metadata"]["name"] for d in docs if d["kind"] == "Secret"}
    assert "regcred" in secrets
    (api,) = [d for d in docs if d.get("metadata", {}).get("name") == "api"]
    [pulled] = api["spec"]["template"]["spec"]["imagePullSecrets"]
    assert pulled["name"].startswith("regcred-") and pulled["name"] in secrets


@pytest.mark.parametrize("tagged", ["!!str .inf", "!!str -.INF", "!<tag:yaml.org,2002:str> .nan"])
def test_a_str_tagged_infinity_is_text_named_as_its_quoted_form(tagged):
    # oracle61: refused as an infinite number, where kubectl reads the text.
    def named(value: str) -> str:
        text = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"
                f"  annotations: {{postrender.io/versioned: 'true'}}\ndata:\n  k: {value}\n")
        result = run_postrender([], text)
        assert result.status == 0, result.stderr
        return next(YAML(typ="safe").load_all(result.stdout))["metadata"]["name"]

    assert named(tagged) == named("'" + tagged.split()[-1] + "'")


def test_a_timestamp_tagged_name_loses_its_tag_when_renamed():
    # oracle61: `!!timestamp 2001-12-14-<hash>` is no timestamp; kubectl refused it.
    stream = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: &n !!timestamp 2001-12-14\ndata: {k: v}\n---\n"
              "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  template:\n    spec:\n"
              "      containers: [{name: c, envFrom: [{configMapRef: {name: !!timestamp 2001-12-14}}]}]\n")
    result = run_postrender([], stream)
    assert result.status == 0, result.stderr
    assert "!!timestamp" not in result.stdout
    assert "  name: &n 2001-12-14-" in result.stdout and "configMapRef: {name: 2001-12-14-" in result.stdout
