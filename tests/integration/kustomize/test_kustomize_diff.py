"""`postrender diff` of two `kubectl kustomize` builds (a CI job comparing the
base and the head of a pull request): a generator's output is named
`<name>-<content hash>` by kustomize and keeps that name through the render,
so a changed one has a different name on each side. The real kustomize is
the oracle for the names; the report must pair them as one changed object
under its name without the hash, and the workloads using it roll because of
it, as for postrender's own versions.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from conftest import require_tool, run_postrender
from manifests import documents, tool_env

KUSTOMIZATION = """\
namePrefix: pre-
namespace: team
resources: [deployment.yaml]
configMapGenerator:
  - name: app-config
    literals: [greeting={greeting}, color=blue]
  - name: stable
    literals: [a=b]
secretGenerator:
  - name: app-secret
    literals: [password={password}]
  - name: tls
    type: kubernetes.io/tls
    literals: [tls.crt=c, tls.key=k]
  # A patch adds stringData, which kustomize hashes as written (not as data).
  - name: patched
    literals: [a=b]
patches:
  - patch: |
      apiVersion: v1
      kind: Secret
      metadata: {{name: patched}}
      stringData: {{extra: {extra}}}
"""

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: web
          image: nginx
          envFrom: [{configMapRef: {name: app-config}}, {configMapRef: {name: stable}}]
          env:
            - {name: P, valueFrom: {secretKeyRef: {name: app-secret, key: password}}}
            - {name: X, valueFrom: {secretKeyRef: {name: patched, key: extra}}}
      volumes:
        - {name: tls, secret: {secretName: tls}}
"""


def _build(tmp_path: Path, side: str, **values: str) -> tuple[Path, dict[str, str]]:
    kubectl = require_tool("kubectl")
    folder = tmp_path / side
    folder.mkdir()
    (folder / "kustomization.yaml").write_text(KUSTOMIZATION.format(**values))
    (folder / "deployment.yaml").write_text(DEPLOYMENT)
    built = subprocess.run([kubectl, "kustomize", str(folder)], capture_output=True, text=True, env=tool_env())
    assert built.returncode == 0, built.stderr
    output = tmp_path / f"{side}.yaml"
    output.write_text(built.stdout)
    return output, _config_names(built.stdout)


def _config_names(built: str) -> dict[str, str]:
    """Each ConfigMap's and Secret's name in a build, by its name without kustomize's suffix."""
    return {d["metadata"]["name"].rsplit("-", 1)[0]: d["metadata"]["name"]
            for d in documents(built) if d["kind"] in ("ConfigMap", "Secret")}


def test_a_changed_generator_output_is_one_change_that_rolls_its_workload(tmp_path: Path):
    old, old_names = _build(tmp_path, "old", greeting="hello", password="one", extra="x")
    new, new_names = _build(tmp_path, "new", greeting="goodbye", password="two", extra="y")
    changed = {"pre-app-config", "pre-app-secret", "pre-patched"}
    # The oracle: kustomize renamed exactly the changed objects.
    assert {base for base in old_names if old_names[base] != new_names[base]} == changed

    result = run_postrender(["diff", "-o", "json", str(old), str(new)])
    assert result.status == 0, result.stderr
    report = json.loads(result.stdout)
    changes = {c["name"]: c for c in report["configChanges"]}
    assert set(changes) == changed
    for base, change in changes.items():
        assert change["status"] == "changed" and change["namespace"] == "team"
        assert (change["oldName"], change["newName"]) == (old_names[base], new_names[base])
    assert changes["pre-app-config"]["keys"] == {"changed": ["greeting"], "added": [], "removed": []}
    assert changes["pre-app-secret"]["keys"] == {"changed": ["password"], "added": [], "removed": []}
    assert changes["pre-patched"]["keys"] == {"changed": ["extra"], "added": [], "removed": []}

    (roll,) = report["rolls"]
    assert (roll["kind"], roll["namespace"], roll["name"]) == ("Deployment", "team", "pre-web")
    assert roll["podTemplateChangedDirectly"] is False and roll["changedFields"] == []
    because = {(b["kind"], b["name"]): b for b in roll["because"]}
    assert set(because) == {("ConfigMap", "pre-app-config"), ("Secret", "pre-app-secret"), ("Secret", "pre-patched")}
    for (_, base), cause in because.items():
        assert (cause["change"], cause["via"]) == ("changed", "name")
        assert (cause["oldName"], cause["newName"]) == (old_names[base], new_names[base])
    assert report["doesNotRoll"] == []
    # kustomize's names are not postrender's versions: `postrender gc` collects none of them.
    assert report["versions"] == {"created": [], "noLongerReferenced": []}

    # The same two builds in the other order: the same pairs, the other way round.
    back = json.loads(run_postrender(["diff", "-o", "json", str(new), str(old)]).stdout)
    assert {(c["name"], c["oldName"], c["newName"]) for c in back["configChanges"]} == {
        (base, new_names[base], old_names[base]) for base in changed
    }



