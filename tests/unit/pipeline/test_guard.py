"""The unrewritten-reference guard: real custom resources whose Secret and
ConfigMap fields no field spec covers."""

import re

import pytest
from ruamel.yaml import YAML

from conftest import run_postrender

SECRET = """\
apiVersion: v1
kind: Secret
metadata: {name: %s, namespace: db}
type: Opaque
data: {password: aHVudGVyMg==}
"""
CONFIGMAP = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: %s, namespace: db}
data: {values.yaml: "replicas: 2"}
"""

# CloudNativePG Cluster: superuserSecret and bootstrap.initdb.secret are
# LocalObjectReferences (api/v1 cluster_types.go).
CNPG = """\
apiVersion: postgresql.cnpg.io/v1
kind: Cluster
metadata: {name: pg, namespace: db}
spec:
  instances: 3
  superuserSecret:
    name: pg-superuser
  bootstrap:
    initdb:
      database: app
      secret:
        name: pg-app
"""
# Crossplane provider-aws ProviderConfig: credentials.secretRef {namespace, name, key}.
CROSSPLANE = """\
apiVersion: aws.upbound.io/v1beta1
kind: ProviderConfig
metadata: {name: default}
spec:
  credentials:
    source: Secret
    secretRef:
      namespace: db
      name: aws-creds
      key: credentials
"""
# Traefik Middleware: basicAuth.secret is a bare Secret name.
TRAEFIK = """\
apiVersion: traefik.io/v1alpha1
kind: Middleware
metadata: {name: auth, namespace: db}
spec:
  basicAuth:
    secret: admin-users
"""
# A typed name, {kind, name}, in a kind no field spec covers (as Flux's
# HelmRelease valuesFrom items were before builtin.yaml covered them).
TYPED = """\
apiVersion: reports.example.com/v1
kind: Report
metadata: {name: pg-exporter, namespace: db}
spec:
  sourceRef: {kind: Dashboard, name: charts}
  inputs:
    - kind: ConfigMap
      name: exporter-values
"""

# Istio Gateway: a server's tls.credentialName (networking/v1 ServerTLSSettings).
ISTIO = """\
apiVersion: networking.istio.io/v1
kind: Gateway
metadata: {name: gw, namespace: db}
spec:
  servers:
    - port: {number: 443, name: https, protocol: HTTPS}
      hosts: [db.example.com]
      tls: {mode: SIMPLE, credentialName: db-tls}
"""
# Traefik TLSOption (clientAuth.secretNames) and Middleware (forwardAuth.tls.caSecret).
TRAEFIK_TLS = """\
apiVersion: traefik.io/v1alpha1
kind: TLSOption
metadata: {name: mtls, namespace: db}
spec:
  clientAuth: {secretNames: [db-ca], clientAuthType: RequireAndVerifyClientCert}
"""
TRAEFIK_CA = """\
apiVersion: traefik.io/v1alpha1
kind: Middleware
metadata: {name: fa, namespace: db}
spec:
  forwardAuth:
    address: https://auth
    tls: {caSecret: db-ca}
"""
# CloudNativePG Cluster: certificates.serverTLSSecret is a bare Secret name.
CNPG_TLS = """\
apiVersion: postgresql.cnpg.io/v1
kind: Cluster
metadata: {name: pg, namespace: db}
spec:
  instances: 1
  certificates: {serverTLSSecret: pg-tls}
"""

# Spark operator SparkApplication: spec.sparkConfigMap and hadoopConfigMap
# are bare ConfigMap names (a key ending in ConfigMap).
SPARK = """\
apiVersion: sparkoperator.k8s.io/v1beta2
kind: SparkApplication
metadata: {name: sa, namespace: db}
spec: {type: Scala, mode: cluster, hadoopConfigMap: spark-conf, driver: {cores: 1}}
"""

# Zalando postgres-operator OperatorConfiguration: snake_case keys, one a
# `namespace/name` (docs/reference/operator_parameters.md).
ZALANDO = """\
apiVersion: acid.zalan.do/v1
kind: OperatorConfiguration
metadata: {name: pgo, namespace: db}
configuration:
  kubernetes:
    pod_environment_configmap: db/pg-env
    infrastructure_roles_secret_name: pg-roles
