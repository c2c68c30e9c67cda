"""A field-spec path, `spec/volumes/configMap/name`, as segments: kustomize's
spelling, with kyaml's filters (`containers[name=app]`, `[name=a|b]`, `?`
for "or absent"), `*` for any key, and `\\/` for a slash within a key.
kustomize's own spellings read as kustomize reads them (kustomize_keys): a
leading `/`, and `[]` after a key that holds a list."""

from __future__ import annotations

import re
from functools import cache

from ..printable import quoted
from ..errors import UsageError
from ..records import record
from .walk import WILDCARD


@record(frozen=True)
class Filter:
    field: str
    value: str  # alternatives separated by `|`
    or_absent: bool

    def accepts(self, found: str | list[str] | None) -> bool:
        """`found`: the item's field as text, as a list of texts, or None when absent."""
        if found is None:
            return self.or_absent
        values = self.value.split("|")
        if isinstance(found, list):
            return any(value in found for value in values)
        return found in values


@record(frozen=True)
class Segment:
    key: str
    filters: tuple[Filter, ...] = ()


_SEGMENT = re.compile(r"^(?P<key>(?:[^\[\\]|\\.)*)(?P<filters>(?:\[[^\]]*\])*)$")


def parse_path(text: str, origin: str = "field spec") -> tuple[Segment, ...]:
    try:
        return _parsed_path(text)
    except ValueError as exc:
        raise UsageError(f"{origin}: {exc}") from None


def path_problem(text: str) -> str | None:
    """What is wrong with a path, None when it parses (schema.py)."""
    try:
        _parsed_path(text)
    except ValueError as exc:
        return str(exc)
    return None


# A key's `[]` suffix: kustomize's hint that the key holds a list. kustomize
# steps through a list's items whatever the path says, and so does the walk.
_LIST_MARKER = "[]"


def kustomize_keys(text: str) -> tuple[str, ...]:
    """A kustomize fieldSpec path's keys, as kustomize reads them (kyaml's
    PathSplitter, api/filters/fieldspec): one leading `/` dropped, `\\/` a
    slash within a key, a key's `[]` suffix dropped. `/data/x` and
    `data[]/x` both edit `data`."""
    return tuple(_unmarked(part).replace("\\/", "/") for part in _split(_unrooted(text)))


def value_add_keys(text: str) -> tuple[str, ...]:
    """A ValueAddTransformer fieldPath's keys, as kustomize reads them
    (api/filters/valueadd): split at each unescaped `/`, empty keys skipped
    (`/data/y` is `data/y`), and `[]` kept as part of a key."""
    return tuple(part.replace("\\/", "/") for part in _split(text) if part)


def kustomize_path(keys: tuple[str, ...]) -> str:
    """Keys as one kustomize path, in the spelling kustomize_keys reads back
    (a slash within a key escaped): two spellings of one path compare equal."""
    return "/".join(key.replace("/", "\\/") for key in keys)


def _unrooted(text: str) -> str:
    """kustomize allows a path to start with `/` (`/a/b`), once: `//a`
    still has an empty first key, which kustomize refuses."""
    return text[1:] if text.startswith("/") and len(text) > 1 else text


def _unmarked(part: str) -> str:
    return part[: -len(_LIST_MARKER)] if part.endswith(_LIST_MARKER) else part


def _split(text: str) -> list[str]:
    return re.split(r"(?<!\\)/", text)


@cache
def _parsed_path(text: str) -> tuple[Segment, ...]:
    """Paths repeat (podSpecs × their references): each is parsed once."""
    segments: list[Segment] = []
    for part in _split(_unrooted(text)):
        # `sources[]` is kustomize's `sources`, not a filter without a test.
        part = _unmarked(part)
        match = _SEGMENT.match(part)
        if not match or not part:
            raise ValueError(f"bad path {quoted(text)}")
        key = match.group("key").replace("\\/", "/")
        filters: list[Filter] = []
        for raw in re.findall(r"\[([^\]]*)\]", match.group("filters")):
            name, eq, value = raw.partition("=")
            if not eq or not name:
                raise ValueError(f"bad filter [{raw}] in path {quoted(text)}")
            filters.append(Filter(name, value.rstrip("?"), value.endswith("?")))
        if key == WILDCARD and filters:
            raise ValueError(f"{WILDCARD} takes no filter, in path {quoted(text)}")
        if key == "" and filters and segments:
            # kyaml spelling `items/[field=value]`: filter on the previous step
            previous = segments.pop()
            segments.append(Segment(previous.key, previous.filters + tuple(filters)))
            continue
        segments.append(Segment(key, tuple(filters)))
    return tuple(segments)
