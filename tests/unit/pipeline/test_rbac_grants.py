"""An RBAC rule that grants a ConfigMap or Secret by name (`resourceNames`)
names it for a program that reads it through the API by that name: the
object keeps its name, whatever shape the rule's `resources` take, and the
grant never names an object the output no longer holds.

The class: `resources` naming the object's resource alone, together with the
other kind's (a name in the rule is then either kind's), or `*` (every
resource of the core group), in a Role and a ClusterRole.
"""

from __future__ import annotations

import pytest
from ruamel.yaml import YAML

from conftest import run_postrender

CONFIGS = """\
apiVersion: v1
kind: Secret
metadata: {name: db-creds, namespace: app}
type: Opaque
stringData: {password: s3cret}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: app}
data: {mode: fast}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: app}
spec:
  template:
    spec:
      containers:
        - name: web
          image: example/web:1
          envFrom: [{secretRef: {name: db-creds}}, {configMapRef: {name: settings}}]
"""

RULE = """\
---
apiVersion: rbac.authorization.k8s.io/v1
kind: {kind}
metadata: {{name: reader{namespace}}}
rules:
  - apiGroups: [""]
    resources: {resources}
    resourceNames: {names}
    verbs: [get]
"""

SHAPES = {
    "configmaps": ("[configmaps]", {"settings"}),
    "secrets": ("[secrets]", {"db-creds"}),
    "both": ("[configmaps, secrets]", {"settings", "db-creds"}),
    "wildcard": ('["*"]', {"settings", "db-creds"}),
}


@pytest.mark.parametrize("kind", ["Role", "ClusterRole"])
@pytest.mark.parametrize("shape", SHAPES)
def test_a_granted_config_keeps_its_name_and_the_grant_names_what_exists(kind, shape):
    resources, granted = SHAPES[shape]
    rule = RULE.format(kind=kind, namespace=", namespace: app" if kind == "Role" else "", resources=resources,
                       names="[" + ", ".join(sorted(granted)) + "]")
    result = run_postrender(["--keep-original=none"], CONFIGS + rule)
    assert result.status == 0, result.stderr
    # A rule for both resources names objects of either kind: no miss for the other.
    assert "is not in the stream" not in result.stderr, result.stderr
    docs = list(YAML(typ="safe").load_all(result.stdout))
    names = {d["metadata"]["name"] for d in docs if d["kind"] in ("ConfigMap", "Secret")}
    assert granted <= names, names
    (role,) = [d for d in docs if d["kind"] == kind]
    assert set(role["rules"][0]["resourceNames"]) == granted


def test_a_field_two_kinds_specs_reach_is_read_by_the_first_unless_both_grant(tmp_path):
    # A user's Secret spec on a field the built-in table reads as a
    # ConfigMap's, with a ConfigMap and a Secret of that name: one reference,
    # the table's. Two (one per kind) made two edits of one scalar, and the
    # render an internal error (outside tester).
    config = tmp_path / "specs.yaml"
    config.write_text("nameReference:\n- kind: Secret\n  fieldSpecs:\n"
                      "  - {kind: Deployment, path: spec/template/spec/containers/envFrom/configMapRef/name}\n")
    stream = ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {a: b}\n---\n"
              "apiVersion: v1\nkind: Secret\nmetadata: {name: settings}\ndata: {a: Yg==}\n---\n"
              "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    spec:\n"
              "      containers: [{name: c, envFrom: [{configMapRef: {name: settings}}]}]\n")
    for command in ([], ["graph"]):
        result = run_postrender([*command, "--config", str(config)], stream)
        assert result.status == 0 and "internal error" not in result.stderr, result.stderr
    docs = list(YAML(typ="safe").load_all(run_postrender(["--config", str(config)], stream).stdout))
    (configmap,) = [d for d in docs if d["kind"] == "ConfigMap" and "postrender.io/copy-of" not in
                    (d["metadata"].get("annotations") or {})]
    deployment = next(d for d in docs if d["kind"] == "Deployment")
    named = deployment["spec"]["template"]["spec"]["containers"][0]["envFrom"][0]["configMapRef"]["name"]
    assert named == configmap["metadata"]["name"] != "settings"
