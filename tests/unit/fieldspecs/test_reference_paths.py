"""Every field spec in the built-in table, exercised one at a time.

For each spec a minimal referrer is built along the spec's path; postrender
must rewrite exactly that reference. A spec whose path the walker cannot
follow fails here, so the table cannot silently rot. All referrers go
through one render (each with its own ConfigMap or Secret): the table has
well over a thousand specs.
"""

from __future__ import annotations

import json
import re

import pytest

from ruamel.yaml import YAML

from conftest import run_postrender
from postrender import fieldspecs

LIST_KEYS = {
    "volumes", "sources", "containers", "initContainers", "ephemeralContainers", "env", "envFrom",
    "imagePullSecrets", "tls", "rules", "secrets", "listeners", "certificateRefs",
}
DEFAULT_API = {
    "Deployment": "apps/v1", "ReplicaSet": "apps/v1", "DaemonSet": "apps/v1", "StatefulSet": "apps/v1",
    "Job": "batch/v1", "CronJob": "batch/v1", "Ingress": "networking.k8s.io/v1",
}
TABLE = fieldspecs.load_table()


def _api_version(spec: fieldspecs.FieldSpec) -> str:
    version = spec.version or "v1"
    if spec.group:
        return f"{spec.group}/{version}"
    return DEFAULT_API.get(spec.kind, version)


def _build(segments, leaf):
    segment, rest = segments[0], segments[1:]
    key = "anyKey" if segment.key == fieldspecs.WILDCARD else segment.key
    value = _build(rest, leaf) if rest else leaf
    if segment.filters and isinstance(value, dict):
        # The first of a filter's alternatives (`[name=A|B]`).
        value.update({f.field: ([f.value.split("|")[0]] if f.field == "resources" else f.value.split("|")[0])
                      for f in segment.filters})
    if key in LIST_KEYS and not (not rest and isinstance(leaf, list)):
        value = [value]
    return {key: value}


def _referrer(spec: fieldspecs.FieldSpec, name: str, index: int) -> list[dict]:
    last = spec.path[-1].key
    leaf = [name] if last == "resourceNames" else name
    if spec.namespace_prefix:
        leaf = f"apps/{name}"
    if spec.flags:
        leaf = ["/controller", f"{spec.flags[0]}=apps/{name}"]
    body = _build(spec.path, leaf)
    if spec.namespace_field:
        parent = body
        for segment in spec.path[:-1]:
            parent = parent["anyKey" if segment.key == fieldspecs.WILDCARD else segment.key]
            parent = parent[0] if isinstance(parent, list) else parent
        parent[spec.namespace_field] = "apps"
    body.setdefault("metadata", {})
    body["metadata"] = {**body["metadata"], "name": f"referrer-{index}"}
    if spec.kind not in TABLE.cluster_scoped:
        body["metadata"]["namespace"] = "apps"
    referrer = {"apiVersion": _api_version(spec), "kind": spec.kind, **body}
    if spec.kind_from:
        # The object that says which kind the name is (an admission policy's paramKind).
        kind, name_path, kind_path = spec.kind_from
        _set(referrer, name_path, f"policy-{index}")
        holder = _set({"apiVersion": referrer["apiVersion"], "kind": kind, "metadata": {"name": f"policy-{index}"}},
                      kind_path, {"apiVersion": "v1", "kind": spec.target_kind})
        return [holder, referrer]
    return [referrer]


def _set(obj: dict, path, value) -> dict:
    node = obj
    for segment in path[:-1]:
        node = node.setdefault(segment.key, {})
    node[path[-1].key] = value
    return obj


SPECS = [s for s in TABLE.specs]
DATA = {"ConfigMap": {"data": {"k": "v"}}, "Secret": {"data": {"k": "dg=="}}}


def _immutable(spec: fieldspecs.FieldSpec) -> bool:
    group, _, version = _api_version(spec).rpartition("/")
    templates = TABLE.template_paths(spec.kind, group, version, immutable=True)
    return any(spec.path[: len(t)] == t for t in templates)


