"""Render-time marks for keeping versions (scope, --keep-previous, the
postrender.io/refs record) and the checks `--retain` makes before it ever
talks to a cluster. No cluster needed here."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from conftest import ROOT, run_cli, run_postrender

STREAM = textwrap.dedent("""\
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: config
      labels:
        app.kubernetes.io/instance: shop
    data:
      a: "1"
    ---
    apiVersion: v1
    kind: Secret
    metadata:
      name: creds
    stringData:
      password: hunter2
    ---
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: pinned
      annotations:
        postrender.io/versioned: "false"
    data:
      b: "2"
    ---
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: web
    spec:
      template:
        spec:
          containers:
            - name: web
              envFrom:
                - configMapRef: {name: config}
                - secretRef: {name: creds}
                - configMapRef: {name: pinned}
    ---
    apiVersion: batch/v1beta1
    kind: CronJob
    metadata:
      name: report
    spec:
      jobTemplate:
        spec:
          template:
            metadata:
              labels: {job: report}
            spec:
              containers:
                - name: r
                  env:
                    - name: A
                      valueFrom: {configMapKeyRef: {name: config, key: a}}
    ---
    apiVersion: v1
    kind: Pod
    metadata:
      name: debug
    spec:
      volumes:
        - name: s
          secret: {secretName: creds}
    ---
    apiVersion: networking.k8s.io/v1
    kind: Ingress
    metadata:
      name: site
    spec:
      tls:
        - secretName: creds
    """)


def _docs(text: str) -> dict[str, dict]:
    """By kind and base name; unsuffixed keep-original copies left out."""
    return {f"{d['kind']}/{d['metadata']['name'].split('-')[0]}": d
            for d in YAML(typ="safe").load_all(text) if d and "postrender.io/copy-of" not in _annotations(d)}


def _annotations(node: dict) -> dict:
    return (node.get("metadata") or {}).get("annotations") or {}


def test_scope_label_from_the_instance_label_or_scope_flag():
    plain = _docs(run_postrender(["-n", "ns"], STREAM).stdout)
    assert plain["ConfigMap/config"]["metadata"]["labels"]["postrender.io/scope"] == "shop"
    assert "postrender.io/scope" not in plain["Secret/creds"]["metadata"]["labels"], "no scope is known for it"
    assert "postrender.io/scope" not in (plain["ConfigMap/pinned"]["metadata"].get("labels") or {})

    scoped = _docs(run_postrender(["-n", "ns", "--scope", "team-a"], STREAM).stdout)
    for key in ("ConfigMap/config", "Secret/creds"):
        assert scoped[key]["metadata"]["labels"]["postrender.io/scope"] == "team-a"
    # A second run over the output keeps the scope it carries.
    again = run_postrender(["-n", "ns"], run_postrender(["-n", "ns", "--scope", "team-a"], STREAM).stdout)
    assert _docs(again.stdout)["ConfigMap/config"]["metadata"]["labels"]["postrender.io/scope"] == "team-a"


def test_keep_policies_mark_versioned_objects_only():
    expected = {
        "argocd": {"argocd.argoproj.io/sync-options": "Prune=false",
                   "argocd.argoproj.io/compare-options": "IgnoreExtraneous"},
        "flux": {"kustomize.toolkit.fluxcd.io/prune": "disabled"},
        "helm": {"helm.sh/resource-policy": "keep"},
    }
    for policy, marks in expected.items():
        result = run_postrender(["-n", "ns", f"--keep-previous={policy}"], STREAM)
        assert result.status == 0, result.stderr
        docs = _docs(result.stdout)
        for key in ("ConfigMap/config", "Secret/creds"):
            assert _annotations(docs[key]).items() >= marks.items(), (policy, key)
        assert not set(marks) & set(_annotations(docs["ConfigMap/pinned"])), "opted-out objects are not versions"
        assert not set(marks) & set(_annotations(docs["Deployment/web"]))
        warned = "rollback" in result.stderr and "--retain" in result.stderr
        assert warned == (policy == "helm"), (policy, result.stderr)


def test_keep_original_copies_get_no_keep_policy():
    result = run_postrender(["-n", "ns", "--keep-previous=flux", "--keep-original"], STREAM)
    docs = list(YAML(typ="safe").load_all(result.stdout))
    copies = [d for d in docs if d and d["metadata"]["name"] == "config"]
    assert len(copies) == 1
    assert "kustomize.toolkit.fluxcd.io/prune" not in _annotations(copies[0])


def test_refs_record_sits_on_pod_templates_or_metadata():
    out = run_postrender(["-n", "ns", "--keep-previous=argocd"], STREAM).stdout
    docs = _docs(out)
    config = docs["ConfigMap/config"]["metadata"]["name"]
    creds = docs["Secret/creds"]["metadata"]["name"]
    refs = "postrender.io/refs"
    assert _annotations(docs["Deployment/web"]["spec"]["template"])[refs] == f"ConfigMap/{config},Secret/{creds}"
    assert refs not in _annotations(docs["Deployment/web"]), "on the template, so ReplicaSets copy it"
    cron_template = docs["CronJob/report"]["spec"]["jobTemplate"]["spec"]["template"]
    assert _annotations(cron_template)[refs] == f"ConfigMap/{config}"
    assert cron_template["metadata"]["labels"] == {"job": "report"}
    # A bare Pod can never change: it keeps naming `creds` (an unsuffixed
    # copy, never a version gc could delete), so there is nothing to record.
    assert docs["Pod/debug"]["spec"]["volumes"][0]["secret"]["secretName"] == "creds"
    assert refs not in _annotations(docs["Pod/debug"])
    assert _annotations(docs["Ingress/site"])[refs] == f"Secret/{creds}", "kinds without a template: metadata"
    assert "pinned" not in out.split(refs)[1].split("\n")[0], "only versioned objects are recorded"

    assert refs not in run_postrender(["-n", "ns"], STREAM).stdout, "plain renders add no record"
    again = run_postrender(["-n", "ns", "--keep-previous=argocd"], out)
    assert again.stdout == out, "a second run changes nothing"


def test_retain_refuses_without_namespace_or_scope_before_reading_a_cluster(tmp_path):
    nowhere = _unreachable_kubeconfig(tmp_path)
    no_ns = run_postrender(["--retain=2", f"--kubeconfig={nowhere}", "--scope=s"], STREAM)
    assert no_ns.status == 2 and no_ns.stdout == ""
    assert "--retain needs the namespace" in no_ns.stderr and "--post-renderer-args" in no_ns.stderr

    no_scope = run_postrender(["--retain=2", f"--kubeconfig={nowhere}", "-n", "ns"], STREAM)
    assert no_scope.status == 2 and no_scope.stdout == ""
    assert "needs a scope for Secret/creds" in no_scope.stderr and "two releases" in no_scope.stderr

    for bad in (["--retain=0"], ["--scope=not a label"]):
        result = run_postrender(["-n", "ns", *bad], STREAM)
        assert result.status == 2 and result.stdout == "", bad


def test_unreachable_cluster_fails_the_render_with_no_output(tmp_path):
    nowhere = _unreachable_kubeconfig(tmp_path)
    result = run_cli(["--retain=2", "-n", "ns", "--scope=s", f"--kubeconfig={nowhere}"], STREAM, timeout=60)
    assert result.status == 1
    assert result.stdout == ""
    assert "cannot reach the cluster at https://127.0.0.1:" in result.stderr, result.stderr
    assert "hunter2" not in result.stderr


def test_an_unreachable_servers_password_and_query_are_not_said(tmp_path):
    """A kubeconfig's server URL may carry a password or a token in its
    query: masked as kubectl masks them (`u:***@`), for --retain and gc alike."""
    nowhere = _unreachable_kubeconfig(tmp_path)
    text = nowhere.read_text()
    at = text.index("https://") + len("https://")
    end = text.index('"', at)
    nowhere.write_text(text[:at] + "u:PASSW0RD@" + text[at:end] + "/p?token=T0KEN&x=1" + text[end:])
    for args in (["--retain=2", "-n", "ns", "--scope=s", f"--kubeconfig={nowhere}"], ["gc", f"--kubeconfig={nowhere}"]):
        result = run_cli(args, STREAM, timeout=60)
        assert result.status == 1 and "cannot reach the cluster at https://u:***@127.0.0.1:" in result.stderr, args
        assert "/p?..." in result.stderr
        assert "PASSW0RD" not in result.stderr and "T0KEN" not in result.stderr, result.stderr


@pytest.mark.parametrize("password", ["Tr0ub4dor3#x", "Tr0ub4dor3?x", "Tr0ub4dor3/x", "pass word1", "tabx\tword9",
                                      "ab#cdefgh"])
def test_a_server_password_a_pattern_cannot_end_is_not_said(tmp_path, password):
    # urllib3 quotes the userinfo it cannot parse ("Failed to parse: 'u:pass'",
    # cut at a `#`, `?` or `/`), and white space ended the pattern that masks
    # a URL's password (leak62): the password is known from the kubeconfig,
    # and masked as such, whole and cut.
    nowhere = _unreachable_kubeconfig(tmp_path)
    text = nowhere.read_text()
    at = text.index("https://") + len("https://")
    nowhere.write_text(text[:at] + f"admin:{password}@".replace("\t", "\\t") + text[at:])
    for args in (["--retain=2", "-n", "ns", "--scope=s", f"--kubeconfig={nowhere}"], ["gc", f"--kubeconfig={nowhere}"]):
        result = run_cli(args, STREAM, timeout=60)
        assert result.status == 1 and "cannot reach the cluster at https://admin:***@" in result.stderr, result.stderr
        for piece in (password, password[:10], password.split()[0], password[:2] + "'"):
            assert piece not in result.stderr.replace("\\x09", "\t"), (piece, result.stderr)


def test_a_server_password_is_masked_where_loading_the_kubeconfig_fails_and_garbles_no_word(tmp_path):
    # ipaddress quoted the part between brackets as the client loaded the
    # kubeconfig, a message the mask did not see; and a short password, or
    # one a word holds, masked letters all through the message (review62e).
    def said(password: str) -> str:
        nowhere = _unreachable_kubeconfig(tmp_path)
        text = nowhere.read_text()
        at = text.index("https://") + len("https://")
        nowhere.write_text(text[:at] + f"admin:{password}@" + text[at:])
        result = run_cli(["gc", f"--kubeconfig={nowhere}"], STREAM, timeout=60)
        assert result.status == 1 and result.stdout == ""
        return result.stderr

    bracketed = said("Sup3r[S3cretValue]x")
    assert "cannot load cluster credentials" in bracketed and "S3cretValue" not in bracketed, bracketed
    for short in ("e", "connect"):
        assert "Failed to establish a new connection" in said(short)


@pytest.mark.parametrize("text, masked", [
    ("https://h:6443", "https://h:6443"),
    ("https://u:p@h:6443/x", "https://u:***@h:6443/x"),
    ("https://u@h", "https://u@h"),
    ("https://h/p?token=t&a=b (refused)", "https://h/p?... (refused)"),
    ("HTTPSConnection(host='h', port=1): url: /api?token=t", "HTTPSConnection(host='h', port=1): url: /api?..."),
    # The userinfo runs to the last @ (Go's url.Parse); a password may hold @ or /.
    ("https://u:p@ss@127.0.0.1:1", "https://u:***@127.0.0.1:1"),
    ("https://u:pa/ss@127.0.0.1:1: bad", "https://u:***@127.0.0.1:1: bad"),
    ("https://[::1]:6443/x", "https://[::1]:6443/x"),
    ("socks5://u:p@proxy:1080 refused", "socks5://u:***@proxy:1080 refused"),
    ("https://h/a@b", "https://h/a@b"),
    # A quote in the password ended the URL before its @ (leak61).
    ("https://admin:ZQ'PW@127.0.0.1:9: refused", "https://admin:***@127.0.0.1:9: refused"),
    ("at 'https://u:p\"a/s'w@h:1/x'", "at 'https://u:***@h:1/x'"),
])
def test_without_credentials(text, masked):
    from postrender.cluster.client import without_credentials

    assert without_credentials(text) == masked


def test_missing_client_library_says_how_to_install_it(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "kubernetes", None)  # import kubernetes -> ImportError
    nowhere = _unreachable_kubeconfig(tmp_path)
    for args in (["--retain=2", "-n", "ns", "--scope=s", f"--kubeconfig={nowhere}"],
                 ["gc", f"--kubeconfig={nowhere}"]):
        result = run_postrender(args, STREAM)
        assert result.status == 1 and result.stdout == "", args
        assert f"{sys.executable} -m pip install 'kubernetes>=37'" in result.stderr, result.stderr


def test_plain_renders_never_import_the_cluster_client(tmp_path):
    manifest = tmp_path / "in.yaml"
    manifest.write_text(STREAM)
    code = textwrap.dedent(f"""
        import io, sys, contextlib
        from postrender.cli import main
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert main(["-n", "ns", "--keep-previous=argocd", {str(manifest)!r}]) == 0
            assert main(["graph", "-n", "ns", {str(manifest)!r}]) == 0
        loaded = sorted(m for m in sys.modules if m.split(".")[0] == "kubernetes"
                        or m.startswith(("postrender.cluster.client", "postrender.cluster.live")))
        print(",".join(loaded))
    """)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONSTARTUP"}
    proc = subprocess.run([sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True,
                          env=env, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "", f"plain render loaded: {proc.stdout}"
    imported = [line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines() if "|" in line]
    assert "postrender.pipeline.render" in imported, "the render ran"
    assert not [m for m in imported if m.startswith("kubernetes")]


def test_a_plain_render_imports_only_what_it_uses(tmp_path):
    # What start-up costs: the cluster code, the other commands' frontends,
    # and stdlib modules a render only needs on a rare path (a traceback
    # under POSTRENDER_DEBUG, a temporary file for -o FILE, packaged data).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONSTARTUP"}
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "postrender", "-n", "ns"], input=STREAM,
                          capture_output=True, text=True, env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "kind: ConfigMap" in proc.stdout
    imported = [line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines()
                if line.startswith("import time:")]
    assert "postrender.pipeline.render" in imported, "the render ran"
    unwanted = ("postrender.cluster", "postrender.frontends.diff", "postrender.frontends.graph", "postrender.frontends.krm",
                "postrender.frontends.kustomize_exec", "postrender.completion", "kubernetes",
                "traceback", "tempfile", "importlib.resources",
                "fractions", "decimal",  # float32 formatting only (syntax/nodes.py)
                "dataclasses", "inspect")  # records.record instead: no class compiled at start-up
    assert _loaded(imported, unwanted) == [], f"a plain render loaded {_loaded(imported, unwanted)}"


def test_a_render_with_nothing_to_hash_loads_no_hashlib(tmp_path):
    # hashlib loads OpenSSL (~3 ms): only a stream with a ConfigMap or Secret needs it.
    stream = "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {ports: [{port: 80}]}\n"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONSTARTUP"}
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "postrender"], input=stream,
                          capture_output=True, text=True, env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout == stream
    imported = [line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines()
                if line.startswith("import time:")]
    assert "postrender.pipeline.render" in imported, "the render ran"
    assert _loaded(imported, ("hashlib", "_hashlib")) == []


def _loaded(imported: list[str], unwanted: tuple[str, ...]) -> list[str]:
    return [m for m in imported if m in unwanted or m.startswith(tuple(f"{u}." for u in unwanted))]


def _unreachable_kubeconfig(tmp_path: Path) -> Path:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    path = tmp_path / "kubeconfig"
    path.write_text(textwrap.dedent(f"""\
        apiVersion: v1
        kind: Config
        clusters: [{{name: c, cluster: {{server: "https://127.0.0.1:{port}", insecure-skip-tls-verify: true}}}}]
        users: [{{name: u, user: {{token: t}}}}]
        contexts: [{{name: x, context: {{cluster: c, user: u}}}}]
        current-context: x
        """))
    return path


@pytest.mark.parametrize("user", [
    "{{tokenFile: {file}}}",  # `echo $TOKEN > file`: the line break client-go trims
    '{{token: "ZQLEAKTOKEN\\nX"}}',  # one inside it, which no header may hold
])
def test_a_token_is_never_shown_when_a_request_cannot_carry_it(tmp_path, user):
    # leak61: http.client refused the header and quoted it whole, the token
    # with it, into the message, on the terminal and in the log.
    token = tmp_path / "token"
    token.write_text("ZQLEAKTOKEN5678\n")
    config = _unreachable_kubeconfig(tmp_path)
    config.write_text(config.read_text().replace("{token: t}", user.format(file=token)).replace("https://", "http://"))
    log = tmp_path / "log"
    for args in (["--retain=2", "-n", "ns", "--scope=s", f"--kubeconfig={config}"], ["gc", f"--kubeconfig={config}"]):
        result = run_cli([*args, f"--log-file={log}"], STREAM, timeout=60)
        assert result.status == 1 and "cannot reach the cluster at http://127.0.0.1:" in result.stderr, result.stderr
        assert "ZQLEAKTOKEN" not in result.stderr + log.read_text(), result.stderr
