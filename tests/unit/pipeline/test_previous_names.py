"""Names in a stream kustomize hands a transformer after namePrefix,
nameSuffix or namespace: objects carry the new names and record the earlier
ones; references still name the earlier ones (graph/references.lookup)."""

from __future__ import annotations

from postrender.limits import Limits
from postrender.pipeline.graph.references import Resolution, lookup
from postrender.pipeline.index.objects import ObjectIndex
from postrender.pipeline.read import read
from postrender.pipeline.read.documents import Source


def _object(kind: str, name: str, namespace: str | None = None, earlier: str = "", kinds: str = "",
            namespaces: str = "", prefixes: str = "") -> str:
    annotations = {
        "internal.config.kubernetes.io/previousNames": earlier,
        "internal.config.kubernetes.io/previousKinds": kinds,
        "internal.config.kubernetes.io/previousNamespaces": namespaces,
        "internal.config.kubernetes.io/prefixes": prefixes,
    }
    written = "".join(f"\n    {k}: {v!r}" for k, v in annotations.items() if v)
    ns = f"\n  namespace: {namespace}" if namespace else ""
    api = "apps/v1" if kind == "Deployment" else "v1"
    return f"apiVersion: {api}\nkind: {kind}\nmetadata:\n  name: {name}{ns}" + (
        f"\n  annotations:{written}\n" if written else "\n")


def _index(*texts: str):
    objects = read([Source(None, "---\n".join(texts))], Limits()).objects
    return ObjectIndex(objects, None, frozenset({"Namespace"})), objects


def test_a_name_leads_to_the_object_that_had_it_before_a_prefix():
    index, (cm, web) = _index(
        _object("ConfigMap", "o-b-cfg", "team", "cfg,b-cfg,b-cfg,o-b-cfg", "ConfigMap,ConfigMap,ConfigMap,ConfigMap",
                "default,default,team,team", "b-,o-"),
        _object("Deployment", "o-b-web", "team", "web,b-web", "Deployment,Deployment", "default,default", "b-,o-"))
    for name in ("cfg", "b-cfg", "o-b-cfg"):  # any earlier name, and the name now
        assert lookup(index, web, "ConfigMap", name, None) == (cm, Resolution.RESOLVED, ())
    # Another kind of that name, or a name never held, leads nowhere.
    assert lookup(index, web, "Secret", "cfg", None) == (None, Resolution.DANGLING, ())
    assert lookup(index, web, "ConfigMap", "o-cfg", None) == (None, Resolution.DANGLING, ())
    # A stated namespace matches the one the object had under that name too.
    assert lookup(index, web, "ConfigMap", "cfg", "default")[0] is cm
    assert lookup(index, web, "ConfigMap", "cfg", "team")[0] is cm
    assert lookup(index, web, "ConfigMap", "cfg", "other") == (None, Resolution.DANGLING, ())


def test_among_objects_of_one_earlier_name_the_one_renamed_as_the_referrer_wins():
    index, (plain, renamed, plain_web, renamed_web, bare) = _index(
        _object("ConfigMap", "cfg", "team", "cfg", "ConfigMap", "default"),
        _object("ConfigMap", "r-cfg", "team", "cfg,r-cfg", "ConfigMap,ConfigMap", "default,default", "r-"),
        _object("Deployment", "web", "team", "web", "Deployment", "default"),
        _object("Deployment", "r-web", "team", "web,r-web", "Deployment,Deployment", "default,default", "r-"),
        _object("Deployment", "x-web", "team", "web", "Deployment", "default", "x-"))
    assert lookup(index, plain_web, "ConfigMap", "cfg", None) == (plain, Resolution.RESOLVED, ())
    assert lookup(index, renamed_web, "ConfigMap", "cfg", None) == (renamed, Resolution.RESOLVED, ())
    # Renamed as neither: the one with no prefix passes (kustomize's
    # PrefixesSuffixesEquals lets an empty list through first), as
    # `kubectl kustomize` picks it (tests/integration/kustomize).
    assert lookup(index, bare, "ConfigMap", "cfg", None) == (plain, Resolution.RESOLVED, ())


def test_an_object_renamed_from_the_name_wins_over_one_that_holds_it_never_renamed():
    # Two bases each with a `cfg`, one prefixed, none moved: kustomize maps
    # `cfg` to the one it renamed from `cfg` (nameref looks at earlier names
    # alone), even for the other base's own Deployment. The name leads where
    # kustomize will take it.
    index, (held, renamed, web) = _index(
        _object("ConfigMap", "cfg"),
        _object("ConfigMap", "a-cfg", None, "cfg", "ConfigMap", "default", "a-"),
        _object("Deployment", "web"))
    assert lookup(index, web, "ConfigMap", "cfg", None) == (renamed, Resolution.RESOLVED, ())
    assert lookup(index, web, "ConfigMap", "a-cfg", None) == (renamed, Resolution.RESOLVED, ())


