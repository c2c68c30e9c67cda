"""Anchors defined twice in one document, as go-yaml reads them.

YAML lets a document define an anchor again: an alias names the latest
node so anchored before it (YAML 1.1 and 1.2 both say so). go-yaml v2,
which kubectl, Helm and Argo CD read with, does exactly that, while
libyaml's composer (ruamel's and PyYAML's) refuses the second definition
("found duplicate anchor"). So that postrender reads such a document as
kubectl does, `renamed` gives its text with each later definition of a
name, and the aliases that name it, renamed to a name of the same length
the document does not use: every offset stays put, and the composer sees
the graph go-yaml builds. The writer never sees this text: the document is
written as it came, whose meaning is the same.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import product
from string import ascii_letters, digits

from ruamel.yaml.cyaml import CParser
from ruamel.yaml.error import YAMLError
from ruamel.yaml.events import AliasEvent, CollectionStartEvent, ScalarEvent

# What may follow an anchor's name: the name ends at a space, a line break
# or a flow indicator (YAML's ns-anchor-char excludes those).
_AFTER_A_NAME = frozenset(" \t\r\n\x85\u2028\u2029,[]{}")
# The characters libyaml takes in an anchor's name (its scanner's IS_ALPHA).
_NAME_CHARACTERS = ascii_letters + digits + "_-"
# A comment: `#` at a line's start or after a space or tab.
_COMMENT = re.compile(r"(?:^|[ \t])#", re.M)


def is_duplicate_anchor(exc: YAMLError) -> bool:
    """Whether libyaml's composer refused a second definition of an anchor."""
    return "found duplicate anchor" in (getattr(exc, "context", None) or "")


def renamed_after(exc: YAMLError, text: str) -> str | None:
    """`renamed(text)` when libyaml's composer refused `text` for an anchor
    defined again (`exc`); None for any other error, or when it cannot be."""
    return renamed(text) if is_duplicate_anchor(exc) else None


def renamed(text: str) -> str | None:
    """`text` with every anchor defined again in it renamed, with its
    aliases, so that no name is defined twice; None when that cannot be
    done surely (the text does not parse, no same-length name is free, or
    the renamed text does not parse to the same events but for the names),
    and the caller refuses the document as before."""
    events = _events(text)
    if events is None:
        return None
    shift = 1 if text.startswith("\ufeff") else 0  # libyaml counts from after a byte-order mark
    used = {name for event in events if (name := getattr(event, "anchor", None)) is not None}
    defined: set[str] = set()
    current: dict[str, str] = {}  # name as written -> the name its latest definition now has
    edits: list[tuple[int, str]] = []
    # What each event's anchor or alias must read once renamed.
    expected: list[str | None] = []
    free: dict[int, Iterator[str]] = {}  # by length: names not yet tried, so that n renames cost n
    for event in events:
        name = getattr(event, "anchor", None)
        if name is None:
            expected.append(None)
            continue
        start = event.start_mark.index + shift
        if isinstance(event, AliasEvent):
            new = current.get(name, name)
            expected.append(new)
            if new != name:
                if text[start:start + 1 + len(name)] != "*" + name:
                    return None
                edits.append((start + 1, new))
            continue
        if name not in defined:
            defined.add(name)
            current[name] = name
            expected.append(name)
            continue
        at = _anchor_at(text, name, start, event.end_mark.index + shift)
        new = _free_name(free.setdefault(len(name), _names(len(name))), used)
        if at is None or new is None:
            return None
        used.add(new)
        current[name] = new
        expected.append(new)
        edits.append((at + 1, new))
    if not edits:
        return None
    parts = []
    last = 0
    for at, new in edits:
        parts += (text[last:at], new)
        last = at + len(new)
    parts.append(text[last:])
    result = "".join(parts)
    again = _events(result)
    if again is None or not _alike(events, again) or [getattr(e, "anchor", None) for e in again] != expected:
        return None
    return result


def _events(text: str) -> list | None:
    parser = CParser(text)
    events = []
    try:
        while parser.check_event():
            events.append(parser.get_event())
    except YAMLError:
        return None
    finally:
        parser.dispose()
    return events


def _anchor_at(text: str, name: str, start: int, end: int) -> int | None:
    """Where `&name` is written among a node's properties, which libyaml's
    event spans from `start` (a tag may come first, and comments between
    them on lines of their own)."""
    token = "&" + name
    at = text.find(token, start, end + len(token))
    while at != -1:
        after = at + len(token)
        line = max(start, text.rfind("\n", 0, at) + 1)
        if ((at == start or text[at - 1] in " \t\r\n") and (after == len(text) or text[after] in _AFTER_A_NAME)
                and not _COMMENT.search(text, line, at)):
            return at
        at = text.find(token, at + 1, end + len(token))
    return None


def _names(length: int) -> Iterator[str]:
    return ("".join(letters) for letters in product(_NAME_CHARACTERS, repeat=length))


def _free_name(names: Iterator[str], used: set[str]) -> str | None:
    """The next of `names` the document does not use; None when none is left."""
    for name in names:
        if name not in used:
            return name
    return None


def _alike(first: list, second: list) -> bool:
    """Whether two event lists are the same but for anchor names and aliases
    (renamed compares those)."""
    if len(first) != len(second):
        return False
    for a, b in zip(first, second):
        if type(a) is not type(b) or a.start_mark.index != b.start_mark.index or a.end_mark.index != b.end_mark.index:
            return False
        if isinstance(a, ScalarEvent):
            if (a.value, a.tag, a.implicit, a.style) != (b.value, b.tag, b.implicit, b.style):
                return False
        elif isinstance(a, CollectionStartEvent):
            if (a.tag, a.implicit, a.flow_style) != (b.tag, b.implicit, b.flow_style):
                return False
    return True
