"""The text libyaml is given in place of a document's own, where that reads as kubectl reads it.

Same length, so every offset stays put: kubectl's opening lines (`---#x`,
directives) masked, JSON surrogate escapes as stand-ins, anchors defined
again renamed (go-yaml reads the latest), colons libyaml 0.1.7 refuses in
flow scalars hidden. Each is tried only after libyaml refused the text, and
kept with the source for every later read of the document.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ruamel.yaml.error import YAMLError

from ...syntax.nodes import Composer, DroppingComposer
from .jsonfirst import _is_json_first, mask_surrogate_escapes
from .split import _hidden_from_yaml, _leading_directives

if TYPE_CHECKING:
    from .documents import Document


def _release(loader: Composer) -> None:
    """Done with a loader. A Composer refers to nothing that refers back to
    it (no instance dict: Composer.__slots__), so reference counting frees
    it even while cli.py runs with the cyclic collector paused; a
    DroppingComposer forgets its reader's methods, which refer back to it."""
    loader.dispose()
    if loader.__class__ is DroppingComposer:
        loader.let_go_of_callers()  # type: ignore[attr-defined]


def _masked(doc: Document) -> str | None:
    """The text libyaml composes for a JSON-first document with surrogate
    escapes (see mask_surrogate_escapes), or for one that opens with what
    kubectl reads and YAML does not (_mask_kubectl_lines), and for one that
    defines an anchor again, with those renamed (_anchors_renamed); None:
    the document's own."""
    masked = mask_surrogate_escapes(doc.text) if _is_json_first(doc) else _mask_kubectl_lines(doc.text)
    renamed = doc.source.anchors_renamed
    if renamed:  # (most sources: none)
        made = renamed.get(doc.index - doc.source.first_document)
        if made is not None:
            text = masked or doc.text
            if made[0] != text:  # masked since (_drop_earlier_keys)
                from ...syntax import anchors

                made = renamed[doc.index - doc.source.first_document] = (text, anchors.renamed(text))
            masked = made[1] or masked
    hidden = doc.source.colons_hidden
    if hidden:  # (most sources: none)
        at = doc.index - doc.source.first_document
        made_hidden = hidden.get(at)
        if made_hidden is not None:
            text = masked or doc.text
            if made_hidden[0] != text:  # masked since (_drop_earlier_keys), or its anchors renamed
                remade = _hide_colons(text)
                if remade is None:
                    return masked
                made_hidden = hidden[at] = (text, remade)
            return made_hidden[1]
    return masked


def _anchors_renamed(doc: Document, text: str, exc: YAMLError) -> str | None:
    """`text` with the anchors it defines again renamed, when that is why
    libyaml's composer refused it (syntax/anchors.py): go-yaml reads an
    alias as the latest node anchored so, and so does postrender. The
    document's own text keeps its names: its meaning is the same, and the
    later reads of it compose what _masked gives. None: refused."""
    from ...syntax import anchors

    at = doc.index - doc.source.first_document
    if at in doc.source.anchors_renamed:
        return None  # renamed already, and still refused
    renamed = anchors.renamed_after(exc, text)
    if renamed is None and anchors.is_duplicate_anchor(exc):
        # A `:` libyaml refuses after the anchor (`&x {u: http://x}`) stops
        # the renaming's own parse: hidden first (_colons_hidden), then renamed.
        hidden = _hide_colons(text)
        renamed = anchors.renamed(hidden) if hidden is not None else None
        if renamed is not None:
            doc.source.colons_hidden[at] = (text, hidden)  # type: ignore[assignment]
    if renamed is not None:
        doc.source.anchors_renamed[at] = (text, renamed)
    return renamed


def _colons_hidden(doc: Document, text: str, exc: YAMLError) -> str | None:
    """`text` with each `:` libyaml refuses in a flow collection's plain
    scalars hidden (syntax/flowcolons.py), when that is why it refused it:
    go-yaml reads `[--addr=:8080]` as ["--addr=:8080"]. The later reads of
    the document compose what _masked gives. None: refused."""
    from ...syntax import flowcolons

    at = doc.index - doc.source.first_document
    made = doc.source.colons_hidden.get(at)
    if made is not None:
        return made[1] if made[1] != text else None  # hidden already, and still refused
    remade = flowcolons.hidden(text, exc)
    if remade is not None:
        doc.source.colons_hidden[at] = (text, remade)
    return remade


def _hide_colons(text: str) -> str | None:
    """`text` (a document's, masked since) with the `:` libyaml refuses
    hidden again; None where it now parses as it is, or cannot be."""
    from ...syntax import flowcolons

    loader = Composer(text)
    try:
        loader.raw_scan()
        return None
    except YAMLError as exc:
        return flowcolons.hidden(text, exc)
    finally:
        _release(loader)


def _mask_kubectl_lines(text: str) -> str | None:
    """The text with its opening lines as kubectl reads them, each masked
    in place (same length, so every offset stays put): a `---#x` separator
    line becomes `---` and spaces (_hidden_from_yaml), and directives
    before it, which kubectl never applies (_STRAY_DIRECTIVE), comments.
    An undefined `!k!` tag handle then fails as it does in kubectl. None:
    nothing to mask (most documents: `---` and a line break)."""
    if text.startswith("---"):
        if not _hidden_from_yaml(text, 0):
            return None
        separator, head = 0, ""
    elif text[:1].isalnum() or (found := _leading_directives(text)) is None:
        return None
    else:
        separator = found
        head = re.sub("^%", "#", text[:separator], flags=re.M)
    end = text.find("\n", separator)
    end = len(text) if end == -1 else end
    line = text[separator:end]
    if _hidden_from_yaml(text, separator):
        cr = "\r" if line.endswith("\r") else ""
        line = "---" + " " * (len(line) - 3 - len(cr)) + cr
    return head + line + text[end:]
