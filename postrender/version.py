"""`postrender version`: what is running, and the YAML parser under it.

postrender composes YAML with libyaml's C parser through ruamel.yaml.clib;
without it, it would not run (and a bug report needs both versions).
"""

from __future__ import annotations

import json
import platform
from importlib import metadata

from . import __version__


def versions() -> dict[str, object]:
    info: dict[str, object] = {
        "postrender": __version__,
        "ruamel.yaml": _distribution("ruamel.yaml"),
        "ruamel.yaml.clib": _distribution("ruamel.yaml.clib"),
        "libyaml": None,
        "cParser": False,
        "python": platform.python_version(),
    }
    try:
        import _ruamel_yaml  # the C extension ruamel.yaml.clib installs
        from ruamel.yaml.cyaml import CParser  # noqa: F401

        info["libyaml"] = _ruamel_yaml.get_version_string()
        info["cParser"] = True
    except ImportError:
        pass
    return info


def _distribution(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def describe(fmt: str = "text") -> str:
    info = versions()
    if fmt == "json":
        return json.dumps(info, indent=2) + "\n"
    parser = (
        f"ruamel.yaml.clib {info['ruamel.yaml.clib']}, libyaml {info['libyaml']}"
        if info["cParser"] else "not available (install ruamel.yaml.clib)"
    )
    return (
        f"postrender {info['postrender']}\n"
        f"ruamel.yaml {info['ruamel.yaml'] or 'not installed'}\n"
        f"C parser: {parser}\n"
        f"Python {info['python']}\n"
    )
