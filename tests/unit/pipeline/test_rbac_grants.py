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
