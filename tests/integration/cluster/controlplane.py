"""A throwaway Kubernetes control plane: etcd, kube-apiserver and
kube-controller-manager on loopback, with token auth and RBAC.

No kubelet and no scheduler: Pods stay Pending, which is all the retention
and gc tests need (references and rollout history live in the API objects).

Run this file directly to start one by hand and print a kubeconfig path.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import ssl
import subprocess
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ADMIN_TOKEN = "admin-token-for-tests"
# Users whose only rights come from the manifests postrender ships
# (integrations/gc/rbac.yaml), so the tests prove those rights are enough.
GC_TOKEN = "gc-token-for-tests"
GC_USER = "postrender-gc"
READER_TOKEN = "reader-token-for-tests"
READER_USER = "postrender-reader"

CONTROLLERS = "deployment,replicaset,statefulset,daemonset,job,cronjob,garbagecollector"


class ControlPlaneError(RuntimeError):
    pass


def k8s_bin() -> Path:
    """Where kube-apiserver and kube-controller-manager are; scripts/test
    exports POSTRENDER_K8S_BIN, scripts/control-plane builds it."""
    explicit = os.environ.get("POSTRENDER_K8S_BIN")
    if explicit:
        return Path(explicit)
    cache = Path(os.environ.get("POSTRENDER_TOOLS_CACHE") or Path.home() / ".cache" / "postrender-tools")
    return cache / "k8s-1.20.2" / "bin"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def make_pki(folder: Path) -> None:
    """A CA, a serving certificate for 127.0.0.1 and a service-account key.

    The extensions are spelled out because Python's ssl module (and so the
    kubernetes client) rejects certificates that kubectl would accept.
    """
    (folder / "ca.ext").write_text(
        "basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n"
        "subjectKeyIdentifier=hash\n"
    )
    (folder / "server.ext").write_text(
        "basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\n"
        "extendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n"
        "subjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n"
    )
    _openssl("genrsa", "-out", "ca.key", "2048", cwd=folder)
    _openssl("req", "-new", "-key", "ca.key", "-subj", "/CN=postrender-test-ca", "-out", "ca.csr", cwd=folder)
    _openssl("x509", "-req", "-in", "ca.csr", "-signkey", "ca.key", "-days", "2", "-extfile", "ca.ext",
             "-out", "ca.crt", cwd=folder)
    _openssl("genrsa", "-out", "server.key", "2048", cwd=folder)
    _openssl("req", "-new", "-key", "server.key", "-subj", "/CN=127.0.0.1", "-out", "server.csr", cwd=folder)
    _openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
             "-days", "2", "-extfile", "server.ext", "-out", "server.crt", cwd=folder)
    _openssl("genrsa", "-out", "sa.key", "2048", cwd=folder)
    _openssl("rsa", "-in", "sa.key", "-pubout", "-out", "sa.pub", cwd=folder)


def kubeconfig_text(server: str, ca: Path, token: str, user: str = "admin", context: str = "test",
                    namespace: str | None = None) -> str:
    ns = f"\n    namespace: {namespace}" if namespace else ""
    return f"""apiVersion: v1
kind: Config
clusters:
- name: test
  cluster:
    server: {server}
    certificate-authority: {ca}
users:
- name: {user}
  user:
    token: {token}
contexts:
- name: {context}
  context:
    cluster: test
    user: {user}{ns}
