"""JSON text of values as deep as the input may nest, without recursion.

`json.dumps` recurses once per level, in C, against Python's recursion
limit; a value nested --max-depth levels deep (1000 at most) inside a render
that is itself some frames deep would hit it. This writes the same text
with an explicit stack; scalars still go through `json.dumps`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any


# json.dumps with any argument but the value makes a JSONEncoder per call,
# and JSONEncoder.encode makes a C encoder (with a closure and a dict of the
# containers it is in) for every value it writes: one writer per form is
# made once (callers use one or two forms; a config's content read -9%,
# each hashed through here: -1.3% instructions on 20,000 ConfigMaps). A C
# encoder's dict is empty again after each value it writes, but not after
# an error: the form's writer is then made anew.
_WRITERS: dict[tuple[bool, tuple[str, str]], Callable[[Any], str]] = {}


def dumps(value: Any, *, sort_keys: bool = False, separators: tuple[str, str] = (", ", ": ")) -> str:
    """`json.dumps(value, ensure_ascii=False, sort_keys=..., separators=...)`."""
    form = (sort_keys, separators)
    write = _WRITERS.get(form)
    if write is None:
        write = _WRITERS[form] = _writer(sort_keys, separators)
    try:
        # Most values (a ConfigMap's data, an edit's scalar) are shallow: the
        # C encoder writes them at once, and stops at the recursion limit.
        return write(value)
    except BaseException as error:
        _WRITERS.pop(form, None)  # a C encoder's dict may still hold what it was in
        if not isinstance(error, RecursionError):
            raise
    return _walked(value, sort_keys, separators, _python_scalar)


def go_dumps(value: Any) -> str:
    """JSON text of a value as Go's encoding/json writes it, sorted and
    compact, but for go_escaped's escapes: its numbers as Go writes a
    float64 (go_float), which is what kubectl sends for every YAML float.
    Python writes `30.0` where Go writes `30`, and `1e-05` and `1e+16`
    where Go writes `0.00001` and `10000000000000000`."""
    if not _holds_float(value):
        return dumps(value, sort_keys=True, separators=(",", ":"))
    return _walked(value, True, (",", ":"), _go_scalar)


def go_float(value: float) -> str:
    """A finite float64 as encoding/json writes it: the shortest digits
    that read back as it, positional from 1e-6 up to 1e21, else with an
    exponent of at least one digit (`1e-7`, `1e+21`). Python's repr picks
    the same shortest digits; only the form differs. A negative zero goes
    out as `0`: kubectl (and Helm) decode the JSON again into an object,
    where a number written as an integer becomes an int64."""
    if value == 0:
        return "0"
    if 1e-6 <= abs(value) < 1e21:
        from decimal import Decimal  # few streams hold a float: not imported by every run

        return format(Decimal(repr(value)).normalize(), "f")
    text = repr(value)
    if text[-4:-1] == "e-0":  # Go trims "e-07" to "e-7", as encoding/json does
        text = text[:-2] + text[-1]
    return text


def _holds_float(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if item.__class__ is float:
            return True
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return False


def _python_scalar(item: Any) -> str:
    return json.dumps(item, ensure_ascii=False)


def _go_scalar(item: Any) -> str:
    return go_float(item) if item.__class__ is float else json.dumps(item, ensure_ascii=False)


def _walked(value: Any, sort_keys: bool, separators: tuple[str, str], scalar: Callable[[Any], str]) -> str:
    """dumps' text with an explicit stack, each scalar written by `scalar`."""
    item_separator, key_separator = separators
    parts: list[str] = []
    # Work items: a value to write, or literal text (a closing bracket, a separator).
    stack: list[tuple[bool, Any]] = [(False, value)]
    while stack:
        is_text, item = stack.pop()
        if is_text:
            parts.append(item)
        elif isinstance(item, dict):
            pairs = sorted(item.items()) if sort_keys else list(item.items())
            parts.append("{")
            stack.append((True, "}"))
            for i in range(len(pairs) - 1, -1, -1):
                key, child = pairs[i]
                stack.append((False, child))
                prefix = item_separator if i else ""
                stack.append((True, prefix + json.dumps(_key(key), ensure_ascii=False) + key_separator))
        elif isinstance(item, (list, tuple)):
            parts.append("[")
            stack.append((True, "]"))
            for i in range(len(item) - 1, -1, -1):
                stack.append((False, item[i]))
                if i:
                    stack.append((True, item_separator))
        else:
            parts.append(scalar(item))
    return "".join(parts)


def _writer(sort_keys: bool, separators: tuple[str, str]) -> Callable[[Any], str]:
    """What `encode` of a JSONEncoder of this form writes, with the C encoder
    it makes for each value made once; its own `encode` where the json
    module has no C encoder."""
    encoder = json.JSONEncoder(ensure_ascii=False, sort_keys=sort_keys, separators=separators)
    make = json.encoder.c_make_encoder
    try:
        # The call JSONEncoder.iterencode makes; not a public interface, so a
        # Python that changed it gets the Python encoder.
        encode = make and make({}, encoder.default, json.encoder.encode_basestring, encoder.indent,
                               encoder.key_separator, encoder.item_separator, encoder.sort_keys,
                               encoder.skipkeys, encoder.allow_nan)
    except TypeError:
        encode = None
    if not encode:
        return encoder.encode
    encode_string = json.encoder.encode_basestring

    def write(value: Any) -> str:
        if isinstance(value, str):
            return encode_string(value)  # what encode() writes for a str
        return "".join(encode(value, 0))

    return write


def _key(key: Any) -> str:
    # As json.dumps converts keys (which are strings everywhere postrender builds them).
    if isinstance(key, str):
        return key
    if key is True or key is False or key is None:
        return json.dumps(key)
    return str(key) if isinstance(key, int) else json.dumps(key)


# Go's encoding/json escapes these even inside strings; Python's does not.
_GO_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def go_escaped(text: str) -> str:
    """JSON text as Go's encoding/json writes it (kustomize's hash reads it).
    Five substring tests, not a regular expression: on a config's JSON,
    asked of every config hashed, they cost a tenth as much."""
    for char, escape in _GO_ESCAPES.items():
        if char in text:
            text = text.replace(char, escape)
    return text
