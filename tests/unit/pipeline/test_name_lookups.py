"""Lookups by name that run per reference, dependency or producer: which
object each finds when several share a name (same namespace first, then
across the implicit one; the exact name before the unversioned one). They
answer from an index built once, so a stream holding one chart per tenant
or one producer per workload stays linear; these pin the answers."""

import re

import pytest

from conftest import run_postrender
from postrender.options import RenderOptions
from postrender.pipeline.graph.references import Resolution
from postrender.pipeline.read.documents import Source
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


# --- A name two namespaces held, read again once one was versioned ------------
def _rendered_twice_alike(flags: list[str], stream: str) -> str:
    """A run's output, which a second run of it must write again: exit 0
    both times, the same bytes."""
    once = run_postrender(flags, stream)
    assert once.status == 0, once.stderr
    twice = run_postrender(flags, once.stdout)
    assert twice.status == 0, twice.stderr
    assert twice.stdout == once.stdout
    return once.stdout


def _referrer(kind: str, target: str, namespace: str | None = None) -> str:
    ref = "configMapRef" if target == "ConfigMap" else "secretRef"
    if kind == "ClusterAnalysisTemplate":  # cluster-scoped: the name is looked up in every namespace
        return ("apiVersion: argoproj.io/v1alpha1\nkind: ClusterAnalysisTemplate\nmetadata:\n  name: t\nspec:\n"
                "  metrics:\n  - name: m\n    provider:\n      job:\n        spec:\n          template:\n"
                "            spec:\n              containers:\n              - name: c\n                image: x\n"
                f"                envFrom: [{{{ref}: {{name: cfg}}}}]\n")
    ns = f"\n  namespace: {namespace}" if namespace else ""
    return (f"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: w{ns}\nspec:\n  template:\n    spec:\n"
            f"      containers:\n      - name: c\n        image: x\n        envFrom: [{{{ref}: {{name: cfg}}}}]\n")


@pytest.mark.parametrize("placeholder", [True, False], ids=["a-placeholder-kept", "all-versioned"])
@pytest.mark.parametrize("namespaces", [("a", "b"), ("a", "b", "c")], ids=["two", "three"])
@pytest.mark.parametrize("referrer", ["Deployment", "ClusterAnalysisTemplate"])
@pytest.mark.parametrize("target", ["ConfigMap", "Secret"])
def test_a_name_several_namespaces_held_is_left_as_it_was_when_read_again(target, referrer, namespaces, placeholder):
    # The referrer says no namespace, and each namespace holds the name: it
    # matches all, and is left as it is. A workload in each namespace uses
    # the name there, so each config is versioned, but a placeholder (no
    # data: kept as it is). Read again, the name matched the placeholder
    # alone, and the second run gave the referrer its config hash (found by
    # the property that running twice equals running once), or (all
    # versioned) matched nothing. The versions a run made of it still count.
    data = "stringData" if target == "Secret" else "data"
    configs = [f"apiVersion: v1\nkind: {target}\nmetadata:\n  name: cfg\n  namespace: {ns}\n"
               + (f"{data}: {{}}\n" if placeholder and i == 0 else f"{data}:\n  k: '{ns}'\n")
               for i, ns in enumerate(namespaces)]
    users = [_referrer("Deployment", target, ns) for ns in namespaces]
    stream = "---\n".join([*configs, *users, _referrer(referrer, target)])
    output = _rendered_twice_alike(["--allow-broken-references"], stream)
    assert output.count("base-name: cfg") == len(namespaces) - placeholder  # each versioned, but a placeholder
    assert output.count("{name: cfg}") == 1 + placeholder  # the name left as it was (and the placeholder's user)