@pytest.fixture(scope="module")
def rendered() -> tuple[dict[str, dict], dict[str, dict]]:
    """Every spec's referrer, and its ConfigMap or Secret, rendered at once:
    the referrers by name, the config objects by name."""
    docs: list[dict] = []
    for i, spec in enumerate(SPECS):
        docs.append({"apiVersion": "v1", "kind": spec.target_kind,
                     "metadata": {"name": f"cfg{i}", "namespace": "apps"}, **DATA[spec.target_kind]})
        docs.extend(_referrer(spec, f"cfg{i}", i))
    # --version-all: a reference that does not read its object (RBAC) versions
    # nothing by itself. No copies: with one, the old name would rightly stay.
    result = run_postrender(["--version-all", "--keep-original=none"],
                            "\n---\n".join(json.dumps(d) for d in docs) + "\n")
    assert result.status == 0, result.stderr
    out = [json.loads(d) for d in result.stdout.split("\n---\n")]
    referrers = {d["metadata"]["name"]: d for d in out if d["metadata"]["name"].startswith("referrer-")}
    configs = {d["metadata"]["name"]: d for d in out if d["kind"] in ("ConfigMap", "Secret")}
    return referrers, configs


@pytest.mark.parametrize("index", range(len(SPECS)), ids=[f"{s.kind}:{s.target_kind}:{s.path_text}" for s in SPECS])
def test_each_builtin_field_spec_is_rewritten(index, rendered):
    spec, (referrers, configs) = SPECS[index], rendered
    out = referrers[f"referrer-{index}"]
    (referrer,) = [d for d in _referrer(spec, f"cfg{index}", index) if d["kind"] == spec.kind]
    referrer_out = json.dumps(out)
    versions = [name for name, c in configs.items()
                if (c["metadata"].get("labels") or {}).get("postrender.io/base-name") == f"cfg{index}"]
    if _immutable(spec):
        # A Job's or bare Pod's template can never change: the reference
        # stays, and the name it holds stays in the output.
        assert out == referrer and f"cfg{index}" in configs
        return
    if spec.keeps_name:
        # A name used as itself beyond the field (an operator makes a path
        # of it), or a field the API server never lets change: the reference
        # and the name stay, and the referrer rolls on a config hash instead.
        assert f"cfg{index}" in configs
        # The hash goes where the object's pods take their metadata from (a
        # Prometheus's spec.podMetadata), else in its own metadata.
        group, _, version = _api_version(spec).rpartition("/")
        if any(t and spec.path[: len(t)] == t for t in TABLE.template_paths(spec.kind, group, version)):
            # In a pod template (a ClusterAnalysisTemplate's job): the hash
            # goes in the template's metadata, and nothing else changes.
            assert "postrender.io/config-hash" in json.dumps(out)
            assert _without_hashes(out) == _without_hashes(referrer)
            return
        pod_metadata = TABLE.pod_metadata_path(spec.kind, group, version)
        at = tuple(s.key for s in pod_metadata) if pod_metadata else ("metadata",)
        holder = out
        for key in at:
            holder = holder[key]
        assert "postrender.io/config-hash" in holder.pop("annotations")
        if not holder:  # the mapping was made for the hash alone
            parent = out
            for key in at[:-1]:
                parent = parent[key]
            del parent[at[-1]]
        assert _without_metadata(out) == _without_metadata(referrer)
        return
    (new_name,) = versions
    assert len(new_name) == len(f"cfg{index}-") + 10
    assert f'"{new_name}"' in referrer_out or f"apps/{new_name}" in referrer_out
    if spec.grants and spec.kind in TABLE.cluster_scoped:
        # A cluster-wide grant still covers the name in every other namespace: it is kept.
        assert out["rules"][0]["resourceNames"] == [new_name, f"cfg{index}"]
    else:
        assert f'"cfg{index}"' not in referrer_out and f"apps/cfg{index}\"" not in referrer_out


EACH_NAMESPACE = [s for s in SPECS if s.keeps_name_without_namespace]


