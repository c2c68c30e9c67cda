"""Reading a kubeconfig as client-go does (postrender/kubeconfig.py): the
files kubectl and Helm read are read, and one that is not says where, never
what it holds (a kubeconfig holds tokens)."""

from __future__ import annotations

import pytest

from postrender.kubeconfig import KubeconfigError, merged

# A flow mapping holding a URL: libyaml 0.1.7 refuses the `:` in
# `https://host:6443`, go-yaml (kubectl, Helm, client-go) reads it (cluster61).
FLOW = """\
apiVersion: v1
kind: Config
clusters:
- name: test
  cluster: {server: https://127.0.0.1:6443, insecure-skip-tls-verify: true}
users:
- name: u
  user: {token: sometoken}
contexts:
- name: test
  context: {cluster: test, user: u, namespace: shop}
current-context: test
"""


def test_a_flow_mapping_holding_a_url_is_read_as_kubectl_reads_it(tmp_path):
    path = tmp_path / "config"
    path.write_text(FLOW)
    config = merged(str(path))
    assert config.current_context == "test" and config.namespace() == "shop"


def test_the_cluster_client_takes_it_too(tmp_path):
    pytest.importorskip("kubernetes")
    from postrender.cluster.client import Cluster

    path = tmp_path / "config"
    path.write_text(FLOW)
    cluster = Cluster.connect(str(path))  # reads credentials only: no request is made
    assert cluster.namespace == "shop"


@pytest.mark.parametrize("broken, where", [
    ("users:\n- name: u\n  user: {token: s3cr3t-t0ken\ncontexts: []\n", "line 4, column 9"),
    ("users:\n- name: u\n  user:\n    token: s3cr3t-t0ken\n\ttoken2: x\n", "line 5, column 1"),
    ("users:\n- name: u\n  user:\n    token: 's3cr3t-t0ken\n", "line 5, column 1"),
])
def test_an_unreadable_kubeconfig_says_where_and_never_what(tmp_path, broken, where):
    path = tmp_path / "config"
    path.write_text(broken)
    with pytest.raises(KubeconfigError) as raised:
        merged(str(path))
    message = str(raised.value)
    assert message == f"the kubeconfig {path} cannot be read (invalid YAML at {where})"
    assert "s3cr3t" not in message


def test_a_key_written_twice_is_read_as_client_go_reads_it(tmp_path):
    # review61a: refused, and the refusal quoted both tokens. client-go
    # (go-yaml's map) keeps the later value.
    path = tmp_path / "config"
    path.write_text(FLOW.replace("user: {token: sometoken}", "user: {token: old-s3cr3t, token: new-s3cr3t}")
                    + "current-context: test\ncontexts:\n- name: test\n  context: {cluster: test, user: u,"
                    " namespace: later}\n")
    config = merged(str(path))
    assert config.current_context == "test" and config.namespace() == "later"


@pytest.mark.parametrize("command", [["gc"], ["--retain", "2", "-n", "x", "--scope", "s", "-f", "-"]])
def test_a_kubeconfig_that_is_not_there_is_said_so(tmp_path, monkeypatch, command):
    # "Invalid kube-config file. No configuration found.", naming no file (cli62).
    pytest.importorskip("kubernetes")
    from conftest import run_postrender

    missing = tmp_path / "nonexistent"
    stream = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {k: v}\n"
    said = run_postrender([*command, "--kubeconfig", str(missing)], stream)
    assert (said.status, said.stdout) == (1, ""), said
    assert said.stderr == f"postrender: error: the kubeconfig {missing} does not exist\n"
    listed = run_postrender(command, stream, env={"KUBECONFIG": f"{missing}:{tmp_path / 'other'}"})
    assert listed.stderr == (f"postrender: error: no kubeconfig: no file $KUBECONFIG names exists "
                             f"({missing}, {tmp_path / 'other'})\n"), listed
    # A `~` left unexpanded is said so, kubectl expanding none (review62b).
    tilde = run_postrender(command, stream, env={"KUBECONFIG": "~/kc.yaml"})
    assert tilde.stderr == ("postrender: error: no kubeconfig: no file $KUBECONFIG names exists (~/kc.yaml); "
                            "a ~ is not expanded here, as kubectl does not: write $HOME\n"), tilde
    monkeypatch.delenv("KUBECONFIG", raising=False)
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    default = run_postrender(command, stream)
    assert default.stderr == (f"postrender: error: no kubeconfig: {tmp_path}/.kube/config does not exist; "
                              "pass --kubeconfig or set $KUBECONFIG\n"), default