def test_where_kustomize_leaves_the_name_it_leads_to_what_holds_it():
    # Renamed from `cfg` twice, neither with the referrer's prefix (x-): both
    # sieved out, kustomize leaves `cfg`, which names the one never renamed.
    index, (held, p, q, x_web, p_web, o_web) = _index(
        _object("ConfigMap", "cfg"),
        _object("ConfigMap", "p-cfg", None, "cfg", "ConfigMap", "default", "p-"),
        _object("ConfigMap", "q-cfg", None, "cfg", "ConfigMap", "default", "q-"),
        _object("Deployment", "x-web", None, "web", "Deployment", "default", "x-"),
        _object("Deployment", "p-web", None, "web", "Deployment", "default", "p-"),
        _object("Deployment", "o-web", None, "web", "Deployment", "default", "o-"))
    assert lookup(index, x_web, "ConfigMap", "cfg", None) == (held, Resolution.RESOLVED, ())
    assert lookup(index, o_web, "ConfigMap", "cfg", None) == (held, Resolution.RESOLVED, ())
    assert lookup(index, p_web, "ConfigMap", "cfg", None) == (p, Resolution.RESOLVED, ())


def test_two_renamed_alike_with_two_names_are_ambiguous():
    # Both end with the referrer's prefix (o-): kustomize fails the build
    # ("found multiple possible referrals").
    index, (a, b, web) = _index(
        _object("ConfigMap", "a-o-cfg", None, "cfg", "ConfigMap", "default", "a-,o-"),
        _object("ConfigMap", "b-o-cfg", None, "cfg", "ConfigMap", "default", "b-,o-"),
        _object("Deployment", "o-web", None, "web", "Deployment", "default", "o-"))
    assert lookup(index, web, "ConfigMap", "cfg", None) == (None, Resolution.AMBIGUOUS, [a, b])


def test_namespaces_still_count():
    index, (cm, web, other) = _index(
        _object("ConfigMap", "pre-cfg", "a", "cfg", "ConfigMap", "default", "pre-"),
        _object("Deployment", "web", "a"),
        _object("Deployment", "web", "b"))
    assert lookup(index, web, "ConfigMap", "cfg", None)[0] is cm
    assert lookup(index, other, "ConfigMap", "cfg", None) == (None, Resolution.DANGLING, ())


def test_without_earlier_names_nothing_changes():
    index, (cm, web) = _index(_object("ConfigMap", "pre-cfg"), _object("Deployment", "web"))
    assert not index.renamed_by_kustomize
    assert lookup(index, web, "ConfigMap", "cfg", None) == (None, Resolution.DANGLING, ())
    assert lookup(index, web, "ConfigMap", "pre-cfg", None) == (cm, Resolution.RESOLVED, ())


def test_diff_pairs_two_streams_kustomize_handed_a_plugin(tmp_path):
    import json

    from conftest import run_postrender

    web = _object("Deployment", "pre-web", None, "web", "Deployment", "default", "pre-") + (
        "spec:\n  template:\n    spec:\n      containers:\n        - name: c\n"
        "          envFrom: [{configMapRef: {name: cfg}}]\n")
    for side, value in (("old", "1"), ("new", "2")):
        cm = _object("ConfigMap", "pre-cfg", None, "cfg", "ConfigMap", "default", "pre-") + f"data: {{k: '{value}'}}\n"
        (tmp_path / f"{side}.yaml").write_text(cm + "---\n" + web)
    result = run_postrender(["diff", "-o", "json", str(tmp_path / "old.yaml"), str(tmp_path / "new.yaml")])
    assert result.status == 0, result.stderr
    report = json.loads(result.stdout)
    (change,) = report["configChanges"]
    assert change["name"] == "pre-cfg" and change["oldName"] != change["newName"]
    (roll,) = report["rolls"]
    assert roll["name"] == "pre-web" and [(b["name"], b["via"]) for b in roll["because"]] == [("pre-cfg", "name")]


def test_a_namespace_stated_beside_the_name_follows_the_target_kustomize_moved():
    """Only a namespaceField the target was found through (the one it had
    before kustomize's `namespace:` moved it) is rewritten, in its own
    style; one naming where the target is now, and an absent one, stay."""
    from conftest import run_postrender

    secret = _object("Secret", "pre-s", "team", "s", "Secret", "old", "pre-") + "stringData: {p: one}\n"
    head = ("apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: team}\n"
            "spec:\n  listeners:\n  - name: a\n    tls:\n      certificateRefs:\n")
    gateway = head + ("        - name: s\n          namespace: \"old\"  # was\n        - {name: s, namespace: team}\n"
                      "        - {name: s}\n")
    result = run_postrender(["-v"], secret + "---\n" + gateway)
    assert result.status == 0, result.stderr
    version = next(line.rpartition(" -> ")[2] for line in result.stderr.splitlines() if "renamed Secret" in line)
    assert result.stdout.split("---\n")[-1] == head + (
        f"        - name: {version}\n          namespace: \"team\"  # was\n        - {{name: {version}, namespace: team}}\n"
        f"        - {{name: {version}}}\n")
    refs = "spec.listeners[0].tls.certificateRefs[0]"
    assert (f"rewrote Gateway/team/gw {refs}.name: s -> {version}; {refs}.namespace: old -> team"
            in result.stderr)
