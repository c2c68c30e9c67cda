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
    return Kubeconfig(current, namespaces)


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
    try:
        return YAML(typ="safe").load(text)
    except Exception:  # noqa: BLE001 - libyaml refuses what client-go reads: below
        pass
    # libyaml (0.1.7) refuses a `:` inside a plain value of a flow mapping
    # (`cluster: {server: https://host:6443}`), which go-yaml reads as text,
    # as kubectl and Helm do (cluster61); the pure-Python scanner reads it.
    try:
        return YAML(typ="safe", pure=True).load(text)
    except MarkedYAMLError as exc:
        # Where and what, never the text there: a kubeconfig holds tokens.
        mark = exc.problem_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
        raise KubeconfigError(path, f"{where}{exc.problem or type(exc).__name__}") from None
    except Exception as exc:  # noqa: BLE001 - whatever else makes it unreadable (depth)
        raise KubeconfigError(path, type(exc).__name__) from None
