"""Which characters are shown as they are: one answer on every Python.

str.isprintable() follows each Python's Unicode database (14.0 in 3.11, 15.0
in 3.12, 15.1 in 3.13): a character assigned since (U+1F6DC) is unprintable
to the older one, so the same input gave other bytes on another Python
(determinism60). Here the class is fixed: what Unicode 14.0 calls controls,
format characters, separators other than the space, surrogates and private
use, and the non-characters; every other character, assigned or not, is
printable. On 3.11 it answers as isprintable() does for every assigned
character (tests/unit/test_printable.py).
"""

from __future__ import annotations

from .lazyre import LazyPattern

HIDDEN = LazyPattern(
    "[\x00-\x1f\x7f-\xa0\xad\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2\u1680\u180e\u2000-\u200f"
    "\u2028-\u202f\u205f-\u2064\u2066-\u206f\u3000\ud800-\uf8ff\ufdd0-\ufdef\ufeff\ufff9-\ufffb\ufffe\uffff"
    "\U000110bd\U000110cd\U00013430-\U00013438\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001"
    "\U000e0020-\U000e007f\U000f0000-\U0010ffff"
    + "".join(f"{chr(plane * 0x10000 + 0xFFFE)}{chr(plane * 0x10000 + 0xFFFF)}" for plane in range(1, 15))
    + "]"
)


def printable(text: str) -> bool:
    """Whether every character of `text` is shown as it is."""
    return HIDDEN.search(text) is None


def quoted(value: object) -> str:
    """repr(value) for a message, a string's escapes decided by printable()
    (repr's follow the running Python's Unicode database: `'cfg\\U0001f6dc'`
    on 3.11, `'cfg🛜'` on 3.12; review60b): the same for every assigned
    character, and an unassigned one shown as it is. Lists, tuples and
    dicts hold their strings so quoted; anything else: repr()."""
    if isinstance(value, (list, tuple)):
        inner = ", ".join(map(quoted, value))
        return f"[{inner}]" if isinstance(value, list) else f"({inner}{',' if len(value) == 1 else ''})"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{quoted(k)}: {quoted(v)}" for k, v in value.items()) + "}"
    if not isinstance(value, str):
        return repr(value)
    quote = '"' if "'" in value and '"' not in value else "'"
    if printable(value) and "\\" not in value and quote not in value:
        return quote + value + quote  # most names: nothing to escape
    out = []
    for ch in value:
        if ch == quote or ch == "\\":
            out.append("\\" + ch)
        elif ch in _NAMED_ESCAPES:
            out.append(_NAMED_ESCAPES[ch])
        elif not printable(ch):
            out.append(escape(ch))
        else:
            out.append(ch)
    return quote + "".join(out) + quote


_NAMED_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def escape(ch: str) -> str:
    """A character printable() hides, as a Python escape: \\xNN, \\uNNNN or
    \\UNNNNNNNN. A lone U+DC80..U+DCFF is a byte of a name that is not UTF-8
    (a path, an argument: Python's surrogateescape) and is shown as that
    byte, `\\xff` as `ls -b` shows it, not as a Python internal (cli62)."""
    code = ord(ch)
    if 0xDC80 <= code <= 0xDCFF:
        code -= 0xDC00
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"