def test_some_builtin_specs_hold_a_name_stated_without_a_namespace():
    assert {s.kind for s in EACH_NAMESPACE} >= {"ClusterSecretStore"}
    assert {s.target_kind for s in EACH_NAMESPACE} == {"ConfigMap", "Secret"}


@pytest.mark.parametrize("flags", [[], ["--keep-original=none", "--strict"]])
def test_a_name_stated_without_a_namespace_where_each_user_reads_its_own_is_held(flags):
    # refs62: a ClusterSecretStore's auth ref without a namespace is read in
    # the namespace of each ExternalSecret using the store (referent
    # authentication); it was rewritten to the one version in the stream,
    # naming nothing in every other namespace. With a namespace it is
    # rewritten (test_each_builtin_field_spec_is_rewritten).
    docs: list[dict] = []
    for i, spec in enumerate(EACH_NAMESPACE):
        docs.append({"apiVersion": "v1", "kind": spec.target_kind,
                     "metadata": {"name": f"cfg{i}", "namespace": "team-a"}, **DATA[spec.target_kind]})
        # Read by a workload too, so that it is versioned for that one.
        ref = {"configMapRef" if spec.target_kind == "ConfigMap" else "secretRef": {"name": f"cfg{i}"}}
        docs.append({"apiVersion": "apps/v1", "kind": "Deployment",
                     "metadata": {"name": f"web{i}", "namespace": "team-a"},
                     "spec": {"template": {"spec": {"containers": [{"name": "c", "envFrom": [ref]}]}}}})
        (referrer,) = _referrer(spec, f"cfg{i}", i)
        _drop_namespace_field(referrer, spec)
        docs.append(referrer)
    result = run_postrender(flags, "\n---\n".join(json.dumps(d) for d in docs) + "\n")
    assert result.status == 0, result.stderr
    out = [json.loads(d) for d in result.stdout.split("\n---\n")]
    configs = {(d["kind"], d["metadata"]["name"]): d for d in out if d["kind"] in ("ConfigMap", "Secret")}
    referrers = {d["metadata"]["name"]: d for d in out if d["metadata"]["name"].startswith("referrer-")}
    for i, spec in enumerate(EACH_NAMESPACE):
        text = json.dumps(referrers[f"referrer-{i}"])
        assert f'"cfg{i}"' in text and f'"cfg{i}-' not in text, spec.path_text
        kept = configs[(spec.target_kind, f"cfg{i}")]
        assert "immutable" not in kept, spec.path_text
        assert any(name.startswith(f"cfg{i}-") for kind, name in configs if kind == spec.target_kind)


CLUSTER_SECRET_STORE = """apiVersion: v1
kind: Secret
metadata: {name: aws-creds, namespace: team-a}
stringData: {id: a, key: b}
---
apiVersion: external-secrets.io/v1
kind: ClusterSecretStore
metadata: {name: aws}
spec:
  provider:
    aws:
      service: SecretsManager
      region: eu-west-1
      auth:
        secretRef:
          accessKeyIDSecretRef: {name: aws-creds, key: id}
          secretAccessKeySecretRef: {name: aws-creds, key: key%s}
---
apiVersion: external-secrets.io/v1
kind: ExternalSecret
metadata: {name: db, namespace: team-a}
spec:
  secretStoreRef: {kind: ClusterSecretStore, name: aws}
  data: [{secretKey: pw, remoteRef: {key: db}}]
"""


@pytest.mark.parametrize("flags", [[], ["--strict"], ["--keep-original=none"]])
def test_a_cluster_secret_store_holds_a_referent_ref_and_rewrites_one_with_a_namespace(flags):
    result = run_postrender(["-v", *flags], CLUSTER_SECRET_STORE % ", namespace: team-a")
    assert result.status == 0, result.stderr
    auth = [d for d in YAML(typ="safe").load_all(result.stdout) if d["kind"] == "ClusterSecretStore"][0]
    refs = auth["spec"]["provider"]["aws"]["auth"]["secretRef"]
    # The one with a namespace names that Secret, which is versioned for it;
    # the one without keeps the name, which the Secret (or its copy) keeps.
    assert refs["accessKeyIDSecretRef"]["name"] == "aws-creds"
    assert refs["secretAccessKeySecretRef"]["name"].startswith("aws-creds-")
    names = {d["metadata"]["name"] for d in YAML(typ="safe").load_all(result.stdout) if d["kind"] == "Secret"}
    assert names == {"aws-creds", refs["secretAccessKeySecretRef"]["name"]}
    assert "in the namespace of each ExternalSecret that uses the store" in result.stderr


