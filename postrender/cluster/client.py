"""The one module that talks to the API server.

It uses the official `kubernetes` client for what is hard to get right —
kubeconfig merging, contexts, exec and auth-provider plugins, in-cluster
service-account credentials, TLS — and sends plain REST requests through
it. Objects stay JSON dicts: generated models would drop fields of newer or
older servers and cannot represent custom resources.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ..printable import quoted
from ..errors import PostrenderError
from ..kubeconfig import merged, paths as kubeconfig_paths, server_password

# True wherever postrender came from (a checkout, pipx, a wheel): the client
# goes into the interpreter postrender runs on. (Same bound as the `cluster` extra.)
INSTALL_HINT = (
    f"{sys.executable} -m pip install 'kubernetes>=37' "
    "(what the postrender[cluster] extra adds; under pipx: pipx inject postrender 'kubernetes>=37')"
)
_TIMEOUT = (10, 60)  # connect, read: a hung API server must not hang a deploy forever
_PAGE = 500
_METADATA_ONLY = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"
_SA_NAMESPACE = Path("/var/run/secrets/kubernetes.io/serviceaccount/namespace")


class ClusterError(PostrenderError):
    """The cluster could not be read or changed as needed."""

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status  # the API server's HTTP status, when it answered


@dataclass(frozen=True)
class Resource:
    group: str
    version: str
    plural: str
    kind: str
    namespaced: bool
    verbs: frozenset[str]

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    def path(self, namespace: str | None = None, name: str | None = None) -> str:
        base = f"/apis/{self.group}/{self.version}" if self.group else f"/api/{self.version}"
        if self.namespaced and namespace:
            base += f"/namespaces/{quote(namespace, safe='')}"
        base += f"/{self.plural}"
        return base + (f"/{quote(name, safe='')}" if name else "")


class DeleteOutcome:
    DELETED = "deleted"
    CONFLICT = "changed since planning"
    GONE = "already gone"


def _kubernetes():
    try:
        from kubernetes import client, config  # noqa: PLC0415 - the optional dependency
    except ImportError:
        raise PostrenderError(
            f"reading the cluster needs the Kubernetes client, which is not installed: {INSTALL_HINT}"
        ) from None
    return client, config


class _LoggedErrors(logging.Handler):
    """Holds what the Kubernetes client logs while it loads a kubeconfig
    (`logging.error("exec: process returned 1...")`), which would otherwise
    reach stderr as a line of its own, formatted by the logging defaults
    its first error sets up, before postrender's own error."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.messages: list[str] = []
        self._saved: list[logging.Handler] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())

    def __enter__(self) -> "_LoggedErrors":
        root = logging.getLogger()
        self._saved, root.handlers = root.handlers, [self]
        return self

    def __exit__(self, *exc: object) -> None:
        logging.getLogger().handlers = self._saved


