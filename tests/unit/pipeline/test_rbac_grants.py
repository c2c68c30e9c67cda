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


# --- a grant to write: kept even where asked to version ----------------------
#
# A program granted update or patch on a config by name writes it under that
# name (a leader-election lock, a controller's state). An immutable version
# under a new name breaks it, so the object keeps its name, mutable, even
# under --version-all or its own opt-in (which then warns: asked and not done).

WRITER = RULE.replace("verbs: [get]", "verbs: {verbs}")


def _objects(text: str) -> dict[tuple[str, str], dict]:
    return {(d["kind"], d["metadata"]["name"]): d for d in YAML(typ="safe").load_all(text) if d}


@pytest.mark.parametrize("kind", ["Role", "ClusterRole"])
@pytest.mark.parametrize("verbs", ["[get, update]", "[patch]", '["*"]'])
@pytest.mark.parametrize("asked", ["--version-all", "annotation", "label"])
def test_a_config_a_program_writes_by_name_keeps_its_name_even_when_asked(kind, verbs, asked):
    configs = CONFIGS
    if asked != "--version-all":
        where = "annotations" if asked == "annotation" else "labels"
        configs = configs.replace("{name: settings, namespace: app}",
                                  f'{{name: settings, namespace: app, {where}: {{postrender.io/versioned: "true"}}}}')
    rule = WRITER.format(kind=kind, namespace=", namespace: app" if kind == "Role" else "",
                         resources="[configmaps]", names="[settings]", verbs=verbs)
    result = run_postrender(["--version-all"] if asked == "--version-all" else [], configs + rule)
    assert result.status == 0, result.stderr
    objects = _objects(result.stdout)
    settings = objects[("ConfigMap", "settings")]
    assert "immutable" not in settings
    assert objects[(kind, "reader")]["rules"][0]["resourceNames"] == ["settings"]
    env_from = objects[("Deployment", "web")]["spec"]["template"]["spec"]["containers"][0]["envFrom"]
    assert {"configMapRef": {"name": "settings"}} in env_from
    # The Secret, not granted, is versioned as ever.
    assert any(k == "Secret" and name.startswith("db-creds-") for k, name in objects)
    opted = asked != "--version-all"
    assert ("is opted in" in result.stderr) is opted, result.stderr
    if opted:
        assert "a program writes it by that name" in result.stderr


@pytest.mark.parametrize("verbs", ["[get]", "[list, watch]"])
def test_a_config_a_program_only_reads_by_name_is_versioned_when_asked(verbs):
    # Asked for by --version-all, a read grant follows the new name: the
    # rule is rewritten with the reference (as before).
    rule = WRITER.format(kind="Role", namespace=", namespace: app", resources="[configmaps]", names="[settings]",
                         verbs=verbs)
    result = run_postrender(["--version-all"], CONFIGS + rule)
    assert result.status == 0, result.stderr
    objects = _objects(result.stdout)
    [name] = [name for kind, name in objects if kind == "ConfigMap"]
    assert name.startswith("settings-") and objects[("ConfigMap", name)]["immutable"] is True
    assert objects[("Role", "reader")]["rules"][0]["resourceNames"] == [name]
    assert "is opted in" not in result.stderr


def test_a_fixed_name_opted_in_warns_that_it_keeps_it():
    text = ('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: argocd-cm\n  namespace: argocd\n'
            '  annotations: {postrender.io/versioned: "true"}\ndata: {url: x}\n')
    result = run_postrender([], text)
    assert result.status == 0 and result.stdout == text
    assert "ConfigMap/argocd/argocd-cm is opted in" in result.stderr and "read by a fixed name" in result.stderr


# --- a rule's apiGroups ------------------------------------------------------
#
# RBAC matches a rule's resources in the rule's own apiGroups: a ConfigMap or
# Secret (the core group, "") is granted by a rule whose apiGroups hold "" or
# `*` only (a null item is "" to the API server, Go's zero value: `[~]` is
# the core group; the quoted 'null' a group of that name). A rule of other
# groups names other objects (a Deployment that shares the config's name):
# it neither pins the config nor is edited.

GROUPED = WRITER.replace('apiGroups: [""]', "apiGroups: {groups}")


