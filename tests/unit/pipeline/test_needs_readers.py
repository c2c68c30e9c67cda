"""`_Readers.reads_nothing` decides once per kind what `reads` would say of
an object the walk found no reference in (pipeline/needs.py): it must never
say "nothing" where a stage reads something, or read would prune what that
stage needs. The pruned-against-whole render tests cover the kinds in the
fixtures; this covers every kind the tables and the producer rules name."""

import pytest

from postrender import fieldspecs
from postrender.limits import Limits
from postrender.pipeline.graph import producers
from postrender.pipeline.graph.references import Found, PodStrings
from postrender.pipeline.needs import _Readers
from postrender.pipeline.read import read
from postrender.pipeline.read.documents import Source

TABLE = fieldspecs.load_table([])


def _api_versions(group: str | None, version: str | None) -> list[str]:
    versions = [version] if version else ["v1", "v1beta1"]
    if group is None:
        return ["v1", "apps/v1", "example.com/v1"]
    return [f"{group}/{v}" if group else v for v in versions]


def _kinds() -> list[tuple[str, str]]:
    """(kind, apiVersion) of every kind a field spec or a producer rule names."""
    found = {(spec.kind, api) for spec in TABLE.specs for api in _api_versions(spec.group, spec.version)}
    found |= {(rule.kind, api) for rule in producers.rules() for api in _api_versions(rule.group, None)}
    found |= {("ConfigMap", "v1"), ("Secret", "v1"), ("Service", "v1"), ("Namespace", "v1")}
    return sorted(found)


KINDS = _kinds()


def _object(kind: str, api_version: str, annotations: dict[str, str]):
    lines = [f"apiVersion: {api_version}", f"kind: {kind}", "metadata:", "  name: probe"]
    if annotations:
        lines.append("  annotations:")
        lines += [f"    {key}: {value!r}" for key, value in annotations.items()]
    return read([Source(None, "\n".join(lines) + "\n")], Limits()).objects[0]


def _producer_annotations() -> dict[str, str]:
    """Every annotation a producer rule turns on with, so that rules that
    apply only with one are asked too."""
    return {key: "x" for rule in producers.rules() for key in rule.if_annotation}


def test_every_kind_the_tables_and_rules_name_is_probed():
    assert len(KINDS) > 100
    assert any(kind == "Deployment" for kind, _ in KINDS)
    assert any(producers.may_produce(kind) for kind, _ in KINDS)


@pytest.mark.parametrize("edits_everywhere", [False, True])
@pytest.mark.parametrize("annotated", [False, True])
def test_nothing_read_is_said_only_where_no_stage_reads(edits_everywhere: bool, annotated: bool):
    readers = _Readers(TABLE, edits_everywhere)
    nothing = Found([], PodStrings())
    said = 0
    for kind, api_version in KINDS:
        obj = _object(kind, api_version, _producer_annotations() if annotated else {})
        for prepared in (None, object()):  # a config whose edits were made ahead, or not
            obj.prepared = prepared
            if readers.reads_nothing(obj, nothing):
                said += 1
                assert list(readers.reads(obj, nothing)) == [], (kind, api_version, prepared)
    # Not vacuous: most kinds are read for nothing once no reference is
    # found, in a run that gives most workloads keys too (only an object
    # that may get them keeps its metadata: takes_keys).
    assert said > len(KINDS) // 2


@pytest.mark.parametrize("declared", [
    {"configmap.reloader.stakater.com/reload": "app-config"},
    {"kpt.seek.com/hash-dependency.db": "Secret/db"},
])
def test_an_object_that_declares_a_dependency_keeps_its_metadata_for_its_keys(declared):
    # Under --strategy annotate (and the records of --keep-previous), an
    # object with no reference still gets a config hash for what its
    # annotations declare: it keeps its metadata, and its document can take
    # the keys without being composed again. Without the annotation it keeps
    # nothing.
    nothing = Found([], PodStrings())
    for edits_everywhere in (False, True):
        readers = _Readers(TABLE, edits_everywhere)
        for annotations, takes in ((declared, edits_everywhere), ({}, False)):
            obj = _object("Deployment", "apps/v1", annotations)
            assert readers.takes_keys(obj, nothing) is takes
            assert readers.kept_for_edits(obj, nothing) is takes
            assert readers.reads_nothing(obj, nothing) is not takes
            assert ((("metadata",), True) in list(readers.reads(obj, nothing))) is takes


@pytest.mark.parametrize("where", ["object", "template"])
def test_a_dependency_declared_takes_its_hash_without_the_document_composed_again(monkeypatch, where):
    # The Deployment references nothing; its annotations (or its pod
    # template's) name the ConfigMap, so --strategy annotate gives its
    # template a config hash. It kept its metadata and its template's for
    # that as it was read: no document is composed again.
    import io

    from postrender.options import RenderOptions
    from postrender.pipeline import rewrite
    from postrender.pipeline.read.compose import recompose
    from postrender.pipeline.render import render
    from postrender.report import Reporter

    composed = []
    monkeypatch.setattr(rewrite, "recompose", lambda doc, *a: composed.append(doc) or recompose(doc, *a))
    declared = "      annotations: {configmap.reloader.stakater.com/reload: cfg}\n"
    text = ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\ndata: {a: '1'}\n---\n"
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n"
            + (declared[4:] if where == "object" else "")
            + "spec:\n  template:\n    metadata:\n" + (declared if where == "template" else "      labels: {a: b}\n")
            + "    spec:\n      containers: [{name: c, image: x}]\n")
    options = RenderOptions(strategy="annotate")
    output = render([Source("in.yaml", text)], options, Reporter(verbose=False, stderr=io.StringIO())).output
    assert output.count("postrender.io/config-hash") == 1
    assert composed == []
