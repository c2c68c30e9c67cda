"""The unrewritten-reference guard: real custom resources whose Secret and
ConfigMap fields no field spec covers."""

import pytest

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
# Flux HelmRelease: valuesFrom items are {kind, name}.
FLUX = """\
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: pg-exporter, namespace: db}
spec:
  chart:
    spec: {chart: exporter, sourceRef: {kind: HelmRepository, name: charts}}
  valuesFrom:
    - kind: ConfigMap
      name: exporter-values
"""

CASES = {
    "cnpg-superuser": (SECRET % "pg-superuser", CNPG, "Cluster/db/pg", "spec.superuserSecret.name", "pg-superuser"),
    "cnpg-initdb": (SECRET % "pg-app", CNPG, "Cluster/db/pg", "spec.bootstrap.initdb.secret.name", "pg-app"),
    "crossplane": (SECRET % "aws-creds", CROSSPLANE, "ProviderConfig/(default)/default",
                   "spec.credentials.secretRef.name", "aws-creds"),
    "traefik": (SECRET % "admin-users", TRAEFIK, "Middleware/db/auth", "spec.basicAuth.secret", "admin-users"),
    "flux": (CONFIGMAP % "exporter-values", FLUX, "HelmRelease/db/pg-exporter", "spec.valuesFrom[0].name",
             "exporter-values"),
}


# Without copies: with one (the default for Secrets) the old name still exists.
NO_COPIES = ["--keep-original=none"]


def _stream(*docs: str) -> str:
    return "---\n".join(docs)


@pytest.mark.parametrize("case", CASES)
def test_a_field_no_spec_covers_is_reported_with_the_three_fixes(case):
    config, custom, where, field, name = CASES[case]
    result = run_postrender(NO_COPIES, _stream(config, custom))
    assert result.status == 0
    warnings = [line for line in result.stderr.splitlines() if field in line]
    assert len(warnings) == 1, result.stderr
    warning = warnings[0]
    assert warning.startswith(f"postrender: warning: {where} {field}: still names")
    assert repr(name) in warning
    kind = "ConfigMap" if case == "flux" else "Secret"
    assert "add a field spec" in warning and f"opt {kind}/db/{name} out" in warning and "keep the original" in warning
    assert "postrender.io/versioned" in warning and "postrender.io/keep-original" in warning
    # The suggested field spec is one the user can paste.
    path = "/".join(part.split("[")[0] for part in field.split("."))
    assert f"path: {path}" in warning


@pytest.mark.parametrize("case", ["cnpg-superuser", "traefik", "flux"])
def test_strict_turns_the_warning_into_an_error_with_nothing_on_stdout(case):
    config, custom, _, field, _ = CASES[case]
    result = run_postrender(["--strict", *NO_COPIES], _stream(config, custom))
    assert result.status == 1
    assert result.stdout == ""
    assert field in result.stderr and "--strict" in result.stderr


def test_the_suggested_field_spec_silences_the_guard(tmp_path):
    config, custom, _, field, _ = CASES["traefik"]
    spec = tmp_path / "traefik.yaml"
    spec.write_text(
        "nameReference:\n- kind: Secret\n  fieldSpecs:\n  - {kind: Middleware, group: traefik.io, path: spec/basicAuth/secret}\n"
    )
    result = run_postrender(["--strict", "--config", str(spec)], _stream(config, custom))
    assert result.status == 0, result.stderr
    assert "secret: admin-users-" in result.stdout
    assert field not in result.stderr


@pytest.mark.parametrize("mark", ['postrender.io/versioned: "false"', 'postrender.io/keep-original: "true"'])
def test_opting_out_or_keeping_the_original_silences_the_guard(mark):
    custom = CASES["traefik"][1]
    secret = SECRET.replace("metadata: {name: %s, namespace: db}", "metadata:\n  name: admin-users\n  namespace: db\n"
                            f"  annotations:\n    {mark}")
    result = run_postrender(["--strict", *NO_COPIES], _stream(secret, custom))
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
    # A second Secret whose data mentions the first by name is data, not a reference.
    other = "apiVersion: v1\nkind: Secret\nmetadata: {name: other, namespace: db}\nstringData: {secretName: pg-app}\n"
    result = run_postrender(["--strict"], _stream(SECRET % "pg-app", deployment, other))
    assert result.status == 0, result.stderr
    assert "still names" not in result.stderr


def test_a_second_run_still_catches_the_stale_name():
    config, custom, _, field, _ = CASES["cnpg-superuser"]
    first = run_postrender(NO_COPIES, _stream(config, custom))
    second = run_postrender(NO_COPIES, first.stdout)
    assert second.stdout == first.stdout
    assert field in second.stderr and "still names" in second.stderr


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
    result = run_postrender(["--strict"], _stream(secret, elsewhere, labels))
    assert result.status == 0, result.stderr
