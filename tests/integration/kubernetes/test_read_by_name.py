"""Which objects are versioned, and programs that read config by name.

Decision 2 and 3 of the versioning policy (README "Which objects are
versioned"): only objects a rewritable, consuming reference resolves to are
versioned (or opted in, or --version-all); an object a program reads by name
(the fixed-name table, RBAC resourceNames, container flags and environment
values, names in an operator's ConfigMap data) keeps its name and the reading
workload rolls by postrender.io/config-hash; objects without data keep their
names and stay mutable; a name left on an object the render removes fails it.

What Kubernetes reads is the oracle: every output is read back with
`kubectl label --local -o json`, as kubectl and Helm send it.
"""

from __future__ import annotations

import base64
import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from conftest import FIXTURES, require_tool, run_postrender
from manifests import tool_env
from postrender.pipeline.graph.byname import fixed_names

HASH = "postrender.io/config-hash"
CHART_SHAPES = sorted(p for p in (FIXTURES / "golden").iterdir() if p.name.startswith("byname-"))


# --- the oracle ---------------------------------------------------------------


def kubectl_read(text: str) -> list[dict[str, Any]]:
    """The objects as kubectl sends them (go-yaml v2 reading), label zz added and removed."""
    kubectl = require_tool("kubectl")
    proc = subprocess.run([kubectl, "label", "--local", "-f", "-", "zz=x", "-o", "json"], input=text,
                          capture_output=True, text=True, env=tool_env())
    assert proc.returncode == 0, proc.stderr
    decoder, out, at = json.JSONDecoder(), [], 0
    body = proc.stdout
    while True:
        while at < len(body) and body[at].isspace():
            at += 1
        if at == len(body):
            break
        obj, at = decoder.raw_decode(body, at)
        items = obj["items"] if obj.get("kind") == "List" and "items" in obj else [obj]
        for item in items:
            labels = item["metadata"]["labels"]
            del labels["zz"]
            if not labels:
                del item["metadata"]["labels"]
            out.append(item)
    return out


def render(args: list[str], text: str, status: int = 0) -> str:
    result = run_postrender(args, text)
    assert result.status == status, result.stderr
    return result.stdout


def stream(*objects: dict[str, Any]) -> str:
    return "".join("---\n" + json.dumps(o) + "\n" for o in objects)


def ident(obj: dict[str, Any]) -> tuple[str, str | None, str]:
    return obj["kind"], obj["metadata"].get("namespace"), obj["metadata"]["name"]


def find(objects: list[dict[str, Any]], kind: str, name: str, namespace: str | None = None) -> dict[str, Any]:
    (found,) = [o for o in objects if o["kind"] == kind and o["metadata"].get("namespace") == namespace
                and (o["metadata"]["name"] == name or o["metadata"].get("labels", {}).get("postrender.io/base-name") == name)]
    return found


def template(obj: dict[str, Any]) -> dict[str, Any]:
    spec = obj.get("spec", {})
    return spec.get("template") or spec.get("jobTemplate", {}).get("spec", {}).get("template") or obj


def config(kind: str, name: str, namespace: str | None = "apps", **extra: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, **({"namespace": namespace} if namespace else {})}
    obj: dict[str, Any] = {"apiVersion": "v1", "kind": kind, "metadata": meta}
    if "data" not in extra and "stringData" not in extra and "binaryData" not in extra:
        obj["data"] = {"k": "dmFsdWU="} if kind == "Secret" else {"k": "value"}
    obj.update(extra)
    return obj


