"""postrender's hash is kustomize's, over what Kubernetes stores.

For each ConfigMap and Secret, generated in every shape (no data, null
fields, empty mappings, odd plain scalars, quoted and block styles, flow
mappings, plain and quoted keys, YAML 1.1 keys, merge keys, anchors, tags,
binaryData, every Secret type, stringData):

1. kubectl reads it (tests/oracles.py): the JSON Kubernetes gets.
2. The stored form is written out as JSON-quoted YAML, which every reader
   reads alike: for a Secret stringData merged into data as base64 and a
   missing or empty type as Opaque (the API server's own conversion); a
   field that is null keeps its text (kustomize hashes that text).
3. kustomize names the stored form (annotation needsHashSuffix), and that
   hash must be postrender's hash of the object as written.
4. Where kustomize's own reader (YAML 1.2, go-yaml v3) reads the object as
   Kubernetes does, and the object is in generator shape (a ConfigMap; a
   Secret with an explicit type and no stringData), kustomize's name for the
   object as written is postrender's too.
5. A render (opted in, so policy keeps versioning it) names the object
   `<name>-<that hash>` when it has data.

Every kind of object in a batch goes through one kubectl and one kustomize run.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import run_postrender
from oracles import NEEDS_HASH, kubectl_read, kustomize_hashes, postrender_reading, yaml_quoted
from test_kubernetes_reading import kubernetes_verdict, stored_data

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
SECRET_TYPES = [
    "Opaque", "kubernetes.io/tls", "kubernetes.io/dockerconfigjson", "kubernetes.io/dockercfg",
    "kubernetes.io/basic-auth", "kubernetes.io/ssh-auth", "bootstrap.kubernetes.io/token",
    "kubernetes.io/service-account-token", "example.com/custom",
]
# Kept by name whatever they hold: no rendered name to compare.
KEPT_TYPES = ("kubernetes.io/service-account-token", "bootstrap.kubernetes.io/token")
NULL_TEXTS = ["", "~", "null", "Null", "NULL", "!!null"]
CONTAINERS = {"ConfigMap": ("data", "binaryData"), "Secret": ("data", "stringData")}


@dataclass
class Generated:
    """One object as written, and what the test knows about how it was written."""

    name: str
    kind: str
    fields: list[str]  # top-level lines after metadata (type, data, ...), written out
    null_fields: dict[str, str] = field(default_factory=dict)  # field -> its null text
    divergent: bool = False  # uses what kustomize's YAML 1.2 reader reads differently
    explicit_type: bool = False  # a Secret with a non-empty string type written out

    def text(self, annotation: tuple[str, str]) -> str:
        head = (f"apiVersion: v1\nkind: {self.kind}\nmetadata:\n  name: {self.name}\n"
                f"  annotations:\n    {annotation[0]}: {yaml_quoted(annotation[1])}\n")
        return head + "".join(line + "\n" for line in self.fields)


OPT_IN = ("postrender.io/versioned", "true")
HASH_ME = (NEEDS_HASH, "enabled")


# --- generating objects -------------------------------------------------------

SAFE_KEYS = ["a", "KEY", "app.conf", "x_y", "tls.crt", "tls.key", ".dockerconfigjson", "on-call", "B", "z9"]
QUOTED_KEYS = ["'yes'", '"on"', "'0x10'", '"017"', "'1_0'", '"with space"', "'ü'"]
# Plain keys YAML 1.1 reads as something else (at most one per mapping: none meet another).
YAML11_KEYS = ["yes", "on", "y", "N", "1", "0x10", "017", "1_0", "1.5", "1e3", "-2", "true", "08"]
# Plain values Kubernetes reads as strings; the second set kustomize reads otherwise.
PLAIN_STRINGS = ["v", "hello world", "debug", "23:59", "1:20:30", "v1.2.3", "0.0.0.0", "10Gi", "a-b_c", "-x"]
PLAIN_DIVERGENT = ["2001-12-14"]
# Plain values Kubernetes does not read as strings: refused.
PLAIN_NOT_STRINGS = ["08", "0128", "-.5", ".5e3", "yes", "~", "1", "0x1F", "true", "1e3"]
# Any text kustomize can write back out (its YAML writer refuses control characters).
text_values = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc"), exclude_characters="\ufeff\ufffe\uffff")
                      | st.sampled_from(["\n", "\t"]), max_size=20)
# A block scalar's lines: text, blank lines, and more-indented lines, which
# a folded scalar keeps apart from their neighbours.
block_lines = st.lists(
    st.one_of(st.text(st.characters(codec="ascii", min_codepoint=33, max_codepoint=126), min_size=1, max_size=12),
              st.just(""), st.builds(lambda t: "  " + t, st.sampled_from(["b", "* item", "x: y"]))),
    min_size=1, max_size=4).filter(lambda lines: lines[0] != "")


def kustomize_reads_block_otherwise(indicator: str, lines: list[str]) -> bool:
    """Where kustomize's reader (go-yaml v3) reads a block scalar otherwise
    than Kubernetes (go-yaml v2) does, measured with both: a folded scalar
    holding a more-indented line after its first, for which it reads one
    line break more before that line; and a folded scalar that keeps its
    trailing blank lines (`>+`), for which it reads one more of them."""
    if not indicator.startswith(">"):
        return False
    more_indented = any(line.startswith(" ") for line in lines[1:])
    return more_indented or ("+" in indicator and lines[-1] == "")


@st.composite
def text_value(draw, flow: bool) -> tuple[str, bool]:
    """A value for ConfigMap data or stringData, written out, and whether kustomize reads it otherwise."""
    how = draw(st.sampled_from(["double", "single", "plain", "plain-odd", "block", "str-tag", "binary-tag",
                                "custom-tag", "not-a-string"]))
    if how == "double":
        return yaml_quoted(draw(text_values)), False
    if how == "single":
        value = draw(st.text(st.characters(codec="ascii", min_codepoint=32, max_codepoint=126), max_size=20))
        return "'" + value.replace("'", "''") + "'", False
    if how == "plain":
        return draw(st.sampled_from([s for s in PLAIN_STRINGS if not (flow and ":" in s)])), False
    if how == "plain-odd":
        return draw(st.sampled_from(PLAIN_DIVERGENT)), True
    if how == "block" and not flow:
        indicator = draw(st.sampled_from(["|", "|-", "|+", ">", ">-", ">+", "|2", ">+2"]))
        lines = draw(block_lines)
        if lines[0].startswith(" ") and not indicator[-1].isdigit():
            lines[0] = lines[0].lstrip()  # the first line sets the indentation
        return (indicator + "".join("\n    " + line if line else "\n" for line in lines),
                kustomize_reads_block_otherwise(indicator, lines))
    if how == "str-tag":
        return "!!str " + draw(st.sampled_from(PLAIN_NOT_STRINGS[:4] + ["x"])), True
    if how == "binary-tag":
        return "!!binary " + base64.b64encode(draw(text_values).encode()).decode(), True
    if how == "custom-tag":
        return "!custom " + draw(st.sampled_from(["x", "0755", "yes"])), True
    return draw(st.sampled_from(PLAIN_NOT_STRINGS)), False


@st.composite
def base64_value(draw, flow: bool) -> tuple[str, bool]:
    """A value for a Secret's data or binaryData."""
    encoded = base64.b64encode(draw(st.binary(max_size=40))).decode()
    how = draw(st.sampled_from(["plain", "double", "single", "block", "binary-tag", "invalid"]))
    if how == "plain" and encoded:
        return encoded, False  # may read as a number (`1234`): then refused
    if how == "block" and not flow and len(encoded) > 8:
        return "|\n" + "".join("    " + encoded[i:i + 8] + "\n" for i in range(0, len(encoded), 8)).rstrip("\n"), False
    if how == "binary-tag":
        return "!!binary " + base64.b64encode(encoded.encode()).decode(), True
    if how == "invalid":
        return draw(st.sampled_from(["'not base64'", "YQ", "'YQ=='"])), False
    return (yaml_quoted(encoded), False) if how != "single" else ("'" + encoded + "'", False)