@pytest.mark.parametrize("resources", ['["*"]', "[configmaps]"])
@pytest.mark.parametrize("verbs", ["[get]", "[get, patch]"])
@pytest.mark.parametrize("groups", ["[apps]", "[apps, batch]", "['null', apps]", "[]"])
def test_a_rule_of_other_groups_grants_no_config(groups, verbs, resources):
    rule = GROUPED.format(kind="Role", namespace=", namespace: app", resources=resources, names="[settings]",
                          verbs=verbs, groups=groups)
    configs = CONFIGS.replace("{name: settings, namespace: app}",
                              '{name: settings, namespace: app, annotations: {postrender.io/versioned: "true"}}')
    result = run_postrender([], configs + rule)
    assert result.status == 0, result.stderr
    objects = _objects(result.stdout)
    [name] = [name for kind, name in objects if kind == "ConfigMap"]
    assert name.startswith("settings-") and objects[("ConfigMap", name)]["immutable"] is True
    assert objects[("Role", "reader")]["rules"][0]["resourceNames"] == ["settings"]
    assert "opted in" not in result.stderr and "by name" not in result.stderr, result.stderr


@pytest.mark.parametrize("groups", ['["*"]', '["", apps]', '[apps, ""]', "[null]", "[~]", "[apps, Null]"])
def test_a_rule_of_the_core_group_among_others_grants_the_config(groups):
    rule = GROUPED.format(kind="Role", namespace=", namespace: app", resources='["*"]', names="[settings]",
                          verbs="[get, patch]", groups=groups)
    result = run_postrender(["--version-all"], CONFIGS + rule)
    assert result.status == 0, result.stderr
    objects = _objects(result.stdout)
    assert "immutable" not in objects[("ConfigMap", "settings")]
    assert objects[("Role", "reader")]["rules"][0]["resourceNames"] == ["settings"]


LOCK = """\
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: leader-election, namespace: app}
rules:
  - apiGroups: [""]
    resources: [configmaps]
    resourceNames: [controller-lock]
    verbs: [get, update]
  - apiGroups: [""]
    resources: [configmaps]
    verbs: [create]
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: app}
spec:
  containers: [{name: c, image: x}]
  volumes: [{name: v, configMap: {name: typo-settings}}]
"""


def test_a_grant_to_a_name_not_in_the_stream_is_said_with_v_only_and_a_volumes_still_warns():
    # A leader-election lock or a generated key is made by its program at
    # run time: every operator chart grants one, so a warning for it is
    # noise. A volume naming what is not there is a likely typo: warned.
    quiet = run_postrender([], CONFIGS + LOCK)
    assert quiet.status == 0, quiet.stderr
    assert "controller-lock" not in quiet.stderr
    assert "ConfigMap 'typo-settings' is not in the stream" in quiet.stderr
    told = run_postrender(["-v"], CONFIGS + LOCK)
    assert told.status == 0, told.stderr
    assert ("Role/app/leader-election rules[0].resourceNames[0]: grants ConfigMap 'controller-lock', which is not"
            " in the stream (a program may make it); left as is") in told.stderr
    assert "warning: Role/app/leader-election" not in told.stderr
    assert quiet.stdout == told.stdout


@pytest.mark.parametrize("kind", ["Role", "ClusterRole"])
@pytest.mark.parametrize("resources", ["[configmaps, secrets]", '["*"]'])
@pytest.mark.parametrize("flags", [[], ["--keep-original=secrets"], ["--keep-original=all"], ["--keep-original=none"]])
def test_a_name_both_kinds_hold_keeps_every_object_it_names_granted(kind, resources, flags):
    # A ConfigMap and a Secret both named x, both versioned, one granted
    # name for either: where an object named x is still there (a kept
    # copy), x stays beside both versions' names. The ConfigMap's edit
    # replaced x while the Secret's kept it, and the kept Secret copy lost
    # its grant (an outside tester: the program reading it got Forbidden).
    stream = ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: a, annotations:"
              " {postrender.io/versioned: 'true'}}\ndata: {k: '1'}\n---\n"
              "apiVersion: v1\nkind: Secret\nmetadata: {name: x, namespace: a, annotations:"
              " {postrender.io/versioned: 'true'}}\ndata: {k: MQ==}\n")
    stream += RULE.format(kind=kind, namespace=", namespace: a" if kind == "Role" else "", resources=resources,
                          names="[x]")
    result = run_postrender(["-v", *flags], stream)
    assert result.status == 0, result.stderr
    docs = list(YAML(typ="safe").load_all(result.stdout))
    names = {d["metadata"]["name"] for d in docs if d["kind"] in ("ConfigMap", "Secret")}
    (role,) = [d for d in docs if d["kind"] == kind]
    granted = role["rules"][0]["resourceNames"]
    # Every config is granted, and the grant names nothing else but what a
    # cluster-wide grant keeps (x in any other namespace).
    assert names <= set(granted) and len(granted) == len(set(granted)), (names, granted)
    assert set(granted) - names <= ({"x"} if kind == "ClusterRole" else set()), (names, granted)
    # -v says what the field now holds.
    said = [line for line in result.stderr.splitlines() if "rewrote" in line and "resourceNames" in line]
    assert said and all(set(line.partition(": x -> ")[2].split(", ")) == set(granted) for line in said), said