"""
# Traefik ServersTransport: certificatesSecrets, a list of Secret names.
TRAEFIK_CERTS = """\
apiVersion: traefik.io/v1alpha1
kind: ServersTransport
metadata: {name: st, namespace: db}
spec: {serverName: db, certificatesSecrets: [db-client]}
"""

CASES = {
    "zalando-namespace-slash-name": (CONFIGMAP % "pg-env", ZALANDO, "OperatorConfiguration/db/pgo",
                                     "configuration.kubernetes.pod_environment_configmap", "pg-env"),
    "zalando-snake-case": (SECRET % "pg-roles", ZALANDO, "OperatorConfiguration/db/pgo",
                           "configuration.kubernetes.infrastructure_roles_secret_name", "pg-roles"),
    "traefik-certificates-secrets": (SECRET % "db-client", TRAEFIK_CERTS, "ServersTransport/db/st",
                                     "spec.certificatesSecrets[0]", "db-client"),
    "istio-credential-name": (SECRET % "db-tls", ISTIO, "Gateway/db/gw", "spec.servers[0].tls.credentialName", "db-tls"),
    "traefik-secret-names": (SECRET % "db-ca", TRAEFIK_TLS, "TLSOption/db/mtls", "spec.clientAuth.secretNames[0]",
                             "db-ca"),
    "traefik-ca-secret": (SECRET % "db-ca", TRAEFIK_CA, "Middleware/db/fa", "spec.forwardAuth.tls.caSecret", "db-ca"),
    "cnpg-server-tls": (SECRET % "pg-tls", CNPG_TLS, "Cluster/db/pg", "spec.certificates.serverTLSSecret", "pg-tls"),
    "cnpg-superuser": (SECRET % "pg-superuser", CNPG, "Cluster/db/pg", "spec.superuserSecret.name", "pg-superuser"),
    "cnpg-initdb": (SECRET % "pg-app", CNPG, "Cluster/db/pg", "spec.bootstrap.initdb.secret.name", "pg-app"),
    "crossplane": (SECRET % "aws-creds", CROSSPLANE, "ProviderConfig/(default)/default",
                   "spec.credentials.secretRef.name", "aws-creds"),
    "traefik": (SECRET % "admin-users", TRAEFIK, "Middleware/db/auth", "spec.basicAuth.secret", "admin-users"),
    "typed-name": (CONFIGMAP % "exporter-values", TYPED, "Report/db/pg-exporter", "spec.inputs[0].name",
                   "exporter-values"),
    "spark-config-map": (CONFIGMAP % "spark-conf", SPARK, "SparkApplication/db/sa", "spec.hadoopConfigMap",
                         "spark-conf"),
}


def _stream(*docs: str) -> str:
    return "---\n".join(docs)


# The Secrets and ConfigMaps above are only named by fields no field spec
# covers, so by themselves they keep their names; --version-all (or any
# rewritable reference) renames them, and the guard must then catch the field.
# Without copies too: with one (the default for Secrets) the old name still exists.
NO_COPIES = ["--keep-original=none"]
VERSION_ALL = ["--version-all", *NO_COPIES]


@pytest.mark.parametrize("case", CASES)
def test_a_field_no_spec_covers_fails_the_render_with_the_three_fixes(case):
    config, custom, where, field, name = CASES[case]
    result = run_postrender(VERSION_ALL, _stream(config, custom))
    assert result.status == 1 and result.stdout == ""
    errors = [line for line in result.stderr.splitlines() if field in line]
    assert len(errors) == 1, result.stderr
    error = errors[0]
    kind, _, obj = where.partition("/")
    assert error.startswith(f"postrender: error: document 2 ({kind}/{obj.rpartition('/')[2]}) line ")
    assert f": {field}: still names" in error
    assert repr(name) in error
    kind = "ConfigMap" if case in ("typed-name", "spark-config-map", "zalando-namespace-slash-name") else "Secret"
    assert "add a field spec" in error and f"opt {kind}/db/{name} out" in error and "keep the original" in error
    assert "postrender.io/versioned" in error and "postrender.io/keep-original" in error
    assert "--allow-broken-references" in error
    # The suggested field spec is one the user can paste.
    path = "/".join(part.split("[")[0] for part in field.split("."))
    if case == "typed-name":  # {kind: ConfigMap, name: ...}: filtered on the kind, quoted for the filter's [
        path = '"spec/inputs[kind=ConfigMap]/name"'
    assert f"path: {path}" in error


@pytest.mark.parametrize("case", CASES)
def test_allow_broken_references_turns_the_error_into_a_warning(case):
    config, custom, _, field, name = CASES[case]
    result = run_postrender([*VERSION_ALL, "--allow-broken-references"], _stream(config, custom))
    assert result.status == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if field in line]
    assert len(warnings) == 1 and warnings[0].startswith("postrender: warning: document 2 ")
    assert "still names" in warnings[0] and "--allow-broken-references" not in warnings[0]


def test_a_consuming_reference_elsewhere_versions_the_object_and_the_guard_fails_the_render():
    config, custom, _, field, _ = CASES["cnpg-superuser"]
    # A Deployment: a bare Pod's template is immutable, so its reference is held and versions nothing.
    pod = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: p, namespace: db}\nspec:\n  template:\n"
           "    spec:\n      containers:\n        - name: c\n          envFrom: [{secretRef: {name: pg-superuser}}]\n")
    result = run_postrender(NO_COPIES, _stream(config, custom, pod))
    assert result.status == 1 and result.stdout == ""
    assert field in result.stderr and "still names" in result.stderr
    # Unreferenced, the same Secret keeps its name and nothing is broken.
    assert run_postrender([], _stream(config, custom)).status == 0


@pytest.mark.parametrize("case", ["cnpg-superuser", "traefik", "typed-name"])
def test_strict_keeps_the_guard_fatal_even_with_allow_broken_references(case):
    config, custom, _, field, _ = CASES[case]
    result = run_postrender([*VERSION_ALL, "--strict", "--allow-broken-references"], _stream(config, custom))
    assert result.status == 1
    assert result.stdout == ""
    assert field in result.stderr and "still names" in result.stderr


@pytest.mark.parametrize("extra, advice, followed", [
    ([], "or pass --allow-broken-references to render anyway", ["--allow-broken-references"]),
    (["--strict"], "or drop --strict and pass --allow-broken-references to render anyway",
     ["--allow-broken-references"]),
    (["--strict", "--allow-broken-references"], "or drop --strict to render anyway", ["--allow-broken-references"]),
])
def test_the_advice_to_render_anyway_is_what_really_renders(extra, advice, followed):
    """--strict fails even with --allow-broken-references: advising that
    flag under --strict sent the user round in a circle. Following the
    advice must render."""
    config, custom, _, field, _ = CASES["traefik"]
    result = run_postrender([*VERSION_ALL, *extra], _stream(config, custom))
    assert result.status == 1
    (error,) = [line for line in result.stderr.splitlines() if field in line]
    assert error.endswith(advice)
    assert run_postrender([*VERSION_ALL, *followed], _stream(config, custom)).status == 0


def test_diff_under_strict_gives_the_renders_advice(tmp_path):
    # diff lets a broken name through (it reports it), so --strict is all
    # that fails it; but its advice is for the render the options make, which
    # dropping --strict alone left failing (newcomer60, for graph).
    config, custom, _, field, _ = CASES["traefik"]
    stream = tmp_path / "s.yaml"
    stream.write_text(_stream(config, custom))
    result = run_postrender(["diff", *VERSION_ALL, "--strict", str(stream), str(stream)])
    assert result.status == 1
    (error,) = [line for line in result.stderr.splitlines() if field in line]
    assert error.startswith("postrender: error: old (")
    assert error.endswith("or drop --strict and pass --allow-broken-references to render anyway")
    assert run_postrender(["diff", *VERSION_ALL, str(stream), str(stream)]).status == 0
    assert run_postrender(["diff", *VERSION_ALL, "--allow-broken-references", str(stream), str(stream)]).status == 0


def test_the_suggested_field_spec_silences_the_guard(tmp_path):
    config, custom, _, field, _ = CASES["traefik"]
    spec = tmp_path / "traefik.yaml"
    spec.write_text(
        "nameReference:\n- kind: Secret\n  fieldSpecs:\n  - {kind: Middleware, group: traefik.io, path: spec/basicAuth/secret}\n"
    )
    result = run_postrender([*VERSION_ALL, "--config", str(spec)], _stream(config, custom))
    assert result.status == 0, result.stderr
    assert "secret: admin-users-" in result.stdout
    assert field not in result.stderr


@pytest.mark.parametrize("case", CASES)
def test_every_suggested_field_spec_rewrites_the_field_it_names(case, tmp_path):
    """The advice is a fix: pasted as --config, the field follows the version
    (a `namespace/name` one keeps its namespace), and the guard is silent."""
    config, custom, _, field, name = CASES[case]
    first = run_postrender(VERSION_ALL, _stream(config, custom))
    [advice] = [line for line in first.stderr.splitlines() if field in line]
    spec = tmp_path / "spec.yaml"
    spec.write_text(advice.split("(--config FILE with `")[1].split("`")[0] + "\n")
    fixed = run_postrender([*VERSION_ALL, "--config", str(spec)], _stream(config, custom))
    assert fixed.status == 0 and field not in fixed.stderr, fixed.stderr
    [version] = set(re.findall(rf"\b{name}-[a-z0-9]{{10}}\b", fixed.stdout))
    referrer = fixed.stdout.split("\n---\n")[1]
    stated = "db/" if case == "zalando-namespace-slash-name" else ""
    assert f"{stated}{version}" in referrer, fixed.stdout


@pytest.mark.parametrize("mark", ['postrender.io/versioned: "false"', 'postrender.io/keep-original: "true"'])
def test_opting_out_or_keeping_the_original_silences_the_guard(mark):
    custom = CASES["traefik"][1]
    secret = SECRET.replace("metadata: {name: %s, namespace: db}", "metadata:\n  name: admin-users\n  namespace: db\n"
                            f"  annotations:\n    {mark}")
    result = run_postrender(VERSION_ALL, _stream(secret, custom))
    assert result.status == 0, result.stderr
    assert "still names" not in result.stderr


def test_covered_and_rewritten_fields_and_config_objects_are_not_flagged():
    deployment = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: app, namespace: db}
spec:
  template:
    spec:
      containers:
        - name: app
          image: app
          env:
            - name: P
              valueFrom:
                secretKeyRef: {name: pg-app, key: password}
      volumes:
        - name: pg-app
          secret: {secretName: pg-app}
"""
    # A second Secret whose data mentions the first by name is data, not a
    # reference the guard flags. Under a key that says it names a Secret,
    # it is a name a program given that data reads (byname): a copy keeps
    # the name, or the render fails by line, as for a name in a file it holds.
    for key, status in (("note", 0), ("secretName", 1)):
        other = ("apiVersion: v1\nkind: Secret\nmetadata: {name: other, namespace: db}\n"
                 f"stringData: {{{key}: pg-app}}\n")
        result = run_postrender(VERSION_ALL, _stream(SECRET % "pg-app", deployment, other))
        assert result.status == status, result.stderr
        assert "still names" not in result.stderr
        if status:
            assert "stringData.secretName: names Secret 'pg-app', which a program reads by that name" in result.stderr
            kept = run_postrender(["--version-all"], _stream(SECRET % "pg-app", deployment, other))
            assert kept.status == 0 and "still names" not in kept.stderr, kept.stderr


