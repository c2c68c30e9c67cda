"""ConfigMaps a controller reads through the API by a name built into it
(fieldspecs/fixednames.yaml) keep that name even under --version-all: no
field names them, so a renamed one is read by nobody and the controller
falls back to its defaults, with exit 0 (crd60: Knative's config-network,
Argo Workflows' artifact-repositories)."""

import pytest
from ruamel.yaml import YAML

from conftest import run_postrender


def _config(name: str, namespace: str | None, labels: str = "") -> str:
    ns = f", namespace: {namespace}" if namespace else ""
    labels = f", labels: {{{labels}}}" if labels else ""
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {name}{ns}{labels}}}\ndata: {{k: v}}\n"


def _names(stream: str) -> list[str]:
    result = run_postrender(["--version-all", "--keep-original=none"], stream)
    assert result.status == 0, result.stderr
    return [d["metadata"]["name"] for d in YAML(typ="safe").load_all(result.stdout) if d]


@pytest.mark.parametrize("name, namespace, labels", [
    ("config-network", "knative-serving", ""),
    ("config-domain", "knative-serving", ""),
    ("config-autoscaler", "knative-serving", ""),
    ("config-features", "knative-eventing", ""),
    ("config-br-defaults", "knative-eventing", ""),
    ("default-ch-webhook", "knative-eventing", ""),
    ("artifact-repositories", "argo", ""),
    ("artifact-repositories", None, ""),
    ("coredns-custom", "kube-system", ""),
    ("my-restore-plugin-config", "velero", "velero.io/plugin-config: '', velero.io/change-pvc-node-selector: RestoreItemAction"),
])
def test_a_name_a_controller_knows_is_kept(name, namespace, labels):
    assert _names(_config(name, namespace, labels)) == [name]


@pytest.mark.parametrize("name, namespace", [
    ("config-network", "shop"),  # not Knative's system namespace
    ("config-network", None),
    ("network", "knative-serving"),
    ("coredns-custom", "shop"),
    ("my-restore-plugin-config", "velero"),  # without the plugin label
])
def test_the_same_name_elsewhere_is_versioned(name, namespace):
    (written,) = _names(_config(name, namespace))
    assert written.startswith(f"{name}-") and written != name
