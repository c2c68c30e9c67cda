"""`helm upgrade` through postrender, with Helm 3.17 and 4.1 against a real
API server (issue 11, section 0b). No kubelet runs, so pods never start: the
tests assert on the objects the API server stores, which is what the pods
would read.

- A chart that reuses a generated password with `lookup` of its own Secret
  keeps the password over no-change upgrades.
- A non-hook Job whose ConfigMap changes does not fail the upgrade with
  `spec.template: ... field is immutable`.
- A pre-install/pre-upgrade hook finds the ConfigMap a Deployment also uses
  when it runs.
"""

from __future__ import annotations

import base64
import json
import subprocess
import threading
import time

import pytest

from conftest import ROOT, require_tool

from .kit import Kube

CHARTS = ROOT / "fixtures" / "charts"
HELM = [pytest.param(3, id="helm3"), pytest.param(4, id="helm4")]


def _deploy(kube: Kube, major: int, verb: str, chart: str, *args: str, check: bool = True):
    return kube.helm(major, verb, "rel", str(CHARTS / chart), *args, check=check)


def _versions(kube: Kube, resource: str, base: str) -> list[dict]:
    return [i for i in kube.get(resource, selector="postrender.io/versioned=true")["items"]
            if i["metadata"]["labels"].get("postrender.io/base-name") == base]


# --- lookup of the chart's own Secret ------------------------------------------


def _password(kube: Kube) -> tuple[str, str]:
    """The password the Deployment's pods would get, and the Secret it is in."""
    web = kube.get("deployment", "web")
    ref = web["spec"]["template"]["spec"]["containers"][0]["env"][0]["valueFrom"]["secretKeyRef"]
    secret = kube.get("secret", ref["name"])
    return base64.b64decode(secret["data"]["password"]).decode(), ref["name"]


@pytest.mark.parametrize("major", HELM)
def test_no_change_upgrades_keep_a_password_reused_through_lookup(kube: Kube, major: int):
    _deploy(kube, major, "install", "upgrade-lookup", *kube.post_renderer(major))
    first, name = _password(kube)
    assert name.startswith("db-") and len(first) == 16
    for _ in range(3):
        _deploy(kube, major, "upgrade", "upgrade-lookup", *kube.post_renderer(major))
        assert _password(kube) == (first, name), "a no-change upgrade must keep the password (and the version)"
    # What `lookup` finds: the unsuffixed, mutable copy of the Secret.
    copy = kube.get("secret", "db")
    assert copy["metadata"]["annotations"]["postrender.io/copy-of"] == name and "immutable" not in copy
    assert [v["metadata"]["name"] for v in _versions(kube, "secrets", "db")] == [name]


@pytest.mark.parametrize("major", HELM)
def test_without_the_copy_every_upgrade_generates_a_new_password(kube: Kube, major: int):
    """The failure the default prevents (and the reason the test above can fail)."""
    flags = kube.post_renderer(major, "--keep-original=none")
    _deploy(kube, major, "install", "upgrade-lookup", *flags)
    first, _ = _password(kube)
    _deploy(kube, major, "upgrade", "upgrade-lookup", *flags)
    second, _ = _password(kube)
    assert first != second
    assert not kube.exists("secret", "db")


# --- a non-hook Job ----------------------------------------------------------------


@pytest.mark.parametrize("major", HELM)
def test_a_jobs_changed_config_does_not_fail_the_upgrade(kube: Kube, major: int):
    _deploy(kube, major, "install", "upgrade-job", "--set", "step=1", *kube.post_renderer(major))
    job = kube.get("job", "migrate")
    upgrade = _deploy(kube, major, "upgrade", "upgrade-job", "--set", "step=2", *kube.post_renderer(major),
                      check=False)
    assert upgrade.returncode == 0, upgrade.stderr
    assert "field is immutable" not in upgrade.stderr
    after = kube.get("job", "migrate")
    assert after["metadata"]["uid"] == job["metadata"]["uid"] and after["spec"]["template"] == job["spec"]["template"]
    assert after["spec"]["template"]["spec"]["containers"][0]["envFrom"] == [{"configMapRef": {"name": "migrate-config"}}]
    # The Job's ConfigMap is the mutable copy, now with the new value; the
    # Deployment rolled to the new version.
    assert kube.get("configmap", "migrate-config")["data"] == {"STEP": "2"}
    web = kube.get("deployment", "web")
    version = web["spec"]["template"]["spec"]["containers"][0]["envFrom"][0]["configMapRef"]["name"]
    assert version.startswith("migrate-config-") and kube.get("configmap", version)["data"] == {"STEP": "2"}