def test_a_second_run_still_catches_the_stale_name():
    config, custom, _, field, _ = CASES["cnpg-superuser"]
    first = run_postrender([*VERSION_ALL, "--allow-broken-references"], _stream(config, custom))
    second = run_postrender(["--allow-broken-references", *NO_COPIES], first.stdout)
    assert second.stdout == first.stdout
    assert field in second.stderr and "still names" in second.stderr
    assert run_postrender(NO_COPIES, first.stdout).status == 1


def test_other_namespaces_and_unrelated_keys_are_not_flagged():
    secret = SECRET % "pg-superuser"
    elsewhere = CNPG.replace("namespace: db", "namespace: other")
    labels = """\
apiVersion: v1
kind: Service
metadata:
  name: pg-superuser
  namespace: db
  labels: {app: pg-superuser}
spec:
  selector: {app: pg-superuser}
"""
    result = run_postrender(VERSION_ALL, _stream(secret, elsewhere, labels))
    assert result.status == 0, result.stderr


@pytest.mark.parametrize("referrer_namespace, secret_namespaces, flagged", [
    # The referrer's own namespace wins over the same name elsewhere.
    ("db", ["other", "db"], "Secret/db/pg-superuser"),
    # Across the implicit namespace (one side without metadata.namespace).
    (None, ["db"], "Secret/db/pg-superuser"),
    ("db", [None], "Secret/(default)/pg-superuser"),
    # Two explicit namespaces never meet.
    ("db", ["other"], None),
])
def test_a_stale_name_is_looked_up_as_references_resolve(referrer_namespace, secret_namespaces, flagged):
    secrets = [SECRET.replace("namespace: db", f"namespace: {ns}") if ns else
               SECRET.replace(", namespace: db", "") for ns in secret_namespaces]
    secrets = [s % "pg-superuser" for s in secrets]
    custom = CNPG.replace(", namespace: db", f", namespace: {referrer_namespace}" if referrer_namespace else "")
    result = run_postrender([*VERSION_ALL, "--allow-broken-references"], _stream(*secrets, custom))
    assert result.status == 0, result.stderr
    found = [line for line in result.stderr.splitlines() if "superuserSecret.name: still names" in line]
    if flagged is None:
        assert found == [], result.stderr
    else:
        assert len(found) == 1 and f"opt {flagged} out" in found[0], result.stderr


