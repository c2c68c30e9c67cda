"""`postrender gc`: plan (and with --yes, carry out) the deletion of
versions nothing uses any more. Exit status 0 done, 1 error, 2 usage."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime, timedelta, timezone

from ..printable import quoted
from .. import fieldspecs
from ..diagnostics import escape_controls
from ..errors import PostrenderError, UsageError
from ..options import check_namespace, check_scope
from ..vocabulary import LABEL_SCOPE
from ..report import Reporter
from .args import parse_duration
from .client import Cluster, ClusterError
from .execute import Outcome, execute
from .gc import Decision, Policy, format_age, plan_gc
from .live import LiveState, read_users, read_versions


def run(args: argparse.Namespace, reporter: Reporter) -> str:
    policy, selector = _policy(args)
    table = _table(args.config)
    cluster = Cluster.connect(args.kubeconfig, args.context)
    # Each namespace once (`-n a -n a`): twice, every version in it was a
    # version twice, and --keep N kept about N/2.
    namespaces = (None if args.all_namespaces
                  else list(dict.fromkeys(args.namespace or [cluster.namespace or "default"])))
    reporter.info(f"collecting in {'all namespaces' if namespaces is None else ', '.join(namespaces)}")
    present: set[tuple[str, str, str]] = set()
    state = LiveState(
        _versions(cluster, namespaces, selector, args.selector),
        _users(cluster, namespaces, table, args.local_refs_only, reporter, present),
        present,
    )
    _check_discovery(cluster, args.skip_unavailable, reporter)
    # Of every ConfigMap and Secret listed: a version -l or --scope left
    # unread is not missing (review61a).
    state.report_missing(reporter)
    decisions = plan_gc(state, policy)
    outcomes = execute(cluster, decisions, reporter) if args.yes else None
    text = _json(decisions, outcomes, policy) if args.output == "json" else _table_text(decisions, outcomes, policy)
    _summary(decisions, outcomes, reporter)
    failed = [o for o in outcomes or [] if o.failed]
    if failed:
        # The table still goes out: it says what was and was not deleted.
        sys.stdout.write(text)
        sys.stdout.flush()
        raise PostrenderError(f"{len(failed)} deletion(s) failed")
    return text


def _versions(cluster: Cluster, namespaces: list[str] | None, selector: str | None, given: str | None) -> list:
    """The live versions; a `-l` the API server cannot parse is a usage
    error (exit 2), as a bad -n or --scope is. The server is the parser:
    it answers 400 for a selector it refuses, which no other list here
    sends, so its verdict is exactly kubectl's."""
    try:
        return read_versions(cluster, namespaces, selector)
    except ClusterError as exc:
        if exc.status == 400 and given:
            raise UsageError(
                f"-l {quoted(given)} is not a label selector the API server reads: {exc.message}") from None
        raise


def _policy(args: argparse.Namespace) -> tuple[Policy, str | None]:
    if args.all_namespaces and args.namespace:
        raise UsageError("-A and -n exclude each other")
    if args.all_namespaces and args.local_refs_only:
        raise UsageError("-A and --local-refs-only exclude each other: -A reads every namespace")
    for namespace in args.namespace or ():
        if not namespace:
            # An unset variable (`-n "$NS"`): as a path, no namespace is all of
            # them, and -A is what says so.
            raise UsageError("-n: an empty namespace (an unset variable?); name one, or pass -A for all")
        check_namespace(namespace, "-n")
    if args.keep < 0:
        raise UsageError("--keep must not be negative")
    selectors = [args.selector] if args.selector else []
    if args.scope is not None:
        selectors.append(f"{LABEL_SCOPE}={check_scope(args.scope)}")
    seconds = parse_duration(args.min_age)
    policy = Policy(args.keep, timedelta(seconds=seconds), datetime.now(timezone.utc))
    return policy, ",".join(selectors) or None


