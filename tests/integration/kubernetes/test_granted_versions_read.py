"""What kubectl reads of a ReferenceGrant a render gave a version's entry
(tests/unit/pipeline/test_reference_grants.py renders the class): the entry
postrender writes as a line of JSON is the grant's own kind of entry, beside
the original's, and the Gateway names what the grant allows."""

from __future__ import annotations

from conftest import run_postrender
from kube_reader import read_streams

STREAM = """\
apiVersion: v1
kind: Secret
metadata: {name: tls, namespace: certs}
type: kubernetes.io/tls
data: {tls.crt: YQ==, tls.key: Yg==}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: g, namespace: gw}
spec:
  gatewayClassName: x
  listeners:
  - {name: a, port: 443, protocol: HTTPS, tls: {certificateRefs: [{kind: Secret, name: tls, namespace: certs}]}}
---
apiVersion: gateway.networking.k8s.io/v1beta1
kind: ReferenceGrant
metadata: {name: rg, namespace: certs}
spec:
  from: [{group: gateway.networking.k8s.io, kind: Gateway, namespace: gw}]
  to:
  - group: ""
    kind: Secret
    name: tls
"""


def test_kubectl_reads_the_version_granted_beside_the_original():
    result = run_postrender([], STREAM)
    assert result.status == 0, result.stderr
    (objects,) = read_streams([result.stdout])
    (grant,) = [o for o in objects if o["kind"] == "ReferenceGrant"]
    (gateway,) = [o for o in objects if o["kind"] == "Gateway"]
    version = gateway["spec"]["listeners"][0]["tls"]["certificateRefs"][0]["name"]
    assert version != "tls" and version in {o["metadata"]["name"] for o in objects if o["kind"] == "Secret"}
    assert grant["spec"]["to"] == [{"group": "", "kind": "Secret", "name": version},
                                   {"group": "", "kind": "Secret", "name": "tls"}]