# A {name, namespace} reference: a Kyverno ClusterPolicy's context, a Knative
# Broker's config, any custom field.
STATED = """\
apiVersion: example.com/v1
kind: Widget
metadata: {name: w%s}
spec:
  configMapRef: {name: %s, namespace: %s}
"""


@pytest.mark.parametrize("widget_namespace", [", namespace: apps", ", namespace: db", ""])
@pytest.mark.parametrize("stated, flagged", [("db", True), ("other", False)])
def test_a_namespace_written_beside_the_name_is_where_the_guard_looks(widget_namespace, stated, flagged):
    # --namespace as Helm's -n gives it: the widget's own namespace is apps,
    # the ConfigMap it names lives in db.
    result = run_postrender(["--namespace", "apps", *VERSION_ALL, "--allow-broken-references"],
                            _stream(CONFIGMAP % "settings", STATED % (widget_namespace, "settings", stated)))
    assert result.status == 0, result.stderr
    found = [line for line in result.stderr.splitlines() if "spec.configMapRef.name: still names" in line]
    assert len(found) == (1 if flagged else 0), result.stderr


@pytest.mark.parametrize("group, flagged", [
    ("apiGroup: example.com", False), ("group: example.com", False), ("apiVersion: example.com/v1", False),
    ('apiGroup: ""', True), ('group: ""', True), ("apiVersion: v1", True), ("", True),
    ("group: core", True), ("apiVersion: core/v1", True), ("group: ~", True),
])
@pytest.mark.parametrize("kind", ["ConfigMap", "Secret"])
def test_a_typed_name_is_a_core_config_only_where_no_other_group_is_stated(group, flagged, kind):
    # `name` beside `kind: ConfigMap` names a v1 ConfigMap only where the
    # reference states no other API group: an IngressClass's parameters
    # {apiGroup: example.com, kind: ConfigMap} name a custom kind, which a
    # field spec's `[apiGroup=]` filter skips, so the guard must too.
    config = (CONFIGMAP if kind == "ConfigMap" else SECRET) % "params"
    stated = f"{group}, " if group else ""
    custom = ("apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: db}\n"
              f"spec:\n  parameters: {{{stated}kind: {kind}, name: params}}\n")
    result = run_postrender(VERSION_ALL, _stream(config, custom))
    if flagged:
        assert result.status == 1 and "spec.parameters.name: still names" in result.stderr, result.stderr
    else:
        assert result.status == 0 and "still names" not in result.stderr, result.stderr
        assert result.stdout.split("---\n")[-1] == custom