@st.composite
def mapping_entries(draw, encoded: bool, flow: bool) -> tuple[list[tuple[str, str]], bool]:
    keys = draw(st.lists(st.sampled_from(SAFE_KEYS + QUOTED_KEYS), unique=True, max_size=4))
    divergent = False
    if draw(st.booleans()):
        keys.append(draw(st.sampled_from(YAML11_KEYS)))
        divergent = True
    keys = draw(st.permutations(keys))
    entries = []
    for key in keys:
        value, odd = draw(base64_value(flow) if encoded else text_value(flow))
        divergent |= odd
        entries.append((key, value))
    return entries, divergent


def _render_mapping(entries: list[tuple[str, str]], flow: bool, indent: str = "  ") -> str:
    if flow:
        return " {" + ", ".join(f"{k}: {v}" for k, v in entries) + "}"
    if not entries:
        return " {}"
    return "".join(f"\n{indent}{k}: {v}" for k, v in entries)


@st.composite
def generated(draw, index: int) -> Generated:
    kind = draw(st.sampled_from(["ConfigMap", "Secret"]))
    obj = Generated(name=f"o{index:02d}", kind=kind, fields=[])
    anchors: list[str] = []
    if kind == "Secret":
        how = draw(st.sampled_from(["absent", "null", "empty", "plain", "quoted", "number", "tagged"]))
        chosen = draw(st.sampled_from(SECRET_TYPES))
        if how == "null":
            obj.fields.append(f"type: {draw(st.sampled_from(NULL_TEXTS))}".rstrip())
        elif how == "empty":
            obj.fields.append("type: ''")
        elif how == "plain":
            obj.fields.append(f"type: {chosen}")
            obj.explicit_type = True
        elif how == "quoted":
            obj.fields.append(f"type: {yaml_quoted(chosen)}")
            obj.explicit_type = True
        elif how == "number":
            obj.fields.append("type: 123")  # refused: Kubernetes reads a number
        elif how == "tagged":
            obj.fields.append(f"type: !!str {chosen}")
            obj.explicit_type = obj.divergent = True
    for container in CONTAINERS[kind]:
        encoded = container == "binaryData" or (kind == "Secret" and container == "data")
        how = draw(st.sampled_from(["absent", "null", "empty", "entries", "entries", "merged"]))
        flow = draw(st.booleans())
        if how == "absent":
            continue
        if how == "null":
            text = draw(st.sampled_from(NULL_TEXTS))
            obj.null_fields[container] = text
            obj.fields.append(f"{container}: {text}".rstrip())
            continue
        if how == "empty":
            obj.fields.append(f"{container}: {{}}")
            continue
        entries, divergent = draw(mapping_entries(encoded, flow))
        obj.divergent |= divergent
        if how == "merged":
            # go-yaml v2 applies merges in order; kustomize's reader does not.
            obj.divergent = True
            sources = []
            for _ in range(draw(st.integers(1, 2))):
                merged, _ = draw(mapping_entries(encoded, True))
                anchors.append(f"&m{len(anchors)}" + _render_mapping(merged, True))
                sources.append(f"*m{len(anchors) - 1}")
            merge = ("<<", sources[0] if len(sources) == 1 else "[" + ", ".join(sources) + "]")
            entries.insert(draw(st.integers(0, len(entries))), merge)
        obj.fields.append(f"{container}:" + _render_mapping(entries, flow))
    if anchors:
        # Top-level fields the API server drops; here only to hold the anchors.
        obj.fields.insert(0, "x-anchors: [" + ", ".join(anchors) + "]")
    return obj


