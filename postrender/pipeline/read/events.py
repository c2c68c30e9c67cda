"""libyaml's parse events, walked before a document is composed: the node count and the depth.

Counting a document's events in C costs a tenth of composing it: the node
limit (--max-nodes) is held to that count, and nesting deeper than
--max-depth, which would overflow libyaml's C stack, is refused from the
events (after a cheap screen of the text) before any node is built.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ruamel.yaml.error import YAMLError

from ...errors import PostrenderError
from ...limits import MAX_DEPTH_CEILING
from ...syntax.nodes import Composer, flow_openings, may_hold_anchors, may_hold_tags
from .masks import _colons_hidden, _release
from .yamlerrors import _parse_error

if TYPE_CHECKING:
    from .documents import Document


def _depth_limit(max_depth: int) -> str:
    """The --max-depth limit a document passed, and how to raise it while it may be (cli62)."""
    levels = f"{max_depth} level{'' if max_depth == 1 else 's'}"
    if max_depth >= MAX_DEPTH_CEILING:
        return f"{levels} (--max-depth, at its ceiling)"
    return f"{levels} (raise it with --max-depth, up to {MAX_DEPTH_CEILING})"


def _parse_events(doc: Document, masked: str | None) -> int:
    text = masked or doc.text
    loader = Composer(text)
    try:
        return loader.raw_parse() - 2  # less the stream's start and end
    except YAMLError as exc:
        hidden = _colons_hidden(doc, text, exc)
        if hidden is None:
            raise _parse_error(doc, exc) from None
    finally:
        _release(loader)
    return _parse_events(doc, hidden)


def _may_nest_deeply(text: str, max_depth: int, brackets: int | None = None) -> bool:
    """Cheap screen: composing deep nesting overflows libyaml's C stack.

    Flow nesting needs one bracket per level. Block nesting needs the
    leading run of indentation and `- `/`? `/`: ` indicators to grow: by at
    least one column for every two levels (a block sequence may sit at its
    parent key's column). Both kinds add up in one document. `brackets`:
    how many brackets may open a level, once counted (below).
    """
    counted = brackets is not None
    if brackets is None:
        # Most documents hold no bracket: found at memchr's speed, not counted.
        brackets = text.count("[") + text.count("{") if "[" in text or "{" in text else 0
    if brackets < max_depth:
        run = max(1, (max_depth - brackets) // 2 - 1)
        screens = _INDENTATION_RUNS.get(run)
        if screens is None:
            # "\n" first rather than "^" with MULTILINE: a literal lets the regex
            # engine skip ahead, ten times faster on big documents.
            indicators = r"[ \t\-?:]{%d,}" % run
            screens = _INDENTATION_RUNS[run] = (re.compile(indicators), re.compile("\n" + indicators))
        at_start, after_break = screens
        if at_start.match(text) is None and after_break.search(text) is None:
            return False
    # Most brackets of a large document are a scalar's (a CRD's
    # descriptions: `{{request.object}}`, `[0-9]`), and the walk of its
    # events that would count the levels costs more than composing it: only
    # those that may open a level count (flow_openings), each looked at
    # where it stands, up to _BRACKETS_LOOKED_AT of them.
    if counted or not brackets or brackets > _BRACKETS_LOOKED_AT or may_hold_anchors(text) or may_hold_tags(text):
        return True
    return _may_nest_deeply(text, max_depth, flow_openings(text, max_depth))


# _may_nest_deeply looks at each bracket of a document holding fewer: a
# dense flow document holding more is walked for its depth, as before.
_BRACKETS_LOOKED_AT = 1 << 16

# _may_nest_deeply's patterns by the run they look for: compiled once, where
# re.match with a pattern's text looks it up in re's cache on every call.
_INDENTATION_RUNS: dict[int, tuple[re.Pattern[str], re.Pattern[str]]] = {}


def _check_depth(doc: Document, max_depth: int, masked: str | None = None) -> None:
    text = masked or doc.text
    loader = Composer(text)
    depth = 0
    try:
        while loader.check_event():
            event = loader.get_event()
            name = type(event).__name__
            if name in ("MappingStartEvent", "SequenceStartEvent"):
                depth += 1
                if depth > max_depth:
                    raise PostrenderError(f"nesting deeper than {_depth_limit(max_depth)}",
                        doc.at(doc.first_line + event.start_mark.line + 1),
                    )
            elif name in ("MappingEndEvent", "SequenceEndEvent"):
                depth -= 1
    except YAMLError as exc:
        # A ReaderError too (a character YAML does not allow), which is not
        # a MarkedYAMLError: said as _parse_events says it, by line and column.
        hidden = _colons_hidden(doc, text, exc)
        if hidden is None:
            raise _parse_error(doc, exc) from None
    else:
        return
    finally:
        _release(loader)
    _check_depth(doc, max_depth, hidden)