def deployment(container: dict[str, Any], name: str = "app", namespace: str | None = "apps",
               **pod: Any) -> dict[str, Any]:
    meta = {"name": name, **({"namespace": namespace} if namespace else {})}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta,
            "spec": {"selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "c", "image": "i", **container}], **pod}}}}


def mounting(kind: str, name: str) -> dict[str, Any]:
    """A container reading every key of the object through envFrom: a consuming reference."""
    key = "configMapRef" if kind == "ConfigMap" else "secretRef"
    return {"envFrom": [{key: {"name": name}}]}


# --- rendered chart shapes ----------------------------------------------------

# (config kind, namespace, name, workload kind, name): a change to the config
# must change the workload's pod template, whether postrender renames the
# config (and rewrites the reference) or keeps its name (and hashes it).
ROLLS = {
    "byname-argocd": [
        ("ConfigMap", "argocd", "argocd-cmd-params-cm", "StatefulSet", "argocd-application-controller"),
        ("ConfigMap", "argocd", "argocd-ssh-known-hosts-cm", "Deployment", "argocd-server"),
        ("Secret", "argocd", "argocd-notifications-secret", "Deployment", "argocd-notifications-controller"),
    ],
    "byname-ingress-nginx": [
        ("ConfigMap", "ingress", "rel-ingress-nginx-controller", "Deployment", "rel-ingress-nginx-controller"),
        ("ConfigMap", "ingress", "rel-ingress-nginx-tcp", "Deployment", "rel-ingress-nginx-controller"),
        ("ConfigMap", "ingress", "rel-ingress-nginx-udp", "Deployment", "rel-ingress-nginx-controller"),
        ("Secret", "ingress", "default-cert", "Deployment", "rel-ingress-nginx-controller"),
    ],
    "byname-kyverno": [
        ("ConfigMap", "kyverno", "rel-kyverno", "Deployment", "rel-kyverno-admission-controller"),
        ("ConfigMap", "kyverno", "rel-kyverno-metrics", "Deployment", "rel-kyverno-background-controller"),
    ],
    "byname-argo-workflows": [
        ("ConfigMap", "argo", "rel-argo-workflows-workflow-controller-configmap", "Deployment",
         "rel-argo-workflows-workflow-controller"),
        ("ConfigMap", "argo", "rel-argo-workflows-workflow-controller-configmap", "Deployment",
         "rel-argo-workflows-server"),
        ("Secret", "argo", "argo-server-sso", "Deployment", "rel-argo-workflows-server"),
    ],
    "byname-istiod": [
        ("ConfigMap", "istio-system", "istio", "Deployment", "istiod"),
        ("ConfigMap", "istio-system", "istio-sidecar-injector", "Deployment", "istiod"),
    ],
    "byname-linkerd": [
        ("ConfigMap", "linkerd", "linkerd-identity-trust-roots", "Deployment", "linkerd-identity"),
        ("Secret", "linkerd", "linkerd-identity-issuer", "Deployment", "linkerd-identity"),
    ],
    "byname-cnpg-plugin": [
        ("Secret", "cnpg-system", "barman-cloud-server-tls", "Deployment", "barman-cloud"),
    ],
    "byname-argo-rollouts": [],
    "byname-placeholders": [],
    "byname-shared-names": [
        ("ConfigMap", "edge", "ctl", "Deployment", "ctl"),
        ("ConfigMap", "edge", "hook", "Deployment", "hook"),
        ("ConfigMap", "edge", "plain", "Deployment", "plain"),
    ],
}
# Names each chart's programs read through the API: they must still exist.
READ_BY_NAME = {
    "byname-argocd": ["argocd-cm", "argocd-rbac-cm", "argocd-secret", "argocd-notifications-cm",
                      "argocd-notifications-secret", "argocd-ssh-known-hosts-cm", "argocd-tls-certs-cm",
                      "argocd-gpg-keys-cm"],
    "byname-istiod": ["istio", "istio-sidecar-injector", "istio-canary"],
    "byname-linkerd": ["linkerd-config", "linkerd-identity-trust-roots", "linkerd-identity-issuer"],
    "byname-argo-rollouts": ["argo-rollouts-config", "argo-rollouts-notification-configmap",
                             "argo-rollouts-notification-secret"],
    "byname-placeholders": ["rel-external-secrets-webhook", "dapr-trust-bundle", "metallb-webhook-cert"],
    "byname-shared-names": ["plain"],
}


def test_every_chart_shape_has_roll_expectations():
    assert sorted(ROLLS) == [p.name for p in CHART_SHAPES]


def _words(text: str) -> set[str]:
    """Every word a program could take for a name: split at blanks, `=`, `,`, `/` and quotes."""
    return {w for w in re.split(r"[\s=,/\"'{}:]+", text) if w}


# Flags their programs document as naming an object of another kind: a
# config that shares the name is not what they read (ingress-nginx
# cmd/nginx/flags.go: --publish-service "Service fronting the Ingress
# controller", --default-backend-service a Service, --election-id its
# leader-election Lease; cert-manager's webhook --dynamic-serving-dns-names
# its Service's DNS names).
NAMES_ANOTHER_KIND = ("--publish-service=", "--default-backend-service=", "--election-id=",
                      "--dynamic-serving-dns-names=")
# Kong's ingress controller takes --publish-service as this variable.
VARIABLES_NAMING_ANOTHER_KIND = {"CONTROLLER_PUBLISH_SERVICE"}


def _strings_read_by_programs(obj: dict[str, Any]) -> list[str]:
    found: list[str] = []
    spec = template(obj).get("spec", {})
    for group in ("containers", "initContainers", "ephemeralContainers"):
        for container in spec.get(group) or []:
            found += container.get("args") or []
            found += container.get("command") or []
            found += [e["value"] for e in container.get("env") or []
                      if isinstance(e.get("value"), str) and e["name"] not in VARIABLES_NAMING_ANOTHER_KIND]
    for rule in obj.get("rules") or []:
        found += rule.get("resourceNames") or []
    found += list((obj.get("metadata", {}).get("annotations") or {}).values())
    if obj["kind"] == "ConfigMap":
        found += list((obj.get("data") or {}).values())
    return [text for text in found if not text.startswith(NAMES_ANOTHER_KIND)]


@pytest.mark.parametrize("case", CHART_SHAPES, ids=[c.name for c in CHART_SHAPES])
def test_chart_shape_leaves_no_name_on_a_vanished_object(case: Path):
    text = (case / "input.yaml").read_text()
    before = kubectl_read(text)
    # Unsuffixed copies (the default for Secrets) are extra objects; they keep old names alive.
    after = [o for o in kubectl_read(render([], text))
             if "postrender.io/copy-of" not in (o["metadata"].get("annotations") or {})]
    assert len(before) == len(after)
    configs_after = {ident(o) for o in after if o["kind"] in ("ConfigMap", "Secret")}
    vanished = {ident(o) for o in before if o["kind"] in ("ConfigMap", "Secret")} - configs_after
    for obj in after:
        namespace = obj["metadata"].get("namespace")
        for text_read in _strings_read_by_programs(obj):
            for kind, ns, name in vanished:
                cluster_wide = obj["kind"] == "ClusterRole"
                assert not (name in _words(text_read) and (ns == namespace or cluster_wide)), \
                    f"{obj['kind']}/{obj['metadata']['name']} still names {kind}/{ns}/{name}"
    for name in READ_BY_NAME.get(case.name, []):
        assert any(n == name for _, _, n in configs_after), f"{name} must keep its name"
    # No object is both empty and immutable.
    for obj in after:
        if obj["kind"] in ("ConfigMap", "Secret") and not (obj.get("data") or obj.get("binaryData")):
            assert not obj.get("immutable"), obj["metadata"]["name"]


@pytest.mark.parametrize("case", CHART_SHAPES, ids=[c.name for c in CHART_SHAPES])
def test_chart_shape_still_rolls_each_reader_when_its_config_changes(case: Path):
    original = kubectl_read((case / "input.yaml").read_text())
    first = kubectl_read(render([], stream(*original)))
    for kind, namespace, name, workload_kind, workload in ROLLS[case.name]:
        changed = json.loads(json.dumps(original))
        target = find(changed, kind, name, namespace)
        field = "stringData" if "stringData" in target else "data"
        key = next(iter(target[field]))
        target[field][key] = "Y2hhbmdlZA==" if field == "data" and kind == "Secret" else target[field][key] + " changed"
        second = kubectl_read(render([], stream(*changed)))
        before = template(find(first, workload_kind, workload, namespace))
        after = template(find(second, workload_kind, workload, namespace))
        assert before != after, f"a change to {kind}/{name} does not roll {workload_kind}/{workload}"


@pytest.mark.parametrize("case", CHART_SHAPES, ids=[c.name for c in CHART_SHAPES])
def test_chart_shape_renders_the_same_twice(case: Path):
    once = render([], (case / "input.yaml").read_text())
    assert render([], once) == once


# --- which objects are versioned ---------------------------------------------


def test_an_unreferenced_object_keeps_its_name_and_says_why():
    result = run_postrender(["-v"], stream(config("ConfigMap", "cfg")))
    assert result.status == 0
    (out,) = kubectl_read(result.stdout)
    assert out["metadata"]["name"] == "cfg" and "immutable" not in out
    assert "ConfigMap/apps/cfg keeps its name: no field postrender rewrites references it" in result.stderr
    graph = json.loads(render(["graph", "-o", "json"], stream(config("ConfigMap", "cfg"))))
    (node,) = graph["configObjects"]
    assert node["versioned"] is False and "--version-all" in node["excluded"]


@pytest.mark.parametrize("args,meta", [
    (["--version-all"], {}),
    ([], {"annotations": {"postrender.io/versioned": "true"}}),
    ([], {"labels": {"postrender.io/versioned": "true"}}),
])
def test_opting_in_versions_an_unreferenced_object(args, meta):
    obj = config("ConfigMap", "cfg")
    obj["metadata"].update(meta)
    (out,) = kubectl_read(render(args, stream(obj)))
    assert out["metadata"]["name"].startswith("cfg-") and out["immutable"] is True


def test_a_consuming_reference_versions_and_a_non_consuming_one_does_not():
    role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "r", "namespace": "apps"},
            "rules": [{"apiGroups": [""], "resources": ["configmaps"], "resourceNames": ["cfg"], "verbs": ["delete"]}]}
    out = kubectl_read(render([], stream(config("ConfigMap", "cfg"), deployment(mounting("ConfigMap", "cfg")))))
    assert find(out, "ConfigMap", "cfg", "apps")["metadata"]["name"].startswith("cfg-")
    # A Role naming it (to delete it) neither reads its content nor makes it read by name.
    alone = kubectl_read(render([], stream(config("ConfigMap", "cfg"), role)))
    assert alone[0]["metadata"]["name"] == "cfg"


