"""Names in container arguments and environment values (podSpecArgs rows):
`--flag=name`, `--flag=namespace/name`, `--flag=$(POD_NAMESPACE)/name`,
`--flag name` as two items, `-flag=name`, and exact `env` values.

The oracle for the rewritten text is kubectl: `kubectl label --local -o json`
prints what kubectl (and Helm) would send the API server.
"""

from __future__ import annotations

import json
import subprocess

import pytest
from ruamel.yaml import YAML

from conftest import run_postrender, require_tool

CONFIG = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: %s, namespace: %s}
data: {k: v}
"""
SECRET = """\
apiVersion: v1
kind: Secret
metadata: {name: %s, namespace: %s}
data: {k: dg==}
"""


def deployment(container: str, namespace: str = "ingress") -> str:
    """A Deployment whose one container is given as YAML (indented 8)."""
    return (f"apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: c, namespace: {namespace}}}\n"
            "spec:\n  template:\n    spec:\n      containers:\n" + container)


def render(*docs: str, args: list[str] | None = None) -> tuple[dict[str, dict], str]:
    result = run_postrender(args or [], "---\n".join(docs))
    assert result.status == 0, result.stderr
    out = {f"{d['kind']}/{d['metadata'].get('namespace')}/{d['metadata']['name']}": d
           for d in YAML(typ="safe").load_all(result.stdout) if d}
    return out, result


def versioned_name(out: dict[str, dict], kind: str, namespace: str, base: str) -> str:
    (name,) = [d["metadata"]["name"] for d in out.values() if d["kind"] == kind
               and d["metadata"].get("namespace") == namespace
               and (d["metadata"].get("labels") or {}).get("postrender.io/base-name") == base]
    return name


def container(out: dict[str, dict], namespace: str = "ingress") -> dict:
    return out[f"Deployment/{namespace}/c"]["spec"]["template"]["spec"]["containers"][0]


def json_objects(text: str) -> list[dict]:
    """kubectl prints one JSON object per input document, back to back."""
    decoder, found, at = json.JSONDecoder(), [], 0
    while text[at:].strip():
        obj, end = decoder.raw_decode(text, at + len(text[at:]) - len(text[at:].lstrip()))
        found.append(obj)
        at = end
    return found


ARG_FORMS = [
    # (args as written, what each becomes; {new} is the versioned name)
    (["--configmap=settings"], ["--configmap={new}"]),
    (["--configmap=ingress/settings"], ["--configmap=ingress/{new}"]),
    (["--configmap=$(POD_NAMESPACE)/settings"], ["--configmap=$(POD_NAMESPACE)/{new}"]),
    (["--configmap", "settings"], ["--configmap", "{new}"]),
    (["--configmap", "ingress/settings"], ["--configmap", "ingress/{new}"]),
    (["-configmap=settings"], ["-configmap={new}"]),
    (["--tcp-services-configmap=$(POD_NAMESPACE)/settings", "--v=2"], ["--tcp-services-configmap=$(POD_NAMESPACE)/{new}", "--v=2"]),
]


@pytest.mark.parametrize("where", ["args", "command"])
@pytest.mark.parametrize("written,expected", ARG_FORMS, ids=[" ".join(w) for w, _ in ARG_FORMS])
def test_every_flag_form_is_rewritten(written, expected, where):
    items = json.dumps(["/controller", *written])
    out, _ = render(CONFIG % ("settings", "ingress"), deployment(f"        - name: c\n          {where}: {items}\n"))
    new = versioned_name(out, "ConfigMap", "ingress", "settings")
    assert container(out)[where] == ["/controller", *(e.format(new=new) for e in expected)]


@pytest.mark.parametrize("style", ["block", "flow", "quoted", "single"])
def test_any_yaml_style_reads_back_as_the_rewritten_flag(style, tmp_path):
    item = {"block": "- --configmap=$(POD_NAMESPACE)/settings", "flow": "[--configmap=$(POD_NAMESPACE)/settings]",
            "quoted": '- "--configmap=$(POD_NAMESPACE)/settings"',
            "single": "- '--configmap=$(POD_NAMESPACE)/settings'"}[style]
    args = f"          args: {item}\n" if style == "flow" else f"          args:\n            {item}\n"
    out, result = render(CONFIG % ("settings", "ingress"), deployment("        - name: c\n" + args))
    new = versioned_name(out, "ConfigMap", "ingress", "settings")
    rendered = tmp_path / "out.yaml"
    rendered.write_text(result.stdout)
    kubectl = subprocess.run([require_tool("kubectl"), "label", "--local", "-f", str(rendered), "zz=x", "-o", "json"],
                             capture_output=True, text=True)
    assert kubectl.returncode == 0, kubectl.stderr
    (dep,) = [i for i in json_objects(kubectl.stdout) if i["kind"] == "Deployment"]
    assert dep["spec"]["template"]["spec"]["containers"][0]["args"] == [f"--configmap=$(POD_NAMESPACE)/{new}"]


def test_the_namespace_in_a_flag_decides_which_object():
    docs = (CONFIG % ("settings", "ingress"), CONFIG % ("settings", "other"), SECRET % ("cert", "certs"))
    args = '["--configmap=other/settings", "--default-ssl-certificate=certs/cert"]'
    out, _ = render(*docs, deployment(f"        - name: c\n          args: {args}\n"))
    other = versioned_name(out, "ConfigMap", "other", "settings")
    cert = versioned_name(out, "Secret", "certs", "cert")
    assert container(out)["args"] == [f"--configmap=other/{other}", f"--default-ssl-certificate=certs/{cert}"]
    # $(POD_NAMESPACE) is the pod's own.
    out, _ = render(*docs, deployment('        - name: c\n          args: ["--configmap=$(POD_NAMESPACE)/settings"]\n'))
    own = versioned_name(out, "ConfigMap", "ingress", "settings")
    assert container(out)["args"] == [f"--configmap=$(POD_NAMESPACE)/{own}"]


@pytest.mark.parametrize("args,read", [
    (["--configmap-extra=settings"], True),          # another flag that starts the same: a program
    (["--configmaps=settings"], True),               # reads it by name, so it keeps it and rolls by hash
    (["--configmap"], False),                        # no value at all: nothing names it
    # Not the listed flag's value, but still a word that names the object
    # exactly: read by name all the same (test_read_by_name.py).
    (["--configmap", "--v=2", "settings"], True),
    (["settings"], True),
    (["--log=settings"], True),
])
def test_only_the_listed_flags_count(args, read):
    out, result = render(CONFIG % ("settings", "ingress"),
                         deployment(f"        - name: c\n          args: {json.dumps(args)}\n"), args=["--keep-original=none"])
    assert container(out)["args"] == args
    assert result.stderr == ""
    assert ("postrender.io/config-hash" in result.stdout) == read, result.stdout


def test_a_flag_naming_nothing_in_the_stream_is_no_reference():
    """`--secret-name` is also kube-webhook-certgen's Secret, which its Job creates."""
    out, result = render(CONFIG % ("settings", "ingress"),
                         deployment('        - name: c\n          args: ["--secret-name=made-by-the-job"]\n'))
    assert container(out)["args"] == ["--secret-name=made-by-the-job"]
    assert result.stderr == ""
    graph = run_postrender(["graph"], "---\n".join([CONFIG % ("settings", "ingress"), deployment(
        '        - name: c\n          args: ["--secret-name=made-by-the-job"]\n')]))
    assert "made-by-the-job" not in graph.stdout