# --- checking -----------------------------------------------------------------

def _json_flow(mapping: dict[str, str]) -> str:
    return "{" + ", ".join(f"{yaml_quoted(k)}: {yaml_quoted(v)}" for k, v in sorted(mapping.items())) + "}"


def stored_form(obj: Generated, sent: dict[str, Any]) -> str:
    """What Kubernetes stores for the object, written so kustomize reads it exactly."""
    lines = [f"apiVersion: v1\nkind: {obj.kind}\nmetadata:\n  name: {obj.name}\n  annotations:\n"
             f"    {NEEDS_HASH}: enabled"]
    null_fields = dict(obj.null_fields)
    if obj.kind == "ConfigMap":
        fields = {"data": sent.get("data"), "binaryData": sent.get("binaryData")}
    else:
        lines.append("type: " + yaml_quoted(sent.get("type") or "Opaque"))
        fields = {"data": stored_data(sent)}
        if sent.get("stringData"):
            null_fields.pop("data", None)  # the merged data replaces a null one
    for name, value in fields.items():
        if name in null_fields:
            lines.append(f"{name}: {null_fields[name]}".rstrip())
        elif isinstance(value, dict):
            lines.append(f"{name}: {_json_flow(value)}")
    return "\n".join(lines) + "\n"


def generator_shaped(obj: Generated, sent: dict[str, Any]) -> bool:
    return not obj.divergent and (obj.kind == "ConfigMap" or (obj.explicit_type and not isinstance(sent.get("stringData"), dict)))