def test_a_suggested_field_spec_filters_on_the_kind_written_beside_the_name(tmp_path):
    # refs61: a list of references by kind ({kind: ConfigMap, name: ca} and
    # {kind: Secret, name: ca}) got the same unfiltered path for each kind;
    # pasted, the ConfigMap's spec rewrote the Secret's entry to the
    # ConfigMap's version. Each suggestion now filters on its kind, and
    # following both rewrites each entry to its own kind's version.
    stream = "---\n".join([
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ca}\ndata: {a: b}\n",
        "apiVersion: v1\nkind: Secret\nmetadata: {name: ca}\ndata: {a: Yg==}\n",
        "apiVersion: x.io/v1\nkind: Foo\nmetadata: {name: f}\nspec:\n  tls:\n    caRefs:\n"
        "      - {group: '', kind: ConfigMap, name: ca}\n      - {group: '', kind: Secret, name: ca}\n",
    ])
    first = run_postrender(VERSION_ALL, stream)
    assert first.status == 1
    advice = [line.split("(--config FILE with `")[1].split("`")[0] for line in first.stderr.splitlines()
              if "still names" in line]
    assert sorted(advice) == [
        'nameReference: [{kind: ConfigMap, fieldSpecs: [{kind: Foo, group: x.io, path: '
        '"spec/tls/caRefs[kind=ConfigMap]/name"}]}]',
        'nameReference: [{kind: Secret, fieldSpecs: [{kind: Foo, group: x.io, path: '
        '"spec/tls/caRefs[kind=Secret]/name"}]}]',
    ]
    spec = tmp_path / "spec.yaml"
    spec.write_text("nameReference:\n" + "".join(f"- {a.split('[', 1)[1].rsplit(']', 1)[0]}\n" for a in advice))
    fixed = run_postrender([*VERSION_ALL, "--config", str(spec)], stream)
    assert fixed.status == 0, fixed.stderr
    docs = {f"{d['kind']}": d for d in YAML(typ="safe").load_all(fixed.stdout)}
    refs = {ref["kind"]: ref["name"] for ref in docs["Foo"]["spec"]["tls"]["caRefs"]}
    assert refs == {"ConfigMap": docs["ConfigMap"]["metadata"]["name"], "Secret": docs["Secret"]["metadata"]["name"]}
    assert refs["ConfigMap"] != refs["Secret"]


