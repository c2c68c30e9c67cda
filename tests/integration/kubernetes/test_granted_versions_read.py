"""What kubectl reads of a ReferenceGrant a render gave a version's entry
(tests/unit/pipeline/test_reference_grants.py renders the class; the golden
fixture crd-gateway-reference-grant is the stream): the entry postrender
writes as a line of JSON is an entry like the grant's own, beside the
original's, and the Gateway names what the grant allows."""

from __future__ import annotations

from conftest import FIXTURES, run_postrender
from kube_reader import read_streams


def test_kubectl_reads_the_version_granted_beside_the_original():
    stream = (FIXTURES / "golden" / "crd-gateway-reference-grant" / "input.yaml").read_text()
    result = run_postrender([], stream)
    assert result.status == 0, result.stderr
    (objects,) = read_streams([result.stdout])
    (grant,) = [o for o in objects if o["kind"] == "ReferenceGrant"]
    (gateway,) = [o for o in objects if o["kind"] == "Gateway"]
    tls = gateway["spec"]["listeners"][0]["tls"]
    secret = tls["certificateRefs"][0]["name"]
    ca = tls["frontendValidation"]["caCertificateRefs"][0]["name"]
    secrets = {o["metadata"]["name"] for o in objects if o["kind"] == "Secret"}
    assert secret != "wildcard-tls" and {secret, "wildcard-tls"} <= secrets
    assert grant["spec"]["to"] == [
        {"group": "", "kind": "Secret", "name": secret},
        {"group": "", "kind": "Secret", "name": "wildcard-tls"},
        {"group": "", "kind": "ConfigMap", "name": ca},
        {"group": "", "kind": "Secret"},
        {"group": "example.com", "kind": "Secret", "name": "wildcard-tls"},
    ]