def check(objects: list[Generated]) -> dict[str, int]:
    """Every step of the module docstring; returns counts of what was checked."""
    as_written = {obj.name: obj.text(OPT_IN) for obj in objects}
    sent, errors = kubectl_read(as_written)
    verdicts = {obj.name: postrender_reading(as_written[obj.name]) for obj in objects}
    accepted = []
    for obj in objects:
        kubernetes_accepts, why = kubernetes_verdict(sent.get(obj.name), errors.get(obj.name))
        digest, error, _ = verdicts[obj.name]
        assert kubernetes_accepts == (error is None), f"Kubernetes: {why}; postrender: {error}\n{as_written[obj.name]}"
        if error is None:
            accepted.append(obj)
    if not accepted:
        return {"accepted": 0}
    stored = {obj.name: stored_form(obj, sent[obj.name]) for obj in accepted}
    shaped = [obj for obj in accepted if generator_shaped(obj, sent[obj.name])]
    hashes = kustomize_hashes(list(stored.values()) + [
        obj.text(HASH_ME).replace(f"name: {obj.name}\n", f"name: {obj.name}-as-written\n", 1) for obj in shaped
    ])
    for obj in accepted:
        digest = verdicts[obj.name][0]
        assert digest == hashes[obj.name], (
            f"postrender {digest}, kustomize {hashes[obj.name]} for the stored form\n"
            f"{as_written[obj.name]}---\n{stored[obj.name]}")
    for obj in shaped:
        assert verdicts[obj.name][0] == hashes[f"{obj.name}-as-written"], as_written[obj.name]
    rendered = _rendered_names([obj for obj in accepted if _renamed_by_a_render(sent[obj.name])], as_written)
    for name, final in rendered.items():
        assert final == f"{name}-{verdicts[name][0]}", (final, as_written[name])
    return {"accepted": len(accepted), "as-written": len(shaped), "rendered": len(rendered)}


def _renamed_by_a_render(sent: dict[str, Any]) -> bool:
    has_data = any(sent.get(f) for f in ("data", "binaryData", "stringData"))
    return has_data and sent.get("type") not in KEPT_TYPES


def _rendered_names(objects: list[Generated], as_written: dict[str, str]) -> dict[str, str]:
    if not objects:
        return {}
    result = run_postrender([], "---\n".join(as_written[obj.name] for obj in objects))
    assert result.status == 0, result.stderr
    # Read back by kubectl, which also checks that the output is what it reads.
    sent, errors = kubectl_read({"rendered": result.stdout})
    assert not errors, errors
    renamed = {d["metadata"]["labels"]["postrender.io/base-name"]: d["metadata"]["name"]
               for d in sent.values() if "postrender.io/copy-of" not in (d["metadata"].get("annotations") or {})}
    # By default every versioned Secret also keeps an unsuffixed mutable copy,
    # pointing at its versioned name; nothing else is copied.
    copies = {d["metadata"]["name"]: d["metadata"]["annotations"]["postrender.io/copy-of"]
              for d in sent.values() if "postrender.io/copy-of" in (d["metadata"].get("annotations") or {})}
    secrets = {d["metadata"]["labels"]["postrender.io/base-name"]: d["metadata"]["name"]
               for d in sent.values() if d["kind"] == "Secret"
               and "postrender.io/base-name" in (d["metadata"].get("labels") or {})}
    assert copies == secrets, (copies, secrets)
    return renamed


@SETTINGS
@given(st.integers(1, 8).flatmap(lambda n: st.tuples(*(generated(i) for i in range(n)))))
def test_generated_objects_hash_as_kustomize_names_their_stored_form(objects):
    check(list(objects))


