"""`-o markdown`: a pull-request comment (GitHub and GitLab flavoured Markdown)."""

from __future__ import annotations

import re

from ..model import Report, Roll
from . import _text

# CI finds the comment it posted before by this line, and updates it.
MARKER = "<!-- postrender-diff -->"


def write(report: Report) -> str:
    out = [MARKER, "### postrender diff", "", f"**{_cell(_text.summary(report))}**"]

    if report.warnings:
        out += ["", "#### Warnings", ""]
        out.extend(f"- {_cell(w)}" for w in report.warnings)

    if report.does_not_roll:
        rows = []
        for held in report.does_not_roll:
            who = _code(held.workload.describe()) if held.workload else "*no pod template*"
            config = _code(held.config.describe()) if held.config is not None else _cell(_text.held_config(held))
            keys = _cell(_text.held_keys(held)) if held.config is not None else _fields(held.direct)
            rows.append((who, config, _cell(_text.held_names(held)), keys, _cell(held.reason)))
        _table(out, f"{_text.held_title(report)} {_text.HELD_NOTE}", ("Workload", "Config", "Names", "Keys", "Why"),
               rows)

    if report.rolls_config:
        _table(out, "Rolls because its config changed", ("Workload", "Because", "Keys"),
               _cause_rows(report.rolls_config))

    if report.rolls_direct:
        rows = [(_code(r.workload.describe()), _fields(r.direct)) for r in report.rolls_direct]
        _table(out, "Rolls because its pod template changed directly", ("Workload", "Pod template fields"), rows)

    if report.in_place:
        rows = [(_code(r.workload.describe()), _fields(r.direct)) for r in report.in_place]
        _table(out, f"{_text.IN_PLACE_TITLE} {_text.IN_PLACE_NOTE}", ("Workload", "Pod template fields"), rows)

    if report.updated:
        _table(out, "Updated with its config (no pod template to roll)", ("Object", "Because", "Keys"),
               _cause_rows(report.updated))

    if report.config_changes:
        rows = [(_code(c.describe()), c.status, _cell(_text.config_names(c)), _cell(_text.config_keys(c)))
                for c in report.config_changes]
        _table(out, "Config changes", ("Object", "Status", "Names", "Keys"), rows)

    valued = [c for c in report.config_changes if c.values]
    if report.show_values and valued:
        out += ["", "<details><summary>Values (ConfigMaps only; Secret values are never shown)</summary>", ""]
        for change in valued:
            for value in change.values or []:
                lines = _text.value_lines(value)
                fence = _fence(lines)
                out += [f"{_code(change.describe(), cell=False)} {_code(value.key, cell=False)} "
                        f"({_text.value_status(value)})", "",
                        f"{fence}diff", *lines, fence, ""]
        out.append("</details>")

    if report.versions_created or report.versions_unreferenced:
        out += ["", "#### Versions", ""]
        for v in report.versions_created:
            out.append(f"- created {_code(_version(v), cell=False)}")
        for v in report.versions_unreferenced:
            out.append(f"- no longer referenced {_code(_version(v), cell=False)} (`postrender gc` collects it later)")
    return "\n".join(out) + "\n"


def _cause_rows(rolls: list[Roll]) -> list[tuple[str, ...]]:
    rows = []
    for roll in rolls:
        for i, cause in enumerate(roll.because):
            rows.append((_code(roll.workload.describe()) if i == 0 else "", _cell(_text.cause(cause)),
                         _cell(_text.cause_keys(cause))))
    return rows


def _version(v) -> str:
    ns = f"{v.namespace}/" if v.namespace else ""
    return f"{v.kind}/{ns}{v.name}"


def _table(out: list[str], title: str, header: tuple[str, ...], rows: list[tuple[str, ...]]) -> None:
    out += ["", f"#### {title}", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out.extend("| " + " | ".join(row) + " |" for row in rows)


# Characters that start inline Markdown (code, emphasis, links, strikethrough,
# entities): backslash-escaped, which CommonMark allows for any ASCII
# punctuation and renders as the character itself.
_INLINE = re.compile(r"([\\`*_\[\]~|])")


def _cell(text: str) -> str:
    """Plain text in a table cell: from the input (names, keys, reasons), so
    nothing in it may end the cell (`|`), start HTML (`<`) or be read as
    Markdown."""
    text = _text.printable(text).replace(" -> ", " \u2192 ")
    text = _INLINE.sub(r"\\\1", text)
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _code(text: str, cell: bool = True) -> str:
    """A code span holding `text` verbatim (CommonMark 6.1): its fence is one
    backtick longer than any run of backticks inside, and a space pads a
    text that starts or ends with a backtick (or with spaces at both ends,
    one of which the span strips). Inside a code span `<b>` is text, not
    HTML; but GFM splits a table row at `|` before it finds code spans, so
    in a cell (`cell`) `|` is escaped there too (GFM drops that backslash)."""
    text = _text.printable(text)
    if cell:
        text = text.replace("|", "\\|")
    fence = "`" * (max((len(m) for m in re.findall(r"`+", text)), default=0) + 1)
    padded = text[:1] == "`" or text[-1:] == "`" or (text[:1] == " " and text[-1:] == " " and text.strip() != "")
    pad = " " if padded else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _fields(paths: list[str]) -> str:
    """Pod template field paths: each a code span (a map key in a path may hold any character)."""
    shown = ", ".join(_code(p) for p in paths[:_text.MAX_FIELDS])
    if len(paths) > _text.MAX_FIELDS:
        shown += f" and {len(paths) - _text.MAX_FIELDS} more"
    return shown


def _fence(lines: list[str]) -> str:
    longest = max((len(m) for line in lines for m in re.findall(r"`+", line)), default=0)
    return "`" * max(3, longest + 1)
