"""A file in a ConfigMap's data that names a config for the program it
configures (graph/byname.py `entry_names`): the name kept, the workload
rolled by hash. Written `namespace/name`, or as a list under a key the
guard's `lists` rule knows (`configMaps: [a]`, `secrets:` and `- a` lines),
in YAML or JSON, as one written alone is."""

from __future__ import annotations

import json

import pytest

from conftest import run_postrender

NAMED = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: agent-cfg, namespace: app}
data: {a: x}
---
apiVersion: v1
kind: Secret
metadata: {name: agent-tls, namespace: app}
type: Opaque
stringData: {a: pem}
---
"""


def stream(file: str) -> str:
    settings = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings", "namespace": "app"},
                "data": {"app.conf": file}}
    web = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "app"},
           "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "x", "envFrom": [
               {"configMapRef": {"name": "agent-cfg"}}, {"secretRef": {"name": "agent-tls"}},
               {"configMapRef": {"name": "settings"}}]}]}}}}
    return NAMED + json.dumps(settings) + "\n---\n" + json.dumps(web) + "\n"


@pytest.mark.parametrize("file, kept", [
    ("configMapName: app/agent-cfg\n", ["ConfigMap"]),
    ('{"configMapName": "app/agent-cfg", "secretName": "app/agent-tls"}', ["ConfigMap", "Secret"]),
    ("watch:\n  configMaps: [agent-cfg]\n", ["ConfigMap"]),
    ('{"watch": {"configMaps": ["agent-cfg"], "secrets": ["other-one", "agent-tls"]}}', ["ConfigMap", "Secret"]),
    ("configMaps:\n  - agent-cfg  # the agent's\n  - \"app/x\"\nsecretNames:\n- 'agent-tls'\n", ["ConfigMap", "Secret"]),
    # Neither a key that says so nor the object's namespace: nothing named.
    ("items: [agent-cfg, agent-tls]\n", []),
    ("configMapName: other/agent-cfg\n", []),
])
def test_a_name_in_a_config_file_keeps_its_name(file, kept):
    result = run_postrender(["-v", "--keep-original=none"], stream(file))
    assert result.status == 0, result.stderr
    for kind, name in (("ConfigMap", "agent-cfg"), ("Secret", "agent-tls")):
        keeps = f"{kind}/app/{name} keeps its name: ConfigMap/app/settings data[\"app.conf\"] names it" in result.stderr
        assert keeps is (kind in kept), result.stderr
        assert (f"renamed {kind}/app/{name} ->" in result.stderr) is (kind not in kept)


def test_zero_to_jupyterhubs_name_map_keeps_the_user_pods_secret():
    # The hub ConfigMap's `singleuser: singleuser` names the Secret the hub
    # mounts into every user pod it spawns: under --version-all it was
    # renamed with no copy, exit 0, and user pods would mount nothing.
    hub = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "hub", "namespace": "app"},
           "data": {"hub": "hub", "singleuser": "agent-tls"}}
    web = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "hub", "namespace": "app"},
           "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "x", "envFrom": [
               {"configMapRef": {"name": "hub"}}]}]}}}}
    text = NAMED + json.dumps(hub) + "\n---\n" + json.dumps(web) + "\n"
    result = run_postrender(["-v", "--keep-original=none"], text)
    assert result.status == 0, result.stderr
    assert "Secret/app/agent-tls keeps its name: ConfigMap/app/hub data.singleuser names it" in result.stderr
    forced = run_postrender(["--version-all", "--keep-original=none"], text)
    assert forced.status == 1 and forced.stdout == ""
    assert "data.singleuser: names Secret 'agent-tls', which a program reads by that name" in forced.stderr


@pytest.mark.parametrize("around", [
    # A long line of key characters with no `:` after it: the scan tried each
    # as a key's start and read on to the line's end, quadratic (scale60: a
    # 100 KB line took two minutes). 50 KB took half a minute; now one pass.
    lambda file: file + "a" * 50_000 + "\n",
    lambda file: "a" * 50_000 + "\n" + file,
    lambda file: file + "0a1b2c3d4e5f" * 4_000 + "\n",
    lambda file: file + "a-" * 25_000 + "\n",
    lambda file: "watch:\n  configMaps: [agent-cfg]\n" + "x." * 25_000 + "\n" + file,
])
def test_a_long_run_of_key_characters_is_read_once_and_names_still_found(around):
    result = run_postrender(["-v", "--keep-original=none"], stream(around("secretName: app/agent-tls\n")))
    assert result.status == 0, result.stderr
    assert 'Secret/app/agent-tls keeps its name: ConfigMap/app/settings data["app.conf"] names it' in result.stderr


@pytest.mark.parametrize("file, named", [
    ("secretName: app/agent-tls\n", True),
    ("x-secretName: app/agent-tls\n", True),   # a run that starts with a letter: the whole run is the key
    ("my.secretName: app/agent-tls\n", True),
    # A key is a whole run of key characters: `-secretName` and `1secretName`
    # are no key `secretName` (a search that started anywhere took them as one).
    ("-secretName: app/agent-tls\n", False),
    ("1secretName: app/agent-tls\n", False),
])
def test_a_key_is_a_whole_run_of_key_characters(file, named):
    result = run_postrender(["-v", "--keep-original=none"], stream(file))
    assert result.status == 0, result.stderr
    assert ("Secret/app/agent-tls keeps its name" in result.stderr) is named, result.stderr