def test_every_shape_at_least_once():
    # The shapes a small random sample could miss, written out once each.
    shapes = [
        Generated("no-data", "ConfigMap", []),
        *(Generated(f"null-data-{i}", "ConfigMap", [f"data: {t}".rstrip()], {"data": t}) for i, t in enumerate(NULL_TEXTS)),
        Generated("empty-data", "ConfigMap", ["data: {}"]),
        Generated("empty-binary", "ConfigMap", ["binaryData: {}"]),
        Generated("null-binary", "ConfigMap", ["binaryData:", "data: {a: b}"], {"binaryData": ""}),
        Generated("both", "ConfigMap", ["data: {a: b}", "binaryData: {c: aGk=}"]),
        Generated("block", "ConfigMap", ["data:", "  a: |", "    x", "    y", "  b: >-", "    folded", "    text"]),
        Generated("both-empty", "ConfigMap", ["data: {}", "binaryData: {}"]),
        Generated("time", "ConfigMap", ["data:", "  BACKUP_TIME: 23:59"]),
        Generated("keys11", "ConfigMap", ["data:", "  yes: a", "  0x10: b", "  1e3: c", "  08: d"], divergent=True),
        Generated("merge", "ConfigMap", ["x-anchors: [&d {LOG_LEVEL: info}]", "data: {LOG_LEVEL: debug, <<: *d}"],
                  divergent=True),
        Generated("no-type", "Secret", ["data: {a: YQ==}"]),
        *(Generated(f"null-type-{i}", "Secret", [f"type: {t}".rstrip(), "data: {a: YQ==}"]) for i, t in enumerate(NULL_TEXTS)),
        Generated("string-data", "Secret", ["type: Opaque", "stringData: {password: s3cr3t, b: ü}"], explicit_type=True),
        Generated("string-over-data", "Secret", ["data: {a: YQ==, b: Yg==}", "stringData: {a: z}"]),
        Generated("empty-string-data", "Secret", ["type: Opaque", "data: {a: YQ==}", "stringData: {}"],
                  explicit_type=True),
        Generated("null-data-string-data", "Secret", ["type: Opaque", "data:", "stringData: {a: x}"], {"data": ""},
                  explicit_type=True),
        *(Generated(f"type-{i}", "Secret", [f"type: {t}", "data: {a: YQ==}"], explicit_type=True)
          for i, t in enumerate(SECRET_TYPES)),
    ]
    counts = check(shapes)
    assert counts["accepted"] == len(shapes)
    assert counts["as-written"] >= 15 and counts["rendered"] >= 15, counts


def test_block_scalars_kustomize_reads_otherwise_are_named_as_kubernetes_stores_them():
    """kustomize's reader (go-yaml v3) reads some folded scalars otherwise
    than Kubernetes: a more-indented line, and `>+`'s trailing blank lines,
    get a line break more. postrender names the object by what Kubernetes
    stores (check compares with kustomize's name for the stored form); as
    written, kustomize names those apart, and only those, which is what
    the README says and what kustomize_reads_block_otherwise expects."""
    blocks = {
        "folded-more": (">", ["x", "  more", "y"]),
        "folded-more-after-blank": (">-", ["x", "", "  more"]),
        "folded-keep": (">+", ["x", "y", ""]),
        "folded-keep-indicator": (">+2", ["x", ""]),
        "folded-blank": (">", ["x", "", "y"]),
        "folded-strip": (">-", ["x", "y", ""]),
        "literal-keep": ("|+", ["x", ""]),
        "literal-more": ("|", ["x", "  more"]),
    }
    shapes = [Generated(name, "ConfigMap", ["data:", f"  a: {indicator}",
                                            *("    " + line if line else "" for line in lines), "  b: c"],
                        divergent=kustomize_reads_block_otherwise(indicator, lines))
              for name, (indicator, lines) in blocks.items()]
    assert [obj.name for obj in shapes if obj.divergent] == ["folded-more", "folded-more-after-blank", "folded-keep",
                                                             "folded-keep-indicator"]
    assert check(shapes)["accepted"] == len(shapes)
    as_written = kustomize_hashes([obj.text(HASH_ME) for obj in shapes])
    for obj in shapes:
        assert (postrender_reading(obj.text(OPT_IN))[0] != as_written[obj.name]) == obj.divergent, obj.name


