"""Properties of the renderer over generated manifest streams."""

from __future__ import annotations

import base64
import io
import json
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from conftest import run_postrender

NAMES = ["app", "cfg", "db", "web-config", "x"]
NAMESPACES = [None, "a", "b"]
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

text_values = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=12)

# ruamel writes YAML 1.2, where `Y`, `on` or `0755` are strings; Kubernetes
# reads YAML 1.1 (go-yaml v2), where they are not. Quote every string that
# could be read otherwise: a bool/null word, or anything starting like a number.
_YAML11_MAY_NOT_BE_STRING = re.compile(
    r"^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF"
    r"|~|null|Null|NULL|[-+.0-9].*)$", re.S
)


def _yaml11_writer() -> YAML:
    yaml = YAML()

    def represent_str(representer, value):
        style = '"' if _YAML11_MAY_NOT_BE_STRING.match(value) else None
        return representer.represent_scalar("tag:yaml.org,2002:str", value, style=style)

    yaml.representer.add_representer(str, represent_str)
    return yaml


@st.composite
def config_object(draw):
    kind = draw(st.sampled_from(["ConfigMap", "Secret"]))
    meta = {"name": draw(st.sampled_from(NAMES))}
    ns = draw(st.sampled_from(NAMESPACES))
    if ns:
        meta["namespace"] = ns
    keys = draw(st.lists(st.sampled_from(["a", "b.conf", "KEY", "x_y"]), unique=True, max_size=3))
    values = [draw(text_values) for _ in keys]
    obj = {"apiVersion": "v1", "kind": kind, "metadata": meta}
    if kind == "ConfigMap":
        obj["data"] = dict(zip(keys, values))
    else:
        obj["type"] = "Opaque"
        obj["data"] = {k: base64.b64encode(v.encode()).decode() for k, v in zip(keys, values)}
    return obj


def _container(draw, kind):
    ref = draw(st.sampled_from(NAMES))
    how = draw(st.sampled_from(["envFrom", "env", "volume"]))
    if how == "envFrom":
        key = "configMapRef" if kind == "ConfigMap" else "secretRef"
        return {"name": "c", "image": "x", "envFrom": [{key: {"name": ref}}]}, None
    if how == "env":
        key = "configMapKeyRef" if kind == "ConfigMap" else "secretKeyRef"
        return {"name": "c", "image": "x", "env": [{"name": "E", "valueFrom": {key: {"name": ref, "key": "a"}}}]}, None
    volume = {"name": "v", "configMap": {"name": ref}} if kind == "ConfigMap" else {"name": "v", "secret": {"secretName": ref}}
    return {"name": "c", "image": "x"}, volume


@st.composite
def workload(draw, index):
    kind = draw(st.sampled_from(["ConfigMap", "Secret"]))
    container, volume = _container(draw, kind)
    pod_spec = {"containers": [container]}
    if volume:
        pod_spec["volumes"] = [volume]
    meta = {"name": f"w{index}"}
    ns = draw(st.sampled_from(NAMESPACES))
    if ns:
        meta["namespace"] = ns
    shape = draw(st.sampled_from(["Deployment", "Pod", "CronJob", "Service"]))
    if shape == "Pod":
        return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": pod_spec}
    if shape == "CronJob":
        return {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": meta,
                "spec": {"schedule": "* * * * *", "jobTemplate": {"spec": {"template": {"spec": pod_spec}}}}}
    if shape == "Service":
        return {"apiVersion": "v1", "kind": "Service", "metadata": meta, "spec": {"ports": [{"port": 80}]}}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta, "spec": {"template": {"spec": pod_spec}}}


