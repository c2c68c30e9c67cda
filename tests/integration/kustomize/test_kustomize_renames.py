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


# A Secret (which keeps an unsuffixed copy: --keep-original=auto) and a
# ConfigMap, each read by a workload that rolls and held by one that must
# not: a Job's pod template, which never changes, and a workload Reloader
# was told to leave alone. A Widget names the Secret in a field only
# kustomize's `configurations:` know.
HELD_APP = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: cfg}
data: {a: "1"}
---
apiVersion: v1
kind: Secret
metadata: {name: secret}
stringData: {p: one}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: rolls}
spec:
  selector: {matchLabels: {app: r}}
  template:
    metadata: {labels: {app: r}}
    spec:
      containers: [{name: c, image: x, envFrom: [{configMapRef: {name: cfg}}, {secretRef: {name: secret}}]}]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: static
  annotations: {reloader.stakater.com/auto: "false"}
spec:
  selector: {matchLabels: {app: s}}
  template:
    metadata: {labels: {app: s}}
    spec:
      containers: [{name: c, image: x, envFrom: [{configMapRef: {name: cfg}}, {secretRef: {name: secret}}]}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: migrate}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: x, envFrom: [{configMapRef: {name: cfg}}, {secretRef: {name: secret}}]}]
---
apiVersion: example.com/v1
kind: Widget
metadata: {name: w}
spec: {secretName: secret}
"""
HELD_NAMEREF = "nameReference:\n  - kind: Secret\n    fieldSpecs:\n      - {kind: Widget, group: example.com, path: spec/secretName}\n"
HELD_LAYOUTS = {
    "namespace": "namespace: team\n",
    "prefix": "namePrefix: p-\n",
    "suffix": "nameSuffix: -s\n",
    "prefix-and-namespace": "namePrefix: p-\nnamespace: team\n",
}


@pytest.mark.parametrize("mode", ["exec", "krm"])
@pytest.mark.parametrize("layout", sorted(HELD_LAYOUTS))
def test_held_references_name_the_unsuffixed_copy_under_its_final_name(tmp_path, layout, mode):
    """kustomize maps every name a reference still holds after the plugin by
    the objects' earlier names. A held reference must end on the copy, never
    the version (a Job's template would change and the upgrade fail), and no
    name may match both ("found multiple possible referrals": with
    `namespace:` alone the copy's name is the version's earlier one)."""
    files = {"app.yaml": HELD_APP, "nameref.yaml": HELD_NAMEREF,
             "kustomization.yaml": HELD_LAYOUTS[layout] + "resources: [app.yaml]\nconfigurations: [nameref.yaml]\n"}
    plain, built = _builds(tmp_path, mode, {"top": files})
    final = {d["kind"]: d["metadata"]["name"] for d in plain if d["kind"] in ("ConfigMap", "Secret")}
    assert final == {"ConfigMap": _final_name(layout, "cfg"), "Secret": _final_name(layout, "secret")}
    names = {(d["kind"], d["metadata"]["name"]) for d in built}

    def env_from(kind: str, name: str) -> list[str]:
        doc = _named(built, kind, _final_name(layout, name))
        return [next(iter(e.values()))["name"] for e in doc["spec"]["template"]["spec"]["containers"][0]["envFrom"]]

    copies = {d["kind"]: d for d in built if _copy_of(d)}
    versions = {d["kind"]: d for d in built if d["kind"] in ("ConfigMap", "Secret") and versioned(d)}
    assert set(versions) == {"ConfigMap", "Secret"}
    # The held ones name the copies, under kustomize's final names: mutable, in the output.
    for holder in (("Deployment", "static"), ("Job", "migrate")):
        assert env_from(*holder) == [final["ConfigMap"], final["Secret"]], holder
    assert {k: d["metadata"]["name"] for k, d in copies.items()} == final and "immutable" not in copies["Secret"]
    # The workload that rolls names the versions.
    assert env_from("Deployment", "rolls") == [versions["ConfigMap"]["metadata"]["name"],
                                               versions["Secret"]["metadata"]["name"]]
    # The field the kustomization's configurations: name names an object the
    # build keeps. As the exec transformer, postrender reads those rows too
    # and rewrites it to the version; as a KRM function it cannot, and
    # kustomize maps it: to the version, unless only `namespace:` moved it
    # (the copy then has the name it had, and kustomize can tell them apart
    # by nothing else).
    widget = _named(built, "Widget", _final_name(layout, "w"))
    assert ("Secret", widget["spec"]["secretName"]) in names
    expected = final["Secret"] if layout == "namespace" and mode == "krm" else versions["Secret"]["metadata"]["name"]
    assert widget["spec"]["secretName"] == expected


def _final_name(layout: str, name: str) -> str:
    """The name kustomize gives an object written as `name` in `layout`."""
    text = HELD_LAYOUTS[layout]
    return ("p-" if "namePrefix" in text else "") + name + ("-s" if "nameSuffix" in text else "")


@pytest.mark.parametrize("mode", ["exec", "krm"])
def test_overlays_over_post_rendered_manifests_keep_their_prefixes(tmp_path, mode):
    """A base of postrender's output, two overlays prefixing it, each
    running postrender again: each version keeps its overlay's prefix (it
    lost it once, and the two overlays then made one object twice)."""
    app = HELD_APP[:HELD_APP.index("---\napiVersion: example.com/v1")]  # no Widget: no configurations here
    rendered = subprocess.run([str(Path(venv_bin()) / "postrender")], input=app, capture_output=True,
                              text=True, env=tool_env())
    assert rendered.returncode == 0, rendered.stderr
    config = "apiVersion: postrender.io/v1alpha1\nkind: PostRender\nmetadata: {name: postrender}\n"

    def folders(plugin: str) -> dict[str, dict[str, str]]:
        return {
            "base": {"rendered.yaml": rendered.stdout, "kustomization.yaml": "resources: [rendered.yaml]\n"},
            "o": {"kustomization.yaml": "namePrefix: o-\nresources: [../base]\n" + plugin, "postrender.yaml": config},
            "p": {"kustomization.yaml": "namePrefix: p-\nresources: [../base]\n" + plugin, "postrender.yaml": config},
            "top": {"kustomization.yaml": "resources: [../o, ../p]\n"},
        }

    plain = documents(_build(_write_tree(tmp_path, folders(""), plugin=False), None))
    built = documents(_build(_write_tree(tmp_path, folders("transformers: [postrender.yaml]\n"), plugin=True),
                             _plugin_home(tmp_path, mode)))
    # The plugin in each overlay changes nothing: every object is a version it made, or a copy.
    assert [(d["kind"], d["metadata"]["name"]) for d in built] == [(d["kind"], d["metadata"]["name"]) for d in plain]
    versions = sorted(d["metadata"]["name"] for d in built
                      if (d["metadata"].get("labels") or {}).get("postrender.io/versioned") == "true")
    assert [name[:len(name) - 11] for name in versions] == ["o-cfg", "o-secret", "p-cfg", "p-secret"]
    for prefix in ("o-", "p-"):
        rolls = _named(built, "Deployment", prefix + "rolls")["spec"]["template"]["spec"]["containers"][0]
        assert [next(iter(e.values()))["name"] for e in rolls["envFrom"]] == [
            v for v in versions if v.startswith(prefix)]


@pytest.mark.parametrize("strategy", ["rename", "annotate"])
def test_a_config_hash_over_generated_configs_is_the_same_after_kustomize_suffixes_them(tmp_path, strategy):
    """A workload reading generated configs gets the same
    postrender.io/config-hash from postrender as kustomize's transformer
    (which sees them unsuffixed) as from postrender on kustomize's output
    (which sees `gen-<hash>`): it once differed, and rolled the workload
    for nothing when the two ways met."""
    # x-plain keeps its name (an env value names it), so the workload gets a hash under either strategy.
    app = ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x-plain}\ndata: {a: \"1\"}\n---\n"
           "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x-web}\nspec:\n  template:\n    spec:\n"
           "      containers:\n      - name: c\n        image: x\n        env: [{name: CFGNAME, value: x-plain}]\n"
           "        envFrom: [{configMapRef: {name: x-plain}}, {configMapRef: {name: gen}}, {secretRef: {name: gen-s}}]\n")
    files = {"app.yaml": app,
             "kustomization.yaml": "resources: [app.yaml]\nconfigMapGenerator: [{name: gen, literals: [c=1]}]\n"
                                   "secretGenerator: [{name: gen-s, literals: [s=1]}]\n"}
    top = _write_tree(tmp_path, {"top": files}, plugin=True)
    (top / "postrender.yaml").write_text((top / "postrender.yaml").read_text() + f"strategy: {strategy}\n")
    built = _build(top, _plugin_home(tmp_path, "exec"))
    again = subprocess.run([str(Path(venv_bin()) / "postrender"), f"--strategy={strategy}"], input=built,
                           capture_output=True, text=True, env=tool_env())
    assert again.returncode == 0, again.stderr

    def config_hash(text: str) -> str:
        web = _named(documents(text), "Deployment", "x-web")
        return web["spec"]["template"]["metadata"]["annotations"]["postrender.io/config-hash"]

    assert config_hash(again.stdout) == config_hash(built)


# References that state their target's namespace in a field of their own
# (namespaceField), when the top kustomization's `namespace:` moves the
# ConfigMap `config` and Secret `secret` out of `old`. Each member of the
# class: its referrers (stating `old`), each reference as (referrer kind,
# referrer name as written, target kind, path to the name, path to the
# namespace), and the kustomize field specs that lead to the {name,
# namespace} mapping itself, for the shapes that have one: with those
# kustomize alone rewrites the namespace too (nameref's setMapping); a name
# and namespace in two differently named keys it never rewrites.
NAMESPACED_APP = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: config, namespace: old}
data: {k: one}
---
apiVersion: v1
kind: Secret
metadata: {name: secret, namespace: old}
stringData: {p: one}
"""
NAMES = {"ConfigMap": "config", "Secret": "secret"}