current-context: {context}
"""


@dataclass
class ControlPlane:
    root: Path
    server: str
    kubeconfig: Path
    processes: list[tuple[str, subprocess.Popen]] = field(default_factory=list)

    @property
    def ca(self) -> Path:
        return self.root / "pki" / "ca.crt"

    def write_kubeconfig(self, path: Path, token: str, user: str = "admin", context: str = "test",
                         namespace: str | None = None) -> Path:
        path.write_text(kubeconfig_text(self.server, self.ca, token, user, context, namespace))
        path.chmod(0o600)
        return path

    def get(self, path: str, token: str = ADMIN_TOKEN, timeout: float = 5) -> tuple[int, str]:
        request = urllib.request.Request(self.server + path, headers={"Authorization": f"Bearer {token}"})
        context = ssl.create_default_context(cafile=str(self.ca))
        try:
            with urllib.request.urlopen(request, context=context, timeout=timeout) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode(errors="replace")

    def check_alive(self) -> None:
        for name, proc in self.processes:
            if proc.poll() is not None:
                raise ControlPlaneError(f"{name} exited with {proc.returncode}; see {self.root / (name + '.log')}")

    def stop(self) -> None:
        # One at a time, clients first: an apiserver whose etcd is already
        # gone spends its whole grace period retrying.
        for _name, proc in reversed(self.processes):
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self.processes.clear()


def _spawn(cp: ControlPlane, name: str, argv: list[str]) -> None:
    log = open(cp.root / f"{name}.log", "wb")
    # Own process group: a Ctrl-C in the test run must not orphan them half-stopped.
    proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            start_new_session=True)
    log.close()
    cp.processes.append((name, proc))


def _wait(cp: ControlPlane, what: str, ready, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    last = ""
    while time.monotonic() < deadline:
        cp.check_alive()
        try:
            ok, last = ready()
            if ok:
                return
        except OSError as exc:
            last = str(exc)
        time.sleep(0.25)
    raise ControlPlaneError(f"{what} not ready after {timeout:.0f}s (last: {last[:300]}); logs in {cp.root}")


def start(root: Path | None = None, binaries: Path | None = None) -> ControlPlane:
    binaries = binaries or k8s_bin()
    apiserver = binaries / "kube-apiserver"
    manager = binaries / "kube-controller-manager"
    etcd = shutil.which("etcd") or str(binaries / "etcd")
    for tool in (apiserver, manager, Path(etcd)):
        if not tool.exists():
            raise ControlPlaneError(f"{tool} not found; run scripts/control-plane (scripts/test does)")
    if shutil.which("openssl") is None:
        raise ControlPlaneError("openssl is not on PATH")
    root = root or Path(tempfile.mkdtemp(prefix="postrender-cp-"))
    pki = root / "pki"
    pki.mkdir(parents=True, exist_ok=True)
    make_pki(pki)
    (pki / "tokens.csv").write_text(
        f'{ADMIN_TOKEN},admin,uid-admin,"system:masters"\n'
        f"{GC_TOKEN},{GC_USER},uid-gc\n"
        f"{READER_TOKEN},{READER_USER},uid-reader\n"
    )
    # etcd on tmpfs when there is one: fsync-heavy etcd is the slowest part on a small machine.
    shm = Path("/dev/shm")
    data = Path(tempfile.mkdtemp(prefix="postrender-etcd-", dir=shm if shm.is_dir() else root))
    client_port, peer_port, api_port = free_port(), free_port(), free_port()
    server = f"https://127.0.0.1:{api_port}"
    cp = ControlPlane(root, server, root / "admin.kubeconfig")
    cp.write_kubeconfig(cp.kubeconfig, ADMIN_TOKEN)
    etcd_url = f"http://127.0.0.1:{client_port}"
    try:
        _spawn(cp, "etcd", [
            etcd, "--name", "test", "--data-dir", str(data),
            "--listen-client-urls", etcd_url, "--advertise-client-urls", etcd_url,
            "--listen-peer-urls", f"http://127.0.0.1:{peer_port}",
            "--initial-advertise-peer-urls", f"http://127.0.0.1:{peer_port}",
            "--initial-cluster", f"test=http://127.0.0.1:{peer_port}",
            "--log-level", "warn",
        ])
        _wait(cp, "etcd", lambda: _http_ok(etcd_url + "/health"), 30)
        _spawn(cp, "kube-apiserver", [
            str(apiserver),
            "--etcd-servers", etcd_url,
            "--bind-address", "127.0.0.1", "--advertise-address", "127.0.0.1",
            "--secure-port", str(api_port), "--insecure-port", "0",
            "--tls-cert-file", str(pki / "server.crt"), "--tls-private-key-file", str(pki / "server.key"),
            "--client-ca-file", str(pki / "ca.crt"),
            "--token-auth-file", str(pki / "tokens.csv"),
            "--authorization-mode", "RBAC",
            "--anonymous-auth=false",
            "--service-account-issuer", "https://kubernetes.default.svc.cluster.local",
            "--service-account-key-file", str(pki / "sa.pub"),
            "--service-account-signing-key-file", str(pki / "sa.key"),
            "--service-cluster-ip-range", "10.250.0.0/24",
            # No token controller runs, so Pods must not wait for a default ServiceAccount.
            "--disable-admission-plugins", "ServiceAccount",
            "--allow-privileged=true",
            "--v", "1",
        ])
        _wait(cp, "kube-apiserver", lambda: _status_ok(cp.get("/readyz")), 90)
        manager_config = cp.write_kubeconfig(root / "manager.kubeconfig", ADMIN_TOKEN)
        _spawn(cp, "kube-controller-manager", [
            str(manager),
            "--kubeconfig", str(manager_config),
            "--controllers", CONTROLLERS,
            "--leader-elect=false",
            "--use-service-account-credentials=false",
            "--port", "0", "--secure-port", "0",
            # Old ReplicaSets must stay around for history; the defaults allow it.
            "--concurrent-deployment-syncs", "5",
            "--v", "1",
        ])
        _wait(cp, "kube-controller-manager", lambda: _manager_ready(cp), 60)
    except BaseException:
        cp.stop()
        shutil.rmtree(data, ignore_errors=True)
        raise
    cp.etcd_data = data  # type: ignore[attr-defined]
    return cp


def _http_ok(url: str) -> tuple[bool, str]:
    with urllib.request.urlopen(url, timeout=2) as response:
        body = response.read().decode()
        return response.status == 200, body


def _status_ok(result: tuple[int, str]) -> tuple[bool, str]:
    status, body = result
    return status == 200, body


def _manager_ready(cp: ControlPlane) -> tuple[bool, str]:
    # The controller-manager serves nothing here (ports off); its first act,
    # publishing a default ServiceAccount namespace controller aside, is not
    # observable cheaply, so readiness is "alive for a moment and the
    # apiserver still ready". Tests that need controllers wait for effects.
    time.sleep(1)
    return _status_ok(cp.get("/readyz"))


def stop(cp: ControlPlane) -> None:
    cp.stop()
    data = getattr(cp, "etcd_data", None)
    if data is not None:
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    plane = start()
    print(plane.kubeconfig, flush=True)
    try:
        signal.pause()
    except KeyboardInterrupt:
        pass
    finally:
        stop(plane)
