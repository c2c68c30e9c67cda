"""References in fields the API server never lets change, against a real one.

A StorageClass's parameters and a PersistentVolume's volume source are fixed
once created (ValidateStorageClassUpdate, ValidatePersistentVolumeUpdate).
A Secret they name whose content changes must not give them a new name, or
the next apply fails: `updates to parameters are forbidden`,
`spec.persistentvolumesource is immutable after creation`. Every such field
spec in the built-in table is exercised: a StorageClass holding every
StorageClass parameter, and one PersistentVolume per volume source. A
Deployment reads the same Secret, so it is versioned, and rolls.
"""

from __future__ import annotations

import json

import pytest

from postrender import fieldspecs

from .kit import Kube

TABLE = fieldspecs.load_table()
SPECS = [s for s in TABLE.specs if s.kind in ("StorageClass", "PersistentVolume") and s.target_kind == "Secret"]

# What each volume source needs besides its Secret to pass validation.
# A source the table gains without an entry here fails the test.
SOURCES = {
    "csi": {"driver": "csi.example.com", "volumeHandle": "vol-1"},
    "cephfs": {"monitors": ["10.0.0.1:6789"]},
    "rbd": {"monitors": ["10.0.0.1:6789"], "image": "img"},
    "iscsi": {"targetPortal": "10.0.0.1:3260", "iqn": "iqn.2001-04.com.example:storage", "lun": 0},
    "flexVolume": {"driver": "example.com/flex"},
    "scaleIO": {"gateway": "https://gw", "system": "sys", "volumeName": "vol"},
    "storageos": {"volumeName": "vol"},
    "azureFile": {"shareName": "share"},
    "cinder": {"volumeID": "vol-1"},
}
# Fields newer than the test's API server (1.20), which drops them; the
# render still gets them.
NEWER = {"nodeExpandSecretRef"}  # Kubernetes 1.25


def _leaf_key(spec: fieldspecs.FieldSpec) -> str:
    return spec.path[-1].key


def _stream(kube: Kube, password: str) -> str:
    ns = kube.namespace
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "creds", "namespace": ns},
              "stringData": {"password": password}}
    parameters: dict[str, str] = {}
    volumes: dict[str, dict] = {}
    for spec in SPECS:
        if spec.kind == "StorageClass":
            parameters[_leaf_key(spec)] = "creds"
            if spec.namespace_field:
                parameters[spec.namespace_field] = ns
            continue
        source_name = spec.path[1].key  # spec/<source>/...
        source = volumes.setdefault(source_name, dict(SOURCES[source_name]))
        holder = source
        for segment in spec.path[2:-1]:
            holder = holder.setdefault(segment.key, {})
        holder[_leaf_key(spec)] = "creds"
        if spec.namespace_field:
            holder[spec.namespace_field] = ns
    storage_class = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": f"{ns}-fast"},
                     "provisioner": "csi.example.com", "parameters": parameters}
    pvs = [{"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": f"{ns}-{source_name.lower()}"},
            "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], source_name: source}}
           for source_name, source in sorted(volumes.items())]
    web = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": ns},
           "spec": {"selector": {"matchLabels": {"app": "web"}},
                    "template": {"metadata": {"labels": {"app": "web"}},
                                 "spec": {"containers": [{"name": "web", "image": "web:1",
                                                          "envFrom": [{"secretRef": {"name": "creds"}}]}]}}}}
    return "---\n".join(json.dumps(d) + "\n" for d in [secret, storage_class, *pvs, web])


def test_every_source_and_parameter_is_covered():
    """Guards the test below: it must see every row of the class."""
    assert {s.kind for s in SPECS} == {"StorageClass", "PersistentVolume"}
    assert {s.path[1].key for s in SPECS if s.kind == "PersistentVolume"} == set(SOURCES)


@pytest.mark.parametrize("flags", [[], ["--keep-original=none"]])
def test_a_changed_secret_never_renames_it_in_a_field_the_api_server_fixes(kube: Kube, flags: list[str]):
    for password in ("one", "two"):
        render = kube.postrender(["-n", kube.namespace, *flags], _stream(kube, password))
        assert render.status == 0, render.stderr
        applied = kube.kubectl("apply", "--validate=false", "-f", "-", input=render.stdout, check=False)
        assert applied.returncode == 0, applied.stderr  # was: updates to parameters are forbidden
    ns = kube.namespace
    storage_class = kube.get("storageclass", f"{ns}-fast", namespace="")
    assert {v for k, v in storage_class["parameters"].items() if not k.endswith("amespace")} == {"creds"}
    for spec in SPECS:
        if spec.kind == "PersistentVolume":
            pv = kube.get("persistentvolume", f"{ns}-{spec.path[1].key.lower()}", namespace="")
            if spec.path[-2].key in NEWER:
                continue
            holder = pv["spec"]
            for segment in spec.path[1:-1]:
                holder = holder[segment.key]
            assert holder[_leaf_key(spec)] == "creds", spec.path_text
    # What they name holds what the chart says now; the Deployment rolled to a version of it.
    creds = kube.get("secret", "creds")
    assert creds["data"]["password"] == "dHdv"  # "two"
    env_from = kube.get("deployment", "web")["spec"]["template"]["spec"]["containers"][0]["envFrom"]
    version = env_from[0]["secretRef"]["name"]
    assert version.startswith("creds-") and kube.get("secret", version)["data"]["password"] == "dHdv"