_PV = """\
---
apiVersion: v1
kind: PersistentVolume
metadata: {{name: {name}}}
spec:
  capacity: {{storage: 1Gi}}
  accessModes: [ReadWriteOnce]
  {source}
"""
_CSI_REFS = ("nodePublishSecretRef", "nodeStageSecretRef", "controllerPublishSecretRef",
             "controllerExpandSecretRef", "nodeExpandSecretRef")
_VOLUME_SOURCES = {
    "cephfs": "{monitors: [m:6789], secretRef: {name: secret, namespace: old}}",
    "rbd": "{monitors: [m:6789], image: i, secretRef: {name: secret, namespace: old}}",
    "iscsi": "{targetPortal: p:3260, iqn: iqn.2001-04.com.example:t, lun: 0, secretRef: {name: secret, namespace: old}}",
    "flexVolume": "{driver: example.com/flex, secretRef: {name: secret, namespace: old}}",
    "scaleIO": "{gateway: https://g, system: s, secretRef: {name: secret, namespace: old}}",
    "storageos": "{volumeName: v, secretRef: {name: secret, namespace: old}}",
    "cinder": "{volumeID: v, secretRef: {name: secret, namespace: old}}",
}
_STORAGE_CLASS_PAIRS = [("secretName", "secretNamespace"), ("adminSecretName", "adminSecretNamespace"),
                        ("userSecretName", "userSecretNamespace")] + [
    (f"csi.storage.k8s.io/{step}-secret-name", f"csi.storage.k8s.io/{step}-secret-namespace")
    for step in ("provisioner", "controller-publish", "node-stage", "node-publish", "controller-expand", "node-expand")]
_SNAPSHOT_PAIRS = [(f"csi.storage.k8s.io/{what}-name", f"csi.storage.k8s.io/{what}-namespace")
                   for what in ("snapshotter-secret", "snapshotter-list-secret")]
_GROUP_SNAPSHOT_PAIRS = [("csi.storage.k8s.io/group-snapshotter-secret-name",
                          "csi.storage.k8s.io/group-snapshotter-secret-namespace")]


def _parameters(pairs: list[tuple[str, str]]) -> str:
    return "".join(f"  {name}: secret\n  {namespace}: old\n" for name, namespace in pairs)


def _gateway_api(kind: str, api_version: str, name: str) -> str:
    return (f"---\napiVersion: {api_version}\nkind: {kind}\nmetadata: {{name: {name}, namespace: old}}\n"
            "spec:\n  parentRef: {name: gw}\n  listeners:\n    - name: https\n      port: 443\n"
            "      protocol: HTTPS\n      tls: {certificateRefs: [{name: secret, namespace: old}]}\n")