def test_a_previous_runs_version_in_the_referrers_own_namespace_makes_no_name_match_twice():
    # The namespace that holds the name holds a version of it too (a copy
    # kept beside it, --keep-original): the name still leads there alone.
    renamed = "\n  labels: {postrender.io/versioned: \"true\", postrender.io/base-name: cfg}"
    analysis = _analysis(_cm("cfg-abc", "a", renamed), _cm("cfg", "a"), _deploy("web", None, config="cfg"))
    (ref,) = [ref for ref in analysis.graph.references if ref.referrer.name == "web"]
    assert (ref.resolution, _described(ref.target)) == (Resolution.CROSS_NAMESPACE, "ConfigMap/a/cfg")


@pytest.mark.parametrize("flags", ["", "--keep-previous argocd", "--keep-previous helm"])
@pytest.mark.parametrize("kept", ["opted-out", "placeholder", "implicit-namespace"])
@pytest.mark.parametrize("target", ["ConfigMap", "Secret"])
def test_a_cluster_wide_grant_of_a_name_two_namespaces_hold_gains_the_versions_name_once(target, kept, flags):
    # The grant keeps the name (a namespace still holds it) and gains the
    # version's beside it. Read again, the name still matches that version
    # (a previous run's versions count), whose name the grant holds already:
    # each run added it once more. And a run that records what each object
    # uses (--keep-previous) records the version the grant gains, as the
    # second run does, where the version's name matches it alone.
    resource = "configmaps" if target == "ConfigMap" else "secrets"
    other = {"opted-out": "  namespace: a\n  annotations: {postrender.io/versioned: 'false'}\ndata: {k: v}\n",
             "placeholder": "  namespace: a\ndata: {}\n",
             "implicit-namespace": "  annotations: {postrender.io/versioned: 'false'}\ndata: {k: v}\n"}[kept]
    if target == "Secret":
        other = other.replace("data:", "stringData:")
    stream = "---\n".join([
        f"apiVersion: v1\nkind: {target}\nmetadata:\n  name: cfg\n  namespace: b\n"
        "  annotations: {postrender.io/versioned: 'true'}\ndata: {k: dw==}\n",
        f"apiVersion: v1\nkind: {target}\nmetadata:\n  name: cfg\n{other}",
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: r}\nrules:\n"
        f"- {{apiGroups: [''], resources: [{resource}], resourceNames: [cfg], verbs: [get]}}\n",
    ])
    output = _rendered_twice_alike(flags.split(), stream)
    granted = re.search(r"resourceNames: \[([^]]*)\]", output).group(1).split(", ")
    assert len(granted) == 2 and granted[1] == "cfg" and granted[0].startswith("cfg-"), granted
    if flags:
        assert f"metadata: {{name: r, annotations: {{postrender.io/refs: {target}/b/{granted[0]}}}}}" in output


@pytest.mark.parametrize("target, args", [
    ("ConfigMap", "[--configmap-name, x]"),
    ("ConfigMap", "['--configmap-name=x']"),
    ("ConfigMap", "[--config, x]"),
    ("Secret", "[--tls-secret, x]"),
])
def test_a_config_read_by_name_and_versioned_anyway_is_covered_alike_when_read_again(target, args):
    # A program reads `x` by name, and `x` is versioned all the same (its
    # own annotation; the reference left broken, allowed): the pod
    # template's config hash covers it and the config the workload uses.
    # Read again, `x` is a version a previous run made of that name: the
    # program still reads it, and the hash still covers it.
    data = "stringData" if target == "Secret" else "data"
    stream = "---\n".join([
        f"apiVersion: v1\nkind: {target}\nmetadata: {{name: x, annotations: {{postrender.io/versioned: 'true'}}}}\n"
        f"{data}: {{k: v}}\n",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: other, annotations: {postrender.io/versioned: 'false'}}\n"
        "data: {k: v}\n",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: w}\nspec:\n  template:\n    spec:\n      containers:\n"
        f"      - name: c\n        image: x\n        args: {args}\n        envFrom: [{{configMapRef: {{name: other}}}}]\n",
    ])
    for flags in (["--allow-broken-references"], ["--allow-broken-references", "--keep-original=none"]):
        output = _rendered_twice_alike(flags, stream)
        assert "name: x-" in output and "postrender.io/config-hash" in output


