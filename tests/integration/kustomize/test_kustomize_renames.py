"""postrender as a kustomize transformer after namePrefix/nameSuffix/namespace,
built by the real `kubectl kustomize --enable-alpha-plugins`.

kustomize hands a transformer objects already renamed, the earlier names in
`internal.config.kubernetes.io/previousNames`, while references still name
them as written; it rewrites references only after every transformer ran.
The oracle is the final build: the same build without postrender names each
object (`<name>`), with postrender each plain ConfigMap and Secret is
`<name>-<hash>` and every reference names exactly that, as kubectl reads it.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from conftest import require_tool
from kube_reader import read_streams
from manifests import all_references, documents, tool_env, venv_bin, versioned

APP = """\
apiVersion: v1
kind: ConfigMap
metadata: {{name: {p}config}}
data: {{k: {value}}}
---
apiVersion: v1
kind: Secret
metadata: {{name: {p}secret}}
stringData: {{p: {value}}}
---
apiVersion: v1
kind: ConfigMap
metadata: {{name: {p}files}}
data: {{f: {value}}}
---
apiVersion: v1
kind: Secret
metadata: {{name: {p}certs}}
stringData: {{c: {value}}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {{name: {p}web}}
spec:
  selector: {{matchLabels: {{app: {p}web}}}}
  template:
    metadata: {{labels: {{app: {p}web}}}}
    spec:
      containers:
        - name: c
          image: nginx
          envFrom:
            - configMapRef: {{name: {p}config}}
            - secretRef: {{name: {p}secret}}
          env:
            - name: K
              valueFrom: {{configMapKeyRef: {{name: {p}config, key: k}}}}
            - name: P
              valueFrom: {{secretKeyRef: {{name: {p}secret, key: p}}}}
            - name: G
              valueFrom: {{configMapKeyRef: {{name: {p}generated, key: a}}}}
      volumes:
        - name: files
          configMap: {{name: {p}files}}
        - name: certs
          secret: {{secretName: {p}certs}}
        - name: both
          projected:
            sources:
              - configMap: {{name: {p}files}}
              - secret: {{name: {p}certs}}
              - secret: {{name: {p}generated-secret}}
"""

GENERATORS = """\
configMapGenerator:
  - name: {p}generated
    literals: [a={value}]
secretGenerator:
  - name: {p}generated-secret
    literals: [s={value}]
"""

# Each layout: folder -> kustomization, the top folder last. Every folder
# with resources has its own app (objects prefixed `p`, empty for one app).
LAYOUTS = {
    "prefix": {"top": "namePrefix: pre-\nresources: [app.yaml]\n{generators}"},
    "suffix": {"top": "nameSuffix: -sfx\nresources: [app.yaml]\n{generators}"},
    "prefix-and-suffix": {"top": "namePrefix: pre-\nnameSuffix: -sfx\nresources: [app.yaml]\n{generators}"},
    # Never dangled (the names stay), kept here as the class's other member.
    "namespace": {"top": "namespace: team\nresources: [app.yaml]\n{generators}"},
    "prefix-and-namespace": {"top": "namePrefix: pre-\nnamespace: team\nresources: [app.yaml]\n{generators}"},
    "nested": {
        "base": "namePrefix: b-\nnameSuffix: -x\nresources: [app.yaml]\n{generators}",
        "top": "namePrefix: o-\nnamespace: team\nresources: [../base]\n",
    },
    # Two bases with objects of one name, one prefixed: each Deployment
    # keeps its own base's (kustomize picks by prefix too).
    "same-name-in-two-bases": {
        "plain": "resources: [app.yaml]\n{generators}",
        "renamed": "namePrefix: r-\nresources: [app.yaml]\n{generators}",
        "top": "namespace: team\nresources: [../plain, ../renamed]\n",
    },
}


def _plugin_home(tmp_path: Path, mode: str) -> Path:
    home = tmp_path / "plugins"
    target = home / "postrender.io" / "v1alpha1" / "postrender" / "PostRender"
    target.parent.mkdir(parents=True)
    if mode == "exec":
        target.symlink_to(Path(venv_bin()) / "postrender")
    else:
        # The KRM function mode under kustomize's own fix-up: kubectl's
        # kustomize runs no exec functions, so this transformer hands the
        # stream to `postrender --krm` as a ResourceList and back.
        target.write_text(KRM_BRIDGE.format(python=Path(venv_bin()) / "python", bin=venv_bin()))
        target.chmod(0o755)
    return home


KRM_BRIDGE = """\
#!{python}
import io, json, subprocess, sys
from ruamel.yaml import YAML
yaml = YAML(typ="safe")
items = [d for d in yaml.load_all(sys.stdin) if d is not None]
listed = json.dumps({{"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": items}})
done = subprocess.run(["{bin}/postrender", "--krm"], input=listed, capture_output=True, text=True)
sys.stderr.write(done.stderr)
if done.returncode:
    sys.exit(done.returncode)
out = io.StringIO()
YAML().dump_all(yaml.load(done.stdout)["items"], out)
sys.stdout.write(out.getvalue())
"""


def _write(tmp_path: Path, layout: str, value: str, plugin: bool) -> Path:
    root = tmp_path / ("with" if plugin else "without") / value
    for folder, text in LAYOUTS[layout].items():
        where = root / folder
        where.mkdir(parents=True)
        if "resources: [app.yaml]" in text:
            (where / "app.yaml").write_text(APP.format(p="", value=value))
        text = text.format(generators=GENERATORS.format(p="", value=value))
        if folder == "top" and plugin:
            text += "transformers: [postrender.yaml]\n"
            (where / "postrender.yaml").write_text(
                "apiVersion: postrender.io/v1alpha1\nkind: PostRender\nmetadata: {name: postrender}\n")
        (where / "kustomization.yaml").write_text(text)
    return root / "top"


def _build(folder: Path, home: Path | None) -> str:
    kubectl = require_tool("kubectl")
    extra: dict[str, str] = {}
    if home is not None:
        (home.parent / "tmp").mkdir(exist_ok=True)
        extra = {"KUSTOMIZE_PLUGIN_HOME": str(home), "XDG_CACHE_HOME": str(home.parent / "cache"),
                 "TMPDIR": str(home.parent / "tmp")}
    command = [kubectl, "kustomize", str(folder)] + (["--enable-alpha-plugins"] if home else [])
    result = subprocess.run(command, capture_output=True, text=True, env=tool_env(**extra), start_new_session=True)
    assert result.returncode == 0, result.stderr
    return result.stdout


def _copy_of(doc: dict) -> str | None:
    return (doc["metadata"].get("annotations") or {}).get("postrender.io/copy-of")


@pytest.mark.parametrize("mode", ["exec", "krm"])
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_renamed_configs_are_versioned_under_their_final_name_and_every_reference_follows(tmp_path, layout, mode):
    home = _plugin_home(tmp_path, mode)
    plain_text = _build(_write(tmp_path, layout, "one", plugin=False), None)
    built_text = _build(_write(tmp_path, layout, "one", plugin=True), home)
    plain, built = documents(plain_text), documents(built_text)
    kustomize_names = {(d["kind"], d["metadata"].get("namespace"), d["metadata"]["name"]) for d in plain
                       if d["kind"] in ("ConfigMap", "Secret")}
    generated = {key for key in kustomize_names if "generated" in key[2]}

    versions = {}
    for d in built:
        if d["kind"] not in ("ConfigMap", "Secret") or _copy_of(d):
            continue
        key = (d["kind"], d["metadata"].get("namespace"), d["metadata"]["name"])
        if key in generated:
            assert "labels" not in d["metadata"], d  # kustomize's, left to kustomize
            continue
        # Versioned, under kustomize's final name plus postrender's hash.
        assert versioned(d), d
        final = d["metadata"]["labels"]["postrender.io/base-name"]
        assert (d["kind"], d["metadata"].get("namespace"), final) in kustomize_names - generated
        versions[(d["kind"], d["metadata"].get("namespace"), final)] = d["metadata"]["name"]
    assert set(versions) == kustomize_names - generated
    # Secrets keep an unsuffixed copy (--keep-original=auto): the final name.
    assert {(d["kind"], d["metadata"].get("namespace"), d["metadata"]["name"])
            for d in built if _copy_of(d)} == {k for k in versions if k[0] == "Secret"}

    # Every reference names the version of the object it named without
    # postrender (or kustomize's generated name): none dangles, none is left
    # on a copy.
    deployments = [d for d in plain if d["kind"] == "Deployment"]
    assert deployments
    for before in deployments:
        (after,) = [d for d in built if d["kind"] == "Deployment"
                    and d["metadata"]["name"] == before["metadata"]["name"]]
        namespace = after["metadata"].get("namespace")
        wanted = [(r.kind, r.where, versions.get((r.kind, namespace, r.name), r.name))
                  for r in all_references([before])]
        assert [(r.kind, r.where, r.name) for r in all_references([after])] == wanted
        assert len(wanted) == 10
        assert {name for _, _, name in wanted} <= {k[2] for k in generated} | set(versions.values())

    # kubectl reads the output as these objects.
    (read,) = read_streams([built_text])
    assert [(d["kind"], d["metadata"]["name"]) for d in read] == [(d["kind"], d["metadata"]["name"]) for d in built]


def test_a_reference_only_kustomize_knows_follows_the_version_not_both_it_and_the_copy(tmp_path):
    """kustomize maps a name a reference still holds after the plugin to the
    one object that named it before: the versioned Secret, not its
    keep-original copy too ("found multiple possible referrals" otherwise)."""
    home = _plugin_home(tmp_path, "exec")
    top = _write(tmp_path, "prefix", "one", plugin=True)
    (top / "app.yaml").write_text((top / "app.yaml").read_text() + (
        "---\napiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {secretName: secret}\n"))
    (top / "nameref.yaml").write_text(
        "nameReference:\n  - kind: Secret\n    fieldSpecs:\n      - {kind: Widget, group: example.com, path: spec/secretName}\n")
    (top / "kustomization.yaml").write_text((top / "kustomization.yaml").read_text() + "configurations: [nameref.yaml]\n")
    built = documents(_build(top, home))
    (widget,) = [d for d in built if d["kind"] == "Widget"]
    (version,) = [d for d in built if d["kind"] == "Secret" and d["metadata"]["name"].startswith("pre-secret-")]
    assert versioned(version)
    assert widget["spec"]["secretName"] == version["metadata"]["name"]
    # The copy keeps the final unsuffixed name.
    assert "pre-secret" in [d["metadata"]["name"] for d in built if _copy_of(d)]
