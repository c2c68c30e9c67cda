"""`postrender diff OLD NEW`: read both sides, compare, write the report."""

from __future__ import annotations

import sys

from ...errors import PostrenderError, UsageError
from ...inputs import gather, refuse_named_twice
from ...options import RenderOptions, cluster_flag_given
from ...report import Reporter
from . import formats
from .compare import compare
from .model import Report
from .pairing import pair
from .side import Side, build


def run(old: str, new: str, options: RenderOptions, fmt: str, show_values: bool,
        reporter: Reporter) -> tuple[Report, str]:
    try:
        refuse_named_twice([old, new], sys.stdin, reread=True)
    except UsageError as exc:
        raise UsageError(f"diff: {exc}") from None
    given = cluster_flag_given(options)
    if given is not None:
        raise UsageError(f"diff: {given} reads a cluster; diff compares two renders and reads none")
    formats.check(fmt)
    sides = []
    for label, path in (("old", old), ("new", new)):
        label = f"{label} ({path})" if path else label  # an empty path is refused below, as such
        # Every error of a side says which side, from reading (invalid UTF-8,
        # --max-bytes) as from rendering (build): standard input is named
        # nowhere else.
        try:
            sources = gather([path], sys.stdin, options.limits.max_bytes,
                             lambda message, label=label: reporter.notice(f"{label}: {message}"))
        except PostrenderError as exc:
            raise PostrenderError(f"{label}: {exc}") from None
        except UsageError as exc:
            raise UsageError(f"{label}: {exc}") from None
        sides.append(build(label, sources, options))
    # Usually a render that failed upstream of a pipe without pipefail: a
    # report of nothing rolling must say so itself, as a CI comment shows
    # no stderr.
    own = [f"{side.label}: no ConfigMap, Secret or workload in this input"
           for side in sides if not side.configs and not side.referrers]
    for warning in own:
        reporter.warn(warning)
    _report_warnings(sides[0], sides[1], reporter)
    pairing = pair(sides[0], sides[1])
    for warning in pairing.warnings:
        reporter.warn(warning)
    report = compare(pairing.side, sides[1], show_values)
    for warning in report.refused:
        reporter.warn(warning)
    report.warnings, report.unpaired = own + pairing.warnings + report.refused, pairing.unpaired
    return report, formats.write(report, fmt)


def _report_warnings(old: Side, new: Side, reporter: Reporter) -> None:
    """Each render's warnings once: unlabelled when both sides have it."""
    seen_old = {w.message for w in old.warnings}
    seen_new = {w.message for w in new.warnings}
    for warning in new.warnings:
        if warning.message in seen_old:
            reporter.warn(warning.message, warning.about)
        else:
            reporter.warn(f"{new.label}: {warning.message}", warning.about)
    for warning in old.warnings:
        if warning.message not in seen_new:
            reporter.warn(f"{old.label}: {warning.message}", warning.about)
    for info in new.infos:
        reporter.info(f"{new.label}: {info}")