_GATEWAY = "gateway.networking.k8s.io"
_ESO_REFS = [("Secret", "spec/provider/aws/auth/secretRef/accessKeyIDSecretRef"),
             ("ConfigMap", "spec/provider/vault/caProvider"),
             ("Secret", "spec/provider/kubernetes/server/caProvider")]
_ESO = """\
spec:
  provider:
    aws: {service: SecretsManager, region: r, auth: {secretRef: {accessKeyIDSecretRef: {name: secret, key: k, namespace: old}}}}
    vault: {server: https://v, caProvider: {type: ConfigMap, name: config, key: ca, namespace: old}}
    kubernetes: {server: {caProvider: {type: Secret, name: secret, key: ca, namespace: old}}}
"""


def _split(path: str) -> tuple[str | int, ...]:
    return tuple(int(part) if part.isdigit() else part for part in path.split("/"))


def _eso_refs(kind: str) -> list[tuple]:
    return [(kind, "store", target, _split(where + "/name"), _split(where + "/namespace"))
            for target, where in _ESO_REFS]


MOVED_MEMBERS: dict[str, dict] = {
    # (Not a ServiceAccount's `secrets`: an entry's `namespace` there is no
    # namespace, the API server reads the ServiceAccount's own; see
    # tests/unit/pipeline/test_name_lookups.py.)
    "persistentvolume-secretrefs": {
        "referrers": _PV.format(name="csi", source="csi:\n    driver: example.com\n    volumeHandle: h\n" + "".join(
            f"    {ref}: {{name: secret, namespace: old}}\n" for ref in _CSI_REFS))
        + "".join(_PV.format(name=source.lower(), source=f"{source}: {text}") for source, text in _VOLUME_SOURCES.items()),
        "refs": [("PersistentVolume", "csi", "Secret", ("spec", "csi", ref, "name"), ("spec", "csi", ref, "namespace"))
                 for ref in _CSI_REFS]
        + [("PersistentVolume", source.lower(), "Secret", ("spec", source, "secretRef", "name"),
            ("spec", source, "secretRef", "namespace")) for source in _VOLUME_SOURCES],
        "mappings": [("Secret", "PersistentVolume", "", f"spec/csi/{ref}") for ref in _CSI_REFS]
        + [("Secret", "PersistentVolume", "", f"spec/{source}/secretRef") for source in _VOLUME_SOURCES],
    },
    "persistentvolume-azurefile": {
        "referrers": _PV.format(name="azure", source="azureFile: {secretName: secret, secretNamespace: old, shareName: s}"),
        "refs": [("PersistentVolume", "azure", "Secret", ("spec", "azureFile", "secretName"),
                  ("spec", "azureFile", "secretNamespace"))],
        "mappings": [],
    },
    "storageclass-parameters": {
        "referrers": "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: sc}\nprovisioner: example.com\n"
                     "parameters:\n" + _parameters(_STORAGE_CLASS_PAIRS),
        "refs": [("StorageClass", "sc", "Secret", ("parameters", name), ("parameters", namespace))
                 for name, namespace in _STORAGE_CLASS_PAIRS],
        "mappings": [],
    },
    "snapshotclass-parameters": {
        "referrers": "apiVersion: snapshot.storage.k8s.io/v1\nkind: VolumeSnapshotClass\nmetadata: {name: vsc}\n"
                     "driver: example.com\ndeletionPolicy: Delete\nparameters:\n" + _parameters(_SNAPSHOT_PAIRS)
        + "---\napiVersion: groupsnapshot.storage.k8s.io/v1beta1\nkind: VolumeGroupSnapshotClass\n"
          "metadata: {name: vgsc}\ndriver: example.com\ndeletionPolicy: Delete\nparameters:\n"
        + _parameters(_GROUP_SNAPSHOT_PAIRS),
        "refs": [("VolumeSnapshotClass", "vsc", "Secret", ("parameters", name), ("parameters", namespace))
                 for name, namespace in _SNAPSHOT_PAIRS]
        + [("VolumeGroupSnapshotClass", "vgsc", "Secret", ("parameters", name), ("parameters", namespace))
           for name, namespace in _GROUP_SNAPSHOT_PAIRS],
        "mappings": [],
    },
    "ingressclass-parameters": {
        "referrers": "apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata: {name: ic}\n"
                     "spec:\n  controller: example.com/c\n"
                     "  parameters: {kind: ConfigMap, name: config, namespace: old, scope: Namespace}\n",
        "refs": [("IngressClass", "ic", "ConfigMap", ("spec", "parameters", "name"), ("spec", "parameters", "namespace"))],
        "mappings": [("ConfigMap", "IngressClass", "networking.k8s.io", "spec/parameters")],
    },
    "admission-policy-paramref": {
        "referrers": "".join(
            f"---\napiVersion: admissionregistration.k8s.io/{version}\nkind: {kind}\nmetadata: {{name: {kind.lower()}}}\n"
            f"spec:\n  paramKind: {{apiVersion: v1, kind: {target}}}\n"
            f"---\napiVersion: admissionregistration.k8s.io/{version}\nkind: {kind}Binding\n"
            f"metadata: {{name: {kind.lower()}-binding}}\n"
            f"spec:\n  policyName: {kind.lower()}\n"
            f"  paramRef: {{name: {NAMES[target]}, namespace: old, parameterNotFoundAction: Deny}}\n"
            for kind, version, target in (("ValidatingAdmissionPolicy", "v1", "ConfigMap"),
                                          ("MutatingAdmissionPolicy", "v1alpha1", "Secret"))),
        "refs": [("ValidatingAdmissionPolicyBinding", "validatingadmissionpolicy-binding", "ConfigMap",
                  ("spec", "paramRef", "name"), ("spec", "paramRef", "namespace")),
                 ("MutatingAdmissionPolicyBinding", "mutatingadmissionpolicy-binding", "Secret",
                  ("spec", "paramRef", "name"), ("spec", "paramRef", "namespace"))],
        "mappings": [("ConfigMap", "ValidatingAdmissionPolicyBinding", "admissionregistration.k8s.io", "spec/paramRef"),
                     ("Secret", "MutatingAdmissionPolicyBinding", "admissionregistration.k8s.io", "spec/paramRef")],
        # No namePrefix: kustomize would not rewrite a binding's policyName.
        "prefix": "",
    },
    "gateway-tls-refs": {
        "referrers": f"apiVersion: {_GATEWAY}/v1\nkind: Gateway\nmetadata: {{name: gw, namespace: old}}\n"
                     "spec:\n  gatewayClassName: c\n  listeners:\n    - name: https\n      port: 443\n"
                     "      protocol: HTTPS\n      tls:\n        certificateRefs: [{name: secret, namespace: old}]\n"
                     "        frontendValidation:\n"
                     "          caCertificateRefs: [{kind: ConfigMap, name: config, namespace: old}]\n"
                     "  tls:\n    backend:\n      clientCertificateRef: {name: secret, namespace: old}\n"
                     "    frontend:\n      default:\n        validation:\n"
                     "          caCertificateRefs: [{kind: ConfigMap, name: config, namespace: old}]\n"
                     "      perPort:\n        - port: 443\n          tls:\n            validation:\n"
                     "              caCertificateRefs: [{kind: ConfigMap, name: config, namespace: old}]\n"
        + _gateway_api("ListenerSet", f"{_GATEWAY}/v1", "ls")
        + _gateway_api("XListenerSet", "gateway.networking.x-k8s.io/v1alpha1", "xls"),
        "refs": [("Gateway", "gw", "Secret", ("spec", "listeners", 0, "tls", "certificateRefs", 0, "name"),
                  ("spec", "listeners", 0, "tls", "certificateRefs", 0, "namespace")),
                 ("Gateway", "gw", "ConfigMap",
                  ("spec", "listeners", 0, "tls", "frontendValidation", "caCertificateRefs", 0, "name"),
                  ("spec", "listeners", 0, "tls", "frontendValidation", "caCertificateRefs", 0, "namespace")),
                 ("Gateway", "gw", "Secret", ("spec", "tls", "backend", "clientCertificateRef", "name"),
                  ("spec", "tls", "backend", "clientCertificateRef", "namespace")),
                 ("Gateway", "gw", "ConfigMap",
                  ("spec", "tls", "frontend", "default", "validation", "caCertificateRefs", 0, "name"),
                  ("spec", "tls", "frontend", "default", "validation", "caCertificateRefs", 0, "namespace")),
                 ("Gateway", "gw", "ConfigMap",
                  ("spec", "tls", "frontend", "perPort", 0, "tls", "validation", "caCertificateRefs", 0, "name"),
                  ("spec", "tls", "frontend", "perPort", 0, "tls", "validation", "caCertificateRefs", 0, "namespace"))]
        + [(kind, name, "Secret", ("spec", "listeners", 0, "tls", "certificateRefs", 0, "name"),
            ("spec", "listeners", 0, "tls", "certificateRefs", 0, "namespace"))
           for kind, name in (("ListenerSet", "ls"), ("XListenerSet", "xls"))],
        "mappings": [("Secret", "Gateway", _GATEWAY, "spec/listeners/tls/certificateRefs"),
                     ("ConfigMap", "Gateway", _GATEWAY, "spec/listeners/tls/frontendValidation/caCertificateRefs"),
                     ("Secret", "Gateway", _GATEWAY, "spec/tls/backend/clientCertificateRef"),
                     ("ConfigMap", "Gateway", _GATEWAY, "spec/tls/frontend/default/validation/caCertificateRefs"),
                     ("ConfigMap", "Gateway", _GATEWAY, "spec/tls/frontend/perPort/tls/validation/caCertificateRefs"),
                     ("Secret", "ListenerSet", _GATEWAY, "spec/listeners/tls/certificateRefs"),
                     ("Secret", "XListenerSet", "gateway.networking.x-k8s.io", "spec/listeners/tls/certificateRefs")],
    },
    "gatewayclass-parametersref": {
        "referrers": f"apiVersion: {_GATEWAY}/v1\nkind: GatewayClass\nmetadata: {{name: gc}}\n"
                     "spec:\n  controllerName: example.com/c\n"
                     "  parametersRef: {group: '', kind: ConfigMap, name: config, namespace: old}\n",
        "refs": [("GatewayClass", "gc", "ConfigMap", ("spec", "parametersRef", "name"),
                  ("spec", "parametersRef", "namespace"))],
        "mappings": [("ConfigMap", "GatewayClass", _GATEWAY, "spec/parametersRef")],
    },
    "external-secrets-stores": {
        "referrers": "apiVersion: external-secrets.io/v1\nkind: SecretStore\nmetadata: {name: store, namespace: old}\n"
                     + _ESO + "---\napiVersion: external-secrets.io/v1\nkind: ClusterSecretStore\n"
                     "metadata: {name: store}\n" + _ESO,
        "refs": _eso_refs("SecretStore") + _eso_refs("ClusterSecretStore"),
        "mappings": [(target, kind, "external-secrets.io", where) for kind in ("SecretStore", "ClusterSecretStore")
                     for target, where in _ESO_REFS],
    },
}


