"""The Prometheus Operator's ProxyConfig names Secrets in
`proxyConnectHeader`, a map of header names to lists of SecretKeySelectors,
wherever it is embedded. Left out of the table, the Secret a remote write's
basicAuth shares with it was versioned while the header kept reading the
unsuffixed copy, never rolled (found on kube-prometheus-stack)."""

from __future__ import annotations

import json

import pytest

from conftest import run_postrender
from manifests import documents

HEADER = {"proxyConnectHeader": {"Proxy-Authorization": [{"name": "creds", "key": "token"}],
                                  "X-Other": [{"name": "other", "key": "k"}, {"name": "creds", "key": "k2"}]}}
# Each place a ProxyConfig is embedded: (kind, spec holding it).
PLACES = {
    "Prometheus remoteWrite": ("Prometheus", {"remoteWrite": [{"url": "http://x", **HEADER}]}),
    "Prometheus remoteRead": ("Prometheus", {"remoteRead": [{"url": "http://x", **HEADER}]}),
    "Prometheus alertmanagers": ("Prometheus", {"alerting": {"alertmanagers": [{"name": "am", **HEADER}]}}),
    "PrometheusAgent remoteWrite": ("PrometheusAgent", {"remoteWrite": [{"url": "http://x", **HEADER}]}),
    "ServiceMonitor endpoints": ("ServiceMonitor", {"endpoints": [{"port": "web", **HEADER}]}),
    "PodMonitor endpoints": ("PodMonitor", {"podMetricsEndpoints": [{"port": "web", **HEADER}]}),
    "Probe": ("Probe", HEADER),
    "ScrapeConfig": ("ScrapeConfig", HEADER),
    "ScrapeConfig SD config": ("ScrapeConfig", {"httpSDConfigs": [{"url": "http://x", **HEADER}]}),
    "AlertmanagerConfig receiver": ("AlertmanagerConfig", {"receivers": [
        {"name": "r", "webhookConfigs": [{"url": "http://x", "httpConfig": HEADER}]}]}),
}


def _secret(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name}, "data": {"token": "dA=="}}


@pytest.mark.parametrize("place", PLACES)
def test_a_proxy_connect_header_secret_is_rewritten(place):
    kind, spec = PLACES[place]
    referrer = {"apiVersion": "monitoring.coreos.com/v1", "kind": kind, "metadata": {"name": "m"}, "spec": spec}
    stream = "---\n".join(json.dumps(d) + "\n" for d in (_secret("creds"), _secret("other"), referrer))
    result = run_postrender(["--keep-original=none", "--strict"], stream)
    assert result.status == 0, result.stderr
    text = json.dumps([d for d in documents(result.stdout) if d["kind"] == kind])
    secrets = {d["metadata"]["labels"]["postrender.io/base-name"]: d["metadata"]["name"]
               for d in documents(result.stdout) if d["kind"] == "Secret"}
    assert set(secrets) == {"creds", "other"}, "each Secret a header names is versioned"
    for name in secrets.values():
        assert f'"{name}"' in text
    assert '"creds"' not in text and '"other"' not in text