@st.composite
def streams(draw):
    configs = draw(st.lists(config_object(), max_size=5))
    seen, unique = set(), []
    for obj in configs:
        key = (obj["kind"], obj["metadata"].get("namespace"), obj["metadata"]["name"])
        if key not in seen:
            seen.add(key)
            unique.append(obj)
    workloads = [draw(workload(i)) for i in range(draw(st.integers(0, 4)))]
    objects = draw(st.permutations(unique + workloads))
    parts = []
    for obj in objects:
        style = draw(st.sampled_from(["block", "json", "helm"]))
        if style == "json":
            parts.append("---\n" + json.dumps(obj, ensure_ascii=False) + "\n")
        else:
            buf = io.StringIO()
            _yaml11_writer().dump(obj, buf)
            prefix = "---\n# Source: chart/templates/x.yaml\n" if style == "helm" else "---\n"
            parts.append(prefix + buf.getvalue())
    return "".join(parts), unique, workloads


def load(text):
    return [d for d in YAML(typ="safe").load_all(text) if d is not None]


def without_copies(docs):
    """The output less the unsuffixed copies postrender adds (keep-original)."""
    return [d for d in docs if "postrender.io/copy-of" not in (d["metadata"].get("annotations") or {})]


def versioned(obj):
    return (obj["metadata"].get("labels") or {}).get("postrender.io/versioned") == "true"


def refs(obj):
    """Every name a generated workload references: (kind, name, path-getter)."""
    found = []

    def visit(node):
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("configMapRef", "configMapKeyRef", "configMap") and isinstance(value, dict):
                    found.append(("ConfigMap", value["name"]))
                elif key in ("secretRef", "secretKeyRef") and isinstance(value, dict):
                    found.append(("Secret", value["name"]))
                elif key == "secret" and isinstance(value, dict):
                    found.append(("Secret", value["secretName"]))
                else:
                    visit(value)
        elif isinstance(node, list):
            for item in node:
                visit(item)

    visit(obj)
    return found


def candidates(configs, kind, name, namespace):
    """The input objects a reference may mean, as postrender resolves it: the
    same namespace, else across the implicit one (either side)."""
    named = [o for o in configs if o["kind"] == kind and o["metadata"]["name"] == name]
    exact = [o for o in named if o["metadata"].get("namespace") == namespace]
    if exact:
        return exact
    return [o for o in named if (o["metadata"].get("namespace") is None) != (namespace is None)]


# Broken references fail the render by default (covered below); these
# properties are about what a render writes, so they let it through.
LENIENT = ["--allow-broken-references"]


@SETTINGS
@given(streams())
def test_no_object_lost_and_nothing_else_changes(case):
    stream, configs, workloads = case
    out = run_postrender(LENIENT, stream)
    assert out.status == 0, out.stderr
    before, after = load(stream), without_copies(load(out.stdout))
    assert len(before) == len(after)
    # Map every versioned name back to its base: then everything but the added
    # marks must equal the input, object by object.
    base_of = {
        (o["kind"], o["metadata"]["name"]): o["metadata"]["labels"]["postrender.io/base-name"]
        for o in after if o["kind"] in ("ConfigMap", "Secret") and versioned(o)
    }
    for original, rendered in zip(before, after):
        if original["kind"] in ("ConfigMap", "Secret") and not versioned(rendered):
            assert rendered == original
        elif original["kind"] in ("ConfigMap", "Secret"):
            assert rendered["data"] == original["data"]
            assert rendered["immutable"] is True
            assert base_of[(rendered["kind"], rendered["metadata"]["name"])] == original["metadata"]["name"]
            continue
        text = json.dumps(rendered)
        for (kind, name), base in base_of.items():
            text = text.replace(json.dumps(name), json.dumps(base))
        rendered = json.loads(text)
        # A kept object a template references rolls it by a config hash instead.
        template = rendered.get("spec", {}).get("template") or rendered.get("spec", {}).get("jobTemplate", {}) \
            .get("spec", {}).get("template")
        holder = template if template is not None else rendered
        annotations = holder.get("metadata", {}).get("annotations", {})
        annotations.pop("postrender.io/config-hash", None)
        if not annotations and "annotations" in holder.get("metadata", {}):
            del holder["metadata"]["annotations"]
            if not holder["metadata"]:
                del holder["metadata"]
        assert rendered == original


