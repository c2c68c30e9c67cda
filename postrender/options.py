"""Everything a render can be told, from flags, plugin config or functionConfig."""

from __future__ import annotations

from dataclasses import dataclass, field

from .errors import UsageError
from .limits import Limits

# Which versioned objects also keep an unsuffixed, mutable copy (plan.py).
KEEP_ORIGINAL_MODES = ("auto", "all", "secrets", "none")


def keep_original_mode(value: object, where: str = "--keep-original") -> str:
    """A mode from a flag, plugin config or functionConfig: one of
    KEEP_ORIGINAL_MODES, or a boolean (true = all, false = none)."""
    if value is True:
        return "all"
    if value is False:
        return "none"
    text = str(value).lower() if isinstance(value, str) else None
    if text in ("true", "false"):
        return "all" if text == "true" else "none"
    if text in KEEP_ORIGINAL_MODES:
        return text
    raise UsageError(f"{where} must be true, false or one of {', '.join(KEEP_ORIGINAL_MODES)}, not {value!r}")


@dataclass
class RenderOptions:
    namespace: str | None = None
    mutable: bool = False
    # auto: every versioned Secret (Helm `lookup` finds it), and every
    # versioned object when hooks_hidden; all; secrets; none.
    keep_original: str = "auto"
    # Helm 3 is the parent: it never shows hooks to a post-renderer, so a
    # hook can only find what keeps its original name. Set by the Helm
    # integration; no flag of its own.
    hooks_hidden: bool = False
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
