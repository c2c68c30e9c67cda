"""JSON text of values as deep as the input may nest, without recursion.

`json.dumps` recurses once per level, in C, against Python's recursion
limit; a value nested --max-depth levels deep (1000 at most) inside a render
that is itself some frames deep would hit it. This writes the same text
with an explicit stack; scalars still go through `json.dumps`.
"""

from __future__ import annotations

import json
from typing import Any


# json.dumps with any argument but the value makes a JSONEncoder per call;
# one per form is made once (callers use one or two forms).
_ENCODERS: dict[tuple[bool, tuple[str, str]], json.JSONEncoder] = {}
# Each form's C encoder, as JSONEncoder.encode makes one for every call
# (with a closure and a dict of the containers it is in): one is made per
# form and called directly (a config's content read -9%, each hashed
# through here: -1.3% instructions on 20,000 ConfigMaps). Its dict is
# empty again after each value it writes, but not after an error: it is
# then made anew.
_C_ENCODERS: dict[tuple[bool, tuple[str, str]], Any] = {}


def dumps(value: Any, *, sort_keys: bool = False, separators: tuple[str, str] = (", ", ": ")) -> str:
    """`json.dumps(value, ensure_ascii=False, sort_keys=..., separators=...)`."""
    form = (sort_keys, separators)
    encode = _C_ENCODERS.get(form)
    if encode is None:
        encoder = _ENCODERS.get(form)
        if encoder is None:
            encoder = _ENCODERS[form] = json.JSONEncoder(ensure_ascii=False, sort_keys=sort_keys, separators=separators)
        encode = _c_encoder(encoder)
        if encode is not None:
            _C_ENCODERS[form] = encode
    try:
        # Most values (a ConfigMap's data, an edit's scalar) are shallow: the
        # C encoder writes them at once, and stops at the recursion limit.
        if encode is None:
            return _ENCODERS[form].encode(value)
        if isinstance(value, str):
            return json.encoder.encode_basestring(value)  # what encode() writes for a str
        return "".join(encode(value, 0))
    except RecursionError:
        _C_ENCODERS.pop(form, None)
    except BaseException:
        _C_ENCODERS.pop(form, None)  # its dict may still hold what it was in
        raise
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
            parts.append(json.dumps(item, ensure_ascii=False))
    return "".join(parts)


def _c_encoder(encoder: json.JSONEncoder) -> Any:
    """The C encoder `encoder.encode` makes for each value it writes, made
    once; None where the json module has none (its Python encoder is then
    used as it is)."""
    make = json.encoder.c_make_encoder
    if make is None:
        return None
    try:
        # The call JSONEncoder.iterencode makes; not a
        # public interface, so a Python that changed it gets the Python one.
        return make({}, encoder.default, json.encoder.encode_basestring, encoder.indent, encoder.key_separator,
                    encoder.item_separator, encoder.sort_keys, encoder.skipkeys, encoder.allow_nan)
    except TypeError:
        return None


def _key(key: Any) -> str:
    # As json.dumps converts keys (which are strings everywhere postrender builds them).
    if isinstance(key, str):
        return key
    if key is True or key is False or key is None:
        return json.dumps(key)
    return str(key) if isinstance(key, int) else json.dumps(key)