USED_IN_EACH_NAMESPACE = """apiVersion: v1
kind: Secret
metadata: {name: dd-api, namespace: shop}
stringData: {key: k}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: smoke, namespace: shop}
data: {url: "http://x"}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  template:
    spec:
      containers: [{name: c, envFrom: [{configMapRef: {name: smoke}}, {secretRef: {name: dd-api}}]}]
---
apiVersion: argoproj.io/v1alpha1
kind: ClusterAnalysisTemplate
metadata: {name: error-rate}
spec:
  args:
  - name: api-key
    valueFrom:
      secretKeyRef: {name: dd-api, key: key}
  metrics:
  - name: smoke
    provider:
      job:
        spec:
          template:
            spec:
              restartPolicy: Never
              containers:
              - name: t
                image: curl
                envFrom: [{configMapRef: {name: smoke}}]
---
apiVersion: external-secrets.io/v1
kind: ClusterExternalSecret
metadata: {name: db}
spec:
  namespaceSelectors: [{matchLabels: {team: "true"}}]
  externalSecretSpec:
    secretStoreRef: {kind: ClusterSecretStore, name: vault}
    target:
      name: db
      template:
        templateFrom: [{configMap: {name: smoke, items: [{key: url}]}}, {secret: {name: dd-api, items: [{key: key}]}}]
    data: [{secretKey: pw, remoteRef: {key: db}}]
"""


@pytest.mark.parametrize("flags", [[], ["--keep-original=none", "--strict"]])
def test_a_cluster_scoped_template_used_in_each_users_namespace_holds_its_names(flags):
    # refs62: a ClusterAnalysisTemplate's args and job pod spec are read in
    # each AnalysisRun's namespace (the Rollout's), a ClusterExternalSecret's
    # templateFrom in each selected namespace: rewritten to the one
    # namespace's versions, they named nothing elsewhere and Rollouts aborted.
    result = run_postrender(flags, USED_IN_EACH_NAMESPACE)
    assert result.status == 0, result.stderr
    out = [d for d in YAML(typ="safe").load_all(result.stdout) if d]
    template = next(d for d in out if d["kind"] == "ClusterAnalysisTemplate")["spec"]
    assert template["args"][0]["valueFrom"]["secretKeyRef"]["name"] == "dd-api"
    container = template["metrics"][0]["provider"]["job"]["spec"]["template"]["spec"]["containers"][0]
    assert container["envFrom"] == [{"configMapRef": {"name": "smoke"}}]
    cluster_es = next(d for d in out if d["kind"] == "ClusterExternalSecret")["spec"]["externalSecretSpec"]
    template_from = cluster_es["target"]["template"]["templateFrom"]
    assert [list(t.values())[0]["name"] for t in template_from] == ["smoke", "dd-api"]
    names = {(d["kind"], d["metadata"]["name"]) for d in out if d["kind"] in ("ConfigMap", "Secret")}
    assert {("ConfigMap", "smoke"), ("Secret", "dd-api")} <= names and len(names) == 4, names
    for d in out:
        if (d["kind"], d["metadata"]["name"]) in {("ConfigMap", "smoke"), ("Secret", "dd-api")}:
            assert "immutable" not in d


def _drop_namespace_field(referrer: dict, spec: fieldspecs.FieldSpec) -> None:
    parent = referrer
    for segment in spec.path[:-1]:
        parent = parent["anyKey" if segment.key == fieldspecs.WILDCARD else segment.key]
        parent = parent[0] if isinstance(parent, list) else parent
    del parent[spec.namespace_field]