def test_a_reference_held_by_reloader_does_not_version_its_object():
    app = deployment(mounting("ConfigMap", "cfg"))
    app["metadata"]["annotations"] = {"reloader.stakater.com/auto": "false"}
    out = kubectl_read(render([], stream(config("ConfigMap", "cfg"), app)))
    assert out[0]["metadata"]["name"] == "cfg"


EMPTY = [({}, "ConfigMap"), ({"data": None}, "ConfigMap"), ({"data": {}}, "ConfigMap"),
         ({"data": {}, "binaryData": {}}, "ConfigMap"),
         ({}, "Secret"), ({"data": None}, "Secret"), ({"data": {}}, "Secret"), ({"stringData": {}}, "Secret")]


@pytest.mark.parametrize("fields,kind", EMPTY, ids=[f"{k}-{'-'.join(f) or 'none'}" for f, k in EMPTY])
@pytest.mark.parametrize("args", [[], ["--version-all"], ["--version-all", "--keep-original"]])
def test_an_object_without_data_keeps_its_name_and_stays_mutable(fields, kind, args):
    obj = {"apiVersion": "v1", "kind": kind, "metadata": {"name": "cert", "namespace": "apps",
           "annotations": {"postrender.io/versioned": "true"}}, **fields}
    result = run_postrender([*args, "-v"], stream(obj, deployment(mounting(kind, "cert"))))
    assert result.status == 0, result.stderr
    out = kubectl_read(result.stdout)
    assert out[0]["metadata"]["name"] == "cert" and "immutable" not in out[0]
    assert len(out) == 2  # no copy either
    assert f"{kind}/apps/cert keeps its name: no data" in result.stderr


