"""Under --strategy=annotate nothing is renamed: an option that acts only on
renamed objects (immutability, copies, opting every config in, retention)
would do nothing, without a word. It is refused as a usage error, however
it is given: a flag, a PostRender config, a KRM functionConfig."""

from __future__ import annotations

import json

import pytest
from ruamel.yaml import YAML

from conftest import run_postrender

from postrender.options import OPTIONS

STREAM = ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: apps}\ndata: {k: v}\n---\n"
          "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: apps}\nspec:\n  template:\n"
          "    spec:\n      containers: [{name: c, image: x, envFrom: [{configMapRef: {name: settings}}]}]\n")
# Each such option, with a value other than its default: as a flag, and as
# a config key (None: no config key).
SET = {
    "mutable": ("--mutable", ("mutable", True)),
    "keep_original": ("--keep-original=all", ("keepOriginal", "all")),
    "version_all": ("--version-all", ("versionAll", True)),
    "keep_previous": ("--keep-previous=argocd", ("keepPrevious", "argocd")),
    "retain": ("--retain=2", None),
}


def test_the_table_marks_exactly_these():
    assert {option.field for option in OPTIONS if option.renames_only} == set(SET)


@pytest.mark.parametrize("field", SET)
def test_a_flag_acting_only_on_renamed_objects_is_refused_under_annotate(field):
    flag, _ = SET[field]
    result = run_postrender(["--strategy=annotate", flag], STREAM)
    assert result.status == 2 and result.stdout == "", result.stderr
    assert "--strategy=annotate renames none" in result.stderr and flag.split("=")[0] in result.stderr
    assert run_postrender(["--strategy=annotate"], STREAM).status == 0


@pytest.mark.parametrize("field", [f for f in SET if SET[f][1] is not None])
def test_a_config_key_acting_only_on_renamed_objects_is_refused_under_annotate(field, tmp_path):
    key, value = SET[field][1]
    config = {"apiVersion": "postrender.io/v1alpha1", "kind": "PostRender", "metadata": {"name": "p"},
              "strategy": "annotate", key: value}
    path = tmp_path / "postrender.yaml"
    path.write_text(json.dumps(config))
    result = run_postrender(["--plugin-config", str(path)], STREAM)
    assert result.status == 2 and result.stdout == "" and f"{key} in a config" in result.stderr, result.stderr
    resource_list = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList",
                     "items": list(YAML(typ="safe").load_all(STREAM)), "functionConfig": config}
    result = run_postrender([], json.dumps(resource_list))
    assert result.status != 0, result.stdout
    (error,) = YAML(typ="safe").load(result.stdout)["results"]
    assert "--strategy=annotate renames none" in error["message"]


def test_the_scope_is_left_alone_under_annotate():
    # Under Helm it defaults to the release name: refusing it would refuse
    # every Helm render with --strategy=annotate.
    assert run_postrender(["--strategy=annotate", "--scope=web"], STREAM).status == 0


def test_annotate_warns_of_each_referenced_config_that_says_immutable_true():
    """Under --strategy=annotate a config keeps its name, so one that says
    `immutable: true` itself can never take new data: the next change fails
    to apply. Said for each one a reference reaches, as go-yaml reads the
    value; not for one nothing uses, nor `immutable: false`, nor a copy of
    the default strategy, which names each content. (`"true"`, a string, the
    API server refuses, and so does postrender: test_output_validity.)"""
    configs = "".join(
        f"---\napiVersion: v1\nkind: {kind}\nmetadata: {{name: {name}}}\nimmutable: {value}\ndata: {{k: dg==}}\n"
        for kind, name, value in [("ConfigMap", "yes-cm", "yes"), ("Secret", "true-secret", "true"),
                                  ("ConfigMap", "false-cm", "false"), ("ConfigMap", "unused-cm", "true")])
    workload = ("---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    image: x\n"
                "    envFrom: [{configMapRef: {name: yes-cm}}, {secretRef: {name: true-secret}},"
                " {configMapRef: {name: false-cm}}]\n")
    annotated = run_postrender(["--strategy=annotate"], configs + workload)
    assert annotated.status == 0, annotated.stderr
    warned = [line for line in annotated.stderr.splitlines() if "says immutable: true" in line]
    assert [line.split()[2] for line in warned] == ["ConfigMap/yes-cm", "Secret/true-secret"], annotated.stderr
    assert "yes-cm" in annotated.stdout and "yes-cm-" not in annotated.stdout  # kept its name
    # The key written with an escape, as JSON may: the same key to kubectl.
    escaped = run_postrender(["--strategy=annotate"], configs.replace(
        "kind: Secret\nmetadata: {name: true-secret}\nimmutable:", 'kind: Secret\nmetadata: {name: true-secret}\n"immut\\u0061ble":')
        + workload)
    assert escaped.stderr.count("says immutable: true") == 2, escaped.stderr
    # A Deployment's template may change: the default strategy versions them.
    deployment = ("---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  template:\n"
                  "    spec:\n      containers:\n      - name: c\n        image: x\n        envFrom: "
                  + workload.split("envFrom: ")[1])
    renamed = run_postrender(["--keep-original=none"], configs + deployment)
    assert renamed.status == 0 and "immutable: true" not in renamed.stderr, renamed.stderr
    assert "yes-cm-" in renamed.stdout