@pytest.mark.parametrize("namespaces", [("a", "b"), ("a", "b", "c")], ids=["two", "three"])
@pytest.mark.parametrize("target", ["ConfigMap", "Secret"])
def test_a_declared_dependency_on_a_name_several_namespaces_held_leads_nowhere_when_read_again(target, namespaces):
    # Reloader's annotation on a workload without a namespace names a config
    # each namespace holds: it leads nowhere, and gives no config hash. Once
    # the first run versioned all but the placeholder, the name read again
    # led to the placeholder alone, and the second run gave the hash.
    data = "stringData" if target == "Secret" else "data"
    configs = [f"apiVersion: v1\nkind: {target}\nmetadata:\n  name: db\n  namespace: {ns}\n"
               + ("" if i == 0 else f"{data}:\n  k: '{ns}'\n") for i, ns in enumerate(namespaces)]
    annotation = f"{target.lower()}.reloader.stakater.com/reload"
    workload = (f"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: w\n  annotations: {{{annotation}: db}}\n"
                "spec:\n  template:\n    spec:\n      containers: [{name: c, image: x}]\n")
    stream = "---\n".join([*configs, workload])
    flags = ["--version-all"]
    output = _rendered_twice_alike(flags, stream)
    assert output.count("base-name: db") == len(namespaces) - 1 and "config-hash" not in output


def test_a_cluster_wide_grant_records_each_version_it_names_by_its_own_name_too():
    # Two namespaces version `cfg` alike (one name, cfg-<hash>, in each), one
    # keeping the original beside it. The grant gains the versions' one name
    # and records both versions; read again, that name matches both, and
    # the record must still name both (it named none: a grant by a name
    # matching several objects recorded only the names it gained).
    cfg = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n{ns}"
           "  annotations: {{postrender.io/versioned: 'true'{keep}}}\ndata: {{k: v}}\n")
    stream = "---\n".join([
        cfg.format(ns="  namespace: a\n", keep=", postrender.io/keep-original: 'true'"),
        cfg.format(ns="", keep=""),
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: r}\nrules:\n"
        "- {apiGroups: [''], resources: [configmaps], resourceNames: [cfg], verbs: [get]}\n",
    ])
    flags = ["--keep-previous", "argocd", "--allow-broken-references"]
    output = _rendered_twice_alike(flags, stream)
    (record,) = re.findall(r"postrender.io/refs: ['\"]?([^'\"}]+)", output)
    assert record.split(",") == ["ConfigMap/a/cfg-bdg947hgcc", "ConfigMap/cfg-bdg947hgcc"]


@pytest.mark.parametrize("args", ["[--configmap-name, cfg]", "[--config, cfg]"])
def test_a_name_read_in_its_own_namespace_does_not_lead_across_once_versioned_there(args):
    # A program in `b` reads `cfg` by name; `b` holds it (versioned all the
    # same: --version-all, the reference left broken, allowed), and the
    # implicit namespace holds a placeholder of that name. Read again, `b`
    # holds the version a run made of it: the name led to `b`'s, not across
    # to the placeholder, whose content the config hash then covered.
    stream = "---\n".join([
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\n",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg, namespace: b}\ndata: {k: v}\n",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: w, namespace: b}\nspec:\n  template:\n    spec:\n"
        f"      containers:\n      - name: c\n        image: x\n        args: {args}\n",
    ])
    flags = ["--allow-broken-references", "--version-all"]
    output = _rendered_twice_alike(flags, stream)
    assert "name: cfg-" in output and "postrender.io/config-hash" in output