@pytest.mark.parametrize("value,expected", [("kyverno", "{new}"), ("ingress/kyverno", "ingress/{new}")])
def test_environment_values_of_listed_variables(value, expected):
    # (A variable no row lists that names the object makes it keep its name: test_read_by_name.py.)
    env = json.dumps([{"name": "INIT_CONFIG", "value": value}, {"name": "CONFIG_LOGGING_NAME", "value": "kyverno"}])
    out, _ = render(CONFIG % ("kyverno", "ingress"), deployment(f"        - name: c\n          env: {env}\n"))
    new = versioned_name(out, "ConfigMap", "ingress", "kyverno")
    assert [e["value"] for e in container(out)["env"]] == [expected.format(new=new), new]


def test_init_containers_and_every_pod_spec_kind():
    stateful = ("apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: s, namespace: ingress}\nspec:\n  template:\n"
                "    spec:\n      initContainers:\n        - name: i\n          args: [--configmap, settings]\n"
                "      containers: [{name: c}]\n")
    cron = ("apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: nightly, namespace: ingress}\nspec:\n  schedule: '@daily'\n"
            "  jobTemplate:\n    spec:\n      template:\n        spec:\n          containers:\n"
            "            - {name: c, env: [{name: METRICS_CONFIG, value: settings}]}\n")
    out, _ = render(CONFIG % ("settings", "ingress"), stateful, cron)
    new = versioned_name(out, "ConfigMap", "ingress", "settings")
    assert out["StatefulSet/ingress/s"]["spec"]["template"]["spec"]["initContainers"][0]["args"] == ["--configmap", new]
    cron_env = out["CronJob/ingress/nightly"]["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]["env"]
    assert cron_env == [{"name": "METRICS_CONFIG", "value": new}]


def test_a_job_keeps_its_flag_and_the_object_its_name():
    job = ("apiVersion: batch/v1\nkind: Job\nmetadata: {name: j, namespace: ingress}\nspec:\n  template:\n    spec:\n"
           "      containers: [{name: c, args: [--configmap=settings]}]\n")
    out, _ = render(CONFIG % ("settings", "ingress"), job)
    assert out["Job/ingress/j"]["spec"]["template"]["spec"]["containers"][0]["args"] == ["--configmap=settings"]
    assert "ConfigMap/ingress/settings" in out


def test_users_add_rows_with_config(tmp_path):
    config = tmp_path / "flags.yaml"
    config.write_text("podSpecArgs:\n  - {target: Secret, flags: [--credentials]}\n  - {target: ConfigMap, env: [APP_CONFIG]}\n")
    container_yaml = ('        - name: c\n          args: ["--credentials=$(POD_NAMESPACE)/creds"]\n'
                      '          env: [{name: APP_CONFIG, value: settings}]\n')
    docs = (SECRET % ("creds", "ingress"), CONFIG % ("settings", "ingress"), deployment(container_yaml))
    plain, _ = render(*docs)
    assert container(plain)["args"] == ["--credentials=$(POD_NAMESPACE)/creds"]
    out, _ = render(*docs, args=["--config", str(config)])
    creds = versioned_name(out, "Secret", "ingress", "creds")
    settings = versioned_name(out, "ConfigMap", "ingress", "settings")
    assert container(out)["args"] == [f"--credentials=$(POD_NAMESPACE)/{creds}"]
    assert container(out)["env"] == [{"name": "APP_CONFIG", "value": settings}]


@pytest.mark.parametrize("row,message", [
    ("{target: Service, flags: [--svc]}", "needs target: ConfigMap or Secret"),
    ("{target: Secret}", "one of flags or env"),
    ("{target: Secret, flags: [--a], env: [B]}", "one of flags or env"),
    ("{target: Secret, flags: [name]}", "written -name or --name"),
    ("{target: Secret, flags: [--a=b]}", "written -name or --name"),
    ("{target: Secret, flags: --a}", "must be a list of strings"),
    ("{target: Secret, env: [A B]}", "env holds variable names"),
    ("{target: Secret, flags: [--a], image: x}", "one of flags or env"),
])
def test_bad_rows_are_usage_errors(tmp_path, row, message):
    config = tmp_path / "bad.yaml"
    config.write_text(f"podSpecArgs:\n  - {row}\n")
    result = run_postrender(["--config", str(config)], CONFIG % ("settings", "ingress"))
    assert result.status == 2 and result.stdout == ""
    assert message in result.stderr