def test_a_secret_with_only_string_data_has_data():
    obj = config("Secret", "s", stringData={"password": "x"})
    out = kubectl_read(render([], stream(obj, deployment(mounting("Secret", "s")))))
    assert out[0]["metadata"]["name"].startswith("s-") and out[0]["immutable"] is True


# --- the fixed-name table -----------------------------------------------------


def _example(row) -> dict[str, Any]:
    """An object the row matches."""
    if row.name:
        name = row.name
    elif row.pattern is not None:
        name = {"kubelet-config-1\\.[0-9]+": "kubelet-config-1.23", "istio-sidecar-injector(-.+)?": "istio-sidecar-injector-canary",
                "istio-.+": "istio-canary", "config-.+": "config-network",
                "config-.+|default-ch-webhook": "default-ch-webhook", ".+": "restore-plugin-config"}[row.pattern.pattern]
    else:
        name = "bootstrap-token-abcdef"
    obj = config(row.kind, name, row.namespace or "apps")
    if row.type:
        obj["type"] = row.type
    if row.if_label:
        obj["metadata"]["labels"] = {row.if_label[0]: "canary"}
    return obj


ROWS = fixed_names()


@pytest.mark.parametrize("row", ROWS, ids=[f"{r.kind}:{r.name or (r.pattern and r.pattern.pattern) or r.type}" for r in ROWS])
def test_each_fixed_name_keeps_its_name_even_opted_in_and_graph_says_why(row):
    obj = _example(row)
    obj["metadata"].setdefault("annotations", {})["postrender.io/versioned"] = "true"
    namespace = obj["metadata"]["namespace"]
    text = stream(obj, deployment(mounting(row.kind, obj["metadata"]["name"]), namespace=namespace))
    out = kubectl_read(render(["--version-all"], text))
    assert out[0]["metadata"]["name"] == obj["metadata"]["name"] and "immutable" not in out[0]
    # The reader still rolls: the template carries a hash over it.
    assert HASH in template(out[1])["metadata"]["annotations"]
    graph = json.loads(render(["graph", "-o", "json", "--version-all"], text))
    assert graph["configObjects"][0]["excluded"] == f"read by a fixed name: {row.why}"


def test_fixed_names_respect_namespace_type_and_label():
    # aws-auth is EKS's only in kube-system; bootstrap tokens by type; istio-<rev> by label.
    elsewhere = config("ConfigMap", "aws-auth", "apps")
    opaque = config("Secret", "bootstrap-token-abcdef", "apps")
    unlabelled = config("ConfigMap", "istio-gateway-settings", "apps")
    for obj in (elsewhere, opaque, unlabelled):
        kind, name = obj["kind"], obj["metadata"]["name"]
        out = kubectl_read(render([], stream(obj, deployment(mounting(kind, name)))))
        assert out[0]["metadata"]["name"].startswith(name + "-"), name


# --- RBAC ---------------------------------------------------------------------


def _role(kind: str, resource: str, names: list[str], verbs: list[str], namespace: str | None = "apps") -> dict:
    meta = {"name": "reader", **({"namespace": namespace} if kind == "Role" and namespace else {})}
    return {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": kind, "metadata": meta,
            "rules": [{"apiGroups": [""], "resources": [resource], "resourceNames": names, "verbs": verbs}]}


@pytest.mark.parametrize("verbs", [["get"], ["list"], ["watch"], ["update"], ["patch"], ["*"], ["create", "get"]])
def test_a_role_granting_access_by_name_keeps_the_name(verbs):
    text = stream(config("ConfigMap", "cfg"), deployment(mounting("ConfigMap", "cfg")),
                  _role("Role", "configmaps", ["cfg"], verbs))
    result = run_postrender(["-v"], text)
    out = kubectl_read(result.stdout)
    assert out[0]["metadata"]["name"] == "cfg"
    assert out[2]["rules"][0]["resourceNames"] == ["cfg"]
    assert HASH in template(out[1])["metadata"]["annotations"]
    assert "ConfigMap/apps/cfg keeps its name: Role/apps/reader grants" in result.stderr


def test_a_grant_on_another_resource_or_verb_is_no_signal():
    for role in (_role("Role", "secrets", ["cfg"], ["get"]), _role("Role", "configmaps", ["cfg"], ["delete"])):
        text = stream(config("ConfigMap", "cfg"), deployment(mounting("ConfigMap", "cfg")), role)
        assert kubectl_read(render([], text))[0]["metadata"]["name"].startswith("cfg-")


