"""Properties of `postrender diff` over generated streams, and the Secret leak test.

Each side is written in its own independently drawn YAML style (flow or
block, quoting, comments, CRLF, a byte-order mark), so formatting alone must
never make anything roll. What must roll is taken from the render's own
decisions (render.analyse: the graph, the plan, held references, config-hash
places), never from a rule restated here.
"""

from __future__ import annotations

import base64
import copy
import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import manifest_strategies as ms
from conftest import run_postrender
from test_secrets_leak import FAULTS, _secret_block, forms, markers

from postrender.frontends.diff import formats
from postrender.frontends.diff.compare import compare
from postrender.frontends.diff.side import build
from postrender.pipeline.graph.references import pod_templates
from postrender.options import RenderOptions
from postrender.pipeline.plan.versions import base_name_of
from postrender.pipeline.read.documents import Source
from postrender.pipeline.render import analyse

SETTINGS = settings(max_examples=30, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _text(data: st.DataObject, stream: ms.Stream) -> str:
    _, text = data.draw(ms.written(st.just(stream)))
    return text


def _with(stream: ms.Stream, manifests: list[ms.Manifest]) -> ms.Stream:
    out = copy.deepcopy(stream)
    out.manifests = manifests
    return out


def _diff(old_text: str, new_text: str, *flags: str):
    """OLD from a file, NEW from standard input, as in a CI pipe."""
    with tempfile.TemporaryDirectory() as folder:
        old = Path(folder) / "old.yaml"
        old.write_text(old_text, encoding="utf-8", newline="")
        return run_postrender(["diff", *flags, str(old), "-"], new_text)


def _report(old_text: str, new_text: str) -> dict:
    result = _diff(old_text, new_text, "-o", "json")
    assert result.status == 0, result.stderr
    return json.loads(result.stdout)


@SETTINGS
@given(data=st.data(), value=st.sampled_from(["a", "b", "8080", "multi\nline\n"]))
def test_a_change_to_an_unreferenced_configmap_rolls_nothing(data, value):
    stream = data.draw(ms.streams())
    lonely = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "zz-lonely"}, "data": {"k": value}}
    changed = copy.deepcopy(lonely)
    changed["data"]["k"] = value + "-changed"
    old = _text(data, _with(stream, [*stream.manifests, ms.Manifest(lonely)]))
    new = _text(data, _with(stream, [*stream.manifests, ms.Manifest(changed)]))
    report = _report(old, new)
    assert report["rolls"] == [] and report["updated"] == []
    assert [(c["name"], c["keys"]["changed"]) for c in report["configChanges"]] == [("zz-lonely", ["k"])]
    (held,) = report["doesNotRoll"]
    assert held["workload"] is None and held["config"]["name"] == "zz-lonely"


@SETTINGS
@given(data=st.data())
def test_a_change_to_a_referenced_configmap_rolls_exactly_the_referrers_the_render_rolls(data):
    stream = data.draw(ms.streams())
    configs = [m for m in stream.manifests if m.body["kind"] == "ConfigMap"]
    target = data.draw(st.sampled_from(configs))
    # Two apps may share a name in different namespaces: the pair names one object.
    name, namespace = target.body["metadata"]["name"], target.body["metadata"].get("namespace")

    def side(value: str) -> ms.Stream:
        manifests = copy.deepcopy(stream.manifests)
        for m in manifests:
            meta = m.body["metadata"]
            if m.body["kind"] == "ConfigMap" and (meta["name"], meta.get("namespace")) == (name, namespace):
                m.body.setdefault("data", {})["zz-extra"] = value
        return _with(stream, manifests)

    old, new = _text(data, side("1")), _text(data, side("2"))
    analysis = analyse([Source(None, new)], RenderOptions())
    (config,) = [o for o in analysis.graph.config_objects
                 if o.kind == "ConfigMap" and (o.name, o.namespace) == (name, namespace)]
    version = analysis.plan.of(config)
    hashed = {id(p.obj) for p in analysis.config_hashes
              if any(item[:2] == ("ConfigMap", base_name_of(config)) for item in p.items)}
    expected = set()
    for ref in analysis.graph.references:
        referrer = ref.referrer
        if ref.target is not config or not ref.spec.consumes or id(ref) in analysis.policy.held:
            continue
        if pod_templates(referrer, analysis.table) and (version.versioned or id(referrer) in hashed):
            expected.add(_who(analysis, referrer))

    report = _report(old, new)
    assert {(r["kind"], r["namespace"], r["name"]) for r in report["rolls"]} == expected
    for roll in report["rolls"]:
        assert [(b["name"], b["namespace"], b["keys"]) for b in roll["because"]] == [
            (name, namespace, {"changed": ["zz-extra"], "added": [], "removed": []})]
        assert roll["changedFields"] == []
    users = {_who(analysis, r.referrer) for r in analysis.graph.references if r.target is config and r.spec.consumes}
    listed = {(h["workload"]["kind"], h["workload"]["namespace"], h["workload"]["name"])
              for h in report["doesNotRoll"] if h["workload"]}
    # Every user that does not roll is reported so; an object nothing uses is too.
    assert listed == users - expected
    assert (None in [h["workload"] for h in report["doesNotRoll"]]) == (not users)


