"""Running postrender on its own output changes nothing, over streams richer
than test_properties.streams(): a name held in several namespaces or in
none, configs that opt in or out or hold no data, programs that read a
config by a name given as a flag, Reloader's annotations, grants by name
(RBAC resourceNames, namespaced and cluster-wide), a cluster-scoped
referrer, and the flags that change what a run decides. Each defect this
found was a decision the first run made on the names it read that the
second run, reading the names the first one wrote, made otherwise (a
name matching the one config left holding it, a grant gaining a version's
name again, a config hash covering fewer configs)."""

from __future__ import annotations

import base64
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import run_postrender

NAMES = ["cfg", "db", "x"]
NAMESPACES = [None, "a", "b"]
FLAG_SETS = [
    [],
    ["--allow-broken-references"],
    ["--allow-broken-references", "--keep-original=none"],
    ["--allow-broken-references", "--keep-original=all"],
    ["--allow-broken-references", "--keep-previous", "argocd"],
    ["--allow-broken-references", "--keep-previous", "helm", "--version-all"],
    ["--allow-broken-references", "--strategy", "annotate"],
    ["--allow-broken-references", "--mutable"],
    ["--allow-broken-references", "-n", "a"],
]


def _metadata(draw, name: str, namespace_choices=NAMESPACES, annotations: dict | None = None) -> dict:
    meta: dict = {"name": name}
    namespace = draw(st.sampled_from(namespace_choices))
    if namespace:
        meta["namespace"] = namespace
    if annotations:
        meta["annotations"] = annotations
    return meta


@st.composite
def configs(draw) -> dict:
    kind = draw(st.sampled_from(["ConfigMap", "Secret"]))
    annotations = {}
    opted = draw(st.sampled_from([None, None, None, "true", "false"]))
    if opted:
        annotations["postrender.io/versioned"] = opted
    if draw(st.integers(0, 9)) == 0:
        annotations["postrender.io/keep-original"] = "true"
    obj = {"apiVersion": "v1", "kind": kind, "metadata": _metadata(draw, draw(st.sampled_from(NAMES)),
                                                                     annotations=annotations)}
    data = draw(st.sampled_from([None, {}, {"k": "v"}, {"k": "w"}, {"k": "v", "j": "u"}]))
    if data is not None:
        if kind == "Secret":
            obj["data"] = {k: base64.b64encode(v.encode()).decode() for k, v in data.items()}
        else:
            obj["data"] = data
    return obj


def _pod_spec(draw) -> dict:
    name = draw(st.sampled_from(NAMES))
    config_map = draw(st.booleans())
    how = draw(st.sampled_from(["envFrom", "env", "volume", "projected", "pull", "flag"]))
    container: dict = {"name": "c", "image": "x"}
    spec: dict = {"containers": [container]}
    if how == "envFrom":
        container["envFrom"] = [{"configMapRef" if config_map else "secretRef": {"name": name}}]
    elif how == "env":
        key = "configMapKeyRef" if config_map else "secretKeyRef"
        container["env"] = [{"name": "E", "valueFrom": {key: {"name": name, "key": "k"}}}]
    elif how == "volume":
        spec["volumes"] = [{"name": "v", "configMap": {"name": name}} if config_map
                           else {"name": "v", "secret": {"secretName": name}}]
    elif how == "projected":
        spec["volumes"] = [{"name": "v", "projected": {"sources": [{"configMap" if config_map else "secret":
                                                                    {"name": name}}]}}]
    elif how == "pull":
        spec["imagePullSecrets"] = [{"name": name}]
    else:  # a program that reads the config by name (graph/byname.py)
        container["args"] = [draw(st.sampled_from(["--configmap-name", "--tls-secret", "--config"])), name]
    return spec


@st.composite
def referrers(draw, index: int) -> dict:
    shape = draw(st.sampled_from(["Deployment", "Deployment", "Pod", "Role", "ClusterRole",
                                  "ClusterAnalysisTemplate"]))
    name = f"r{index}"
    if shape in ("Role", "ClusterRole"):
        resource = draw(st.sampled_from(["configmaps", "secrets"]))
        rule = {"apiGroups": [""], "resources": [resource], "resourceNames": [draw(st.sampled_from(NAMES))],
                "verbs": [draw(st.sampled_from(["get", "update"]))]}
        meta = _metadata(draw, name) if shape == "Role" else {"name": name}
        return {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": shape, "metadata": meta, "rules": [rule]}
    spec = _pod_spec(draw)
    if shape == "ClusterAnalysisTemplate":  # cluster-scoped: its names are looked up in every namespace
        return {"apiVersion": "argoproj.io/v1alpha1", "kind": shape, "metadata": {"name": name},
                "spec": {"metrics": [{"name": "m", "provider": {"job": {"spec": {"template": {"spec": spec}}}}}]}}
    annotations = None
    reload = draw(st.sampled_from([None, None, "configmap.reloader.stakater.com/reload",
                                   "secret.reloader.stakater.com/reload", "reloader.stakater.com/auto"]))
    if reload:
        annotations = {reload: "true" if reload.endswith("auto") else draw(st.sampled_from(NAMES))}
    meta = _metadata(draw, name, annotations=annotations)
    if shape == "Pod":
        return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta, "spec": {"template": {"spec": spec}}}


@st.composite
def streams(draw) -> str:
    objects, seen = [], set()
    for obj in draw(st.lists(configs(), min_size=1, max_size=4)):
        key = (obj["kind"], obj["metadata"].get("namespace"), obj["metadata"]["name"])
        if key not in seen:  # one object per identity: a duplicate is refused
            seen.add(key)
            objects.append(obj)
    objects += [draw(referrers(i)) for i in range(draw(st.integers(1, 4)))]
    return "".join("---\n" + json.dumps(obj) + "\n" for obj in draw(st.permutations(objects)))


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(streams(), st.sampled_from(FLAG_SETS))
def test_a_second_run_writes_what_the_first_did(stream, flags):
    once = run_postrender(flags, stream)
    if once.status != 0:
        return  # refused (a broken reference without the flag that allows it): nothing written to run again
    twice = run_postrender(flags, once.stdout)
    assert twice.status == 0, twice.stderr
    assert twice.stdout == once.stdout