# References that write the namespace before the name (`old/name`): the
# namespace path is None, the name path leads to that text (after a flag's `=`).
_NGINX = "nginx.ingress.kubernetes.io/"
_INGRESS_ANNOTATIONS = [("Secret", _NGINX + "auth-secret"), ("Secret", _NGINX + "auth-tls-secret"),
                        ("Secret", _NGINX + "proxy-ssl-secret"), ("ConfigMap", _NGINX + "custom-headers")]
_CONTAINER = ("spec", "template", "spec", "containers", 0)
MOVED_MEMBERS.update({
    "namespace-in-an-annotation": {
        "referrers": "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: ing\n  namespace: old\n"
                     "  annotations:\n" + "".join(f"    {key}: old/{NAMES[target]}\n"
                                                  for target, key in _INGRESS_ANNOTATIONS)
        + "spec: {rules: [{host: example.com}]}\n"
        + "---\napiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\n"
          "metadata:\n  name: hook\n  annotations: {cert-manager.io/inject-ca-from-secret: old/secret}\nwebhooks: []\n",
        "refs": [("Ingress", "ing", target, ("metadata", "annotations", key), None) for target, key in _INGRESS_ANNOTATIONS]
        + [("ValidatingWebhookConfiguration", "hook", "Secret",
            ("metadata", "annotations", "cert-manager.io/inject-ca-from-secret"), None)],
        "mappings": [],
    },
    "namespace-in-a-flag": {
        "referrers": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: controller, namespace: old}\nspec:\n"
                     "  selector: {matchLabels: {app: c}}\n  template:\n    metadata: {labels: {app: c}}\n"
                     "    spec:\n      containers:\n        - name: c\n          image: example.com/c\n"
                     "          args: [--default-ssl-certificate=old/secret, --configmap, old/config]\n",
        "refs": [("Deployment", "controller", "Secret", _CONTAINER + ("args", 0), None),
                 ("Deployment", "controller", "ConfigMap", _CONTAINER + ("args", 2), None)],
        "mappings": [],
    },
})


