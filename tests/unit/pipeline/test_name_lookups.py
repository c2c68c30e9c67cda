"""Lookups by name that run per reference, dependency or producer: which
object each finds when several share a name (same namespace first, then
across the implicit one; the exact name before the unversioned one). They
answer from an index built once, so a stream holding one chart per tenant
or one producer per workload stays linear; these pin the answers."""

from postrender.options import RenderOptions
from postrender.pipeline.graph.references import Resolution
from postrender.pipeline.read import Source
from postrender.pipeline.render import analyse


def _analysis(*docs: str, namespace: str | None = None):
    return analyse([Source(None, "---\n".join(docs))], RenderOptions(namespace=namespace))


def _cm(name: str, namespace: str | None = None, extra: str = "") -> str:
    ns = f"\n  namespace: {namespace}" if namespace else ""
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}{ns}{extra}\ndata: {{k: {name}-{namespace}}}\n"


def _deploy(name: str, namespace: str | None, annotations: str = "", config: str | None = None) -> str:
    ns = f"\n  namespace: {namespace}" if namespace else ""
    notes = f"\n  annotations: {{{annotations}}}" if annotations else ""
    env = f"\n          envFrom: [{{configMapRef: {{name: {config}}}}}]" if config else ""
    return (f"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}{ns}{notes}\n"
            f"spec:\n  template:\n    spec:\n      containers:\n        - name: c\n          image: x{env}\n")


def _described(obj) -> str | None:
    return None if obj is None else obj.describe()


RELOAD = "configmap.reloader.stakater.com/reload: cfg"


def test_a_dependency_finds_its_own_namespace_first_then_across_the_implicit_one():
    analysis = _analysis(
        _cm("cfg", "a"), _cm("cfg", "b"), _cm("cfg"),
        _deploy("in-a", "a", RELOAD), _deploy("in-c", "c", RELOAD), _deploy("implicit", None, RELOAD),
    )
    targets = {dep.referrer.name: _described(dep.target) for dep in analysis.dependencies}
    # In its own namespace; else the one in the implicit namespace; from the
    # implicit one, two explicit namespaces match: none is chosen.
    assert targets == {"in-a": "ConfigMap/a/cfg", "in-c": "ConfigMap/cfg", "implicit": "ConfigMap/cfg"}


def test_a_dependency_finds_an_object_a_previous_run_renamed_by_its_unversioned_name():
    renamed = ("\n  labels: {postrender.io/versioned: \"true\", postrender.io/base-name: cfg}")
    analysis = _analysis(_cm("cfg-abc", "a", renamed), _deploy("web", "a", RELOAD))
    assert [_described(dep.target) for dep in analysis.dependencies] == ["ConfigMap/a/cfg-abc"]
    # Its exact name wins over another's unversioned name.
    analysis = _analysis(_cm("cfg-abc", "a", renamed), _cm("cfg", "a"), _deploy("web", "a", RELOAD))
    assert [_described(dep.target) for dep in analysis.dependencies] == ["ConfigMap/a/cfg"]


def test_two_objects_of_the_same_name_in_reach_resolve_no_dependency():
    analysis = _analysis(_cm("cfg", "a"), _cm("cfg", "b"), _deploy("web", None, RELOAD))
    assert [dep.target for dep in analysis.dependencies] == [None]


def test_a_reference_resolves_in_its_namespace_whatever_the_other_tenants_hold():
    tenants = [doc for i in range(50) for doc in (_cm("cfg", f"t{i}"), _deploy("web", f"t{i}", config="cfg"))]
    analysis = _analysis(*tenants)
    assert len(analysis.graph.references) == 50
    for ref in analysis.graph.references:
        assert ref.resolution is Resolution.RESOLVED and not ref.candidates
        assert ref.target.namespace == ref.referrer.namespace


def test_a_reference_without_an_exact_match_still_sees_every_candidate():
    # The implicit namespace reaches every explicit one: two of them is ambiguous.
    analysis = _analysis(_cm("cfg", "a"), _cm("cfg", "b"), _deploy("web", None, config="cfg"))
    [ref] = analysis.graph.references
    assert ref.resolution is Resolution.AMBIGUOUS
    assert sorted(c.describe() for c in ref.candidates) == ["ConfigMap/a/cfg", "ConfigMap/b/cfg"]


CERT = """\
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {{name: {name}{ns}}}
spec: {{secretName: {secret}, issuerRef: {{name: le, kind: ClusterIssuer}}}}
"""


def test_each_producer_answers_for_its_own_namespace_and_name():
    certs = [CERT.format(name=f"c{i}", ns=f", namespace: t{i}", secret="tls") for i in range(20)]
    secret = "apiVersion: v1\nkind: Secret\nmetadata: {name: tls, namespace: t7}\ndata: {k: dg==}\n"
    analysis = _analysis(*certs, secret)
    productions = analysis.productions
    assert len(productions.items) == 20
    made = productions.of("Secret", "t3", "tls")
    assert made is not None and made.producer.namespace == "t3"
    assert productions.of("Secret", None, "tls") is productions.items[0]  # any namespace: the first
    assert productions.of("Secret", "t99", "tls") is None
    assert productions.of("ConfigMap", "t3", "tls") is None
    # The Secret in the stream keeps its name for the producer of its own namespace.
    [kept] = [obj for obj in analysis.graph.config_objects if id(obj) in productions.excluded]
    assert kept.namespace == "t7" and productions.by_object[id(kept)].producer.name == "c7"
