"""The gc planner: which versions `postrender gc` may delete.

Pure: it decides from a LiveState and a policy, so it can be tested on any
cluster state (tests/unit/cluster/test_retention_planners.py) without one.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from .live import LiveState, LiveVersion, describe_users


@dataclass(frozen=True)
class Policy:
    keep: int  # newest versions kept per group, in use or not
    min_age: timedelta
    now: datetime


@dataclass(frozen=True)
class Decision:
    version: LiveVersion
    delete: bool
    reason: str


def plan_gc(state: LiveState, policy: Policy) -> list[Decision]:
    decisions: list[Decision] = []
    groups: dict[tuple, list[LiveVersion]] = {}
    for version in state.versions:
        if not version.versioned:
            # The reader selects by label already; this is the planner's own guard.
            decisions.append(Decision(version, False, "not labelled postrender.io/versioned=true"))
            continue
        groups.setdefault(version.group, []).append(version)
    for versions in groups.values():
        newest_first = sorted(versions, key=lambda v: v.age_key(), reverse=True)
        for rank, version in enumerate(newest_first):
            decisions.append(_decide(version, rank, state, policy))
    return sorted(decisions, key=lambda d: (d.version.namespace, d.version.kind, d.version.base,
                                            d.version.scope or "", d.version.age_key()))


def _decide(version: LiveVersion, rank: int, state: LiveState, policy: Policy) -> Decision:
    users = state.used_by(version)
    if users:
        return Decision(version, False, f"in use by {describe_users(users)}")
    if rank < policy.keep:
        # "the 2nd newest", not "newest 2 of 3": a group of two read as a miscount.
        return Decision(version, False, f"the {_nth(rank + 1)}newest of its group: --keep {policy.keep}")
    age = policy.now - version.created
    if age < policy.min_age:
        return Decision(version, False, f"younger than --min-age {format_duration(policy.min_age)}")
    return Decision(version, True, f"unused, not among the newest {policy.keep}")


def _nth(n: int) -> str:
    """"" for the first (the newest), else "2nd ", "3rd ", "11th "..."""
    if n == 1:
        return ""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix} "


def format_age(delta: timedelta) -> str:
    seconds = max(int(delta.total_seconds()), 0)
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size * (2 if unit != "m" else 1):
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def format_duration(delta: timedelta) -> str:
    """Exact, as --min-age is written: 1h, 1h30m, 45s."""
    seconds = max(int(delta.total_seconds()), 0)
    parts = []
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
        if seconds >= size:
            parts.append(f"{seconds // size}{unit}")
            seconds %= size
    return "".join(parts) or "0"