# --- a pre-install/pre-upgrade hook ------------------------------------------------


class HookRunner:
    """Stands in for the kubelet a hook Job would need: when Helm creates the
    hook Job, record what its ConfigMap holds at that moment, then mark the
    Job complete so Helm goes on."""

    def __init__(self, kube: Kube, job: str, configmap: str):
        self.kube, self.job, self.configmap = kube, job, configmap
        self.seen: list[dict | None] = []  # the ConfigMap's data when each run started, None if missing
        self._done: set[str] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> HookRunner:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(10)

    def _run(self) -> None:
        kubectl = require_tool("kubectl")
        env = {**self.kube.env}
        base = [kubectl, "-n", self.kube.namespace]
        while not self._stop.is_set():
            got = subprocess.run([*base, "get", "job", self.job, "-o", "json"], capture_output=True, text=True,
                                 env=env, timeout=30)
            if got.returncode == 0:
                uid = json.loads(got.stdout)["metadata"]["uid"]
                if uid not in self._done:
                    config = subprocess.run([*base, "get", "configmap", self.configmap, "-o", "json"],
                                            capture_output=True, text=True, env=env, timeout=30)
                    self.seen.append(json.loads(config.stdout)["data"] if config.returncode == 0 else None)
                    status = {"status": {"succeeded": 1, "conditions": [{"type": "Complete", "status": "True"}]}}
                    patched = subprocess.run([*base, "patch", "job", self.job, "--subresource=status", "--type=merge",
                                              "-p", json.dumps(status)], capture_output=True, text=True, env=env,
                                             timeout=30)
                    if patched.returncode == 0:
                        self._done.add(uid)
            time.sleep(0.2)


@pytest.mark.parametrize("major", HELM)
def test_a_pre_upgrade_hook_finds_its_configmap(kube: Kube, major: int):
    # Helm 4 shows hooks to postrender, which leaves a pre-upgrade hook's
    # references as written and keeps an unsuffixed copy. Helm 3 never does:
    # there every versioned object keeps a copy (--keep-original=auto with
    # RenderOptions.hooks_hidden, which the Helm 3 integration sets; `all`
    # here is what that amounts to).
    extra = ("--keep-original=all",) if major == 3 else ()
    with HookRunner(kube, "seed", "app-settings") as hook:
        _deploy(kube, major, "install", "upgrade-hook", "--set", "greeting=one", *kube.post_renderer(major, *extra))
        upgrade = _deploy(kube, major, "upgrade", "upgrade-hook", "--set", "greeting=two",
                          *kube.post_renderer(major, *extra), check=False)
        assert upgrade.returncode == 0, upgrade.stderr
    # Install: the hook runs before anything of the release exists (so too
    # without postrender). Upgrade: it finds app-settings, with the data the
    # release had until now, as it would without postrender.
    assert hook.seen == [None, {"GREETING": "one"}]
    seed = kube.get("job", "seed")
    assert seed["spec"]["template"]["spec"]["containers"][0]["envFrom"] == [{"configMapRef": {"name": "app-settings"}}]
    assert kube.get("configmap", "app-settings")["data"] == {"GREETING": "two"}
    web = kube.get("deployment", "web")
    version = web["spec"]["template"]["spec"]["containers"][0]["envFrom"][0]["configMapRef"]["name"]
    assert version.startswith("app-settings-") and kube.get("configmap", version)["data"] == {"GREETING": "two"}
