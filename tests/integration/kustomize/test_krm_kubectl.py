"""The KRM recipe under kubectl's built-in kustomize (tests/unit/frontends/test_krm.py
has the KRM function itself, which needs no tool)."""

from __future__ import annotations

import subprocess

from conftest import require_tool
from manifests import documents, tool_env, venv_bin


def load(text: str) -> dict:
    (document,) = documents(text)
    return document


def test_kubectls_kustomize_silently_skips_the_krm_recipe(tmp_path):
    """Why the README warns that the KRM recipe needs the standalone
    kustomize: kubectl has no --enable-exec, and with --enable-alpha-plugins
    alone it returns the input unchanged, exit 0. If kubectl ever runs exec
    functions, this fails and the README must change."""
    kubectl = require_tool("kubectl")
    (tmp_path / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {k: v}\n")
    (tmp_path / "kustomization.yaml").write_text(
        "resources: [cm.yaml]\ntransformers:\n  - |-\n    apiVersion: postrender.io/v1alpha1\n    kind: PostRender\n"
        "    metadata:\n      name: postrender\n      annotations:\n        config.kubernetes.io/function: |\n"
        f"          exec:\n            path: {venv_bin()}/postrender\n    namespace: shop\n"
    )
    assert "--enable-exec" not in subprocess.run([kubectl, "kustomize", "--help"], capture_output=True,
                                                  text=True).stdout
    result = subprocess.run([kubectl, "kustomize", "--enable-alpha-plugins", str(tmp_path)], capture_output=True,
                            text=True, env=tool_env())
    assert result.returncode == 0, result.stderr
    assert load(result.stdout)["metadata"]["name"] == "c"  # not versioned: the function never ran
