"""`-o markdown`: a pull-request comment (GitHub and GitLab flavoured Markdown)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..model import Report, Roll
from . import _text

# CI finds the comment it posted before by this line, and updates it.
MARKER = "<!-- postrender-diff -->"


# GitHub refuses a comment body over 65,536 characters, so `gh pr comment
# --body-file` (the README's CI recipe) fails on a longer report: the
# comment is cut to this, leaving a margin under the limit.
MAX_CHARS = 60_000
GITHUB_LIMIT = "65,536"
# When the comment must be cut, each value's diff is first shortened to its
# lines within this many characters; rows and sections go only after that.
VALUE_CHARS_WHEN_CUT = 2_000


@dataclass
class _Section:
    """A part of the comment that may be cut: its items (a table row, or a
    workload's rows; a value's diff; a bullet) from the end."""

    name: str  # in the note at the top that says what was left out
    intro: list[str]  # its title
    items: list[list[str]]  # each item's lines
    table_head: list[str] = field(default_factory=list)  # shown only above a row
    tail: list[str] = field(default_factory=list)
    noun: tuple[str, str] = ("row", "rows")
    shown: int = -1  # how many items are kept; -1: all

    def kept(self) -> int:
        return len(self.items) if self.shown < 0 else self.shown

    def lines(self) -> list[str]:
        kept = self.kept()
        out = self.intro + (self.table_head if kept else [])
        for item in self.items[:kept]:
            out += item
        if kept < len(self.items):
            out += ["", f"*{len(self.items) - kept} of {_text.plural(len(self.items), *self.noun)} "
                        "left out here: see the note at the top.*"]
        return out + self.tail


def write(report: Report) -> str:
    head = [MARKER, "### postrender diff", "", f"**{_cell(_text.summary(report))}**"]
    sections = _sections(report)
    text = _join(head, sections)
    if len(text) <= MAX_CHARS:
        return text
    # Too long for a comment: the counts above stay exact; values are
    # shortened, then items dropped from the last section back, until it fits.
    shortened = 0
    for section in sections:
        if section.noun == _VALUES:
            section.items, shortened = _shortened_values(report)
    while True:
        text = _join(head + _cut_note(sections, shortened), sections)
        if len(text) <= MAX_CHARS:
            return text
        cut = next((s for s in reversed(sections) if s.kept()), None)
        if cut is None:
            return text
        # Drop as many items as the excess needs at once, then check again
        # (the notes' lengths change with the counts).
        excess, drop = len(text) - MAX_CHARS, 0
        while drop < cut.kept() and excess > 0:
            drop += 1
            excess -= sum(len(line) + 1 for line in cut.items[cut.kept() - drop])
        cut.shown = cut.kept() - drop


def _join(head: list[str], sections: list[_Section]) -> str:
    out = list(head)
    for section in sections:
        out += section.lines()
    return "\n".join(out) + "\n"


def _cut_note(sections: list[_Section], shortened: int) -> list[str]:
    left = [f"{len(s.items) - s.kept()} of {_text.plural(len(s.items), *s.noun)} in {s.name}"
            for s in sections if s.kept() < len(s.items)]
    if shortened:
        left.append(f"the end of the diff of {_text.plural(shortened, 'value')}")
    said = "; ".join(left) if left else "nothing"
    return ["", f"> **This comment is cut to fit GitHub's limit of {GITHUB_LIMIT} characters.** Left out: {said}. "
                "The counts above are exact. To see everything, run `postrender diff` locally, or with "
                "`-o table` or `-o json` (never cut)."]


_VALUES = ("value", "values")
_WORKLOADS = ("workload", "workloads")


def _sections(report: Report) -> list[_Section]:
    sections: list[_Section] = []
    if report.warnings:
        sections.append(_Section("Warnings", ["", "#### Warnings", ""], [[f"- {_cell(w)}"] for w in report.warnings],
                                 noun=("warning", "warnings")))

    if report.does_not_roll:
        rows = []
        for held in report.does_not_roll:
            who = _code(held.workload.describe()) if held.workload else "*no pod template*"
            config = _code(held.config.describe()) if held.config is not None else _cell(_text.held_config(held))
            keys = _cell(_text.held_keys(held)) if held.config is not None else _fields(held.direct)
            rows.append([_row((who, config, _cell(_text.held_names(held)), keys, _cell(held.reason)))])
        sections.append(_table(_text.held_title(report), f"{_text.held_title(report)} {_text.HELD_NOTE}",
                               ("Workload", "Config", "Names", "Keys", "Why"), rows))

    if report.rolls_config:
        sections.append(_table("Rolls because its config changed", "Rolls because its config changed",
                               ("Workload", "Because", "Keys"), _cause_rows(report.rolls_config), _WORKLOADS))

    if report.rolls_direct:
        rows = [[_row((_code(r.workload.describe()), _fields(r.direct)))] for r in report.rolls_direct]
        sections.append(_table("Rolls because its pod template changed directly",
                               "Rolls because its pod template changed directly",
                               ("Workload", "Pod template fields"), rows))

    if report.in_place:
        rows = [[_row((_code(r.workload.describe()), _fields(r.direct)))] for r in report.in_place]
        sections.append(_table(_text.IN_PLACE_TITLE, f"{_text.IN_PLACE_TITLE} {_text.IN_PLACE_NOTE}",
                               ("Workload", "Pod template fields"), rows))

    if report.updated:
        sections.append(_table("Updated with its config", "Updated with its config (no pod template to roll)",
                               ("Object", "Because", "Keys"), _cause_rows(report.updated), ("object", "objects")))

    if report.config_changes:
        rows = [[_row((_code(c.describe()), c.status, _cell(_text.config_names(c)), _cell(_text.config_keys(c))))]
                for c in report.config_changes]
        sections.append(_table("Config changes", "Config changes", ("Object", "Status", "Names", "Keys"), rows))

    valued = [c for c in report.config_changes if c.values]
    if report.show_values and valued:
        sections.append(_Section(
            "Values", ["", "<details><summary>Values (ConfigMaps only; Secret values are never shown)</summary>", ""],
            _value_items(report), tail=["</details>"], noun=_VALUES))

    if report.versions_created or report.versions_unreferenced:
        items = [[f"- created {_code(_version(v), cell=False)}"] for v in report.versions_created]
        items += [[f"- no longer referenced {_code(_version(v), cell=False)} (`postrender gc` collects it later)"]
                  for v in report.versions_unreferenced]
        sections.append(_Section("Versions", ["", "#### Versions", ""], items, noun=("version", "versions")))
    return sections


def _value_items(report: Report, chars: int | None = None) -> list[list[str]]:
    """Each ConfigMap value's diff; `chars`: only its lines within that many
    characters, and how many more there are."""
    items = []
    for change in report.config_changes:
        for value in change.values or []:
            lines = _text.value_lines(value)
            more = 0
            if chars is not None:
                kept, used = [], 0
                for line in lines:
                    used += len(line) + 1
                    if used > chars:
                        break
                    kept.append(line)
                more = len(lines) - len(kept)
                lines = kept
            fence = _fence(lines)
            cut = [f"*{_text.plural(more, 'more line')} left out here: see the note at the top.*", ""] if more else []
            items.append([f"{_code(change.describe(), cell=False)} {_code(value.key, cell=False)} "
                          f"({_text.value_status(value)})", "", f"{fence}diff", *lines, fence, "", *cut])
    return items


def _shortened_values(report: Report) -> tuple[list[list[str]], int]:
    """The values' diffs shortened (VALUE_CHARS_WHEN_CUT), and how many were."""
    full, short = _value_items(report), _value_items(report, VALUE_CHARS_WHEN_CUT)
    return short, sum(1 for a, b in zip(full, short) if a != b)


def _cause_rows(rolls: list[Roll]) -> list[list[str]]:
    """A workload's rows (one per cause) as one item: cut together or not at all."""
    items = []
    for roll in rolls:
        items.append([_row((_code(roll.workload.describe()) if i == 0 else "", _cell(_text.cause(cause)),
                            _cell(_text.cause_keys(cause))))
                      for i, cause in enumerate(roll.because)])
    return items


def _version(v) -> str:
    ns = f"{v.namespace}/" if v.namespace else ""
    return f"{v.kind}/{ns}{v.name}"


def _table(name: str, title: str, header: tuple[str, ...], rows: list[list[str]],
           noun: tuple[str, str] = ("row", "rows")) -> _Section:
    """`noun`: what one item is, as the note that counts those left out
    says it (a workload's causes take a row each: its item is the workload)."""
    return _Section(name, ["", f"#### {title}", ""], rows,
                    table_head=[_row(header), "|" + "---|" * len(header)], noun=noun)


def _row(cells: tuple[str, ...]) -> str:
    return "| " + " | ".join(cells) + " |"


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
