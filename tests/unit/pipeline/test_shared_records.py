"""What read and the graph share between objects to keep a render's
records small (every object, reference and document lives until written):
the same labels or annotations, written in the same order, are one mapping;
the references found at one path hold one path tuple; a resolved reference
holds no list of candidates. Sharing must never change what is read."""

from postrender.limits import Limits
from postrender.options import RenderOptions
from postrender.pipeline.graph.references import Resolution
from postrender.pipeline.read import NO_STRINGS, Source, read
from postrender.pipeline.render import analyse


def _object(kind: str, name: str, labels: str = "", annotations: str = "") -> str:
    meta = f"\n  labels: {{{labels}}}" if labels else ""
    meta += f"\n  annotations: {{{annotations}}}" if annotations else ""
    return f"apiVersion: v1\nkind: {kind}\nmetadata:\n  name: {name}{meta}\n"


def _objects(*docs: str):
    return read([Source(None, "---\n".join(docs))], Limits()).objects


def test_objects_that_write_the_same_labels_share_one_mapping_with_what_each_wrote():
    a, b, c, d = _objects(
        _object("ConfigMap", "a", "app: web, tier: x"),
        _object("Service", "b", "app: web, tier: x", "note: one"),
        _object("Secret", "c", "tier: x, app: web"),  # the same entries in another order
        _object("ConfigMap", "d", "app: api"),
    )
    assert a.labels is b.labels and dict(a.labels) == {"app": "web", "tier": "x"}
    # Another order is another mapping (its order is what a reader iterates).
    assert c.labels is not a.labels and list(c.labels) == ["tier", "app"]
    assert dict(d.labels) == {"app": "api"}
    assert dict(b.annotations) == {"note": "one"} and a.annotations is NO_STRINGS


def _deploy(name: str, config: str) -> str:
    return (f"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\n"
            f"spec:\n  template:\n    spec:\n      containers:\n        - name: c\n          image: x\n"
            f"          envFrom: [{{configMapRef: {{name: {config}}}}}]\n")


def test_references_at_one_path_share_its_tuple_and_resolved_ones_keep_no_candidates():
    stream = "---\n".join([_object("ConfigMap", "cfg"), _deploy("one", "cfg"), _deploy("two", "cfg"),
                           _deploy("three", "gone")])
    analysis = analyse([Source(None, stream)], RenderOptions())
    first, second, dangling = analysis.graph.references
    assert first.path == ("spec", "template", "spec", "containers", 0, "envFrom", 0, "configMapRef", "name")
    assert first.path is second.path is dangling.path
    assert first.resolution is second.resolution is Resolution.RESOLVED
    assert first.candidates == () and second.candidates == ()
    assert dangling.resolution is Resolution.DANGLING and dangling.candidates == ()