class Cluster:
    def __init__(self, api_client: Any, namespace: str | None, where: str, password: str | None = None):
        self._api = api_client
        self.namespace = namespace  # the context's (or the pod's) namespace
        self.where = where
        # The server URL's password, masked wherever a message quotes it.
        self._password = password
        self._resources: list[Resource] | None = None
        self.undiscovered: dict[str, str] = {}  # group/version -> why

    @classmethod
    def connect(cls, kubeconfig: str | None = None, context: str | None = None) -> "Cluster":
        client, config = _kubernetes()
        from kubernetes.config.config_exception import ConfigException  # noqa: PLC0415

        configuration = client.Configuration()
        from_files = bool(kubeconfig or context or not _in_cluster())
        if from_files:
            _check_a_kubeconfig_exists(kubeconfig)
        # The kubeconfig's server passwords, masked in every message below (review62e).
        passwords: frozenset[str] = frozenset()
        try:
            if from_files:
                files = merged(kubeconfig)
                passwords = files.passwords
                # Named, never left to the client: with a $KUBECONFIG list it
                # would take the last file's current-context, kubectl and Helm the first.
                context = context or files.current_context
                with _LoggedErrors() as logged:
                    config.load_kube_config(
                        config_file=kubeconfig, context=context,
                        client_configuration=configuration, persist_config=False,
                    )
                failed = logged.messages
                namespace = files.namespace(context)
            else:
                config.load_incluster_config(client_configuration=configuration)
                namespace = _SA_NAMESPACE.read_text().strip() if _SA_NAMESPACE.exists() else None
                failed = []
        except (ConfigException, OSError, ValueError, TypeError, KeyError) as exc:
            raise ClusterError(f"cannot load cluster credentials: {_masked(exc, passwords)}") from None
        except Exception as exc:  # noqa: BLE001 - exec plugins fail in many ways
            why = _masked(exc, passwords)
            raise ClusterError(f"cannot load cluster credentials ({type(exc).__name__}): {why}") from None
        if failed:
            # A credential plugin that failed: the client logs it and goes on
            # without a token, to an HTTP 401 that names no cause.
            raise ClusterError(f"cannot load cluster credentials: {_masked(failed[0], passwords)}")
        _trimmed_token(configuration)
        if not configuration.host:
            raise ClusterError(f"the kubeconfig's cluster{_for_context(context)} has no server")
        if not configuration.verify_ssl:
            # insecure-skip-tls-verify, asked for in the kubeconfig: kubectl
            # says nothing of it, where urllib3 warned once per request.
            import urllib3  # noqa: PLC0415 - the client's own transport

            urllib3.disable_warnings(urllib3.exceptions.InsecureRequestWarning)
        host = configuration.host
        password = server_password(host) or None
        return cls(client.ApiClient(configuration), namespace, masked_server(host, password), password)

    # -- requests --------------------------------------------------------

    def request(self, method: str, path: str, query: list[tuple[str, str]] | None = None,
                body: Any = None, accept: str = "application/json") -> tuple[int, Any]:
        headers = {"Accept": accept}
        if body is not None:
            headers["Content-Type"] = "application/json"
        try:
            serialized = self._api.param_serialize(
                method, path, query_params=query or [], header_params=headers, body=body,
                auth_settings=["BearerToken"],
            )
            response = self._api.call_api(*serialized, _request_timeout=_TIMEOUT)
            raw = response.read()
        except ClusterError:
            raise
        except Exception as exc:  # noqa: BLE001 - urllib3, ssl and socket errors all mean "unreachable"
            reason = masked_password(without_credentials(_reason(exc)), self._password)
            raise ClusterError(f"cannot reach the cluster at {self.where}: {reason}") from None
        try:
            data = json.loads(raw) if raw else None
        except ValueError:
            data = None
        return response.status, data

    def _checked(self, method: str, path: str, what: str, **kw: Any) -> Any:
        status, data = self.request(method, path, **kw)
        if not 200 <= status < 300:
            raise ClusterError(f"{what}: {_status_text(status, data)}", status)
        return data

    def list(self, resource: Resource, namespace: str | None = None, selector: str | None = None,
             metadata_only: bool = False) -> list[dict]:
        """Every object, page by page; metadata only when that is all that
        is needed, so Secret values are never fetched without cause."""
        where = f" in namespace {namespace}" if namespace else ""
        what = f"cannot list {resource.plural}{'.' + resource.group if resource.group else ''}{where}"
        items: list[dict] = []
        token = ""
        while True:
            query = [("limit", str(_PAGE))]
            if selector:
                query.append(("labelSelector", selector))
            if token:
                query.append(("continue", token))
            data = self._checked("GET", resource.path(namespace), what, query=query,
                                 accept=_METADATA_ONLY if metadata_only else "application/json")
            for item in (data or {}).get("items") or []:
                # Items of a list carry no kind (or, as metadata, PartialObjectMetadata's).
                item["kind"] = resource.kind
                item["apiVersion"] = resource.api_version
                items.append(item)
            token = ((data or {}).get("metadata") or {}).get("continue") or ""
            if not token:
                return items

    def get(self, resource: Resource, namespace: str | None, name: str) -> dict | None:
        status, data = self.request("GET", resource.path(namespace, name))
        if status == 404:
            return None
        if not 200 <= status < 300:
            raise ClusterError(f"cannot read {resource.kind} {namespace}/{name}: {_status_text(status, data)}")
        return data

    def delete(self, resource: Resource, namespace: str, name: str, uid: str, resource_version: str) -> str:
        """Delete only the exact object that was planned: the API server
        refuses when uid or resourceVersion no longer match."""
        body = {
            "apiVersion": "v1", "kind": "DeleteOptions",
            "preconditions": {"uid": uid, "resourceVersion": resource_version},
            "propagationPolicy": "Background",
        }
        status, data = self.request("DELETE", resource.path(namespace, name), body=body)
        if 200 <= status < 300:
            return DeleteOutcome.DELETED
        if status == 409:
            return DeleteOutcome.CONFLICT
        if status == 404:
            return DeleteOutcome.GONE
        raise ClusterError(f"cannot delete {resource.kind} {namespace}/{name}: {_status_text(status, data)}")

    # -- discovery -------------------------------------------------------

    def resources(self) -> list[Resource]:
        """One version of every kind the server serves: the group's preferred
        version when it has the kind, else the first that does (CronJob is
        only in batch/v1beta1 before Kubernetes 1.21, while batch prefers v1)."""
        if self._resources is None:
            found: dict[tuple[str, str], Resource] = {}
            core = self._checked("GET", "/api/v1", "cannot discover the core API")
            for res in _resources_of("", "v1", core):
                found.setdefault((res.group, res.kind), res)
            groups = self._checked("GET", "/apis", "cannot discover API groups")
            for group in (groups or {}).get("groups") or []:
                preferred = (group.get("preferredVersion") or {}).get("version")
                versions = [v.get("version") for v in group.get("versions") or [] if v.get("version")]
                for version in sorted(versions, key=lambda v: v != preferred):
                    status, listing = self.request("GET", f"/apis/{group['name']}/{version}")
                    if not 200 <= status < 300:
                        # An aggregated API whose server is down (metrics, often)
                        # answers 503; callers decide whether that group matters.
                        self.undiscovered[f"{group['name']}/{version}"] = _status_text(status, listing)
                        continue
                    for res in _resources_of(group["name"], version, listing):
                        found.setdefault((res.group, res.kind), res)
            self._resources = list(found.values())
        return self._resources

    def resource(self, kind: str, group: str) -> Resource:
        found = self.find(kind, group)
        if found is None:
            raise ClusterError(f"the cluster serves no {kind} in API group {quoted(group or 'core')}")
        return found

    def find(self, kind: str, group: str) -> Resource | None:
        found = next((r for r in self.resources() if r.kind == kind and r.group == group), None)
        if found is None:
            failed = [f"{gv} ({why})" for gv, why in self.undiscovered.items() if gv.split("/")[0] == group]
            if failed:
                # Not knowing whether a kind exists is not "it has no objects".
                raise ClusterError(f"cannot discover {', '.join(failed)}")
        return found


