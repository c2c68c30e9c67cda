"""A `:` inside a plain scalar of a flow collection, as go-yaml reads it.

go-yaml v2, which kubectl, Helm and Argo CD read with, reads a `:` that is
not followed by a blank, inside a plain scalar of a flow collection, as
part of the scalar: `args: [--addr=:8080]`, `{url: http://x}`, `[a:b]`
(["--addr=:8080"], {"url": "http://x"}, ["a:b"]). libyaml 0.1.7, which
ruamel.yaml.clib bundles and postrender composes with, refuses each one
("found unexpected ':'"); later libyaml reads them as go-yaml does. So
that postrender reads such a document as kubectl does, `hidden` gives its
text with each `:` libyaml refuses replaced by HIDDEN, one character for
one, which libyaml reads as part of the scalar: every offset stays put.
The scalars composed from it get their `:` back (`restore`). The writer
never sees this text: the document is written as it came.
"""

from __future__ import annotations

from ruamel.yaml.error import MarkedYAMLError, YAMLError

from .nodes import Composer, Node, ScalarNode, unique_nodes

# A private-use character: printable to libyaml, no indicator, and refused
# as a stand-in in any text that holds it already.
HIDDEN = "\ue7ff"
# How many `:` one document may have hidden: each is found by scanning
# the text again, and a document past this many is refused as before.
HIDDEN_UP_TO = 256

_REFUSAL = "found unexpected ':'"


def is_flow_colon(exc: YAMLError) -> bool:
    """Whether libyaml refused a `:` inside a flow collection's plain scalar."""
    return isinstance(exc, MarkedYAMLError) and exc.problem == _REFUSAL


def hidden(text: str, exc: YAMLError) -> str | None:
    """`text` with each `:` libyaml refuses in a flow collection's plain
    scalars replaced by HIDDEN, when `exc` is that refusal; None for any
    other error, a text that holds HIDDEN already, or one past
    HIDDEN_UP_TO of them, which the caller refuses as before."""
    if not is_flow_colon(exc) or HIDDEN in text:
        return None
    shift = 1 if text.startswith("\ufeff") else 0  # libyaml counts from after a byte-order mark
    for _ in range(HIDDEN_UP_TO):
        at = exc.problem_mark.index + shift  # type: ignore[attr-defined,union-attr]
        if at >= len(text) or text[at] != ":":
            return None
        text = text[:at] + HIDDEN + text[at + 1:]
        scanner = Composer(text)
        try:
            scanner.raw_scan()
            return text
        except YAMLError as again:
            if not is_flow_colon(again):
                return text  # another error, which composing says as it would
            exc = again
        finally:
            scanner.dispose()
    return None


def restore(root: Node) -> None:
    """The `:` back into every scalar composed from a `hidden` text."""
    for node in unique_nodes(root):
        if isinstance(node, ScalarNode) and HIDDEN in node.value:
            node.value = node.value.replace(HIDDEN, ":")
