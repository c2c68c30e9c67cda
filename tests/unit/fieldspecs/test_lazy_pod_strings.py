"""The pod-string specs (every podSpecStrings path under every PodSpec
holder) are built for a kind as a render first walks it: what they answer
must be what building them all at once answers, in the same order."""

from postrender import fieldspecs
from postrender.fieldspecs.walk import SpecIndex
from postrender.pipeline.graph import byname


def _eager(table: fieldspecs.ReferenceTable) -> SpecIndex:
    return SpecIndex(fieldspecs.pod_path_spec("ConfigMap", holder, {"path": path}, "fixednames.yaml")
                     for holder in table.pod_holders()
                     for path in byname._data().get("podSpecStrings") or ())


def test_nothing_is_built_before_a_kind_is_asked_for():
    lazy = byname.pod_string_specs(fieldspecs.load_table())
    assert lazy._later and not lazy._by_kind
    lazy.applicable("Deployment", "apps", "v1")
    assert "Deployment" not in lazy._later and "StatefulSet" in lazy._later
    assert set(lazy._by_kind) == {"Deployment"}


def test_each_kind_asked_first_gives_the_eager_answer():
    table = fieldspecs.load_table()
    eager = _eager(table)
    kinds = {str(holder["kind"]) for holder in table.pod_holders()}
    assert {"Deployment", "Pod", "CronJob", "Job"} <= kinds
    lazy = byname.pod_string_specs(table)
    for kind in sorted(kinds):
        for group, version in (("apps", "v1"), ("", "v1"), ("batch", "v1"), ("example.com", "v1alpha1")):
            got, want = lazy.applicable(kind, group, version), eager.applicable(kind, group, version)
            assert (got and got.specs) == (want and want.specs), (kind, group, version)
        assert lazy.for_kind(kind) == eager.for_kind(kind)
        assert lazy.for_kind(kind), kind
    assert not lazy._later


def test_a_spec_built_later_keeps_its_place_among_those_for_any_kind():
    specs = {path: fieldspecs.pod_path_spec("ConfigMap", {"path": "spec"}, {"path": path}, "test")
             for path in ("a", "b", "c")}
    kinded = {path: fieldspecs.pod_path_spec("ConfigMap", {"kind": "K", "path": "spec"}, {"path": path}, "test")
              for path in ("a", "c")}
    index = SpecIndex()
    index.add_later("K", lambda: kinded["a"])
    index.add(specs["b"])  # for any kind, between the two
    index.add_later("K", lambda: kinded["c"])
    assert index.for_kind("K") == [kinded["a"], specs["b"], kinded["c"]]