def _resources_of(group: str, version: str, listing: dict | None) -> list[Resource]:
    out: list[Resource] = []
    for item in (listing or {}).get("resources") or []:
        name = item.get("name", "")
        if "/" in name:  # subresources such as pods/log
            continue
        out.append(Resource(group, version, name, item.get("kind", ""), bool(item.get("namespaced")),
                            frozenset(item.get("verbs") or ())))
    return out


def _check_a_kubeconfig_exists(explicit: str | None) -> None:
    """As kubectl refuses them (`stat FILE: no such file or directory`): a
    kubeconfig named that is not there, or no file of $KUBECONFIG or
    ~/.kube/config there at all. The client said "Invalid kube-config file.
    No configuration found.", naming neither (cli62)."""
    where = kubeconfig_paths(explicit, os.environ)
    if any(os.path.exists(path) for path in where):
        return
    # A `~` left in a path (an unexpanded `ENV KUBECONFIG=~/...`): kubectl
    # does not expand it either; the client library did (review62b).
    tilde = "; a ~ is not expanded here, as kubectl does not: write $HOME" if any(
        path.startswith("~") for path in where) else ""
    if explicit:
        raise ClusterError(f"the kubeconfig {explicit} does not exist{tilde}")
    if os.environ.get("KUBECONFIG"):
        named = ", ".join(where) or "none"
        raise ClusterError(f"no kubeconfig: no file $KUBECONFIG names exists ({named}){tilde}")
    raise ClusterError(f"no kubeconfig: {where[0]} does not exist; pass --kubeconfig or set $KUBECONFIG")


def _in_cluster() -> bool:
    if os.environ.get("KUBECONFIG"):
        return False
    if (Path.home() / ".kube" / "config").exists():
        return False
    return bool(os.environ.get("KUBERNETES_SERVICE_HOST"))


def _status_text(status: int, data: Any) -> str:
    message = data.get("message") if isinstance(data, dict) else None
    reason = data.get("reason") if isinstance(data, dict) else None
    text = f"HTTP {status}"
    if reason:
        text += f" {reason}"
    return f"{text}: {message}" if message else text


