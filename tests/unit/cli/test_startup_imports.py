"""What a plain render imports: a small chart's render is mostly start-up,
so a module it does not use costs every Helm run (pathlib, with
urllib.parse, ipaddress and ntpath behind it, was 5% of one). Run without
`site`, as the editable install's finder imports pathlib itself; a user's
`pip install` has no such finder."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import ruamel.yaml

ROOT = Path(__file__).resolve().parents[3]
SITE_PACKAGES = Path(ruamel.yaml.__file__).resolve().parents[2]

STREAM = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  a: b
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: app
spec:
  template:
    spec:
      containers:
      - name: app
        image: nginx
        envFrom:
        - configMapRef:
            name: settings
"""

# Modules a render of workloads and configs has no use for.
NOT_FOR_A_RENDER = ("pathlib", "urllib.parse", "ipaddress", "tempfile", "shutil", "dataclasses", "inspect",
                    "postrender.frontends.krm", "postrender.frontends.kustomize_exec", "postrender.frontends.diff",
                    "postrender.frontends.graph", "postrender.cluster")

PROBE = """\
import io, sys
sys.stdin = io.TextIOWrapper(io.BytesIO(sys.argv[1].encode()))
from postrender.cli import main
status = main([])
print(status, " ".join(sorted(sys.modules)), file=sys.stderr)
"""


def test_a_plain_render_imports_none_of_what_it_does_not_use():
    env = {"PYTHONPATH": os.pathsep.join([str(ROOT), str(SITE_PACKAGES)]), "PATH": os.environ.get("PATH", "")}
    done = subprocess.run([sys.executable, "-S", "-c", PROBE, STREAM], capture_output=True, text=True, env=env,
                          timeout=60)
    assert done.returncode == 0 and "name: settings-" in done.stdout, done.stderr
    status, *imported = done.stderr.split()
    assert status == "0", done.stderr
    assert "postrender.pipeline.render" in imported and "ruamel.yaml" in imported
    imported = set(imported)
    assert not {name for name in imported for unused in NOT_FOR_A_RENDER
                if name == unused or name.startswith(unused + ".")}