@SETTINGS
@given(streams())
def test_running_twice_equals_running_once(case):
    stream, _, _ = case
    once = run_postrender(LENIENT, stream)
    twice = run_postrender(LENIENT, once.stdout)
    assert twice.status == 0
    assert twice.stdout == once.stdout


@SETTINGS
@given(streams())
def test_every_rewritten_reference_names_an_object_in_the_output(case):
    stream, configs, _ = case
    out = run_postrender([], stream)
    every = load(out.stdout)
    before, after = load(stream), without_copies(every)
    objects = {
        (o["kind"], o["metadata"].get("namespace"), o["metadata"]["name"]): o
        for o in every if o["kind"] in ("ConfigMap", "Secret")
    }
    for original, rendered in zip(before, after):
        if rendered["kind"] in ("ConfigMap", "Secret"):
            continue
        ns = rendered["metadata"].get("namespace")
        for (kind, old), (_, new) in zip(refs(original), refs(rendered)):
            if new != old:
                targets = [o for (k, _, n), o in objects.items() if k == kind and n == new]
                assert targets, f"{kind} {new} is not in the output"
                assert targets[0]["metadata"]["labels"]["postrender.io/base-name"] == old
            elif rendered["kind"] == "Pod":
                # A Pod can never change: its reference stays, and so does
                # the name it holds (the object itself or an unsuffixed copy),
                # in a namespace it reaches: its own, or any where one side
                # has none (another namespace's object is not the Pod's).
                def reaches(namespace):
                    return namespace == ns or namespace is None or ns is None

                if any(o["kind"] == kind and o["metadata"]["name"] == old and reaches(o["metadata"].get("namespace"))
                       for o in configs):
                    assert any(k == kind and n == old and reaches(m) for (k, m, n) in objects), f"{kind} {old} vanished"
            else:
                # Left alone only when the object it names keeps its name
                # (no data, or ambiguous and left for the render to refuse).
                same_ns = [o for o in configs if o["kind"] == kind and o["metadata"]["name"] == old
                           and o["metadata"].get("namespace") == ns]
                assert all((kind, ns, old) in objects or not o["data"] for o in same_ns), \
                    f"{kind} {old} in {ns} should have been rewritten"


@SETTINGS
@given(streams())
def test_a_render_never_leaves_a_reference_on_a_vanished_name(case):
    stream, configs, _ = case
    out = run_postrender([], stream)
    if out.status == 1:
        # Refused: nothing written, one line per broken reference (beside
        # the warnings a render says, a dangling reference's), and only
        # because the lenient render does leave one.
        assert out.stdout == ""
        lines = out.stderr.splitlines()
        assert any(line.startswith("postrender: error: document ") for line in lines)
        assert all(line.startswith(("postrender: error: document ", "postrender: warning: ")) for line in lines)
        lenient = run_postrender(LENIENT, stream)
        assert lenient.status == 0 and "it would name nothing" in lenient.stderr
        return
    assert out.status == 0, out.stderr
    before, after = load(stream), load(out.stdout)
    present = {(o["kind"], o["metadata"].get("namespace"), o["metadata"]["name"])
               for o in after if o["kind"] in ("ConfigMap", "Secret")}
    for original, rendered in zip(before, after):
        if rendered["kind"] in ("ConfigMap", "Secret"):
            continue
        ns = rendered["metadata"].get("namespace")
        for (kind, old), (_, new) in zip(refs(original), refs(rendered)):
            if new == old:
                for meant in candidates(configs, kind, old, ns):
                    assert (kind, meant["metadata"].get("namespace"), old) in present, \
                        f"{kind} {old} from {ns} is left on a name that is gone"


@settings(max_examples=150, deadline=None)
@given(st.one_of(st.binary(max_size=300), st.text(max_size=300)))
def test_junk_gives_a_clean_result_never_a_traceback(junk):
    out = run_postrender([], junk)
    assert out.status in (0, 1)
    assert "Traceback" not in out.stderr and "internal error" not in out.stderr
    if out.status == 1:
        assert out.stdout == "" and len(out.stderr.strip().splitlines()) == 1
