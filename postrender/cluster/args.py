"""Command-line flags of `postrender gc`, kept apart from cli.py so the
flags and their checks live next to the code they drive. (The render's
retention flags are rows of options.OPTIONS.)"""

from __future__ import annotations

import argparse
import re

from ..printable import quoted
from ..errors import UsageError
from ..options import non_empty, parse_count

DEFAULT_KEEP = 3
MAX_KEEP = 1_000_000
DEFAULT_MIN_AGE = "1h"
# 100 years: any longer is "never", and datetime arithmetic has a ceiling.
MAX_MIN_AGE_SECONDS = 100 * 365 * 86400
_DURATION = re.compile(r"([0-9]+)([smhd])")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def _connection(group: argparse._ArgumentGroup) -> None:
    group.add_argument("--kubeconfig", metavar="PATH", type=non_empty("--kubeconfig"),
                       help="kubeconfig file (default: $KUBECONFIG, ~/.kube/config)")
    group.add_argument("--context", metavar="NAME", type=non_empty("--context", "name"),
                       help="kubeconfig context (default: the current one)")


def add_gc_arguments(parser: argparse.ArgumentParser) -> None:
    select = parser.add_argument_group("What to look at")
    select.add_argument("-n", "--namespace", action="append", default=[], metavar="NS",
                        help="namespace to collect in (repeatable; default: the context's)")
    select.add_argument("-A", "--all-namespaces", action="store_true", help="collect in every namespace")
    select.add_argument("-l", "--selector", metavar="SELECTOR", help="only versions matching this label selector")
    select.add_argument("--scope", metavar="NAME", help="only versions with this postrender.io/scope label")
    select.add_argument("--config", action="append", default=[], metavar="FILE",
                        help="extra field specs in kustomize nameReference format (repeatable)")
    select.add_argument("--local-refs-only", action="store_true",
                        help="with -n, read references and postrender.io/refs records only in those "
                             "namespaces (for rights limited to them); a version named only from "
                             "another namespace may then be deleted")
    keep = parser.add_argument_group("What to keep")
    keep.add_argument("--keep", type=lambda text: parse_count(text, "--keep", 0, MAX_KEEP), default=DEFAULT_KEEP,
                      metavar="N",
                      help=f"keep the newest N versions of each group, in use or not (default {DEFAULT_KEEP})")
    keep.add_argument("--min-age", default=DEFAULT_MIN_AGE, metavar="DURATION",
                      help=f"keep versions younger than this, e.g. 90m, 1h, 2d, 0 (default {DEFAULT_MIN_AGE})")
    act = parser.add_argument_group("Acting")
    act.add_argument("--yes", action="store_true", help="delete; without it, only show the plan")
    act.add_argument("--skip-unavailable", action="store_true",
                     help="go on when an API group cannot be discovered (an aggregated API server "
                          "that is down); its objects are then not checked for postrender.io/refs")
    parser.add_argument_group("Output").add_argument(
        "-o", "--output", choices=("table", "json"), default="table",
        help="the plan (and with --yes, what was done) as a table or JSON")
    _connection(parser.add_argument_group("Cluster"))


def parse_duration(text: str) -> int:
    """Seconds in `90m`, `1h30m`, `2d`, `45s` or `0`."""
    value = text.strip()
    if value == "0":
        return 0
    if not value or _DURATION.sub("", value):
        raise UsageError(f"--min-age {quoted(text)}: expected a duration such as 30m, 1h, 2d or 0")
    seconds = sum(int(n) * _UNITS[unit] for n, unit in _DURATION.findall(value))
    if seconds > MAX_MIN_AGE_SECONDS:
        raise UsageError(f"--min-age {quoted(text)}: at most 100 years (36500d)")
    return seconds