# A URL, from its scheme to the next blank or quote: its userinfo runs to
# the last `@` of its authority (Go's url.Parse), which a password may hold.
_URL = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*://)([^\s'\"]*)")


def without_credentials(text: str) -> str:
    """`text` with each URL's password and query masked, as kubectl masks
    them when it names a server (`https://u:***@host/p?...`): a message
    goes to a log and, under Helm, to the terminal. Where a URL may hold
    `@` past its host, more is masked rather than less. A password may hold
    a quote, which ends a URL quoted in a message (leak61): it is masked
    first, up to its last `@`."""
    text = _PASSWORD.sub(r"\1:***@", text)
    return _QUERY.sub("?...", _URL.sub(_masked_url, text))


def masked_server(host: str, password: str | None) -> str:
    """The server URL for a message, its password and query masked."""
    if password:
        host = host.replace(f":{password}@", ":***@", 1)
    return without_credentials(host)


def masked_password(text: str, *passwords: str | None) -> str:
    """`text` with known passwords masked, and each part of one a URL parser
    may quote alone: urllib3 quotes "'user:pass'" cut at its first `#`, `?`
    or `/` (leak62), ipaddress the text between brackets (review62e). A part
    is masked where it stands quoted or after the user's `:`, however short;
    standing bare only when long enough not to be a common word's part (a
    password `e` garbled every word of the message: review62e)."""
    parts: set[str] = set()
    for password in passwords:
        if not password:
            continue
        parts.add(password)
        parts.update(password[:i] for i, ch in enumerate(password) if ch in _CUTS and i > 0)
        parts.update(piece for piece in re.split(f"[{re.escape(_CUTS)}]", password) if piece)
    for part in sorted(parts, key=len, reverse=True):
        quoted_or_after_user = rf"(?<=['\":]){re.escape(part)}(?=['\"@\s]|$)"
        text = re.sub(quoted_or_after_user, "***", text)
        if len(part) >= _BARE_MASKED_FROM:
            # A word of its own, not a part of one (`connect` in "connection").
            text = re.sub(rf"(?<![A-Za-z0-9]){re.escape(part)}(?![A-Za-z0-9])", "***", text)
    return text


# Where a URL or address parser may cut a password into parts it quotes alone.
_CUTS = "#?/[]@ \t\n"
# A part of a password masked standing as a word of its own, not only quoted.
_BARE_MASKED_FROM = 4


# scheme://user:password@, the password anything up to the last `@` before
# white space (a `/` or a quote in it too).
_PASSWORD = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*://[^\s/:@'\"]*):\S*@")


# A query anywhere in the text: the client's messages quote a request's path
# without its scheme (`url: /api?token=...`).
_QUERY = re.compile(r"\?[^\s'\")]+")


def _masked_url(match: re.Match[str]) -> str:
    scheme, rest = match.group(1), match.group(2)
    rest, question, _ = rest.partition("?")
    if "@" in rest:
        userinfo, _, host = rest.rpartition("@")
        if ":" in userinfo:
            rest = f"{userinfo.partition(':')[0]}:***@{host}"
    return scheme + rest + ("?..." if question else "")


def _trimmed_token(configuration: Any) -> None:
    """A token as client-go reads a tokenFile (strings.TrimSpace): `echo $T >
    file` ends it with a line break, which kubectl sends without and this
    client sent in the header, refused (leak61)."""
    keys = getattr(configuration, "api_key", None) or {}
    token = keys.get("authorization")
    if isinstance(token, str) and token.startswith("Bearer "):
        keys["authorization"] = "Bearer " + token[len("Bearer "):].strip()


def _reason(exc: BaseException) -> str:
    reason = getattr(exc, "reason", None) or exc
    text = _one_line(reason)
    # http.client quotes the whole header it refuses: a bearer token, which
    # no message may show (leak61). What it held is for the user to look at.
    if "Invalid header" in text or _BEARER.search(text):
        return "an invalid request header (a token holding a line break or a control character?)"
    return text


_BEARER = re.compile(r"(?i)\bbearer\s")


def _masked(reason: object, passwords: frozenset[str]) -> str:
    """A reason for a message, its URLs' and the kubeconfig's passwords masked."""
    return masked_password(without_credentials(_one_line(reason)), *passwords)


def _for_context(context: str | None) -> str:
    return f" of context {quoted(context)}" if context else ""


def _one_line(value: object) -> str:
    text = " ".join(str(value).split())
    return text[:300] if text else type(value).__name__