def _without_hashes(node):
    """A document without postrender.io/config-hash, and without the
    mappings left empty (made for the hash alone)."""
    if isinstance(node, list):
        return [_without_hashes(item) for item in node]
    if not isinstance(node, dict):
        return node
    kept = {key: _without_hashes(value) for key, value in node.items() if key != "postrender.io/config-hash"}
    return {key: value for key, value in kept.items() if value != {}}


def _without_metadata(obj: dict) -> dict:
    return {key: value for key, value in obj.items() if key != "metadata"}


# --- kindFrom: an admission policy binding's paramRef ------------------------

POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: replica-limit}
spec:
  paramKind: {apiVersion: %s, kind: %s}
  validations: [{expression: "object.spec.replicas <= int(params.data.max)"}]
"""
BINDING = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: replica-limit-prod}
spec:
  policyName: replica-limit
  validationActions: [Deny]
  paramRef: {name: limits, %sparameterNotFoundAction: Deny}
"""
LIMITS = """\
apiVersion: v1
kind: %s
metadata: {name: limits, namespace: prod}
data: {max: %s}
"""


def _held_by_binding(*docs: str) -> set[str]:
    """The configs a binding's paramRef holds: each keeps its name
    (keepsName: the API server reads the parameter at each request, by
    name), while --version-all renames every other config."""
    result = run_postrender(["--version-all", "-v"], "---\n".join(docs))
    assert result.status == 0, result.stderr
    (binding,) = [d for d in YAML(typ="safe").load_all(result.stdout)
                  if d and d["kind"] == "ValidatingAdmissionPolicyBinding"]
    assert binding["spec"]["paramRef"]["name"] == "limits"
    held = set(re.findall(r"^postrender: (\w+)/prod/limits keeps its name: only referenced where it is left as written "
                          r"\(ValidatingAdmissionPolicyBinding/replica-limit-prod spec\.paramRef\.name: the API server reads admission",
                          result.stderr, re.M))
    renamed = set(re.findall(r"^postrender: renamed (\w+)/prod/limits -> limits-", result.stderr, re.M))
    assert held.isdisjoint(renamed) and held | renamed == {kind for kind in ("ConfigMap", "Secret")
                                                           if f"kind: {kind}\nmetadata: {{name: limits" in "".join(docs)}
    return held


@pytest.mark.parametrize("kind,data", [("ConfigMap", '"3"'), ("Secret", "Mw==")])
def test_a_binding_names_the_kind_its_policy_says(kind, data):
    other, other_data = ("Secret", "Mw==") if kind == "ConfigMap" else ("ConfigMap", '"3"')
    docs = [POLICY % ("v1", kind), BINDING % "namespace: prod, ", LIMITS % (kind, data), LIMITS % (other, other_data)]
    assert _held_by_binding(*docs) == {kind}
    # Without its namespace it names the object in each request's namespace: held too.
    assert _held_by_binding(POLICY % ("v1", kind), BINDING % "", LIMITS % (kind, data)) == {kind}


@pytest.mark.parametrize("policy", [
    POLICY % ("example.com/v1", "ReplicaLimit"),  # a custom parameter kind
    POLICY % ("v2", "ConfigMap"),
])
def test_a_binding_whose_policy_says_otherwise_names_no_config_object(policy):
    docs = [d for d in (policy, BINDING % "namespace: prod, ", LIMITS % ("ConfigMap", '"3"')) if d]
    assert _held_by_binding(*docs) == set()


def test_a_binding_whose_policy_is_not_in_the_stream_holds_a_config_of_the_name():
    # The kind is unknown; the name is kept (keepsName) whatever it is, so a
    # config it may name keeps it too (refs61: a platform chart's policy).
    docs = [BINDING % "namespace: prod, ", LIMITS % ("ConfigMap", '"3"')]
    assert _held_by_binding(*docs) == {"ConfigMap"}