# Kinds whose references keep naming the object by its own name (keepsName):
# the API server never lets them change, or reads the object by that name at
# each request (an admission policy's parameters).
# Referrers whose names stay (keepsName): the API server never lets the field
# change, or what reads it records the name (a snapshot's content, for its
# deletion), or reads it afresh at each request.
FIXED_ONCE_CREATED = {"StorageClass", "PersistentVolume", "VolumeSnapshotClass", "VolumeGroupSnapshotClass",
                      "ValidatingAdmissionPolicyBinding", "MutatingAdmissionPolicyBinding"}


def _stated(referrer: dict, name_path: tuple, namespace_path: tuple | None) -> tuple[str | None, str]:
    """(namespace, name) a reference states: the namespace from its field,
    or before the name (`old/name`, after a flag's `=`), or the referrer's."""
    value = _value_at(referrer, name_path)
    if namespace_path is None:
        namespace, _, name = value.rpartition("=")[2].rpartition("/")
        return namespace, name
    try:
        return _value_at(referrer, namespace_path), value
    except KeyError:
        return referrer["metadata"].get("namespace"), value


def _nameref_config(mappings: list[tuple[str, str, str, str]]) -> str:
    """kustomize `configurations:` naming each {name, namespace} mapping."""
    text = "nameReference:\n"
    for target in ("ConfigMap", "Secret"):
        specs = [(kind, group, path) for kind_of, kind, group, path in mappings if kind_of == target]
        if specs:
            text += f"  - kind: {target}\n    version: v1\n    fieldSpecs:\n" + "".join(
                f"      - {{kind: {kind}, group: '{group}', path: {path}}}\n" for kind, group, path in specs)
    return text


def _write_tree(root: Path, folders: dict[str, dict[str, str]], plugin: bool) -> Path:
    """Each folder's files (the top folder's `kustomization.yaml` gets
    postrender as its transformer when `plugin`)."""
    for folder, files in folders.items():
        where = root / ("with" if plugin else "without") / folder
        where.mkdir(parents=True)
        for name, text in files.items():
            if folder == "top" and name == "kustomization.yaml" and plugin:
                text += "transformers: [postrender.yaml]\n"
                (where / "postrender.yaml").write_text(
                    "apiVersion: postrender.io/v1alpha1\nkind: PostRender\nmetadata: {name: postrender}\n")
            (where / name).write_text(text)
    return root / ("with" if plugin else "without") / "top"


def _value_at(doc: dict, path: tuple) -> object:
    for step in path:
        doc = doc[step]
    return doc


def _named(docs: list[dict], kind: str, name: str) -> dict:
    (doc,) = [d for d in docs if d["kind"] == kind and d["metadata"]["name"] == name]
    return doc


def _builds(tmp_path: Path, mode: str, folders: dict[str, dict[str, str]]) -> tuple[list[dict], list[dict]]:
    """The same kustomization built by kustomize alone, and with postrender."""
    plain = documents(_build(_write_tree(tmp_path, folders, plugin=False), None))
    built = documents(_build(_write_tree(tmp_path, folders, plugin=True), _plugin_home(tmp_path, mode)))
    return plain, built


def _target_of(built: list[dict], referrer: dict, kind: str, name_path: tuple,
               namespace_path: tuple | None) -> dict | None:
    """The object a reference in the output names, by name and namespace."""
    namespace, name = _stated(referrer, name_path, namespace_path)
    found = [d for d in built if d["kind"] == kind and d["metadata"]["name"] == name
             and d["metadata"].get("namespace") == namespace]
    return found[0] if found else None


@pytest.mark.parametrize("mode", ["exec", "krm"])
@pytest.mark.parametrize("member", sorted(MOVED_MEMBERS))
def test_a_reference_stating_the_namespace_its_target_moved_from_states_the_new_one(tmp_path, member, mode):
    """kustomize's `namespace:` moves `config` and `secret` from `old` to
    `team` (and prefixes every name). postrender names their versions: each
    reference must then name the version where it is now, name AND
    namespace, and where kustomize alone rewrites the namespace field (its
    field spec leads to the {name, namespace} mapping), the build with
    postrender states the same one."""
    spec = MOVED_MEMBERS[member]
    prefix = spec.get("prefix", "pre-")
    kustomization = f"namePrefix: {prefix}\nnamespace: team\nresources: [app.yaml]\n"
    files = {"app.yaml": NAMESPACED_APP + "---\n" + spec["referrers"]}
    if spec["mappings"]:
        files["nameref.yaml"] = _nameref_config(spec["mappings"])
        kustomization += "configurations: [nameref.yaml]\n"
    files["kustomization.yaml"] = kustomization
    plain, built = _builds(tmp_path, mode, {"top": files})

    rewritten_by_kustomize = 0
    for kind, name, target, name_path, namespace_path in spec["refs"]:
        after = _named(built, kind, prefix + name)
        found = _target_of(built, after, target, name_path, namespace_path)
        # (a) it names an object in the output, where it is: the version, or
        # for a field the API server never lets change (a StorageClass's, a
        # PersistentVolume's), the object under its own final name.
        assert found is not None, (member, name_path, after)
        assert found["metadata"]["namespace"] == "team", found
        if kind in FIXED_ONCE_CREATED:
            assert found["metadata"]["name"] == prefix + NAMES[target] and not versioned(found), found
        else:
            assert versioned(found), found
            assert found["metadata"]["labels"]["postrender.io/base-name"] == prefix + NAMES[target]
        # (b) kustomize alone states the namespace it moved the target to, or leaves `old` (a field
        # spec of its own leads to the name alone): never another one.
        alone = _stated(_named(plain, kind, prefix + name), name_path, namespace_path)[0]
        assert alone in ("old", "team")
        if alone == "team":
            rewritten_by_kustomize += 1
            assert _stated(after, name_path, namespace_path)[0] == alone
    assert rewritten_by_kustomize == len(spec["mappings"] and spec["refs"])


