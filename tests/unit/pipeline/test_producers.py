"""Objects another controller writes into (fieldspecs/producers.yaml): a
Secret in the stream under such a name keeps it, wherever the producer may
be deployed beside it. Renamed, the Secret would be made immutable and the
pods pointed at it, while the controller writes its certificate or values
into the old name: the pods read the placeholder forever (crd60)."""

import pytest
from ruamel.yaml import YAML

from conftest import run_postrender

# Each producer kind, as it names `web-tls` (a placeholder a chart ships).
PRODUCERS = {
    "Certificate": "apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata: {name: c%s}\n"
                   "spec: {secretName: web-tls, issuerRef: {name: i}}\n",
    "Issuer (ACME account key)": "apiVersion: cert-manager.io/v1\nkind: Issuer\nmetadata: {name: i%s}\n"
                                 "spec: {acme: {privateKeySecretRef: {name: web-tls}}}\n",
    "ExternalSecret target": "apiVersion: external-secrets.io/v1beta1\nkind: ExternalSecret\n"
                             "metadata: {name: e%s}\nspec: {target: {name: web-tls}}\n",
    "ExternalSecret by its own name": "apiVersion: external-secrets.io/v1beta1\nkind: ExternalSecret\n"
                                      "metadata: {name: web-tls%s}\nspec: {}\n",
    # Cluster-scoped: a namespace it is given means nothing, and it claims the name in every one.
    "ClusterExternalSecret target": "apiVersion: external-secrets.io/v1beta1\nkind: ClusterExternalSecret\n"
                                    "metadata: {name: ce%s}\nspec: {externalSecretSpec: {target: {name: web-tls}}}\n",
    "ClusterExternalSecret by its ExternalSecret's name": (
        "apiVersion: external-secrets.io/v1beta1\nkind: ClusterExternalSecret\n"
        "metadata: {name: ce%s}\nspec: {externalSecretName: web-tls, externalSecretSpec: {}}\n"),
    "ClusterExternalSecret by its own name": "apiVersion: external-secrets.io/v1beta1\nkind: ClusterExternalSecret\n"
                                             "metadata: {name: web-tls%s}\nspec: {externalSecretSpec: {}}\n",
    "SealedSecret": "apiVersion: bitnami.com/v1alpha1\nkind: SealedSecret\nmetadata: {name: web-tls%s}\n"
                    "spec: {encryptedData: {k: AgBy}}\n",
    "Ingress, cert-manager.io/cluster-issuer": (
        "apiVersion: networking.k8s.io/v1\nkind: Ingress\n"
        "metadata: {name: w%s, annotations: {cert-manager.io/cluster-issuer: le}}\n"
        "spec: {tls: [{hosts: [a.example.com], secretName: web-tls}]}\n"),
    "Ingress, kubernetes.io/tls-acme": (
        "apiVersion: networking.k8s.io/v1\nkind: Ingress\n"
        "metadata: {name: w%s, annotations: {kubernetes.io/tls-acme: \"true\"}}\n"
        "spec: {tls: [{hosts: [a.example.com], secretName: web-tls}]}\n"),
    "Gateway, kubernetes.io/tls-acme": (
        "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\n"
        "metadata: {name: g%s, annotations: {kubernetes.io/tls-acme: \"true\"}}\n"
        "spec: {gatewayClassName: x, listeners: [{name: https, port: 443, protocol: HTTPS,"
        " tls: {certificateRefs: [{name: web-tls}]}}]}\n"),
}

SECRET = ("apiVersion: v1\nkind: Secret\nmetadata: {name: web-tls%s}\ntype: kubernetes.io/tls\n"
          "data: {tls.crt: Q0VSVA==, tls.key: S0VZ}\n")
READER = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: p%s}\nspec:\n  template:\n    spec:\n"
          "      containers: [{name: c, image: x}]\n      volumes: [{name: t, secret: {secretName: web-tls}}]\n")


def _namespaced(template: str, namespace: str | None) -> str:
    # Each template's metadata flow mapping ends with `%s`, where a namespace goes.
    return template % (f", namespace: {namespace}" if namespace else "")


def _objects(text: str) -> list[dict]:
    return [d for d in YAML(typ="safe").load_all(text) if d]


def _kept(producer: str, producer_ns: str | None, secret_ns: str | None, args: tuple[str, ...] = ()):
    stream = "---\n".join([_namespaced(PRODUCERS[producer], producer_ns), _namespaced(SECRET, secret_ns),
                           _namespaced(READER, secret_ns)])
    result = run_postrender(list(args), stream)
    assert result.status == 0, result.stderr
    objects = _objects(result.stdout)
    secrets = [o["metadata"]["name"] for o in objects if o["kind"] == "Secret"]
    (reader,) = [o for o in objects if o["kind"] == "Deployment"]
    mounted = reader["spec"]["template"]["spec"]["volumes"][0]["secret"]["secretName"]
    return secrets, mounted


@pytest.mark.parametrize("producer", sorted(PRODUCERS))
@pytest.mark.parametrize("producer_ns, secret_ns", [
    (None, None),
    ("prod", "prod"),
    # The implicit namespace is whatever the deployer picks: a chart that
    # gives its Secret `namespace: {{ .Release.Namespace }}` and not its
    # Certificate, rendered without --namespace. References match so.
    (None, "prod"),
    ("prod", None),
])
def test_the_produced_secret_keeps_its_name(producer, producer_ns, secret_ns):
    secrets, mounted = _kept(producer, producer_ns, secret_ns)
    assert secrets == ["web-tls"] and mounted == "web-tls"


@pytest.mark.parametrize("producer", ["Certificate", "Ingress, kubernetes.io/tls-acme"])
def test_a_producer_in_another_explicit_namespace_claims_nothing(producer):
    secrets, mounted = _kept(producer, "staging", "prod")
    assert mounted != "web-tls" and mounted.startswith("web-tls-") and mounted in secrets


@pytest.mark.parametrize("producer", ["Certificate", "Ingress, kubernetes.io/tls-acme"])
def test_under_a_namespace_flag_the_answer_is_the_same(producer):
    assert _kept(producer, None, "prod", ("--namespace", "prod")) == (["web-tls"], "web-tls")
    # And a producer the flag puts elsewhere claims nothing there.
    secrets, mounted = _kept(producer, None, "prod", ("--namespace", "staging"))
    assert mounted.startswith("web-tls-")


def test_a_reference_to_what_a_producer_makes_across_namespaces_is_not_dangling():
    stream = "---\n".join([_namespaced(PRODUCERS["Certificate"], None), _namespaced(READER, "prod")])
    result = run_postrender(["graph"], stream)
    assert result.status == 0, result.stderr
    (row,) = [line for line in result.stdout.splitlines() if line.startswith("Deployment/")]
    assert "produced" in row and "dangling" not in row
    assert "not in the stream" not in result.stderr