# refs62: where a field spec that rewrites would break the program (guard.yaml
# keepsName), the field spec the guard suggests keeps the name, and says why.
KEEPS_NAME_CASES = {
    # The OpenTelemetry Operator mounts each at /var/conf/<mountpath>/configmap-<name>.
    "otel-configmaps": (CONFIGMAP % "otel-files", """\
apiVersion: opentelemetry.io/v1beta1
kind: OpenTelemetryCollector
metadata: {name: otel, namespace: db}
spec:
  configmaps: [{name: otel-files, mountpath: /x}]
""", "spec/configmaps/name", "/var/conf/<mountpath>/configmap-<name>"),
    # Not built in on purpose (README, grafana-operator).
    "grafana-dashboard": (CONFIGMAP % "dash", """\
apiVersion: grafana.integreatly.org/v1beta1
kind: GrafanaDashboard
metadata: {name: dash, namespace: db}
spec:
  configMapRef: {name: dash, key: d.json}
""", "spec/configMapRef/name", "duplicate dashboards"),
    # Any field of a ClusterWorkflowTemplate: read in each workflow's namespace.
    "cluster-workflow-template": (SECRET % "wf-creds", """\
apiVersion: argoproj.io/v1alpha1
kind: ClusterWorkflowTemplate
metadata: {name: build}
spec:
  templates:
  - name: main
    container:
      image: x
      env: [{name: TOKEN, valueFrom: {secretKeyRef: {name: wf-creds, key: t}}}]
""", "spec/templates/container/env/valueFrom/secretKeyRef/name", "in the namespace it runs in"),
}


@pytest.mark.parametrize("case", KEEPS_NAME_CASES)
def test_the_field_spec_suggested_keeps_the_name_where_a_new_one_breaks_the_program(case, tmp_path):
    config, custom, path, why = KEEPS_NAME_CASES[case]
    result = run_postrender(VERSION_ALL, _stream(config, custom))
    assert result.status == 1 and result.stdout == ""
    (error,) = [line for line in result.stderr.splitlines() if "still names" in line]
    assert "add a field spec that keeps the name (--config FILE with `" in error
    suggested = error.split("`")[1]
    assert f"path: {path}, keepsName: " in suggested and why in suggested
    # Pasted, it holds the name: the render passes and the name stays.
    (tmp_path / "c.yaml").write_text(suggested + "\n")
    again = run_postrender([*VERSION_ALL, "--config", str(tmp_path / "c.yaml")], _stream(config, custom))
    assert again.status == 0, again.stderr
    name = re.search(r"still names \w+ '([^']+)'", error).group(1)
    out = [d for d in YAML(typ="safe").load_all(again.stdout) if d]
    assert name in {d["metadata"]["name"] for d in out if d["kind"] in ("ConfigMap", "Secret")}


def test_a_flag_in_a_kind_that_keeps_names_is_suggested_a_podspecargs_row_not_said_to_keep_it():
    # A ClusterWorkflowTemplate's fields keep their names (guard.yaml), but a
    # container flag's suggestion is a podSpecArgs row, which keeps none: the
    # advice said "a field spec that keeps the name" of it (review62b).
    stream = ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg, namespace: wf}\ndata: {a: \"1\"}\n---\n"
              "apiVersion: argoproj.io/v1alpha1\nkind: ClusterWorkflowTemplate\nmetadata: {name: build}\nspec:\n"
              "  templates:\n  - name: main\n    container:\n      image: x\n      args: [\"--config=cfg\"]\n")
    result = run_postrender(VERSION_ALL, stream)
    assert result.status == 1 and result.stdout == ""
    (error,) = [line for line in result.stderr.splitlines() if "still names" in line]
    assert "add a field spec (--config FILE with `podSpecArgs: [{target: ConfigMap, flags: [--config]}]`)" in error
    assert "keeps the name" not in error