def test_a_cluster_role_keeps_the_name_in_every_namespace():
    text = stream(config("ConfigMap", "cluster-config", "a"), config("ConfigMap", "cluster-config", "b"),
                  deployment(mounting("ConfigMap", "cluster-config"), namespace="a"),
                  deployment(mounting("ConfigMap", "cluster-config"), namespace="b"),
                  _role("ClusterRole", "configmaps", ["cluster-config"], ["get"]))
    out = kubectl_read(render([], text))
    assert [o["metadata"]["name"] for o in out[:2]] == ["cluster-config", "cluster-config"]
    assert out[4]["rules"][0]["resourceNames"] == ["cluster-config"]


RBAC_YAML = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: cfg, namespace: %(ns_a)s, annotations: {postrender.io/versioned: "true"%(keep)s}}
data: {k: a}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cfg, namespace: b, annotations: {postrender.io/versioned: "true"}}
data: {k: b}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: %(kind)s
metadata: {name: reader%(role_ns)s}
rules:
  - apiGroups: [""]
    resources: [configmaps]
    verbs: [get]
    resourceNames: %(names)s
"""


@pytest.mark.parametrize("names", ["[cfg]", "\n      - cfg"], ids=["flow", "block"])
def test_a_versioned_object_is_added_to_a_grant_and_no_grant_is_lost(names):
    def names_of(kind: str, keep: str = "", role_ns: str = "") -> list[str]:
        text = RBAC_YAML % {"ns_a": "a", "keep": keep, "kind": kind, "role_ns": role_ns, "names": names}
        out = render(["--allow-broken-references"], text)
        assert render(["--allow-broken-references"], out) == out  # a second run adds nothing
        objects = kubectl_read(out)
        return objects[-1]["rules"][0]["resourceNames"], {o["metadata"]["name"] for o in objects[:-1]}

    # A ClusterRole applies in every namespace: the original stays, each version is added.
    granted, present = names_of("ClusterRole")
    assert granted[-1] == "cfg" and set(granted[:-1]) == present - {"cfg"} and len(granted) == 3
    # A Role in `a`: the original goes unless a copy keeps it there.
    granted, present = names_of("Role", role_ns=", namespace: a")
    assert len(granted) == 1 and granted[0].startswith("cfg-") and granted[0] in present
    granted, present = names_of("Role", keep=', postrender.io/keep-original: "true"', role_ns=", namespace: a")
    assert granted[-1] == "cfg" and "cfg" in present and granted[0].startswith("cfg-")


# --- flags and environment values ---------------------------------------------


# Flags and variables no podSpecArgs row of builtin.yaml lists (those are
# rewritten instead: test_container_args.py).
FORMS = {
    "flag=name": {"args": ["--config=cfg"]},
    "flag=ns/name": {"args": ["--config=apps/cfg"]},
    "flag ns/name": {"args": ["--config", "apps/cfg"]},
    "flag name": {"args": ["--settings-secret", "cfg"]},
    "flag=$(POD_NAMESPACE)/name": {"args": ["--settings=$(POD_NAMESPACE)/cfg"]},
    "$(VAR)/name": {"args": ["$(POD_NAMESPACE)/cfg"]},
    "${VAR}/name": {"command": ["sh", "-c", "exec controller --configmap=${NAMESPACE}/cfg"]},
    "exact value": {"args": ["serve", "cfg"]},
    "comma list": {"args": ["--configmaps=other,cfg"]},
    "env exact": {"env": [{"name": "SETTINGS_NAME", "value": "cfg"}]},
    "env ns/name": {"env": [{"name": "CONFIG", "value": "apps/cfg"}]},
    "init container": None,
}


# A flag that spells a kind out names only that kind.
SPELLED = {"flag name": "Secret", "${VAR}/name": "ConfigMap", "comma list": "ConfigMap"}


@pytest.mark.parametrize("kind, form", [
    (kind, form) for kind in ("ConfigMap", "Secret") for form in FORMS if SPELLED.get(form, kind) == kind
])
def test_a_name_in_a_flag_or_env_value_keeps_the_object_and_rolls_the_reader(form, kind):
    container = FORMS[form]
    pod: dict[str, Any] = {}
    if container is None:
        container, pod = {}, {"initContainers": [{"name": "init", "image": "i", "args": ["--config=cfg"]}]}
    text = stream(config(kind, "cfg"), deployment(container, **pod))
    result = run_postrender(["-v"], text)
    assert result.status == 0, result.stderr
    out = kubectl_read(result.stdout)
    assert out[0]["metadata"]["name"] == "cfg" and "immutable" not in out[0]
    assert "names it: the program reads it by that name" in result.stderr
    first_hash = template(out[1])["metadata"]["annotations"][HASH]
    changed = config(kind, "cfg", data={"k": "Y2hhbmdlZA==" if kind == "Secret" else "changed"})
    second = kubectl_read(render([], stream(changed, deployment(container, **pod))))
    assert template(second[1])["metadata"]["annotations"][HASH] != first_hash


@pytest.mark.parametrize("variable", ["NO_PROXY", "no_proxy", "HTTPS_PROXY"])
def test_a_proxy_variables_hosts_are_no_read_of_a_config(variable):
    # harbor's chart lists every component of the release in trivy's
    # NO_PROXY: a ConfigMap named as a component is versioned all the same,
    # and --version-all is no broken reference.
    hosts = "core,jobservice,127.0.0.1,localhost,.local" if "NO" in variable.upper() else "core"
    text = stream(config("ConfigMap", "core"), deployment(mounting("ConfigMap", "core")),
                  deployment({"env": [{"name": variable, "value": hosts}]}, name="trivy"))
    for flags in ([], ["--version-all"]):
        assert kubectl_read(render(flags, text))[0]["metadata"]["name"].startswith("core-"), flags


@pytest.mark.parametrize("container", [
    {"args": ["--config=/etc/cfg"]},
    {"args": ["--url=https://example.com/cfg"]},
    {"args": ["--config=other/cfg"]},
    {"command": ["cfg", "--port=80"]},
    {"env": [{"name": "X", "value": "cfg-extra"}]},
], ids=["path", "url", "other-namespace", "program", "longer-word"])
def test_words_that_do_not_name_the_object_are_not_taken_for_it(container):
    container = {**container, **mounting("ConfigMap", "cfg")} if "env" not in container else {
        **container, "envFrom": mounting("ConfigMap", "cfg")["envFrom"]}
    out = kubectl_read(render([], stream(config("ConfigMap", "cfg"), deployment(container))))
    assert out[0]["metadata"]["name"].startswith("cfg-")


def test_a_flag_a_field_spec_covers_is_rewritten_not_kept(tmp_path):
    # As a field-spec row for a flag does: the reference wins over the scan.
    spec = tmp_path / "args.yaml"
    spec.write_text("nameReference:\n- kind: ConfigMap\n  fieldSpecs:\n"
                    "  - {kind: Deployment, path: spec/template/spec/containers/args}\n")
    out = kubectl_read(render(["--config", str(spec)], stream(config("ConfigMap", "cfg"), deployment({"args": ["cfg"]}))))
    new = out[0]["metadata"]["name"]
    assert new.startswith("cfg-") and template(out[1])["spec"]["containers"][0]["args"] == [new]


def test_an_opted_in_object_read_by_a_flag_fails_unless_a_copy_keeps_the_name():
    obj = config("ConfigMap", "cfg")
    obj["metadata"]["annotations"] = {"postrender.io/versioned": "true"}
    # A flag no podSpecArgs row lists (--configmap is one, and is rewritten).
    text = stream(obj, deployment({"args": ["--settings=$(POD_NAMESPACE)/cfg"]}))
    result = run_postrender([], text)
    assert result.status == 1 and result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith("postrender: error: document 2 (Deployment/app) line ")
    assert "spec.template.spec.containers[0].args[0]: names ConfigMap 'cfg'" in line
    kept = kubectl_read(render(["--keep-original"], text))
    assert {o["metadata"]["name"] for o in kept if o["kind"] == "ConfigMap"} >= {"cfg"}


# --- names in an operator's ConfigMap data ------------------------------------


@pytest.mark.parametrize("data", [
    "artifactRepository:\n  s3:\n    accessKeySecret:\n      name: creds\n      key: accesskey\n",
    "sso:\n  clientSecret: {name: creds, key: secret}\n",
    '{"auth": {"secretName": "creds"}}',
    "existingSecret: creds\n",
], ids=["block", "flow", "json", "key"])
def test_a_secret_named_in_an_operators_config_keeps_its_name(data):
    operator = config("ConfigMap", "operator-config", data={"config.yaml": data})
    text = stream(config("Secret", "creds"), operator,
                  deployment({**mounting("Secret", "creds"), "volumeMounts": []},
                             volumes=[{"name": "c", "configMap": {"name": "operator-config"}}]))
    out = kubectl_read(render([], text))
    assert out[0]["metadata"]["name"] == "creds"
    assert out[1]["metadata"]["name"].startswith("operator-config-")


def test_unrelated_keys_in_a_configs_data_are_not_scanned():
    unrelated = config("ConfigMap", "notes", data={"readme": "image: creds\n"})
    secret = config("Secret", "notes-secret", stringData={"readme": "image: creds\n"})
    text = stream(config("Secret", "creds"), unrelated, secret, deployment(mounting("Secret", "creds")))
    assert kubectl_read(render([], text))[0]["metadata"]["name"].startswith("creds-")


OPERATOR_CONFIG = "caConfigMap:\n  name: ca-bundle\n"


@pytest.mark.parametrize("field", ["stringData", "data"])
def test_an_object_named_in_a_secrets_data_keeps_its_name_and_no_value_is_shown(field):
    # An operator's configuration is as often a Secret as a ConfigMap: the
    # ConfigMap it names keeps its name though a workload reads it too (it
    # was renamed under the operator, with no copy). `data` is read decoded.
    value = OPERATOR_CONFIG if field == "stringData" else base64.b64encode(OPERATOR_CONFIG.encode()).decode()
    holder = config("Secret", "operator-config", **{field: {"config.yaml": value}})
    text = stream(config("ConfigMap", "ca-bundle"), holder, deployment(mounting("ConfigMap", "ca-bundle")))
    result = run_postrender(["-v"], text)
    assert result.status == 0, result.stderr
    assert kubectl_read(result.stdout)[0]["metadata"]["name"] == "ca-bundle"
    assert f'Secret/apps/operator-config {field}["config.yaml"] names it: ' in result.stderr
    # The object's name is the stream's; the Secret's text around it is never shown.
    assert "caConfigMap" not in result.stderr and "name: ca-bundle" not in result.stderr
    # Opted in, it is versioned anyway, and the render fails rather than leave the name on nothing.
    opted = text.replace('"name": "ca-bundle"', '"name": "ca-bundle", "labels": {"postrender.io/versioned": "true"}', 1)
    failed = run_postrender([], opted)
    assert failed.status == 1 and "caConfigMap" not in failed.stderr
    assert "names ConfigMap 'ca-bundle', which a program reads by that name" in failed.stderr


# --- a config's own entries as a program's settings or environment -----------
#
# A ConfigMap handed to a program as its settings (ingress-nginx's controller
# ConfigMap: `add-headers: ns/name` names a ConfigMap of headers) or as its
# environment (envFrom: `configMapName` becomes a variable) names a config by
# an entry of its own, at the data's own level, not in a file it holds.


def _settings_reader(kind: str, key: str, value: str, holder_kind: str = "ConfigMap",
                     field: str = "data") -> str:
    if holder_kind == "Secret" and field == "data":
        value = base64.b64encode(value.encode()).decode()
    holder = config(holder_kind, "main", **{field: {key: value, "log-level": "info"}})
    target = config(kind, "extra")
    reader = deployment({**mounting(holder_kind, "main")},
                        volumes=[{"name": "v", **({"configMap": {"name": "extra"}} if kind == "ConfigMap"
                                                  else {"secret": {"secretName": "extra"}})}])
    return stream(target, holder, reader)


_OWN_ENTRIES = [
    ("ConfigMap", "configMapName", "extra"), ("ConfigMap", "existingConfigMap", "extra"),
    ("ConfigMap", "extraConfigMap", "extra"), ("ConfigMap", "headers-configmap", "apps/extra"),
    ("ConfigMap", "APP_CONFIG_MAP_NAME", "extra"), ("ConfigMap", "add-headers", "apps/extra"),
    ("ConfigMap", "proxy-set-headers", "extra"), ("Secret", "existingSecret", "extra"),
    ("Secret", "tls-secret", "apps/extra"), ("Secret", "secretName", "extra"),
]


@pytest.mark.parametrize("kind, key, value", _OWN_ENTRIES, ids=[key for _, key, _ in _OWN_ENTRIES])
@pytest.mark.parametrize("holder_kind, field", [("ConfigMap", "data"), ("Secret", "stringData"), ("Secret", "data")])
def test_a_config_an_entry_of_another_names_keeps_its_name_and_its_readers_roll(kind, key, value, holder_kind,
                                                                                 field):
    text = _settings_reader(kind, key, value, holder_kind, field)
    out = kubectl_read(render([], text))
    assert find(out, kind, "extra", "apps")["metadata"]["name"] == "extra"
    assert any(o["metadata"]["name"].startswith("main-") for o in out if o["kind"] == holder_kind)
    # It keeps its name, so a change to it rolls the workload by hash.
    assert "postrender.io/config-hash" in template(find(out, "Deployment", "app", "apps"))["metadata"]["annotations"]
    # Versioned anyway, it would leave the entry naming nothing: refused, by
    # line, unless a copy keeps the name (a Secret's is kept by default).
    failed = run_postrender(["--version-all", "--keep-original=none"], text)
    assert failed.status == 1 and failed.stdout == ""
    assert f"names {kind} 'extra', which a program reads by that name" in failed.stderr
    assert failed.stderr.startswith("postrender: error: document 2 (")
    for args in (["--version-all"] if kind == "Secret" else [], ["--version-all", "--keep-original"]):
        if args:
            kept = kubectl_read(render(args, text))
            assert {o["metadata"]["name"] for o in kept if o["kind"] == kind} >= {"extra"}


@pytest.mark.parametrize("key, value", [
    ("name", "extra"),  # a program's settings use `name` for anything
    ("log-level", "extra"), ("server-name", "extra"),
    ("configMapName", "first line\nextra"),  # a file, read for `key: name` only
    ("configMapName", "other/extra"),  # another namespace's, which the stream does not hold
])
def test_an_entry_whose_key_names_no_config_or_whose_value_is_no_name_here_is_not_a_read(key, value):
    text = _settings_reader("ConfigMap", key, value)
    out = kubectl_read(render([], text))
    assert find(out, "ConfigMap", "extra", "apps")["metadata"]["name"].startswith("extra-")


def test_an_entry_of_a_large_config_read_as_it_is_composed_names_alike():
    # A config of 256 KiB or more is read entry by entry as it is composed
    # (index/folding.py): its own entries name alike.
    filler = {f"k{i:05}": "v" * 120 for i in range(2500)}
    holder = config("ConfigMap", "main", data={**filler, "add-headers": "apps/extra"})
    text = stream(config("ConfigMap", "extra"), holder,
                  deployment(mounting("ConfigMap", "main"), volumes=[{"name": "v", "configMap": {"name": "extra"}}]))
    assert len(text) > 256 * 1024
    out = kubectl_read(render([], text))
    assert find(out, "ConfigMap", "extra", "apps")["metadata"]["name"] == "extra"
    failed = run_postrender(["--version-all"], text)
    assert failed.status == 1 and "data.add-headers: names ConfigMap 'extra'" in failed.stderr


def test_a_secrets_binary_data_is_not_read_for_names():
    binary = base64.b64encode(b"\xff\xfe" + OPERATOR_CONFIG.encode()).decode()
    holder = config("Secret", "blob", data={"blob.bin": binary})
    text = stream(config("ConfigMap", "ca-bundle"), holder, deployment(mounting("ConfigMap", "ca-bundle")))
    assert kubectl_read(render([], text))[0]["metadata"]["name"].startswith("ca-bundle-")


# --- names left on a vanished object ------------------------------------------


AMBIGUOUS = stream(
    config("ConfigMap", "cfg", "a"), config("ConfigMap", "cfg", "b", data={"k": "other"}),
    deployment(mounting("ConfigMap", "cfg"), name="user", namespace="a"),
    deployment(mounting("ConfigMap", "cfg"), name="user", namespace="b"),
    deployment(mounting("ConfigMap", "cfg"), name="nons", namespace=None),
)


def test_an_ambiguous_reference_to_renamed_objects_fails_the_render():
    result = run_postrender([], AMBIGUOUS)
    assert result.status == 1 and result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith("postrender: error: document 5 (Deployment/nons) line ")
    assert "ConfigMap 'cfg' matches several objects (ConfigMap/a/cfg, ConfigMap/b/cfg)" in line
    assert "--allow-broken-references" in line and "--namespace" in line


def test_allow_broken_references_downgrades_every_problem_to_a_warning():
    result = run_postrender(["--allow-broken-references"], AMBIGUOUS)
    assert result.status == 0
    out = kubectl_read(result.stdout)
    assert template(out[4])["spec"]["containers"][0]["envFrom"][0]["configMapRef"]["name"] == "cfg"
    (line,) = [w for w in result.stderr.splitlines() if "cfg" in w]
    assert line.startswith("postrender: warning: document 5 (Deployment/nons) line ")
    # With --namespace the reference resolves and nothing is broken.
    assert run_postrender(["--namespace", "a"], AMBIGUOUS).status == 0


def test_every_problem_gets_its_own_line_in_document_order():
    twice = AMBIGUOUS + stream(deployment(mounting("ConfigMap", "cfg"), name="again", namespace=None))
    result = run_postrender([], twice)
    lines = result.stderr.splitlines()
    assert result.status == 1 and len(lines) == 2
    assert "(Deployment/nons)" in lines[0] and "(Deployment/again)" in lines[1]
    assert all(line.startswith("postrender: error: document ") for line in lines)


def test_allow_broken_references_from_plugin_and_krm_configs(tmp_path):
    plugin = tmp_path / "p.yaml"
    plugin.write_text("apiVersion: postrender.io/v1alpha1\nkind: PostRender\nmetadata: {name: p}\n"
                      "allowBrokenReferences: true\n")
    assert run_postrender(["--plugin-config", str(plugin)], AMBIGUOUS).status == 0
    plugin.write_text(plugin.read_text().replace("true", "false"))
    assert run_postrender(["--plugin-config", str(plugin)], AMBIGUOUS).status == 1
    items = [json.loads(line) for line in AMBIGUOUS.split("---\n") if line.strip()]
    for value, status in (("true", 0), ("false", 1)):
        rl = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": items,
              "functionConfig": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "fn"},
                                 "data": {"allowBrokenReferences": value, "versionAll": "true"}}}
        result = run_postrender([], json.dumps(rl))
        assert result.status == status, result.stderr
        severities = [r["severity"] for r in json.loads(result.stdout).get("results", [])]
        assert ("error" in severities) == (status == 1)


def test_a_reference_held_by_reloader_keeps_a_copy_and_is_not_broken():
    held = deployment(mounting("ConfigMap", "cfg"), name="held")
    held["metadata"]["annotations"] = {"reloader.stakater.com/auto": "false"}
    text = stream(config("ConfigMap", "cfg"), deployment(mounting("ConfigMap", "cfg")), held)
    out = kubectl_read(render([], text))
    assert {o["metadata"]["name"] for o in out if o["kind"] == "ConfigMap"} >= {"cfg"}


@pytest.mark.parametrize("form", SPELLED)
def test_a_flag_that_spells_a_kind_out_reads_no_other(form):
    # `--settings-secret cfg` reads a Secret: a ConfigMap that shares the
    # name is read by no program, so the reader gets no hash over it.
    other = "ConfigMap" if SPELLED[form] == "Secret" else "Secret"
    result = run_postrender(["-v"], stream(config(other, "cfg"), deployment(FORMS[form])))
    assert result.status == 0, result.stderr
    assert "reads it by that name" not in result.stderr
    assert HASH not in json.dumps(kubectl_read(result.stdout)[1])