def _who(analysis, obj) -> tuple[str, str | None, str]:
    """An object as the report names it: no namespace given is null."""
    namespace = analysis.graph.index.namespace_of(obj)
    return (obj.kind, namespace or None, obj.name)


def _changed_secret(stream: ms.Stream, old: str, new: str) -> ms.Stream:
    """The same stream with every form of one Secret value swapped for another."""
    encoded = {base64.b64encode(old.encode()).decode(): base64.b64encode(new.encode()).decode()}
    manifests = []
    for m in stream.manifests:
        text = json.dumps(m.body).replace(old, new)
        for before, after in encoded.items():
            text = text.replace(before, after)
        manifests.append(ms.Manifest(json.loads(text), m.source))
    return _with(stream, manifests)


@SETTINGS
@given(data=st.data(), old_marker=markers, new_marker=markers)
def test_secret_values_never_appear_in_any_format_even_with_show_values(data, old_marker, new_marker):
    assume(old_marker != new_marker)
    stream = data.draw(ms.streams(old_marker))
    changed = _changed_secret(stream, old_marker, new_marker)
    # A ConfigMap changes too, so --show-values has values to show.
    for m in changed.manifests:
        if m.body["kind"] == "ConfigMap":
            m.body.setdefault("data", {})["zz-shown"] = "visible"
            break
    old, new = _text(data, stream), _text(data, changed)
    secrets = forms(old_marker) + forms(new_marker)
    # The command line, with everything that writes to stderr turned on...
    result = _diff(old, new, "-o", "json", "--show-values", "-v", "--exit-code")
    assert result.status in (0, 1), result.stderr
    for secret in secrets:
        assert secret not in result.stdout and secret not in result.stderr
    report = json.loads(result.stdout)
    assert any(c["kind"] == "Secret" and c["keys"]["changed"] == ["token"] for c in report["configChanges"])
    # ...and the same report in every format there is, with values and without.
    sides = [build(label, [Source(None, text)], RenderOptions()) for label, text in (("old", old), ("new", new))]
    for show_values in (True, False):
        model = compare(*sides, show_values=show_values)
        for fmt in formats.names():
            text = formats.write(model, fmt)
            for secret in secrets:
                assert secret not in text, (fmt, show_values)
            assert ("visible" in text) == show_values, fmt


@SETTINGS
@given(data=st.data(), marker=markers, fault=st.sampled_from(FAULTS), side=st.sampled_from(["old", "new"]))
def test_secret_values_never_appear_in_a_diff_error(data, marker, fault, side):
    stream = data.draw(ms.streams())
    good = _text(data, stream)
    broken = good + "\n---\n" + _secret_block(marker, fault)
    old, new = (broken, good) if side == "old" else (good, broken)
    result = _diff(old, new, "-o", "markdown", "--show-values", "-v")
    assert result.status == 1, result.stderr
    assert result.stdout == ""
    assert result.stderr.startswith(f"postrender: error: {side} (")
    for secret in forms(marker):
        assert secret not in result.stderr