def test_a_substitution_variable_as_a_namespace_is_that_namespace_but_a_csi_template_is_any():
    """`${APP_NS}` (Flux substitutes it, into one namespace) is text like any
    namespace; only a CSI parameter's `${pvc.namespace}` means each claim's."""
    from ruamel.yaml import YAML

    stream = (
        'apiVersion: v1\nkind: Secret\nmetadata: {name: tls, namespace: "${APP_NS}"}\nstringData: {k: a}\n---\n'
        "apiVersion: v1\nkind: Secret\nmetadata: {name: tls, namespace: infra}\nstringData: {k: b}\n---\n"
        "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: infra}\n"
        "spec:\n  gatewayClassName: c\n  listeners:\n  - name: https\n    port: 443\n    protocol: HTTPS\n"
        '    tls:\n      certificateRefs: [{kind: Secret, name: tls, namespace: "${APP_NS}"}]\n')
    out = run_postrender(["--keep-original=none"], stream)
    assert out.status == 0, out.stderr
    docs = list(YAML(typ="safe").load_all(out.stdout))
    substituted = next(d for d in docs if d["kind"] == "Secret" and d["metadata"]["namespace"] == "${APP_NS}")
    gateway = next(d for d in docs if d["kind"] == "Gateway")
    assert gateway["spec"]["listeners"][0]["tls"]["certificateRefs"][0]["name"] == substituted["metadata"]["name"]
    assert substituted["metadata"]["name"] != "tls"


@pytest.mark.parametrize("stated", ["b", "a", None])
def test_a_service_account_names_secrets_of_its_own_namespace_whatever_its_entry_says(stated):
    # core/v1: ServiceAccount.secrets are "secrets in the same namespace";
    # the mountable-secrets check matches the name there, and an entry's
    # `namespace` is no namespace. So `pull` names a/pull, never b/pull.
    secrets = [f"apiVersion: v1\nkind: Secret\nmetadata: {{name: pull, namespace: {ns}}}\nstringData: {{k: {ns}}}\n"
               for ns in ("a", "b")]
    entry = "{name: pull}" if stated is None else f"{{name: pull, namespace: {stated}}}"
    account = f"apiVersion: v1\nkind: ServiceAccount\nmetadata: {{name: sa, namespace: a}}\nsecrets: [{entry}]\n"
    analysis = _analysis(*secrets, account, namespace="b")
    (ref,) = [r for r in analysis.graph.references if r.referrer.kind == "ServiceAccount"]
    assert ref.resolution is Resolution.RESOLVED and ref.target.describe() == "Secret/a/pull"


def _csi_template_specs():
    from postrender import fieldspecs

    table = fieldspecs.load_table()
    return [spec for spec in table.specs
            if spec.namespace_field and spec.namespace_field.startswith("csi.storage.k8s.io/")
            and spec.path_text.startswith("parameters/")]


@pytest.mark.parametrize("spec", _csi_template_specs(), ids=lambda spec: f"{spec.kind}:{spec.path_text}")
def test_a_csi_parameter_whose_namespace_is_a_template_keeps_the_secrets_name(spec):
    # `${pvc.namespace}`, `${volumesnapshot.namespace}`: the name means the
    # Secret of that name in each claim's or snapshot's namespace, so it
    # stays as written, and the one Secret the stream holds keeps its name
    # (an unsuffixed copy once a workload's reference versions it), for a
    # StorageClass (whose parameters never change) and a VolumeSnapshotClass
    # alike.
    from ruamel.yaml import YAML

    key = spec.path_text.partition("/")[2].replace("\\/", "/")
    template = "${volumesnapshot.namespace}" if "snapshot" in key else "${pvc.namespace}"
    group = spec.group or "storage.k8s.io"
    referrer = (f"apiVersion: {group}/v1\nkind: {spec.kind}\nmetadata: {{name: cls}}\ndriver: x\n"
                f"parameters:\n  {key}: snap\n  {spec.namespace_field}: \"{template}\"\n")
    secret = "apiVersion: v1\nkind: Secret\nmetadata: {name: snap, namespace: a}\nstringData: {k: v}\n"
    workload = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: w, namespace: a}\nspec:\n  template:\n"
                "    spec:\n      containers: [{name: c, image: x, envFrom: [{secretRef: {name: snap}}]}]\n")
    # A Secret of that name in a second namespace is the same name's too
    # (each claim's namespace): both are held, not refused as ambiguous (review62b).
    other = secret.replace("namespace: a", "namespace: b").replace("k: v", "k: w")
    for stream in ("---\n".join([secret, referrer]), "---\n".join([secret, referrer, workload]),
                   "---\n".join([secret, other, referrer, workload])):
        out = run_postrender(["--keep-original=none"], stream)
        assert out.status == 0, out.stderr
        assert "matches several objects" not in out.stderr
        docs = list(YAML(typ="safe").load_all(out.stdout))
        (held,) = [d for d in docs if d["kind"] == spec.kind]
        assert held["parameters"][key] == "snap"
        for namespace in ("a", "b") if other in stream else ("a",):
            assert any(d["kind"] == "Secret" and d["metadata"]["name"] == "snap"
                       and d["metadata"].get("namespace") == namespace for d in docs), (namespace, out.stdout)