@pytest.mark.parametrize("mode", ["exec", "krm"])
def test_a_reference_without_a_namespace_field_keeps_none(tmp_path, mode):
    """A reference that states no namespace means its referrer's, which
    kustomize's `namespace:` moved along with the target: postrender adds no
    namespace field (kustomize alone writes the one it means), and the
    reference names the version where it is."""
    sa = ("apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: sa, namespace: old}\n"
          "secrets:\n  - {name: secret}\n")
    files = {"app.yaml": NAMESPACED_APP + "---\n" + sa,
             "nameref.yaml": _nameref_config([("Secret", "ServiceAccount", "", "secrets")]),
             "kustomization.yaml": "namePrefix: pre-\nnamespace: team\nresources: [app.yaml]\n"
                                   "configurations: [nameref.yaml]\n"}
    plain, built = _builds(tmp_path, mode, {"top": files})
    after = _named(built, "ServiceAccount", "pre-sa")
    assert after["metadata"]["namespace"] == "team"
    (item,) = after["secrets"]
    assert set(item) == {"name"}
    found = _target_of(built, after, "Secret", ("secrets", 0, "name"), ("secrets", 0, "namespace"))
    assert found is not None and versioned(found) and found["metadata"]["namespace"] == "team"
    # The namespace kustomize alone writes is the one the reference means.
    assert _named(plain, "ServiceAccount", "pre-sa")["secrets"] == [{"name": "pre-secret", "namespace": "team"}]


@pytest.mark.parametrize("mode", ["exec", "krm"])
def test_a_reference_whose_target_kept_its_namespace_keeps_the_one_it_states(tmp_path, mode):
    """The referrer's base moves it to `team`, the target's base only
    prefixes it: the reference still states `old`, where the target is, and
    only its name changes (to the version's). A Gateway's certificateRefs
    {name, namespace}, which the API reads where it says."""
    gateway = ("apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: old}\n"
               "spec:\n  gatewayClassName: c\n  listeners:\n  - name: https\n    port: 443\n    protocol: HTTPS\n"
               "    tls:\n      certificateRefs:\n      - {kind: Secret, name: secret, namespace: old}\n")
    refs = ("spec", "listeners", 0, "tls", "certificateRefs")
    mappings = _nameref_config([("Secret", "Gateway", "gateway.networking.k8s.io",
                                 "spec/listeners/tls/certificateRefs")])
    folders = {
        "configs": {"app.yaml": NAMESPACED_APP, "kustomization.yaml": "namePrefix: pre-\nresources: [app.yaml]\n"},
        "gateways": {"gw.yaml": gateway, "kustomization.yaml": "namespace: team\nresources: [gw.yaml]\n"},
        "top": {"nameref.yaml": mappings,
                "kustomization.yaml": "resources: [../configs, ../gateways]\nconfigurations: [nameref.yaml]\n"},
    }
    plain, built = _builds(tmp_path, mode, folders)
    before, after = _named(plain, "Gateway", "gw"), _named(built, "Gateway", "gw")
    assert before["metadata"]["namespace"] == after["metadata"]["namespace"] == "team"
    # kustomize alone looks a name up only in the referrer's namespace now: it leaves this one.
    assert _value_at(before, refs) == [{"kind": "Secret", "name": "secret", "namespace": "old"}]
    found = _target_of(built, after, "Secret", refs + (0, "name"), refs + (0, "namespace"))
    assert found is not None and versioned(found) and found["metadata"]["namespace"] == "old"
    assert _value_at(after, refs) == [{"kind": "Secret", "name": found["metadata"]["name"], "namespace": "old"}]
    assert {k: v for k, v in after.items() if k != "spec"} == {k: v for k, v in before.items() if k != "spec"}


# A config nothing but postrender renames, named by a Deployment (which
# postrender rewrites) and by a Widget's field only kustomize's
# `configurations:` know: kustomize maps that field after every
# transformer, by the earlier names each object records.
UNRENAMED_APP = """\
apiVersion: v1
kind: {kind}
metadata: {{name: cfg}}
{data}
---
apiVersion: apps/v1
kind: Deployment
metadata: {{name: rolls}}
spec:
  selector: {{matchLabels: {{app: r}}}}
  template:
    metadata: {{labels: {{app: r}}}}
    spec:
      containers: [{{name: c, image: x, envFrom: [{{{ref}: {{name: cfg}}}}]}}]
---
apiVersion: example.com/v1
kind: Widget
metadata: {{name: w}}
spec: {{settings: cfg}}
"""


def _unrenamed(tmp_path: Path, kind: str, keep: str, transformers: dict[str, str]) -> list[dict]:
    data, ref = ('data: {a: "1"}', "configMapRef") if kind == "ConfigMap" else ("stringData: {p: one}", "secretRef")
    nameref = (f"nameReference:\n  - kind: {kind}\n    version: v1\n    fieldSpecs:\n"
               "      - {kind: Widget, group: example.com, path: spec/settings}\n")
    top = _write_tree(tmp_path, {"top": {"app.yaml": UNRENAMED_APP.format(kind=kind, data=data, ref=ref),
                                         "nameref.yaml": nameref,
                                         "kustomization.yaml": "resources: [app.yaml]\nconfigurations: [nameref.yaml]\n"}},
                      plugin=True)
    (top / "postrender.yaml").write_text("apiVersion: postrender.io/v1alpha1\nkind: PostRender\n"
                                         f"metadata: {{name: postrender}}\nkeepOriginal: {keep}\n")
    if transformers:
        for name, text in transformers.items():
            (top / name).write_text(text)
        listed = ", ".join(["postrender.yaml", *transformers])
        kustomization = (top / "kustomization.yaml").read_text()
        (top / "kustomization.yaml").write_text(kustomization.replace("transformers: [postrender.yaml]",
                                                                      f"transformers: [{listed}]"))
    text = _build(top, _plugin_home(tmp_path, "exec"))
    assert "internal.config.kubernetes.io" not in text  # kustomize's own records, stripped by it
    return documents(text)


@pytest.mark.parametrize("kind, keep, names", [("ConfigMap", "auto", "version"), ("Secret", "none", "version"),
                                               ("Secret", "auto", "version")])