def test_a_kind_from_spec_that_rewrites_counts_nothing_of_a_kind_unknown(tmp_path):
    # Without keepsName a match would be rewritten: wrong if the name is of
    # another kind, so a policy not in the stream makes it no reference.
    config = tmp_path / "c.yaml"
    config.write_text("nameReference:\n- kind: ConfigMap\n  fieldSpecs:\n"
                      "  - {kind: B, path: spec/p, kindFrom: {kind: P, name: spec/policy, path: spec/paramKind}}\n")
    stream = ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: b}\n---\n"
              "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: w}\nspec:\n  template:\n    spec:\n"
              "      containers: [{name: c, envFrom: [{configMapRef: {name: c}}]}]\n---\n"
              "apiVersion: x/v1\nkind: B\nmetadata: {name: b}\nspec: {policy: absent, p: c}\n")
    result = run_postrender(["--config", str(config), "--keep-original=none"], stream)
    assert result.status == 0, result.stderr
    assert "spec: {policy: absent, p: c}" in result.stdout
    assert "configMapRef: {name: c-" in result.stdout


@pytest.mark.parametrize("bad", [
    "kindFrom: {kind: P, name: spec/policyName}",
    "kindFrom: {kind: P, name: spec/policyName, path: spec/paramKind, extra: 1}",
    "kindFrom: [P]",
])
def test_kind_from_must_be_complete(tmp_path, bad):
    config = tmp_path / "c.yaml"
    config.write_text(f"nameReference:\n- kind: ConfigMap\n  fieldSpecs:\n  - {{kind: B, path: spec/p, {bad}}}\n")
    result = run_postrender(["--config", str(config)], "")
    assert result.status == 2 and "fieldSpecs[0].kindFrom: needs kind, name and path" in result.stderr


# --- `*`: any key ---------------------------------------------------------

def test_a_wildcard_steps_into_every_key_and_only_one_level(tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text("nameReference:\n- kind: Secret\n  fieldSpecs:\n  - {kind: Store, path: spec/*/token/name}\n")
    store = {"apiVersion": "example.com/v1", "kind": "Store", "metadata": {"name": "s", "namespace": "apps"},
             "spec": {"github": {"token": {"name": "tok"}}, "gitlab": [{"token": {"name": "tok"}}],
                      "deep": {"more": {"token": {"name": "tok"}}}, "token": {"name": "tok"}}}
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "tok", "namespace": "apps"}, "data": {"k": "dg=="}}
    result = run_postrender(["--config", str(config), "--keep-original=none"],
                            json.dumps(secret) + "\n---\n" + json.dumps(store) + "\n")
    assert result.status == 0, result.stderr
    out = json.loads(result.stdout.split("\n---\n")[1])["spec"]
    assert out["github"]["token"]["name"].startswith("tok-") and out["gitlab"][0]["token"]["name"].startswith("tok-")
    assert out["deep"]["more"]["token"]["name"] == "tok" and out["token"]["name"] == "tok"