@pytest.mark.parametrize("referrer, field", [
    ("apiVersion: external-secrets.io/v1\nkind: ClusterSecretStore\nmetadata: {name: store}\nspec:\n  provider:\n"
     "    kubernetes:\n      auth: {token: {bearerToken: {name: tok, key: t}}}\n", "bearerToken: {name: tok"),
    ("apiVersion: argoproj.io/v1alpha1\nkind: ClusterAnalysisTemplate\nmetadata: {name: cat}\nspec:\n  args:\n"
     "  - name: t\n    valueFrom: {secretKeyRef: {name: tok, key: t}}\n  metrics: []\n", "secretKeyRef: {name: tok"),
], ids=["ClusterSecretStore", "ClusterAnalysisTemplate"])
def test_a_name_kept_in_each_namespace_holds_each_same_named_secret(referrer, field):
    # A cluster-scoped referrer whose reader takes the name in each user's
    # namespace, with a Secret of that name in two: each is held (keeps its
    # name, or an unsuffixed copy beside the version a workload gets), and
    # the referrer's config hash covers both; no "matches several objects",
    # and no refusal under --keep-original=none telling a cluster-scoped
    # object to state a namespace (review62b).
    from ruamel.yaml import YAML

    secrets = [f"apiVersion: v1\nkind: Secret\nmetadata: {{name: tok, namespace: {ns}}}\nstringData: {{t: {ns}}}\n"
               for ns in ("a", "b")]
    workload = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: w, namespace: a}\nspec:\n  template:\n"
                "    spec:\n      containers: [{name: c, image: x, envFrom: [{secretRef: {name: tok}}]}]\n")
    for args in ([], ["--keep-original=none"]):
        out = run_postrender(args, "---\n".join([*secrets, referrer, workload]))
        assert out.status == 0, out.stderr
        assert "matches several objects" not in out.stderr and field in out.stdout
        docs = list(YAML(typ="safe").load_all(out.stdout))
        kept = {d["metadata"]["namespace"] for d in docs if d["kind"] == "Secret" and d["metadata"]["name"] == "tok"}
        assert kept == {"a", "b"}, out.stdout
        (held,) = [d for d in docs if d["kind"] not in ("Secret", "Deployment")]
        assert "postrender.io/config-hash" in held["metadata"]["annotations"]
    # -v names each by its place, not `Secret/tok` twice (review62e).
    said = run_postrender(["-v"], "---\n".join([*secrets, referrer, workload])).stderr
    assert 'metadata.annotations["postrender.io/config-hash"] over Secret/a/tok, Secret/b/tok' in said, said