_CONTAINERS = "containers: [{name: c, image: x, envFrom: [{configMapRef: {name: cfg}}]}]"
_USERS = {
    "Deployment": f"apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: d}}\nspec:\n  template:\n"
                  f"    spec:\n      {_CONTAINERS}\n",
    # A bare Pod's template never changes: its reference is left as written.
    "Pod": f"apiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec:\n  {_CONTAINERS}\n",
}


@pytest.mark.parametrize("opt_out, user", [('postrender.io/versioned: "false"', "Deployment"), ("", "Pod")])
def test_the_default_strategy_warns_of_a_used_config_that_keeps_its_name_and_says_immutable_true(
        opt_out: str, user: str):
    """Under the default strategy too, a config that keeps its name (opted
    out, a reference left as written, ...) and says `immutable: true` can
    never take new data. Not one nothing uses, nor a kustomize name, which
    follows its content (diff61)."""
    cm = f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n  annotations: {{{opt_out}}}\n" \
         "immutable: true\ndata: {k: v}\n---\n"
    result = run_postrender([], cm + _USERS[user])
    assert result.status == 0, result.stderr
    warned = [line for line in result.stderr.splitlines() if "immutable" in line]
    assert len(warned) == 1, result.stderr
    assert warned[0].startswith("postrender: warning: ConfigMap/cfg says immutable: true and keeps its name, ")
    assert "a change to its data will fail to apply" in warned[0]
    assert "immutable" not in run_postrender([], cm.replace(opt_out, "")).stderr  # nothing uses it
    # kustomize's name for it (the one postrender gives a version): it follows its content.
    rendered = YAML(typ="safe").load_all(run_postrender([], cm.replace(opt_out, "") + _USERS["Deployment"]).stdout)
    name = next(d for d in rendered if d["kind"] == "ConfigMap")["metadata"]["name"]
    kustomized = run_postrender([], cm.replace("name: cfg", f"name: {name}") + _USERS[user].replace("cfg", name))
    assert kustomized.status == 0 and "immutable" not in kustomized.stderr, kustomized.stderr


def test_a_list_items_immutable_is_read_from_the_item_itself():
    """A List's items are one document: the List's text saying `immutable`
    for one item says nothing of the others. Each item is looked at for
    itself (searching the whole List's text for each item made reading a
    List of 100,000 ConfigMaps take over ten minutes)."""
    items = "".join(
        f"- apiVersion: v1\n  kind: ConfigMap\n  metadata: {{name: {name}}}\n{said}  data: {{k: v}}\n"
        for name, said in [("yes-cm", "  immutable: true\n"), ("plain-cm", ""),
                           ("escaped-cm", '  "immut\\u0061ble": true\n'), ("false-cm", "  immutable: false\n")])
    pod = ("- apiVersion: v1\n  kind: Pod\n  metadata: {name: p}\n  spec:\n    containers:\n    - name: c\n"
           "      image: x\n      envFrom: [{configMapRef: {name: yes-cm}}, {configMapRef: {name: plain-cm}},"
           " {configMapRef: {name: escaped-cm}}, {configMapRef: {name: false-cm}}]\n")
    annotated = run_postrender(["--strategy=annotate"], "apiVersion: v1\nkind: List\nitems:\n" + items + pod)
    assert annotated.status == 0, annotated.stderr
    warned = [line.split()[2] for line in annotated.stderr.splitlines() if "says immutable: true" in line]
    assert warned == ["ConfigMap/yes-cm", "ConfigMap/escaped-cm"], annotated.stderr


def test_a_copy_of_a_config_that_says_immutable_true_is_warned_of_and_kept_as_written():
    """A kept unsuffixed copy says what its object says. `immutable: false`
    on it would fail every upgrade over a live copy that says `true` (the
    API server refuses a change to `immutable`); as written, the next change
    to its data fails instead: said, with what to do. Not for a version
    postrender marked immutable itself (a second run), nor without a copy."""
    stream = ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\nimmutable: true\ndata: {k: v}\n---\n"
              "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  template:\n    spec:\n"
              "      containers:\n      - name: c\n        image: x\n        envFrom: [{configMapRef: {name: cm}}]\n")
    copied = run_postrender(["--keep-original=all"], stream)
    assert copied.status == 0, copied.stderr
    assert "ConfigMap/cm says immutable: true, and so does the unsuffixed copy it keeps" in copied.stderr
    copy = next(d for d in YAML(typ="safe").load_all(copied.stdout) if d["metadata"]["name"] == "cm")
    assert copy["immutable"] is True
    assert "immutable" not in run_postrender([], stream).stderr  # no copy of a ConfigMap by default
    plain = stream.replace("immutable: true\n", "")
    once = run_postrender(["--keep-original=all"], plain)
    again = run_postrender(["--keep-original=all"], once.stdout)
    assert (once.stderr, again.stderr, again.stdout) == ("", "", once.stdout)


def test_an_empty_config_that_says_immutable_is_said_to_refuse_what_fills_it():
    # review61a: the warning pasted the reason in, "no data: a placeholder a
    # controller fills in; kept mutable", beside "says immutable: true".
    stream = ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ph}\nimmutable: true\n---\n"
              "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    spec:\n"
              "      containers: [{name: c, envFrom: [{configMapRef: {name: ph}}]}]\n")
    result = run_postrender([], stream)
    assert result.status == 0, result.stderr
    assert result.stderr == ("postrender: warning: ConfigMap/ph says immutable: true and holds no data: whatever fills"
                             " it in will fail (remove `immutable`)\n")
