"""What read and the graph share between objects to keep a render's
records small (every object, reference and document lives until written):
the same labels or annotations, written in the same order, are one mapping;
the references found at one path hold one path tuple; a resolved reference
holds no list of candidates. Sharing must never change what is read."""

from postrender.limits import Limits
from postrender.options import RenderOptions
from postrender.pipeline.graph.references import Resolution
from postrender.pipeline.index.configs import hash_of
from postrender.pipeline.plan.versions import EMPTY, UNREFERENCED
from postrender.pipeline.read import read
from postrender.pipeline.read.documents import NO_STRINGS, Source
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


def _config(name: str, data: str = "k: v", annotations: str = "") -> str:
    meta = f"\n  annotations: {{{annotations}}}" if annotations else ""
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}{meta}\ndata: {{{data}}}\n"


def test_configs_of_one_shape_share_their_edits_made_ahead_and_each_gets_its_own_name():
    # cfg1 and cfg2: the same keys and names of one length, so their marks
    # are located at the same offsets (each document's text opening with
    # its `---`); config-long is another shape.
    stream = "---\n" + "---\n".join([_config("cfg1", "k: one"), _config("cfg2", "k: two"), _config("config-long"),
                           _deploy("a", "cfg1"), _deploy("b", "cfg2"), _deploy("c", "config-long")])
    analysis = analyse([Source(None, stream)], RenderOptions())
    one, two, long = analysis.stream.objects[:3]
    assert one.prepared is two.prepared and one.prepared is not None
    assert long.prepared is not one.prepared
    # Shared, each still gets the name and marks of its own content.
    names = {v.obj.name: v.name for v in analysis.plan.versioned}
    assert len({names["cfg1"], names["cfg2"], names["config-long"]}) == 3
    assert names["cfg1"].startswith("cfg1-") and names["cfg2"].startswith("cfg2-")


def test_a_plan_holds_a_config_that_keeps_its_name_as_its_reason_and_makes_the_same_version_again():
    stream = "---\n".join([
        _config("used"), _deploy("d", "used"),
        _config("unused"),
        _config("empty", data=""),
        _config("opted-out", annotations='postrender.io/versioned: "false"'),
    ])
    analysis = analyse([Source(None, stream)], RenderOptions())
    plan = analysis.plan
    versions = list(plan.versions)
    assert [v.obj.name for v in versions] == ["used", "unused", "empty", "opted-out"]  # the stream's order
    assert [v.obj.name for v in plan.versioned] == ["used"]
    used, unused, empty, opted_out = versions
    assert used is plan.of(used.obj) and used.renamed
    for kept, reason in [(unused, UNREFERENCED), (empty, EMPTY), (opted_out, None)]:
        if reason == UNREFERENCED:
            # The reason of most configs of a large stream: not held at all
            # (100,000 tiny ConfigMaps: 89 -> 81 MiB); the plan says it.
            assert kept.obj not in plan._by_object
        else:
            assert isinstance(plan._by_object[kept.obj], str)  # held as the reason alone
        again = plan.of(kept.obj)
        assert again is not kept and again is not None
        fields = ("hash", "base_name", "name", "excluded", "unchanged", "keep_original", "kustomized")
        assert [getattr(again, f) for f in fields] == [getattr(kept, f) for f in fields]
        assert kept.name == kept.base_name == kept.obj.name and kept.hash == hash_of(kept.obj)
        assert not kept.versioned and not kept.renamed
        assert reason is None or kept.excluded == reason
    assert "opted out" in opted_out.excluded
    alive = {name for _, _, name in plan.alive_names(analysis.graph.index)}
    assert alive == {used.name, "unused", "empty", "opted-out"}


def test_equal_reader_paths_are_one_tuple_and_the_table_is_bounded(monkeypatch):
    # byname._held_once: an equal value is the one held before; the table is
    # emptied once it holds _HELD, so a later equal value is held anew.
    from postrender.pipeline.graph import byname

    monkeypatch.setattr(byname, "_HELD", 2)
    table: dict = {}
    a = ("spec", "template", 0)
    first = byname._held_once(a, table)
    assert first is a and byname._held_once(tuple(list(a)), table) is a
    byname._held_once(("b",), table)  # the table now holds two
    byname._held_once(("c",), table)  # full: emptied, then holds ("c",)
    again = tuple(list(a))
    assert byname._held_once(again, table) is again  # emptied: held anew
    assert byname._held_once(tuple(list(a)), table) is again


def test_a_lists_item_without_labels_or_annotations_holds_its_position_alone():
    # Most of a List's items are described by neither: each holds its
    # position in one slot more than a plain object, not in the three an
    # annotated object holds (100,000 ConfigMaps as one List: 1.5 MiB).
    import sys
    import tracemalloc

    items = 2000
    text = "apiVersion: v1\nkind: List\nitems:\n" + "".join(
        "- " + _object("ConfigMap", f"c{i}", "app: web" if i == 1 else "").replace("\n", "\n  ")[:-2]
        for i in range(items))
    tracemalloc.start()
    try:
        objects = _objects(text)
        snapshot = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    (plain,) = _objects(_object("ConfigMap", "c"))
    assert [obj.item for obj in objects] == list(range(items))
    assert dict(objects[1].labels) == {"app": "web"} and objects[0].labels is NO_STRINGS
    assert objects[0].annotations is NO_STRINGS
    one_slot_more = sys.getsizeof(plain) + 8  # as getsizeof counts: with the GC header
    assert sys.getsizeof(objects[0]) <= one_slot_more < sys.getsizeof(objects[1])
    # As allocated: the items' objects, made in documents.py.
    made = [stat for stat in snapshot.statistics("lineno")
            if stat.traceback[0].filename.endswith("documents.py") and stat.count >= items - 1]
    assert len(made) == 1 and made[0].size <= items * one_slot_more * 1.05
