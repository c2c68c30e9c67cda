"""Command-line flags of retention and gc, kept apart from cli.py so the
flags and their checks live next to the code they drive."""

from __future__ import annotations

import argparse
import re
from typing import Any

from ..errors import UsageError
from ..keep import KEEP_POLICIES, check_scope

DEFAULT_KEEP = 3
DEFAULT_MIN_AGE = "1h"
_DURATION = re.compile(r"(\d+)([smhd])")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def _connection(group: argparse._ArgumentGroup) -> None:
    group.add_argument("--kubeconfig", metavar="PATH", help="kubeconfig file (default: $KUBECONFIG, ~/.kube/config)")
    group.add_argument("--context", metavar="NAME", help="kubeconfig context (default: the current one)")


def add_render_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("keeping previous versions")
    group.add_argument("--scope", metavar="NAME",
                       help="postrender.io/scope label of versioned objects "
                            "(default: their app.kubernetes.io/instance label)")
    group.add_argument("--retain", type=int, metavar="N",
                       help="read the cluster and carry forward the previous versions still in use, "
                            "plus the newest N-1 others, so the deployer keeps exactly those")
    group.add_argument("--keep-previous", choices=sorted(KEEP_POLICIES),
                       help="mark versions so this deployer never prunes them (then run `postrender gc`)")
    _connection(group)


def render_fields(args: argparse.Namespace) -> dict[str, Any]:
    """RenderOptions fields from the flags above (absent for `graph`)."""
    retain = getattr(args, "retain", None)
    if retain is not None and retain < 1:
        raise UsageError("--retain must be at least 1 (the version being deployed counts)")
    scope = getattr(args, "scope", None)
    return {
        "scope": check_scope(scope) if scope is not None else None,
        "keep_previous": getattr(args, "keep_previous", None),
        "retain": retain,
        "kubeconfig": getattr(args, "kubeconfig", None),
        "context": getattr(args, "context", None),
    }


def add_gc_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-n", "--namespace", action="append", default=[], metavar="NS",
                        help="namespace to collect in (repeatable; default: the context's)")
    parser.add_argument("-A", "--all-namespaces", action="store_true", help="collect in every namespace")
    parser.add_argument("-l", "--selector", metavar="SELECTOR", help="only versions matching this label selector")
    parser.add_argument("--scope", metavar="NAME", help="only versions with this postrender.io/scope label")
    parser.add_argument("--keep", type=int, default=DEFAULT_KEEP, metavar="N",
                        help=f"keep the newest N versions of each group, in use or not (default {DEFAULT_KEEP})")
    parser.add_argument("--min-age", default=DEFAULT_MIN_AGE, metavar="DURATION",
                        help=f"keep versions younger than this, e.g. 90m, 1h, 2d, 0 (default {DEFAULT_MIN_AGE})")
    parser.add_argument("--yes", action="store_true", help="delete; without it, only show the plan")
    parser.add_argument("--skip-unavailable", action="store_true",
                        help="go on when an API group cannot be discovered (an aggregated API server "
                             "that is down); its objects are then not checked for postrender.io/refs")
    parser.add_argument("-o", "--output", choices=("table", "json"), default="table",
                        help="the plan (and with --yes, what was done) as a table or JSON")
    parser.add_argument("--config", action="append", default=[], metavar="FILE",
                        help="extra field specs in kustomize nameReference format (repeatable)")
    parser.add_argument("-v", "--verbose", action="store_true", help="explain what was read")
    parser.add_argument("--log-file", metavar="PATH", help="also write diagnostics here (default: $POSTRENDER_LOG_FILE)")
    _connection(parser.add_argument_group("cluster"))


def parse_duration(text: str) -> int:
    """Seconds in `90m`, `1h30m`, `2d`, `45s` or `0`."""
    value = text.strip()
    if value == "0":
        return 0
    if not value or _DURATION.sub("", value):
        raise UsageError(f"--min-age {text!r}: expected a duration such as 30m, 1h, 2d or 0")
    return sum(int(n) * _UNITS[unit] for n, unit in _DURATION.findall(value))