def test_a_field_only_kustomize_knows_follows_a_config_nothing_else_renamed(tmp_path, kind, keep, names):
    """postrender renames the config. The Widget's field is one only the
    kustomization's configurations: name; postrender, as the exec
    transformer, reads those rows and rewrites it to the version, which
    rolls with it (it was left naming nothing, exit 0; then, where an
    unsuffixed copy kept the name, it named the copy, which rolls nothing)."""
    built = _unrenamed(tmp_path, kind, keep, {})
    (version,) = [d for d in built if d["kind"] == kind and versioned(d)]
    widget = _named(built, "Widget", "w")
    expected = version["metadata"]["name"] if names == "version" else "cfg"
    assert widget["spec"]["settings"] == expected
    assert (kind, expected) in {(d["kind"], d["metadata"]["name"]) for d in built}
    assert expected != "cfg" or _copy_of(_named(built, kind, "cfg")) == version["metadata"]["name"]
    deployment = _named(built, "Deployment", "rolls")
    assert next(iter(deployment["spec"]["template"]["spec"]["containers"][0]["envFrom"][0].values()))["name"] == \
        version["metadata"]["name"]


def test_a_transformer_after_postrender_finds_a_config_by_the_name_it_had(tmp_path):
    """kustomize selects an object by its earlier names too: a replacement
    listed after postrender, written for `cfg`, finds the version (kustomize
    said "nothing selected" and failed the build)."""
    replacement = """\
apiVersion: builtin
kind: ReplacementTransformer
metadata: {name: repl}
replacements:
- source: {kind: ConfigMap, name: cfg, fieldPath: metadata.name}
  targets:
  - select: {kind: Deployment, name: rolls}
    fieldPaths: [spec.template.metadata.annotations.cfgname]
    options: {create: true}
"""
    built = _unrenamed(tmp_path, "ConfigMap", "auto", {"repl.yaml": replacement})
    (version,) = [d for d in built if d["kind"] == "ConfigMap" and versioned(d)]
    annotations = _named(built, "Deployment", "rolls")["spec"]["template"]["metadata"]["annotations"]
    assert annotations["cfgname"] == version["metadata"]["name"] != "cfg"


# One name in several bases, some renamed: kustomize maps a name a reference
# still holds to an object it renamed from that name (nameref looks at
# earlier names alone, then at prefixes and suffixes), past one that holds
# the name never renamed, even for that one's own base. postrender as the
# transformer must send each reference where kustomize alone sends it.
def _cm(who: str) -> str:
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: cfg}}\ndata: {{who: {who}}}\n"


def _reader(name: str) -> str:
    return (f"apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {name}}}\nspec:\n"
            f"  selector: {{matchLabels: {{app: {name}}}}}\n  template:\n    metadata: {{labels: {{app: {name}}}}}\n"
            "    spec:\n      containers: [{name: c, image: x, envFrom: [{configMapRef: {name: cfg}}]}]\n")


ONE_NAME_LAYOUTS = {
    # A base prefixes its `cfg`; the other base's Deployment reads its own
    # `cfg`, never renamed: kustomize sends it to a-cfg.
    "renamed-beats-never-renamed": {
        "a": {"cm.yaml": _cm("a"), "kustomization.yaml": "namePrefix: a-\nresources: [cm.yaml]\n"},
        "b": {"cm.yaml": _cm("b"), "dep.yaml": _reader("web"), "kustomization.yaml": "resources: [cm.yaml, dep.yaml]\n"},
        "top": {"kustomization.yaml": "resources: [../a, ../b]\n"},
    },
    # Both moved by `namespace:`, one prefixed; a reader prefixed otherwise
    # (x-): the unprefixed one passes kustomize's prefix test.
    "prefixed-reader-takes-the-unprefixed": {
        "plain": {"cm.yaml": _cm("plain"), "kustomization.yaml": "resources: [cm.yaml]\n"},
        "r": {"cm.yaml": _cm("r"), "kustomization.yaml": "namePrefix: r-\nresources: [cm.yaml]\n"},
        "x": {"dep.yaml": _reader("web"), "kustomization.yaml": "namePrefix: x-\nresources: [dep.yaml]\n"},
        "top": {"kustomization.yaml": "namespace: team\nresources: [../plain, ../r, ../x]\n"},
    },
    # Renamed twice (p-, q-), neither as the reader (x-): kustomize leaves
    # `cfg`, the one never renamed; a p- reader takes p-cfg.
    "left-to-what-holds-it": {
        "plain": {"cm.yaml": _cm("plain"), "kustomization.yaml": "resources: [cm.yaml]\n"},
        "p": {"cm.yaml": _cm("p"), "dep.yaml": _reader("web"), "kustomization.yaml": "namePrefix: p-\nresources: [cm.yaml, dep.yaml]\n"},
        "q": {"cm.yaml": _cm("q"), "kustomization.yaml": "namePrefix: q-\nresources: [cm.yaml]\n"},
        "x": {"dep.yaml": _reader("web"), "kustomization.yaml": "namePrefix: x-\nresources: [dep.yaml]\n"},
        "top": {"kustomization.yaml": "resources: [../plain, ../p, ../q, ../x]\n"},
    },
}


def _generated(who: str) -> str:
    return f"configMapGenerator:\n- {{name: cfg, literals: [who={who}]}}\n"


# Found by a randomized comparison with kustomize alone (842 layouts): a
# generator's output counts as renamed from its name (kustomize suffixes it
# after every transformer and records the name), a version records the name
# it had only where no other object of its namespace competes for it, and
# a name is never matched across namespaces to an object renamed from it.
GENERATOR_LAYOUTS = {
    # The reader's own base generates `cfg`; another base prefixes its `cfg`:
    # kustomize keeps the generator (prefixes that end alike win).
    "generator-beats-a-prefixed-resource": {
        "a": {"cm.yaml": _cm("a"), "kustomization.yaml": "namePrefix: a-\nresources: [cm.yaml]\n"},
        "g": {"dep.yaml": _reader("web"), "kustomization.yaml": "resources: [dep.yaml]\n" + _generated("g")},
        "top": {"kustomization.yaml": "resources: [../a, ../g]\n"},
    },
    # A suffixed base generates `cfg`; another holds a plain `cfg` and its
    # reader; a third, in another namespace, reads `cfg` too (matched across
    # the implicit namespace, so postrender versions the plain one): the
    # version must not take the first reader from the generator.
    "version-beside-a-suffixed-generator": {
        "a": {"kustomization.yaml": "nameSuffix: -o\n" + _generated("a")},
        "g": {"cm.yaml": _cm("g"), "dep.yaml": _reader("web"), "kustomization.yaml": "resources: [cm.yaml, dep.yaml]\n"},
        "n": {"dep.yaml": _reader("other"), "kustomization.yaml": "namespace: other\nresources: [dep.yaml]\n"},
        "top": {"kustomization.yaml": "resources: [../a, ../g, ../n]\n"},
    },
    # Renamed from `cfg` in two other namespaces only: kustomize leaves a
    # reader without a namespace on `cfg`, which names nothing either way.
    "renamed-only-in-other-namespaces": {
        "x": {"cm.yaml": _cm("x"), "dep.yaml": _reader("x"),
              "kustomization.yaml": "namespace: ns3\nresources: [cm.yaml, dep.yaml]\n"},
        "y": {"cm.yaml": _cm("y"), "kustomization.yaml": "namespace: ns1\nnameSuffix: -s\nresources: [cm.yaml]\n"},
        "z": {"dep.yaml": _reader("z"), "kustomization.yaml": "resources: [dep.yaml]\n"},
        "top": {"kustomization.yaml": "nameSuffix: -t\nresources: [../x, ../y, ../z]\n"},
    },
}


