"""Which kubeconfig context kubectl and Helm use, read as client-go reads it.

`--retain` and `gc` must read the cluster the deployer writes to. The
Python `kubernetes` client merges a `$KUBECONFIG` list differently from
client-go (kubectl, Helm, Argo CD, Flux): it lets the LAST file's
`current-context` win, client-go the FIRST file that sets a non-empty one.
So postrender resolves the context here, once, and hands it to the client
by name; the client's own merging then only has to agree on named entries,
where both take the first definition.

Nothing here talks to a cluster or imports the client: the Helm frontend
reads the context's namespace from here too.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from functools import cache

from .records import record


class KubeconfigError(ValueError):
    """A kubeconfig file that exists but cannot be read."""

    def __init__(self, path: str, reason: str):
        super().__init__(f"the kubeconfig {path} cannot be read ({reason})")
        self.path = path


@record(frozen=True)
class Kubeconfig:
    """The merged view: the current context and each named context's namespace."""

    current_context: str | None
    namespaces: dict[str, str | None]
    # The passwords its clusters' server URLs hold (`https://u:pw@host`), for
    # the client to mask in any message (review62e).
    passwords: frozenset[str] = frozenset()

    def namespace(self, context: str | None = None) -> str | None:
        """The namespace of `context`, else of the current context; None when it sets none."""
        name = context or self.current_context
        return self.namespaces.get(name) if name else None


def paths(explicit: str | None, environ: Mapping[str, str]) -> list[str]:
    """clientcmd's precedence: an explicit file alone, else every file in
    $KUBECONFIG (each once, first place kept), else ~/.kube/config."""
    if explicit:
        return [explicit]
    if environ.get("KUBECONFIG"):
        return list(dict.fromkeys(p for p in environ["KUBECONFIG"].split(os.pathsep) if p))
    return [os.path.join(environ.get("HOME") or os.path.expanduser("~"), ".kube", "config")]


def merged(explicit: str | None = None, environ: Mapping[str, str] | None = None) -> Kubeconfig:
    """client-go's merge: missing files are skipped; the first file to set a
    non-empty `current-context` wins, and so does the first definition of a
    named context (its later definitions are ignored whole)."""
    environ = os.environ if environ is None else environ
    current: str | None = None
    namespaces: dict[str, str | None] = {}
    passwords: set[str] = set()
    for path in paths(explicit, environ):
        if not os.path.exists(path):
            continue
        data = _load_yaml(path)
        if not isinstance(data, dict):
            continue
        if not current and isinstance(data.get("current-context"), str):
            current = data["current-context"] or None
        for entry in data.get("contexts") or []:
            if isinstance(entry, dict) and isinstance(entry.get("name"), str) and entry["name"] not in namespaces:
                body = entry.get("context")
                namespace = body.get("namespace") if isinstance(body, dict) else None
                namespaces[entry["name"]] = namespace if isinstance(namespace, str) and namespace else None
        for entry in data.get("clusters") or []:
            body = entry.get("cluster") if isinstance(entry, dict) else None
            server = body.get("server") if isinstance(body, dict) else None
            if isinstance(server, str):
                passwords.add(server_password(server))
    return Kubeconfig(current, namespaces, frozenset(passwords - {""}))


def server_password(server: str) -> str:
    """The password a server URL holds, exactly: from the first `:` of its
    userinfo to the URL's last `@`, whatever lies between ("" for none)."""
    _, scheme, rest = server.partition("://")
    userinfo, at, _ = rest.rpartition("@")
    _, colon, password = userinfo.partition(":")
    return password if scheme and at and colon else ""


def _load_yaml(path: str):
    from ruamel.yaml import YAML  # noqa: PLC0415 - only runs when a kubeconfig is read
    from ruamel.yaml.error import MarkedYAMLError  # noqa: PLC0415

    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except OSError as exc:
        raise KubeconfigError(path, exc.strerror or type(exc).__name__) from None
    except ValueError as exc:
        raise KubeconfigError(path, type(exc).__name__) from None
    for pure in (False, True):
        yaml = YAML(typ="safe", pure=pure)
        yaml.Constructor = _last_key_wins()
        try:
            return yaml.load(text)
        except MarkedYAMLError as exc:
            if not pure:
                # libyaml (0.1.7) refuses a `:` inside a plain value of a flow
                # mapping (`cluster: {server: https://host:6443}`), which
                # go-yaml reads as text, as kubectl and Helm do (cluster61);
                # the pure-Python scanner reads it.
                continue
            # Where, never what: a kubeconfig holds tokens, and the parser's
            # text may quote them (a duplicate key's values; review61a).
            mark = exc.problem_mark or exc.context_mark
            where = f"invalid YAML at line {mark.line + 1}, column {mark.column + 1}" if mark else "invalid YAML"
            raise KubeconfigError(path, where) from None
        except Exception as exc:  # noqa: BLE001 - whatever else makes it unreadable (depth)
            raise KubeconfigError(path, type(exc).__name__) from None
    return None


@cache
def _last_key_wins():
    """ruamel's safe constructor, taking a key written twice as client-go
    does (go-yaml's map: the later value), not refusing it."""
    from ruamel.yaml.constructor import SafeConstructor  # noqa: PLC0415

    class LastKeyWins(SafeConstructor):
        def check_mapping_key(self, node, key_node, mapping, key, value) -> bool:  # type: ignore[no-untyped-def]
            return True  # the caller then sets mapping[key] = value: the later wins

    return LastKeyWins
