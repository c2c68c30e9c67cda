"""postrender over the output of `kubectl kustomize` (an Argo CD plugin or a CI
step that runs kustomize, then postrender): what kustomize's generators named
`<name>-<content hash>` keeps that name, with every reference to it, and the
rest is versioned as usual. The real kustomize is the oracle for the names,
kubectl for what the output means.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from conftest import FIXTURES, require_tool, run_postrender
from manifests import configs, documents, tool_env, unresolved, versioned
from oracles import kubectl_read

KUSTOMIZATION = """\
namePrefix: pre-
# Every name kustomize does not suffix still ends in ten hash-like characters.
nameSuffix: -7g2k9m8h5t
namespace: team
labels:
  - pairs: {app: web}
    includeSelectors: true
configMapGenerator:
  - name: app-config
    literals:
      - LOG=debug
      - "on=on"
      - "yes=1"
      - ts=2001-12-14
      - 'html=<b> & "q"'
      - unicode=héllo ✓
  - name: files
    files: [app.properties, blob.bin]
    options:
      labels: {tier: backend, postrender.io/versioned: "true"}
      annotations: {note: from-generator}
  - name: empty
  - name: nohash
    literals: [a=b]
    options: {disableNameSuffixHash: true}
secretGenerator:
  - name: app-secret
    literals: [password=hunter2]
  - name: tls
    type: kubernetes.io/tls
    literals: [tls.crt=c, tls.key=k]
  - name: patched
    literals: [a=b]
resources: [resources.yaml]
patches:
  - patch: |
      apiVersion: v1
      kind: Secret
      metadata: {name: patched}
      stringData: {extra: added-by-a-patch}
"""

RESOURCES = """\
# kustomize suffixes a resource so annotated, hashing it as written.
apiVersion: v1
kind: Secret
metadata:
  name: annotated
  annotations: {internal.config.kubernetes.io/needsHashSuffix: enabled}
stringData: {token: abc}
---
# Ends, with nameSuffix, in ten hash-like characters that are not its hash.
apiVersion: v1
kind: ConfigMap
metadata: {name: release}
data: {a: b}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {}
  template:
    spec:
      containers:
        - name: c
          image: nginx
          envFrom:
            - configMapRef: {name: app-config}
            - secretRef: {name: app-secret}
            - secretRef: {name: patched}
            - secretRef: {name: annotated}
            - configMapRef: {name: release}
          env:
            - name: LOG
              valueFrom: {configMapKeyRef: {name: app-config, key: LOG}}
      volumes:
        - {name: f, configMap: {name: files}}
        - {name: e, configMap: {name: empty}}
        - {name: n, configMap: {name: nohash}}
        - {name: t, secret: {secretName: tls}}
"""

# What kustomize names `<base>-<hash>`, by kind and base.
SUFFIXED = {(kind, f"pre-{name}-7g2k9m8h5t") for kind, name in [
    ("ConfigMap", "app-config"), ("ConfigMap", "files"), ("ConfigMap", "empty"),
    ("Secret", "app-secret"), ("Secret", "tls"), ("Secret", "patched"), ("Secret", "annotated"),
]}
# What postrender versions: kustomize left them unsuffixed.
PLAIN = {("ConfigMap", "pre-nohash-7g2k9m8h5t"), ("ConfigMap", "pre-release-7g2k9m8h5t")}
DEPLOYMENT = "pre-web-7g2k9m8h5t"
HASHED = re.compile(r"(?P<base>.+)-(?P<hash>[a-z0-9]{10})")


def kustomize(path: Path) -> str:
    kubectl = require_tool("kubectl")
    result = subprocess.run([kubectl, "kustomize", str(path)], capture_output=True, text=True, env=tool_env())
    assert result.returncode == 0, result.stderr
    return result.stdout


def build(tmp_path: Path) -> str:
    (tmp_path / "kustomization.yaml").write_text(KUSTOMIZATION)
    (tmp_path / "resources.yaml").write_text(RESOURCES)
    (tmp_path / "app.properties").write_text("a=1\nb=<2>\n")
    (tmp_path / "blob.bin").write_bytes(bytes(range(256)))
    return kustomize(tmp_path)


def read_by_kubectl(text: str) -> dict[str, dict]:
    objects, errors = kubectl_read({"stream": text})
    assert not errors, errors
    return objects


def named_back(value, names: dict[str, str]):
    """`value` with every string that is a key of `names` put back to its value."""
    if isinstance(value, dict):
        return {key: named_back(item, names) for key, item in value.items()}
    if isinstance(value, list):
        return [named_back(item, names) for item in value]
    return names.get(value, value) if isinstance(value, str) else value


def test_kustomize_suffixed_objects_keep_their_names_and_references(tmp_path):
    built = build(tmp_path)
    names = set(configs(documents(built)))
    kustomized = {}  # (kind, base) -> kustomize's name
    for kind, name in names:
        match = HASHED.fullmatch(name)
        if match and (kind, match.group("base")) in SUFFIXED:
            kustomized[(kind, match.group("base"))] = name
    assert set(kustomized) == SUFFIXED, names
    assert names - {(kind, name) for (kind, _), name in kustomized.items()} == PLAIN

    out = run_postrender(["-v"], built)
    assert out.status == 0, out.stderr
    docs = documents(out.stdout)
    result = configs(docs)
    for (kind, _), name in kustomized.items():
        assert (kind, name) in result and not versioned(result[(kind, name)])
        assert f"{kind}/team/{name} keeps its name: its name already ends in its content hash (-{name[-10:]})" in out.stderr
    # No second suffix anywhere.
    assert not [name for _, name in result if HASHED.fullmatch(name)
                and HASHED.fullmatch(name).group("base") in kustomized.values()]
    # Versioned: what kustomize left unsuffixed, look-alike names included.
    renamed = {}  # postrender's name -> the name kustomize gave
    for kind, name in PLAIN:
        (new,) = [n for (k, n), d in result.items() if k == kind and n.startswith(name + "-") and versioned(d)]
        renamed[new] = name
    assert unresolved(docs) == []

    # kubectl reads the input plus exactly the intended edits.
    before, after = read_by_kubectl(built), read_by_kubectl(out.stdout)
    assert set(after) == (set(before) - set(renamed.values())) | set(renamed)
    for _, name in kustomized.items():
        assert after[name] == before[name]
    for new, old in renamed.items():
        marks = {key: value for key, value in after[new]["metadata"]["labels"].items() if key.startswith("postrender.io/")}
        assert set(marks) == {"postrender.io/versioned", "postrender.io/base-name", "postrender.io/content-hash"}
        expected = before[old]
        expected["metadata"]["name"] = new
        expected["metadata"]["labels"] = {**expected["metadata"]["labels"], **marks}
        expected["immutable"] = True
        assert after[new] == expected
    assert after[DEPLOYMENT] != before[DEPLOYMENT]
    assert named_back(after[DEPLOYMENT], renamed) == before[DEPLOYMENT]

    again = run_postrender([], out.stdout)
    assert again.stdout == out.stdout


def test_the_hash_fixture_as_kustomize_builds_it_goes_through_unchanged():
    """Generators whose content stresses the hash (Go's JSON escapes,
    U+2028, non-ASCII, binary, Secret types): even with --version-all, every
    name is already kustomize's, so postrender changes no byte."""
    built = kustomize(FIXTURES / "kustomize" / "hash")
    out = run_postrender(["-v", "--version-all"], built)
    assert out.status == 0, out.stderr
    assert out.stdout == built
    assert out.stderr.count("keeps its name: its name already ends in its content hash") == len(configs(documents(built)))
