"""Workloads whose container flags name a Secret a program reads by name:
what config_hashes and broken.find hold for them while they run, measured
with tracemalloc per workload (the bench's flag-named-25000 is this stream)."""

import io
import tracemalloc

from postrender.cli import parse, render_options
from postrender.pipeline.check import broken
from postrender.pipeline.plan import config_hash
from postrender.pipeline.read.documents import Source
from postrender.pipeline.render import render
from postrender.report import Reporter

_N = 2000
_APP = """\
---
apiVersion: v1
kind: Secret
metadata:
  name: sec{i}
stringData:
  k: v{i}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: app{i}
spec:
  selector: {{matchLabels: {{app: a}}}}
  template:
    metadata: {{labels: {{app: a}}}}
    spec:
      containers:
      - name: c
        image: nginx
        args: ["--secret-name=sec{i}", "--tls-secret=sec{i}", "--ca-secret=sec{i}"]
"""


def _peaks(monkeypatch) -> tuple[dict[str, float], str]:
    """Bytes a workload each call's peak rose over what was held when it was called."""
    peaks: dict[str, float] = {}

    def measured(module, name):
        call = getattr(module, name)

        def wrapper(*args, **kwargs):
            before = tracemalloc.get_traced_memory()[0]
            tracemalloc.reset_peak()
            try:
                return call(*args, **kwargs)
            finally:
                peaks[name] = (tracemalloc.get_traced_memory()[1] - before) / _N
        monkeypatch.setattr(module, name, wrapper)

    measured(config_hash, "config_hashes")
    measured(broken, "find")
    text = "".join(_APP.format(i=i) for i in range(_N))
    tracemalloc.start()
    try:
        output = render([Source("input.yaml", text)], render_options(parse([])), Reporter(stderr=io.StringIO())).output
    finally:
        tracemalloc.stop()
    return peaks, output


def test_flag_readers_cost_little_at_config_hashes_and_broken_find(monkeypatch):
    peaks, output = _peaks(monkeypatch)
    # Every Secret keeps its name and each workload gets a hash over it.
    assert output.count("postrender.io/config-hash") == _N
    assert "name: sec7\n" in output
    # A workload's place held two dicts as it was gathered (about 960
    # bytes a workload at this call's peak); now one (some 730).
    assert peaks["config_hashes"] < 850, peaks
    # Each reader was remembered as seen, its target kept or not (about
    # 240 bytes a workload); now only one whose target is lost (some 80).
    assert peaks["find"] < 160, peaks
