"""A Gateway API ReferenceGrant lets the Gateways (and routes) of the `from`
namespaces reach one Secret or ConfigMap of its own namespace by name, an
entry of `to` {group: "", kind, name} each. Once a Gateway's reference is
rewritten to a version, the grant must name the version too, or the Gateway
loses its certificate (RefNotPermitted) with nothing said; and it must keep
the original name wherever an object of that name is still written (the
unsuffixed copy), for the Gateways the stream does not hold.

A grant, not a use: a Secret only a grant names is not versioned for it."""

from __future__ import annotations

import pytest

from conftest import run_postrender

SECRET = "apiVersion: v1\nkind: Secret\nmetadata: {name: tls, namespace: certs}\ntype: kubernetes.io/tls\n" \
         "data: {tls.crt: YQ==, tls.key: Yg==}\n"
CA = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ca, namespace: certs}\ndata: {ca.crt: pem}\n"
GATEWAY = """\
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: g, namespace: gw}
spec:
  gatewayClassName: x
  listeners:
  - name: a
    port: 443
    protocol: HTTPS
    tls:
      certificateRefs: [{kind: Secret, name: tls, namespace: certs}]
      frontendValidation:
        caCertificateRefs: [{group: "", kind: ConfigMap, name: ca, namespace: certs}]
"""
GRANT = """\
apiVersion: gateway.networking.k8s.io/v1beta1
kind: ReferenceGrant
metadata: {name: rg, namespace: certs}
spec:
  from: [{group: gateway.networking.k8s.io, kind: Gateway, namespace: gw}]
  to:%s
"""
# The entries of `to`: for the Secret, for the ConfigMap, for every Secret,
# and for another group's kind of the name; written in block style, then flow.
ENTRIES = [{"group": "", "kind": "Secret", "name": "tls"}, {"group": "", "kind": "ConfigMap", "name": "ca"},
           {"group": "", "kind": "Secret"}, {"group": "example.com", "kind": "Secret", "name": "tls"}]


def _block(entry: dict) -> str:
    return "".join(("\n  - " if at == 0 else "\n    ") + f"{key}: {value or chr(34) * 2}"
                   for at, (key, value) in enumerate(entry.items()))


BLOCK = GRANT % "".join(map(_block, ENTRIES))
FLOW = GRANT % (" [" + ", ".join("{" + ", ".join(f"{k}: {v or chr(39) * 2}" for k, v in e.items()) + "}"
                                 for e in ENTRIES) + "]")


def _docs(text: str) -> list[dict]:
    from ruamel.yaml import YAML

    return [d for d in YAML(typ="safe").load_all(text) if d]


def _rendered(args: list[str], grant: str) -> tuple[dict, list[dict], str]:
    result = run_postrender(args, "---\n".join([SECRET, CA, GATEWAY, grant]))
    assert result.status == 0, result.stderr
    docs = _docs(result.stdout)
    return next(d for d in docs if d["kind"] == "ReferenceGrant"), docs, result.stdout


def _names(docs: list[dict], kind: str) -> set[str]:
    return {d["metadata"]["name"] for d in docs if d["kind"] == kind}


@pytest.mark.parametrize("grant", [BLOCK, FLOW], ids=["block", "flow"])
@pytest.mark.parametrize("keep", ["auto", "none", "all"])
def test_a_reference_grant_names_every_version_a_gateway_reaches_and_every_name_still_written(grant, keep):
    rg, docs, _ = _rendered([f"--keep-original={keep}"], grant)
    gateway = next(d for d in docs if d["kind"] == "Gateway")
    tls = gateway["spec"]["listeners"][0]["tls"]
    wanted = {("Secret", tls["certificateRefs"][0]["name"]),
              ("ConfigMap", tls["frontendValidation"]["caCertificateRefs"][0]["name"])}
    assert all(name.startswith(("tls-", "ca-")) for _, name in wanted)
    core = [(entry["kind"], entry.get("name")) for entry in rg["spec"]["to"] if entry["group"] == ""]
    assert wanted <= set(core)
    # The originals stay granted exactly where an object still holds them.
    for kind, name in (("Secret", "tls"), ("ConfigMap", "ca")):
        assert ((kind, name) in core) == (name in _names(docs, kind)), (kind, keep, core)
    # The entries for every Secret and for another group's kind are left as they were.
    assert {"group": "", "kind": "Secret"} in rg["spec"]["to"]
    assert {"group": "example.com", "kind": "Secret", "name": "tls"} in rg["spec"]["to"]
    assert len(core) == len(set(core))