def test_two_assumptions_about_the_implicit_namespace_are_said_to_conflict():
    # The namespace-less Deployment's reference assumes the implicit namespace
    # is prod; the references of other/web and prod/web to the namespace-less
    # ConfigMap assume other and prod. One of them will name nothing once
    # applied (oracle60): each match warns, and so does the conflict, once.
    text = "---\n".join([_cm("cfg"), _cm("cfg2", "prod"), _deploy("implicit", None, config="cfg2"),
                         _deploy("web", "other", config="cfg"), _deploy("web", "prod", config="cfg")])
    result = run_postrender([], text)
    assert result.status == 0, result.stderr
    conflict = [line for line in result.stderr.splitlines() if "more than one namespace" in line]
    assert len(conflict) == 1
    assert "other (Deployment/other/web spec.template" in conflict[0] and "prod (Deployment/" in conflict[0]
    # One assumption, however many references share it: nothing more to say.
    single = "---\n".join([_cm("cfg"), _deploy("web", "prod", config="cfg"), _deploy("api", "prod", config="cfg")])
    result = run_postrender([], single)
    assert result.status == 0 and "matched only across namespaces" in result.stderr
    assert "more than one namespace" not in result.stderr
    # And with --namespace, nothing is assumed at all.
    result = run_postrender(["--namespace", "prod"], text)
    assert "more than one namespace" not in result.stderr


def test_a_match_across_namespaces_says_no_rewrite_of_a_field_left_as_written():
    # refs61: a StorageClass's parameters keep the name they give (the API
    # server never lets them change); the warning about the namespace-less
    # Secret they match said "rewritten" all the same.
    storage_class = ("apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: sc}\n"
                     "provisioner: x.csi.io\nparameters:\n"
                     "  csi.storage.k8s.io/node-stage-secret-name: sec\n"
                     "  csi.storage.k8s.io/node-stage-secret-namespace: ns\n")
    secret = "apiVersion: v1\nkind: Secret\nmetadata: {name: sec}\ndata: {k: dmFsdWU=}\n"
    result = run_postrender([], "---\n".join([secret, storage_class]))
    assert result.status == 0, result.stderr
    (warning,) = [line for line in result.stderr.splitlines() if "matched only across namespaces" in line]
    assert "rewritten" not in warning and "on the assumption they deploy together" in warning
    assert "csi.storage.k8s.io/node-stage-secret-name: sec\n" in result.stdout


def test_a_name_missing_from_its_namespace_says_where_the_stream_holds_it():
    # "not in the stream" of a ConfigMap the stream holds in another
    # namespace pointed away from the fix (helm62).
    stream = ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg, namespace: ns2}\ndata: {a: b}\n---\n"
              "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    spec:\n"
              "      containers: [{name: c, image: x, envFrom: [{configMapRef: {name: cfg}}]}]\n")
    result = run_postrender(["-n", "ns1"], stream)
    assert result.status == 0, result.stderr
    assert ("ConfigMap 'cfg' is not in namespace 'ns1' (the stream holds ConfigMap/ns2/cfg); left as is"
            in result.stderr), result.stderr
    alone = run_postrender(["-n", "ns1"], stream.split("---\n", 1)[1])
    assert "ConfigMap 'cfg' is not in the stream; left as is" in alone.stderr, alone.stderr


def test_a_namespaced_referrer_in_the_implicit_namespace_holding_a_name_of_two_namespaces_is_ambiguous_still():
    # It reads one of them, wherever it is deployed: said so, not taken as
    # naming each (review62e), which only a name meant in each namespace or
    # a cluster-scoped referrer's is.
    secrets = [f"apiVersion: v1\nkind: Secret\nmetadata: {{name: pull, namespace: {ns}}}\n"
               f"type: kubernetes.io/dockerconfigjson\nstringData: {{.dockerconfigjson: '{{\"{ns}\":1}}'}}\n"
               for ns in ("a", "b")]
    account = "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: sa}\nimagePullSecrets: [{name: pull}]\n"
    result = run_postrender([], "---\n".join([*secrets, account]))
    assert result.status == 0, result.stderr
    assert "Secret 'pull' matches several objects (Secret/a/pull, Secret/b/pull); left as is" in result.stderr