def _users(cluster: Cluster, namespaces: list[str] | None, table: fieldspecs.ReferenceTable,
           local_only: bool, reporter: Reporter, present: set[tuple[str, str, str]]):
    """Who uses what, read in every namespace even with -n: an object
    elsewhere may name a version here (an Ingress's `auth-secret: ns/name`,
    a `Kind/namespace/name` record). Rights limited to the collected
    namespaces stop gc rather than let it delete blind."""
    if namespaces is None or local_only:
        if namespaces is not None:
            reporter.warn(f"not checked (--local-refs-only): references and postrender.io/refs records outside "
                          f"{', '.join(namespaces)}; a version only they name may be deleted")
        return read_users(cluster, namespaces, table, reporter=reporter, present=present)
    try:
        return read_users(cluster, None, table, reporter=reporter, present=present)
    except ClusterError as exc:
        if exc.status != 403:
            raise
        raise PostrenderError(
            f"{exc}; gc reads references in every namespace, since an object in another one may name a version "
            f"in {', '.join(namespaces)}: grant `list` cluster-wide (integrations/gc/rbac.yaml), or pass "
            "--local-refs-only to honour only those in the namespaces collected in"
        ) from None


def _check_discovery(cluster: Cluster, skip: bool, reporter: Reporter) -> None:
    if not cluster.undiscovered:
        return
    groups = ", ".join(f"{gv} ({why})" for gv, why in sorted(cluster.undiscovered.items()))
    if not skip:
        # Objects there could record a version as in use; deleting blind is not an option.
        raise PostrenderError(f"cannot discover {groups}; fix the API service or pass --skip-unavailable")
    reporter.warn(f"not checked for postrender.io/refs (cannot discover): {groups}")


def _table(config_files: list[str]) -> fieldspecs.ReferenceTable:
    extra = []
    for path in config_files:
        for i, data in enumerate(fieldspecs.load_config_file(path)):
            extra.append((f"{path} (document {i + 1})", data))
    return fieldspecs.load_table(extra)


def _rows(decisions: list[Decision], outcomes: list[Outcome] | None) -> list[tuple[Decision, str]]:
    if outcomes is None:
        return [(d, "delete" if d.delete else "keep") for d in decisions]
    return [(o.decision, o.result if o.decision.delete else "keep") for o in outcomes]


def _table_text(decisions: list[Decision], outcomes: list[Outcome] | None, policy: Policy) -> str:
    header = ("NAMESPACE", "NAME", "AGE", "DECISION", "REASON")
    rows = [header]
    for decision, result in _rows(decisions, outcomes):
        v = decision.version
        # Names come from the cluster: a custom resource's name (a user, in
        # the reason) may hold any character but `/` and `%`, and an error
        # the API server gave (the result) any text. None reaches a
        # terminal as a control character.
        rows.append(tuple(escape_controls(cell) for cell in (
            v.namespace, f"{v.kind}/{v.name}", format_age(policy.now - v.created), result, decision.reason)))
    widths = [max(len(r[i]) for r in rows) for i in range(len(header) - 1)]
    lines = ["   ".join(c.ljust(w) for c, w in zip(r[:-1], widths)) + "   " + r[-1] for r in rows]
    return "\n".join(line.rstrip() for line in lines) + "\n"


def _json(decisions: list[Decision], outcomes: list[Outcome] | None, policy: Policy) -> str:
    items = []
    for decision, result in _rows(decisions, outcomes):
        v = decision.version
        items.append({
            "namespace": v.namespace, "kind": v.kind, "name": v.name,
            "base": v.base, "scope": v.scope,
            "created": v.created.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "ageSeconds": max(int((policy.now - v.created).total_seconds()), 0),
            "decision": "delete" if decision.delete else "keep",
            "result": result if outcomes is not None else None,
            "reason": decision.reason,
        })
    return json.dumps({"dryRun": outcomes is None, "items": items}, indent=2) + "\n"


def _summary(decisions: list[Decision], outcomes: list[Outcome] | None, reporter: Reporter) -> None:
    planned = sum(d.delete for d in decisions)
    if outcomes is None:
        reporter.info(f"dry run: would delete {planned} of {len(decisions)} versions; pass --yes to delete")
        if planned:
            print(f"postrender: dry run: {planned} version(s) would be deleted; pass --yes to delete",
                  file=reporter.stderr)
        return
    deleted = sum(o.result == "deleted" for o in outcomes)
    reporter.info(f"deleted {deleted} of {planned} planned; kept {len(decisions) - planned}")
