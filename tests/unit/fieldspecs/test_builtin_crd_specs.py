"""Every built-in field spec for a custom resource, and every pod-spec holder
and producer rule, is exercised by a golden fixture written from that
project's API reference."""

import pytest

from conftest import FIXTURES

from postrender import fieldspecs
from postrender.pipeline.graph import producers
from postrender.pipeline.graph.references import pod_templates
from postrender.options import RenderOptions
from postrender.pipeline.read.documents import Source
from postrender.pipeline.render import analyse

CORE_GROUPS = {None, "", "apps", "batch", "rbac.authorization.k8s.io", "storage.k8s.io", "networking.k8s.io",
               "extensions", "admissionregistration.k8s.io", "apiextensions.k8s.io", "apiregistration.k8s.io"}


def _analyses():
    for case in sorted((FIXTURES / "golden").iterdir()):
        path = case / "input.yaml"
        if path.exists():
            args = (case / "args").read_text().split() if (case / "args").exists() else []
            strategy = "annotate" if "--strategy=annotate" in args else "rename"
            yield case.name, analyse([Source(str(path), path.read_text())], RenderOptions(strategy=strategy))


@pytest.fixture(scope="module")
def analyses():
    return list(_analyses())


def test_every_custom_resource_field_spec_finds_a_reference_in_a_fixture(analyses):
    wanted = {
        (spec["kind"], spec["path"], ref["kind"])
        for ref in fieldspecs.builtin_config()["nameReference"]
        for entry in ref["fieldSpecs"]
        for spec in fieldspecs.expanded(entry)
        if spec.get("group") not in CORE_GROUPS
    }
    hit = {(ref.spec.kind, ref.spec.path_text, ref.spec.target_kind)
           for _, analysis in analyses for ref in analysis.graph.references}
    missing = sorted(" ".join(key) for key in wanted - hit)
    assert not missing, "\n".join(missing)


def test_every_custom_resource_pod_spec_holder_has_a_template_in_a_fixture(analyses):
    holders = [h for h in fieldspecs.builtin_config()["podSpecs"] if h.get("group") not in CORE_GROUPS
               or h["kind"] == "DeploymentConfig"]
    found = {(obj.kind, obj.group) for _, analysis in analyses for obj in analysis.graph.index.objects
             if pod_templates(obj, analysis.table)}
    missing = [h for h in holders if not any(k == h["kind"] and (h.get("group") in (None, g)) for k, g in found)]
    assert not missing


def test_every_producer_rule_excludes_or_explains_something_in_a_fixture(analyses):
    used = {item.rule for _, analysis in analyses for item in analysis.productions.items}
    missing = [f"{r.kind} {r.target}" for r in producers.rules() if r not in used]
    assert not missing