def test_a_wildcard_takes_no_filter(tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text("nameReference:\n- kind: Secret\n  fieldSpecs:\n  - {kind: Store, path: 'spec/*[type=x]/name'}\n")
    result = run_postrender(["--config", str(config)], "")
    assert result.status == 2 and "takes no filter" in result.stderr


# --- keepsName: a name also used as itself beyond its field -------------------

PROMETHEUS = """apiVersion: monitoring.coreos.com/v1
kind: {kind}
metadata: {{name: main, namespace: mon}}
spec:
  secrets: [certs]
  configMaps: [file-sd]
---
apiVersion: v1
kind: Secret
metadata: {{name: certs, namespace: mon}}
stringData: {{ca.crt: CA}}
---
apiVersion: v1
kind: ConfigMap
metadata: {{name: file-sd, namespace: mon}}
data: {{targets.json: "[]"}}
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {{name: etcd, namespace: mon}}
spec:
  endpoints: [{{port: m, tlsConfig: {{caFile: /etc/prometheus/secrets/certs/ca.crt}}}}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {{name: web, namespace: mon}}
spec:
  template:
    spec:
      containers:
      - {{name: c, image: x, envFrom: [{{configMapRef: {{name: file-sd}}}}, {{secretRef: {{name: certs}}}}]}}
"""


@pytest.mark.parametrize("kind", ["Prometheus", "PrometheusAgent", "Alertmanager"])
@pytest.mark.parametrize("flags", [[], ["--keep-original=none"], ["--version-all"]])
def test_an_operator_mounting_objects_at_paths_of_their_names_keeps_the_names(kind, flags):
    # The Prometheus Operator mounts spec.secrets and spec.configMaps at
    # /etc/prometheus/secrets/<name> (an Alertmanager's at /etc/alertmanager/...),
    # and a ServiceMonitor's caFile names that path: the operator's list is
    # left as written, and each object keeps the name, itself or in an
    # unsuffixed copy when a workload's reference is versioned.
    result = run_postrender(["-v", *flags], PROMETHEUS.format(kind=kind))
    assert result.status == 0, result.stderr
    out = [d for d in YAML(typ="safe").load_all(result.stdout) if d]
    operator = next(d for d in out if d["kind"] == kind)
    assert operator["spec"]["secrets"] == ["certs"] and operator["spec"]["configMaps"] == ["file-sd"]
    names = {(d["kind"], d["metadata"]["name"]) for d in out}
    assert {("Secret", "certs"), ("ConfigMap", "file-sd")} <= names
    # The workload reads new versions; the unsuffixed names stay for the mount.
    web = next(d for d in out if d["kind"] == "Deployment")
    env_from = web["spec"]["template"]["spec"]["containers"][0]["envFrom"]
    assert env_from[0]["configMapRef"]["name"].startswith("file-sd-") and env_from[1]["secretRef"]["name"].startswith("certs-")
    assert f"{kind}/mon/main spec.configMaps[0]: the operator mounts it at /etc/" in result.stderr


KYVERNO = """apiVersion: v1
kind: {target}
metadata: {{name: regcred, namespace: default}}
data: {{k: dg==}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {{name: d, namespace: default}}
spec:
  template:
    spec:
      containers: [{{name: c, image: i, envFrom: [{{{ref}: {{name: regcred}}}}]}}]
---
apiVersion: kyverno.io/v1
kind: {policy}
metadata: {{name: sync, namespace: default}}
spec:
  rules:
  - name: sync
    match: {{any: [{{resources: {{kinds: [Namespace]}}}}]}}
    generate:
{generate}
"""
GENERATE = """      {api}kind: {target}
      name: regcred
      namespace: "{{{{request.object.metadata.name}}}}"
      synchronize: true
      clone: {{namespace: default, name: regcred}}"""
FOREACH = """      foreach:
      - list: request.object.metadata.labels
        {api}kind: {target}
        name: regcred
        namespace: "{{{{request.object.metadata.name}}}}"
        clone: {{namespace: default, name: regcred}}"""


@pytest.mark.parametrize("target", ["Secret", "ConfigMap"])
@pytest.mark.parametrize("policy", ["ClusterPolicy", "Policy"])
@pytest.mark.parametrize("shape", [GENERATE, FOREACH], ids=["generate", "foreach"])
@pytest.mark.parametrize("api", ["apiVersion: v1\n", ""], ids=["v1", "no-apiVersion"])
@pytest.mark.parametrize("flags", [[], ["--keep-original=none"]])
def test_a_kyverno_clone_keeps_naming_the_mutable_object(target, policy, shape, api, flags):
    # refs62: the clone was rewritten to the immutable version. Kyverno copies
    # the whole source (immutable: true and postrender's labels too) into
    # every namespace, and with synchronize: true updates the copies in
    # place: the API server refused the next version's data. A rule without
    # apiVersion (Kyverno <1.10) was neither rewritten nor held, and under
    # --keep-original=none named nothing.
    indent = " " * (8 if shape is FOREACH else 6)
    generate = shape.format(api=api.replace("\n", "\n" + indent) if api else "", target=target)
    ref = "secretRef" if target == "Secret" else "configMapRef"
    result = run_postrender(flags, KYVERNO.format(target=target, ref=ref, policy=policy, generate=generate))
    assert result.status == 0, result.stderr
    out = [d for d in YAML(typ="safe").load_all(result.stdout) if d]
    rule = next(d for d in out if d["kind"] == policy)["spec"]["rules"][0]["generate"]
    clone = (rule["foreach"][0] if shape is FOREACH else rule)["clone"]
    assert clone == {"namespace": "default", "name": "regcred"}
    (source,) = [d for d in out if d["kind"] == target and d["metadata"]["name"] == "regcred"]
    assert "immutable" not in source and "postrender.io/versioned" not in (source["metadata"].get("labels") or {})
    # The workload still reads a version of its own.
    web = next(d for d in out if d["kind"] == "Deployment")
    assert web["spec"]["template"]["spec"]["containers"][0]["envFrom"][0][ref]["name"].startswith("regcred-")


CLONE_LIST = """apiVersion: v1
kind: Secret
metadata: {{name: regcred, namespace: default, labels: {{clone: "yes"}}{opt}}}
data: {{k: dg==}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {{name: d, namespace: default}}
spec:
  template:
    spec:
      containers: [{{name: c, image: i, envFrom: [{{secretRef: {{name: regcred}}}}]}}]
---
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {{name: sync}}
spec:
  rules:
  - name: sync
    match: {{any: [{{resources: {{kinds: [Namespace]}}}}]}}
    generate:
      namespace: "{{{{request.object.metadata.name}}}}"
      synchronize: true
      cloneList: {{namespace: default, kinds: [v1/Secret], selector: {{matchLabels: {{clone: "yes"}}}}}}
"""


def test_a_kyverno_clone_list_source_opted_out_keeps_its_name_and_rolls_by_hash():
    # refs62: a cloneList selects its sources by label, which no rewrite
    # follows: a versioned source would be cloned as every version and its
    # copy. README: opt it out; it then keeps its name, which is what the
    # cloneList clones, and the workload beside it rolls by hash.
    opted_out = ', annotations: {postrender.io/versioned: "false"}'
    result = run_postrender(["--keep-original=none"], CLONE_LIST.format(opt=opted_out))
    assert result.status == 0, result.stderr
    out = [d for d in YAML(typ="safe").load_all(result.stdout) if d]
    assert [d["metadata"]["name"] for d in out if d["kind"] == "Secret"] == ["regcred"]
    web = next(d for d in out if d["kind"] == "Deployment")
    assert web["spec"]["template"]["spec"]["containers"][0]["envFrom"][0]["secretRef"]["name"] == "regcred"
    assert "postrender.io/config-hash" in web["spec"]["template"]["metadata"]["annotations"]


def test_keeps_name_says_why_as_text(tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text("nameReference:\n- kind: Secret\n  fieldSpecs:\n  - {kind: B, path: spec/s, keepsName: true}\n")
    result = run_postrender(["--config", str(config)], "")
    assert result.status == 2 and "fieldSpecs[0].keepsName: says why, as text, not true" in result.stderr


@pytest.mark.parametrize("written,refers", [
    ("apiGroup: null", True), ("apiGroup: ~", True), ("apiGroup:", True), ("apiGroup: ''", True),
    # a quoted 'null' is a group of that name, no ConfigMap's
    ("apiGroup: 'null'", False), ("apiGroup: example.com", False),
])
def test_a_filtered_field_written_null_reads_as_absent(written, refers):
    # IngressClass parameters: an unset apiGroup is the core group, and a
    # null one is unset to the API server (a nil pointer). Read as the text
    # `null`, the reference was missed and kept the old name.
    stream = ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: params, namespace: ing}\ndata: {a: b}\n---\n"
              "apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata: {name: ic}\nspec:\n  parameters:\n"
              f"    kind: ConfigMap\n    {written}\n    name: params\n    namespace: ing\n    scope: Namespace\n")
    result = run_postrender([], stream)
    assert result.status == 0, result.stderr
    docs = list(YAML(typ="safe").load_all(result.stdout))
    [ingress_class] = [d for d in docs if d["kind"] == "IngressClass"]
    named = ingress_class["spec"]["parameters"]["name"]
    assert named.startswith("params-") if refers else named == "params", result.stdout
