"""Workloads whose container flags name a Secret a program reads by name:
what config_hashes and broken.find hold for them while they run, measured
with tracemalloc per workload (the bench's flag-named-25000 is this stream)."""

import io
import tracemalloc

import pytest

from postrender.cli import parse, render_options
from postrender.errors import Problems
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


def _measuring_peak(call, peaks: dict[str, float], name: str):
    """`call`, putting in peaks[name] how far its peak rose over what was
    held when it was called, in bytes a workload."""

    def wrapper(*args, **kwargs):
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        try:
            return call(*args, **kwargs)
        finally:
            peaks[name] = (tracemalloc.get_traced_memory()[1] - before) / _N
    return wrapper


def _peaks(monkeypatch) -> tuple[dict[str, float], str]:
    """Bytes a workload each call's peak rose over what was held when it was called."""
    peaks: dict[str, float] = {}

    def measured(module, name):
        monkeypatch.setattr(module, name, _measuring_peak(getattr(module, name), peaks, name))

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


def _released(text: str, argv: list[str], monkeypatch) -> tuple[dict[str, float], object, str]:
    """A render as the command line makes it (release=True), with what it
    held when rewrite was called and how far build's peak rose over what
    was held when it was called, in bytes a workload; its result and stderr."""
    from postrender.pipeline import render as render_module

    measured: dict[str, float] = {}

    def at_rewrite(*args, **kwargs):
        measured["rewrite"] = tracemalloc.get_traced_memory()[0] / _N
        return rewrite(*args, **kwargs)

    rewrite = render_module.rewrite
    build_peak = _measuring_peak(render_module.build, measured, "build")
    # The caches a first render fills are filled before, whatever ran first.
    render([Source("warm.yaml", _APP.format(i=0))], render_options(parse(argv)), Reporter(stderr=io.StringIO()),
           release=True)
    stderr = io.StringIO()
    # Measured in this render only (a render after it would measure again).
    with monkeypatch.context() as patched:
        patched.setattr(render_module, "rewrite", at_rewrite)
        patched.setattr(render_module, "build", build_peak)
        tracemalloc.start()
        try:
            result = render([Source("input.yaml", text)], render_options(parse(argv)), Reporter(stderr=stderr),
                            release=True)
        finally:
            tracemalloc.stop()
    return measured, result, stderr.getvalue()


def test_a_released_render_keeps_only_the_readers_it_may_report(monkeypatch):
    text = "".join(_APP.format(i=i) for i in range(_N))
    measured, result, _ = _released(text, [], monkeypatch)
    assert result.output.count("postrender.io/config-hash") == _N
    # Each Secret keeps its name, so broken.find reports none of the 2 * _N
    # readers: none is held past analyse (the graph view, no release, shows them).
    assert result.analysis.by_name.readers == []
    kept = render([Source("input.yaml", text)], render_options(parse([])), Reporter(stderr=io.StringIO()))
    assert len(kept.analysis.by_name.readers) == 2 * _N
    # Held when rewrite is called (the stream and all): about 3,360 bytes a
    # workload with every reader and the scalars they name, some 2,900 with none.
    assert measured["rewrite"] < 3130, measured
    # build let go of each object's Found from read only after its end,
    # beside the strings it gathers (some 750 bytes a workload over what it
    # was called with); let go of as each object is built, some 265.
    assert measured["build"] < 550, measured


def test_a_released_render_still_reports_a_reader_whose_target_is_lost(monkeypatch):
    # Opted in, the Secret is versioned anyway, and with no copy the flag
    # naming it (one the guard has no row for) names nothing: the reader
    # kept past analyse reports it.
    opted = (_APP.format(i=0).replace("  name: sec0\n", "  name: sec0\n  labels: {postrender.io/versioned: \"true\"}\n")
             .replace('"--secret-name=sec0", ', '"--source=sec0", '))
    text = opted + "".join(_APP.format(i=i) for i in range(1, _N))
    with pytest.raises(Problems) as refused:
        _released(text, ["--keep-original=none"], monkeypatch)
    messages = [problem.message for problem in refused.value.problems()]
    assert any("names Secret 'sec0', which a program reads by that name" in m for m in messages), messages
