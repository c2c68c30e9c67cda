"""Everything a render can be told, from flags, plugin config or functionConfig."""

from __future__ import annotations

from dataclasses import dataclass, field

from .limits import Limits


@dataclass
class RenderOptions:
    namespace: str | None = None
    mutable: bool = False
    keep_original: bool = False
    config_files: list[str] = field(default_factory=list)
    # Field-spec configuration given inline (kustomize plugin, KRM functionConfig).
    inline_configs: list[tuple[str, dict]] = field(default_factory=list)
    limits: Limits = field(default_factory=Limits)
    # Retention (keep.py, cluster/retain.py). `retain` is the N of --retain;
    # None keeps the render cluster-free.
    scope: str | None = None
    keep_previous: str | None = None
    retain: int | None = None
    kubeconfig: str | None = None
    context: str | None = None
    # "rename" versions names; "annotate" keeps them and rolls workloads by
    # postrender.io/config-hash alone (annotate.py).
    strategy: str = "rename"
    # Fields still naming a renamed object are an error, not a warning (guard.py).
    strict: bool = False
    # Helm 3 is the parent: it renders hooks apart and never shows them to a
    # post-renderer (set by helmcontext.py; no flag of its own).
    hooks_hidden: bool = False