# What an exec transformer (postrender as a kustomize plugin, or a KRM
# function) receives: generator output unsuffixed, annotated needsHashSuffix,
# which kustomize suffixes after every transformer, rewriting references then.
# A plugin that only keeps a copy of its input shows the stream as handed over.
CAPTURE = """\
#!/bin/sh
# Keeps the stream kustomize hands a transformer in the file its config names; hands it back unchanged.
tee "$(sed -n 's/^into: //p' "$1")"
"""

# The same build, with a transformer that keeps the stream kustomize hands
# it, and no namePrefix (a namespace alone changes no name).
HANDED = KUSTOMIZATION.replace("namePrefix: pre-\n", "") + "transformers: [capture.yaml]\n"


def _handed(tmp_path: Path, side: str, **values: str) -> tuple[Path, dict[str, str]]:
    """The stream kustomize hands a transformer, and the names its build ends with."""
    kubectl = require_tool("kubectl")
    home = tmp_path / "plugins"
    plugin = home / "test.postrender.io" / "v1" / "capture" / "Capture"
    if not plugin.exists():
        plugin.parent.mkdir(parents=True)
        plugin.write_text(CAPTURE)
        plugin.chmod(0o755)
    folder = tmp_path / side
    folder.mkdir()
    handed = tmp_path / f"{side}-handed.yaml"
    (folder / "kustomization.yaml").write_text(HANDED.format(**values))
    (folder / "deployment.yaml").write_text(DEPLOYMENT)
    (folder / "capture.yaml").write_text(
        f"apiVersion: test.postrender.io/v1\nkind: Capture\nmetadata: {{name: capture}}\ninto: {handed}\n")
    built = subprocess.run([kubectl, "kustomize", "--enable-alpha-plugins", str(folder)], capture_output=True,
                           text=True, env=tool_env(KUSTOMIZE_PLUGIN_HOME=str(home)))
    assert built.returncode == 0, built.stderr
    return handed, _config_names(built.stdout)


def test_a_changed_generator_output_handed_to_a_plugin_rolls_its_workload_through_kustomizes_suffix(tmp_path: Path):
    old, old_names = _handed(tmp_path, "old", greeting="hello", password="one", extra="x")
    new, new_names = _handed(tmp_path, "new", greeting="goodbye", password="two", extra="y")
    changed = {"app-config", "app-secret", "patched"}
    # The oracle: the streams hold the unsuffixed names, kustomize's builds
    # renamed exactly the changed objects.
    assert "name: app-config\n" in old.read_text() and "needsHashSuffix: enabled" in old.read_text()
    assert {base for base in old_names if old_names[base] != new_names[base]} == changed

    result = run_postrender(["diff", "-o", "json", str(old), str(new)])
    assert result.status == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["doesNotRoll"] == []
    changes = {c["name"]: c for c in report["configChanges"]}
    assert set(changes) == changed
    for base, change in changes.items():
        # The names kustomize gives them after the plugin, the patched
        # Secret's (stringData, hashed as written) included.
        assert (change["oldName"], change["newName"]) == (old_names[base], new_names[base])
    (roll,) = report["rolls"]
    assert (roll["kind"], roll["namespace"], roll["name"]) == ("Deployment", "team", "web")
    assert roll["podTemplateChangedDirectly"] is False
    assert {(b["name"], b["change"], b["via"]) for b in roll["because"]} == {
        (base, "changed", "kustomize hash suffix") for base in changed}
    assert report["versions"] == {"created": [], "noLongerReferenced": []}

    # The text formats say so too.
    for form in ("table", "markdown"):
        text = run_postrender(["diff", "-o", form, str(old), str(new)]).stdout
        assert "kustomize's hash suffix" in text and "1 workload rolls" in text, text
        assert old_names["app-config"] in text and new_names["app-config"] in text