def test_a_secret_written_with_string_data_is_named_as_its_stored_form():
    # DECISIONS 5: the same stored Secret gets one name however it is written.
    forms = [
        Generated("f1", "Secret", ["stringData: {password: s3cr3t}"]),
        Generated("f2", "Secret", ["type: Opaque", "stringData: {password: s3cr3t}"]),
        Generated("f3", "Secret", ["data: {password: czNjcjN0}"]),
        Generated("f4", "Secret", ["type: ''", "data: {password: czNjcjN0}"]),
        Generated("f5", "Secret", ["type: Opaque", "data: {password: czNjcjN0}"]),
        Generated("f6", "Secret", ["type: Opaque", "data: {password: b2xk}", "stringData: {password: s3cr3t}"]),
    ]
    hashes = {postrender_reading(obj.text(OPT_IN))[0] for obj in forms}
    assert len(hashes) == 1
    # ...the name kustomize gives the generator-shaped one (f5).
    assert hashes == {kustomize_hashes([forms[4].text(HASH_ME)])["f5"]}


def test_a_block_scalar_ending_the_input_without_a_line_break_is_named_as_kubectl_reads_it():
    # kubectl and Helm give every line of a manifest a line break, the last
    # one too (apimachinery's LineReader): `a: |` then `  x` at the very end
    # of the input is "x\n" to them, as if the line break were there. Every
    # block style, in a ConfigMap and a Secret, each the last line of its file.
    styles = ["|", "|+", "|-", ">", ">+", ">-", "|2", "|+2"]
    endings = [["    x"], ["    x", "     y"], ["    x", "", "  "]]  # the last: blank lines, spaces without a break
    objects = [
        Generated(f"eof-{kind.lower()}-{s}-{e}", kind, [f"{field}:", f"  a: {style}", *ending])
        for s, style in enumerate(styles) for e, ending in enumerate(endings)
        for kind, field in (("ConfigMap", "data"), ("Secret", "stringData"))
    ]
    as_written = {obj.name: obj.text(OPT_IN).removesuffix("\n") for obj in objects}
    sent, errors = kubectl_read(as_written)
    assert not errors, errors
    hashes = kustomize_hashes([stored_form(obj, sent[obj.name]) for obj in objects])
    for obj in objects:
        digest, error, _ = postrender_reading(as_written[obj.name])
        assert error is None and digest == hashes[obj.name], (digest, error, as_written[obj.name], sent[obj.name])
    # Rendered, the last of them ending the stream so: a second run on the
    # output changes nothing (it had renamed that one again).
    stream = "\n---\n".join(as_written.values())
    first = run_postrender([], stream)
    assert first.status == 0, first.stderr
    assert run_postrender([], first.stdout).stdout == first.stdout


def test_a_config_of_more_than_a_mib_is_named_as_kustomize_names_it():
    # Large configs are read in parts (read.compose.DROP_FROM), their entries folded
    # into the hash as composed (index/folding.py): a long value (with
    # escapes JSON and Go write, and text past ASCII), many entries, and a
    # Secret's long data must still be named as kustomize names them.
    value = '"' + "a<é\\t&\\u2028" * 150_000 + '"'
    objects = [
        Generated("long-value", "ConfigMap", [f"data: {{small: v, long: {value}}}"]),
        Generated("many-entries", "ConfigMap", ["data:", *(f"  k{i}: '{'é<' * 40}'" for i in range(16_000))]),
        Generated("long-secret", "Secret", ["type: Opaque", "data: {a: " + "QUFB" * 300_000 + ", b: Yg==}"]),
    ]
    hashes = kustomize_hashes([obj.text(HASH_ME) for obj in objects])
    for obj in objects:
        text = obj.text(OPT_IN)
        assert len(text) > 1 << 20
        digest, error, _ = postrender_reading(text)
        assert error is None and digest == hashes[obj.name], (obj.name, digest, error)
        rendered = run_postrender([], text)
        assert rendered.status == 0 and f"name: {obj.name}-{hashes[obj.name]}\n" in rendered.stdout, rendered.stderr