@pytest.mark.parametrize("grant", [BLOCK, FLOW], ids=["block", "flow"])
def test_a_render_of_a_render_grants_nothing_more(grant):
    _, _, once = _rendered([], grant)
    again = run_postrender([], once)
    assert again.status == 0 and again.stdout == once, again.stderr


def test_what_only_a_grant_names_keeps_its_name_and_its_grant():
    # No Gateway in the stream: the grant is for Gateways elsewhere, which
    # name `tls`; nothing versions it, so nothing changes.
    stream = "---\n".join([SECRET, CA, BLOCK])
    result = run_postrender(["--keep-original=none"], stream)
    assert result.status == 0 and result.stdout == stream, result.stderr


def test_the_verbose_line_says_what_the_grant_names_now():
    result = run_postrender(["-v"], "---\n".join([SECRET, CA, GATEWAY, BLOCK]))
    (line,) = [line for line in result.stderr.splitlines() if "ReferenceGrant/certs/rg spec.to[0].name" in line]
    assert line.startswith("postrender: rewrote ") and line.endswith(" -> tls, tls-m6h7bkm2dg")


@pytest.mark.parametrize("written, read", [
    ('{group: "", kind: Secret, name: tls, note: 1}', {"group": "", "kind": "Secret", "note": 1}),
    ("{group: ~, kind: Secret, name: tls}", {"group": None, "kind": "Secret"}),
    ('{<<: {group: ""}, kind: Secret, name: tls}', {"group": "", "kind": "Secret"}),
])
def test_an_entry_is_granted_as_kubectl_reads_it_whatever_its_fields_hold(written, read):
    # The entry for the version is written as kubectl reads the original's
    # (merge keys merged, `~` null, other fields as they are), and the
    # original stays beside it while the unsuffixed copy holds the name.
    grant = GRANT % f"\n  - {written}"
    rg, docs, _ = _rendered(["--keep-original=auto"], grant)
    assert "tls" in _names(docs, "Secret")
    versions = [e for e in rg["spec"]["to"] if e["name"] != "tls"]
    assert versions == [{**read, "name": next(n for n in _names(docs, "Secret") if n != "tls")}]
    assert len(rg["spec"]["to"]) == 2


@pytest.mark.parametrize("keep", ["auto", "none"])
@pytest.mark.parametrize("grants", [
    # One grant's entry anchored, another's an alias of it, in one List.
    ["  to:\n  - &e {group: '', kind: Secret, name: tls}\n", "  to:\n  - *e\n"],
    # The entry anchored in `from`, its alias in `to`.
    ["  from: [&e {group: '', kind: Secret, name: tls}]\n  to: [*e]\n"],
])
def test_an_entry_an_alias_shares_is_refused_not_granted_elsewhere(grants, keep):
    # An entry written next to an alias's anchor lands where the anchor is
    # (another grant, or `from`), and the grant holding the alias would
    # never name the version: refused, as any edit of a shared node is.
    items = [SECRET, GATEWAY] + [
        "apiVersion: gateway.networking.k8s.io/v1beta1\nkind: ReferenceGrant\n"
        f"metadata: {{name: rg{at}, namespace: certs}}\nspec:\n" + body for at, body in enumerate(grants)]
    listed = "apiVersion: v1\nkind: List\nitems:\n" + "".join(
        "- " + item.rstrip("\n").replace("\n", "\n  ") + "\n" for item in items)
    result = run_postrender([f"--keep-original={keep}"], listed)
    assert result.status == 1 and result.stdout == "", result.stderr
    assert "alias" in result.stderr
