"""A program told its namespace by a `--namespace` flag reads the names its
other flags give there (kube-webhook-certgen: `create --namespace=x
--secret-name=y`): the flag specs (podSpecArgs), the by-name readers, the
guard and the cluster's reading of live objects look them up there, as they
do a name written `x/y`."""

from __future__ import annotations

import json
import re

import pytest

from conftest import run_postrender
from postrender.cluster.refs import uses
from postrender.fieldspecs import ReferenceTable, builtin_config, namespace_told

SECRETS = """\
apiVersion: v1
kind: Secret
metadata: {name: tls, namespace: app}
type: Opaque
stringData: {a: b}
---
apiVersion: v1
kind: Secret
metadata: {name: tls, namespace: other}
type: Opaque
stringData: {a: c}
"""


def certgen(args: list[str]) -> str:
    return SECRETS + "---\n" + json.dumps({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "app"},
        "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "x", "args": args}]}}}}) + "\n"


def version_of(out: str, namespace: str) -> str:
    return re.search(r"\{name: (tls-[a-z0-9]+), namespace: " + namespace + ",", out).group(1)


@pytest.mark.parametrize("args, reads", [
    (["create", "--namespace=other", "--secret-name=tls"], "other"),
    (["create", "--namespace", "other", "--secret-name", "tls"], "other"),
    (["create", "-namespace=other", "--secret-name=tls"], "other"),
    (["create", "--namespace=app", "--namespace=other", "--secret-name=tls"], "other"),  # the last wins
    (["create", "--namespace=$(POD_NAMESPACE)", "--secret-name=tls"], "app"),  # the pod's own
    (["create", "--secret-name=tls"], "app"),
    (["create", "--namespace=other", "--secret-name=app/tls"], "app"),  # the name states its own
])
def test_a_flag_specs_name_is_read_in_the_namespace_told(args, reads):
    result = run_postrender(["--version-all"], certgen(args))
    assert result.status == 0, result.stderr
    rewritten = re.search(r'"--secret-name[= ]?"?, ?"?(?:app/)?(tls-[a-z0-9]+)|--secret-name=(?:app/)?(tls-[a-z0-9]+)',
                          result.stdout)
    assert rewritten is not None, result.stdout
    assert (rewritten.group(1) or rewritten.group(2)) == version_of(result.stdout, reads)
    assert version_of(result.stdout, "app") != version_of(result.stdout, "other")


# `settings` in each namespace, each used by a Deployment there; a tool
# in `app`, told `other`, names `settings` by a flag no spec covers.
BY_NAME = "".join(f"""\
apiVersion: v1
kind: ConfigMap
metadata: {{name: settings, namespace: {namespace}}}
data: {{a: {namespace}}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {{name: user, namespace: {namespace}}}
spec:
  template:
    spec:
      containers:
      - {{name: c, image: x, envFrom: [{{configMapRef: {{name: settings}}}}]}}
---
""" for namespace in ("app", "other")) + """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: tool, namespace: app}
spec:
  template:
    spec:
      containers:
      - {name: c, image: x, args: ["--namespace=other", "--app-settings=settings"]}
"""


@pytest.mark.parametrize("flag", [["--namespace=other"], ["--namespace", "other"], ["-namespace", "other"]])
def test_a_by_name_reader_is_read_in_the_namespace_told_however_written(flag):
    stream = BY_NAME.replace('args: ["--namespace=other", "--app-settings=settings"]',
                             "args: " + json.dumps([*flag, "--app-settings=settings"]))
    result = run_postrender(["-v"], stream)
    assert result.status == 0, result.stderr
    assert "ConfigMap/other/settings keeps its name: Deployment/app/tool" in result.stderr


def test_a_namespace_in_command_holds_for_args_everywhere():
    # `command: [certgen, --namespace=other]`, `args: [--secret-name=tls]`:
    # one container, one program; the flag spec, the by-name readers and
    # the cluster read it alike.
    deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "app"},
                  "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "x",
                                                                 "command": ["certgen", "--namespace=other"],
                                                                 "args": ["create", "--secret-name=tls"]}]}}}}
    result = run_postrender(["--version-all"], SECRETS + "---\n" + json.dumps(deployment) + "\n")
    assert result.status == 0, result.stderr
    assert f'"--secret-name={version_of(result.stdout, "other")}"' in result.stdout
    table = ReferenceTable()
    table.extend(builtin_config(), "builtin.yaml")
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "app"},
           "spec": deployment["spec"]["template"]["spec"]}
    assert uses(pod, table) == {("Secret", "other", "tls")}


def test_a_by_name_reader_is_read_in_the_namespace_told():
    stream = BY_NAME
    result = run_postrender(["-v"], stream)
    assert result.status == 0, result.stderr
    assert "ConfigMap/other/settings keeps its name: Deployment/app/tool" in result.stderr
    assert "renamed ConfigMap/app/settings -> settings-" in result.stderr


def test_an_argument_no_flag_spec_covers_is_read_in_the_namespace_told():
    # --tls-secret is no flag spec: the by-name readers (and the guard's
    # argument words) find it. Versioned anyway, with no copy, the name is
    # broken: the message names the object in the namespace told.
    stream = SECRETS + "---\n" + json.dumps({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "user", "namespace": "app"},
        "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "x",
                                                       "envFrom": [{"secretRef": {"name": "tls"}}]}]}}}}) + "\n"
    for args, named in ((["--namespace=other", "--tls-secret=tls"], "Secret/other/tls"),
                        (["--tls-secret=tls"], "Secret/app/tls")):
        tool = json.dumps({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "t", "namespace": "app"},
                           "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "x", "args": args}]}}}})
        result = run_postrender(["--version-all", "--keep-original=none"], stream + "---\n" + tool + "\n")
        assert result.status == 1 and result.stdout == ""
        errors = [line for line in result.stderr.splitlines() if "Job/t" in line]
        assert errors and all(f"opt {named} out" in line for line in errors), result.stderr


def test_the_cluster_reads_live_objects_alike():
    table = ReferenceTable()
    table.extend(builtin_config(), "builtin.yaml")
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "app"},
           "spec": {"containers": [{"name": "c", "args": ["create", "--namespace", "other", "--secret-name=tls"]}]}}
    assert uses(pod, table) == {("Secret", "other", "tls")}


@pytest.mark.parametrize("arguments, told", [
    ([], None), (["--namespace=a"], "a"), (["--namespace", "a"], "a"), (["-namespace=a", "--namespace=b"], "b"),
    (["--namespace=$(POD_NAMESPACE)"], None), (["--namespace=Not_A_Namespace"], None), (["--namespace"], None),
    (["-n", "a"], None), (["--namespaces=a"], None),
])
def test_namespace_told(arguments, told):
    assert namespace_told(arguments) == told