@pytest.mark.parametrize("mode", ["exec", "krm"])
@pytest.mark.parametrize("layout", sorted({**ONE_NAME_LAYOUTS, **GENERATOR_LAYOUTS}))
def test_a_name_several_bases_hold_leads_where_kustomize_alone_leads_it(tmp_path, layout, mode):
    plain, built = _builds(tmp_path, mode, {**ONE_NAME_LAYOUTS, **GENERATOR_LAYOUTS}[layout])

    def read_by(docs: list[dict]) -> dict[tuple, str | None]:
        # Each Deployment's ConfigMap, by what it holds (`who`): the data it
        # reads; None: it names nothing.
        configs = {(d["metadata"].get("namespace"), d["metadata"]["name"]): d["data"]["who"]
                   for d in docs if d["kind"] == "ConfigMap"}
        return {(d["metadata"].get("namespace"), d["metadata"]["name"]):
                configs.get((d["metadata"].get("namespace"), ref.name))
                for d in docs if d["kind"] == "Deployment" for ref in all_references([d])}

    expected = read_by(plain)
    assert any(who is not None for who in expected.values())
    assert read_by(built) == expected
    if layout in ONE_NAME_LAYOUTS:
        # Each reference names a version postrender made (the data rolls it).
        configs = {d["metadata"]["name"]: d for d in built if d["kind"] == "ConfigMap"}
        assert all(versioned(configs[ref.name]) for ref in all_references(built))


# A base that runs postrender, and an overlay renaming its output that runs
# it again: kustomize renames the Secret's copy and its version alike but
# never the copy's `postrender.io/copy-of` (review62c).
COPIED = """\
apiVersion: v1
kind: Secret
metadata: {name: creds}
stringData: {pw: hunter2}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: c, image: x, envFrom: [{secretRef: {name: creds}}]}]
"""

PATCH_PW = """\
- target: {{kind: Secret, name: {name}}}
  patch: |
    - op: replace
      path: /stringData/pw
      value: hunter9
"""


def _overlaid(tmp_path: Path, mode: str, around: str, patched: tuple[str, ...]) -> subprocess.CompletedProcess:
    config = "apiVersion: postrender.io/v1alpha1\nkind: PostRender\nmetadata: {name: postrender}\n"
    for folder, text in {"base": "resources: [app.yaml]\n", "overlay": f"{around}\nresources: [../base]\n"}.items():
        where = tmp_path / folder
        where.mkdir()
        (where / "postrender.yaml").write_text(config)
        patches = "patches:\n" + "".join(PATCH_PW.format(name=name) for name in patched) if patched else ""
        (where / "kustomization.yaml").write_text(
            text + "transformers: [postrender.yaml]\n" + (patches if folder == "overlay" else ""))
    (tmp_path / "base" / "app.yaml").write_text(COPIED)
    home = _plugin_home(tmp_path, mode)
    (tmp_path / "tmp").mkdir()
    extra = {"KUSTOMIZE_PLUGIN_HOME": str(home), "XDG_CACHE_HOME": str(tmp_path / "cache"),
             "TMPDIR": str(tmp_path / "tmp")}
    command = [require_tool("kubectl"), "kustomize", str(tmp_path / "overlay"), "--enable-alpha-plugins"]
    return subprocess.run(command, capture_output=True, text=True, env=tool_env(**extra), start_new_session=True)


VERSION_WRITTEN = "creds-9b766bfc5b"  # the base's version of `creds`, pw hunter2


@pytest.mark.parametrize("mode", ["exec", "krm"])
@pytest.mark.parametrize("around, renamed", [("namePrefix: o-", "o-{}"), ("nameSuffix: -s", "{}-s")])
@pytest.mark.parametrize("patched", [(), ("creds", VERSION_WRITTEN)])
def test_an_overlay_renaming_a_base_copy_and_its_version_alike_repoints_the_copy(tmp_path, mode, around, renamed,
                                                                                  patched):
    built = _overlaid(tmp_path, mode, around, patched)
    assert built.returncode == 0, built.stderr
    docs = documents(built.stdout)
    (version,) = [d["metadata"]["name"] for d in docs
                  if (d["metadata"].get("labels") or {}).get("postrender.io/versioned") == "true"]
    copy = _named(docs, "Secret", renamed.format("creds"))
    assert _copy_of(copy) == version, "the copy-of names the version the build holds"
    assert (version == renamed.format(VERSION_WRITTEN)) == (not patched)
    assert copy["stringData"]["pw"] == _named(docs, "Secret", version)["stringData"]["pw"]


@pytest.mark.parametrize("mode", ["exec", "krm"])
@pytest.mark.parametrize("around, renamed", [("namePrefix: o-", "o-{}"), ("nameSuffix: -s", "{}-s")])
@pytest.mark.parametrize("patched", [("creds",), (VERSION_WRITTEN,)])
def test_an_overlay_editing_a_renamed_base_copy_apart_from_its_version_fails_the_build(tmp_path, mode, around,
                                                                                        renamed, patched):
    built = _overlaid(tmp_path, mode, around, patched)
    assert built.returncode != 0 and built.stdout == ""
    assert "hunter" not in built.stderr
    if mode == "exec":
        # The KRM bridge here hands on postrender's stderr alone; its error result is on stdout.
        assert f"Secret/{renamed.format('creds')}) line" in built.stderr and "holds other data" in built.stderr
