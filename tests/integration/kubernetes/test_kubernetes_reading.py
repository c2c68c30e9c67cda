"""postrender reads ConfigMap and Secret content exactly as Kubernetes does.

The oracle is kubectl (`kubectl label --local -o json`, tests/oracles.py):
it shows the JSON kubectl and Helm send, read by sigs.k8s.io/yaml over
go-yaml v2 (YAML 1.1). For every value, key, duplicate and merge below:

- postrender accepts a document exactly when kubectl can read it and sends
  a string for every data value (base64 where the API server decodes it);
- when it accepts, the data it hashes is exactly the data kubectl sends.

Tables first (tricky scalars found by reading go-yaml v2's resolve.go and
sigs.k8s.io/yaml's key conversion), then generated tokens.
"""

from __future__ import annotations

import base64
import random
import re
import struct
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import run_postrender
from manifests import MERGE_OVERRIDES, merge_override_stream
from oracles import kubectl_read, kustomize_hashes, postrender_reading

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))

# Values written as `k: <token>` in a ConfigMap's data.
VALUES = [
    # base 60 is not supported by go-yaml v2: strings
    "23:59", "1:20:30", "190:20:30.15", "-1:30",
    # leading zeros: octal when valid, else a float (08, 0128), never a string
    "08", "0128", "09.5", "017", "00", "0_8",
    # floats go-yaml reads, and look-alikes it does not
    "-.5", ".5e3", ".5", "-.5e3", "+.5", ".5_5", "._5", ".5_", ".e5", "1.", "0.", "1e3", "1E3", "1.5e+3",
    "1e", "1.5e+", "1e-400", "1e400", "1e5_0", "1_0.5",
    # infinities and NaN: kubectl cannot write them as JSON
    "+.inf", "-.inf", ".inf", ".Inf", ".nan", ".NaN", "+.nan", "inf", "nan",
    # YAML 1.1 booleans and nulls, exact spellings only
    "yes", "Yes", "yES", "y", "Y", "n", "on", "OFF", "oFF", "true", "tRUE", "~", "null", "NULL", "nULL", "",
    "#comment",
    # integers: bases, signs, underscores, 64-bit edges
    "0", "-0", "+0", "1", "-1", "+12", "0x1F", "0X1f", "0x", "0o17", "0O17", "0o", "0b101", "0B11", "0b",
    "0b-101", "0b+1", "-0b-1", "-0x10", "+0x10", "0x-1", "+-1", "1_000", "_1", "1_", "0_x1", "1__0", "00x1",
    "9223372036854775807", "9223372036854775808", "-9223372036854775809", "18446744073709551615",
    "18446744073709551616", "0xFFFFFFFFFFFFFFFF", "0x1FFFFFFFFFFFFFFFF", "123456789012345678901234567890",
    # timestamps stay strings
    "2001-12-14", "2001-12-14t21:59:43.10-05:00", "2001-12-14 21:59:43.10 -5",
    # strings that merely look technical
    "v1.2.3", "1.2.3", "0.0.0.0", "1,000", "$1", "0x1p-2", "1e3s", "10Gi", "-", "--1",
    # quoted
    "'08'", '"yes"', "''", '""', "'~'", '"\\U0001F600"', '"<a&b>\\u2028"',
    # tags: !!str and unknown tags give strings; !!binary its decoded bytes
    "!!str 08", "!!str", "!!str ~", "!!str .inf", "!!str -.INF", "!<tag:yaml.org,2002:str> .nan", "!custom .inf",
    "! 5", "!custom 0755", "!custom", "!<!x> 5", "!<tag:yaml.org,2002:str> 5",
    "!!map x", "!!merge x", "!!binary aGk=", "!!binary aGk", "!!binary /w==", "!!binary 7aCA", "!!binary ''",
    "!!binary 'aG k='",
    # Go's decoder: whole quanta of four, padding only at the end (Python's takes `aGk=a`, `aGlh=`)
    "!!binary aGlh=", "!!binary aGk=aGk=", "!!binary aGk=a", "!!binary aG=k", "!!binary ====", "!!binary aGlh==",
    "!!binary aGl", "!!binary aGj=", "!!binary aR==", "!!binary =aGk",
    "!!timestamp 2001-12-14", "!!timestamp '2001-12-14  1:2:3'", "!!timestamp 2001-12-14T21:59:43,5Z",
    "!!timestamp 2001-02-29", "!!timestamp 2000-02-29", "!!timestamp 2001-12-14T24:00:00Z",
    "!!timestamp 2001-12-14T21:59:43+24:00", "!!timestamp 2001-12-14T21:59:43+25:00", "!!timestamp x",
    "!!int 5", "!!int x", "!!int '5'", "!!int 08", "!!float 5", "!!float 08", "!!float 1e400",
    "!!float 12345678901234567890", "!!bool yes", "!!bool 1", "!!null", "!!null x", "!!float .inf",
    # block scalars
    "|-\n    08", ">-\n    yes", "|\n    a\n    b", "!!binary |\n    aGVs\n    bG8=",
    "!!binary \"aGVs\\r\\nbG8=\"", "!!binary \"aGVs\\tbG8=\"",
]

# Keys written as `<token>: v` in a ConfigMap's data.
KEYS = [
    "yes", "on", "y", "Y", "n", "off", "true", "False", "1", "-1", "+1", "0x10", "017", "0o17", "08", "0b11",
    "1_000", "1.5", "1e3", "1e-7", "1e20", "1e300", "1e400", "-.inf", ".inf", ".nan", ".5", "0.1234567890123",
    "16777217.0", "1234567.0", "3.0", "-0.0", "0.0001", "0.00001", "123456789012345678901234567890",
    "12345678901234567890", "9223372036854775807", "-9223372036854775808", "~", "null", '""', "''",
    "2001-12-14", "23:59", "!!binary aGk=", "!!binary /w==", "!!float 5", "!!int 1", "!!bool yes", "!!null",
    "!!str yes", "'yes'", "!custom 1", "!!timestamp 2001-12-14", "!!int x", "[a]", "{a: b}", "<<<", "'<<'",
]


def configmap(name: str, body: str) -> str:
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n{body}"


def secret(name: str, body: str) -> str:
    return f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: {name}\n{body}"


def _decodes(text: str) -> bool:
    """Base64 as Go's base64.StdEncoding reads it, independently of
    postrender: CR and LF skipped, whole quanta of four, `=` only as the
    last quantum's padding (the !!binary rows of VALUES hold kubectl to it)."""
    return re.fullmatch(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?",
                        text.replace("\r", "").replace("\n", "")) is not None


def kubernetes_verdict(sent: dict[str, Any] | None, kubectl_error: str | None) -> tuple[bool, str]:
    """Whether the API server would take what kubectl sends for a ConfigMap or Secret."""
    if kubectl_error is not None:
        return False, f"kubectl cannot read it: {kubectl_error}"
    assert sent is not None
    kind = sent["kind"]
    if kind == "Secret" and not isinstance(sent.get("type", ""), (str, type(None))):
        return False, "type is not a string"
    if not isinstance(sent.get("immutable", False), (bool, type(None))):
        return False, "immutable is not a boolean"  # a *bool in the API
    for field in ("data", "binaryData") if kind == "ConfigMap" else ("data", "stringData"):
        content = sent.get(field)
        if content is None:
            continue
        if not isinstance(content, dict):
            return False, f"{field} is not a mapping"
        for key, value in content.items():
            if not isinstance(value, str):
                return False, f"{field}.{key} is {value!r}, not a string"
            if (field == "binaryData" or (kind == "Secret" and field == "data")) and not _decodes(value):
                return False, f"{field}.{key} is not base64"
    return True, "accepted"


def check_against_kubectl(cases: dict[str, str]) -> list[str]:
    """Each case (name -> one-object document) read by kubectl and by postrender; the disagreements."""
    sent, errors = kubectl_read(cases)
    problems = []
    for name, text in cases.items():
        accepted, why = kubernetes_verdict(sent.get(name), errors.get(name))
        digest, error, fields = postrender_reading(text)
        if accepted != (error is None):
            problems.append(f"{name}: Kubernetes {why!r}, postrender {error or 'accepts'!r}\n{text}")
            continue
        if fields is None:
            continue
        obj = sent[name]
        want = stored_data(obj) if obj["kind"] == "Secret" else obj.get("data")
        got = fields["data"]
        if isinstance(want, dict) and got != want:
            problems.append(f"{name}: postrender hashes {got!r}, kubectl sends {want!r}\n{text}")
        if obj["kind"] == "ConfigMap" and "binaryData" in obj and fields.get("binaryData") != obj["binaryData"]:
            problems.append(f"{name}: binaryData {fields.get('binaryData')!r} != {obj['binaryData']!r}")
    return problems


def stored_data(sent: dict[str, Any]) -> Any:
    """A Secret's data as the API server stores it: stringData, when not empty, overwrites data, base64."""
    string_data = sent.get("stringData") or {}
    if not string_data:
        return sent.get("data")
    data = dict(sent.get("data") or {})
    data.update({k: base64.b64encode(v.encode()).decode() for k, v in string_data.items()})
    return data


def _case(i: int) -> str:
    return f"c{i:03d}"


def test_values_as_kubectl_reads_them():
    cases = {_case(i): configmap(_case(i), f"data:\n  k: {token}\n") for i, token in enumerate(VALUES)}
    assert check_against_kubectl(cases) == []


def test_the_issue_values_are_judged_as_kubernetes_does():
    # The examples of issue 11: sexagesimal accepted, numbers kubectl sends refused with a hint.
    digest, error, fields = postrender_reading(configmap("c", "data:\n  BACKUP_TIME: 23:59\n"))
    assert error is None and fields["data"] == {"BACKUP_TIME": "23:59"}
    for token in ("08", "0128", "-.5", ".5e3"):
        _, error, _ = postrender_reading(configmap("c", f"data:\n  X: {token}\n"))
        assert error is not None and "data.X must be a string" in error, token
        assert "quote it" in error and "unquoted, Kubernetes reads it as a number under YAML 1.1" in error, error
    _, error, _ = postrender_reading(configmap("c", "data:\n  X: yes\n"))
    assert "as a boolean" in error and "quote it" in error
    _, error, _ = postrender_reading(configmap("c", "data:\n  X:\n"))
    assert "as null" in error and 'write "" for an empty string' in error
    _, error, _ = postrender_reading(configmap("c", "data:\n  X: !!int 5\n"))
    assert "its tag makes it a number" in error


def test_keys_as_kubectl_reads_them():
    cases = {_case(i): configmap(_case(i), f"data:\n  {token}: v\n") for i, token in enumerate(KEYS)}
    cases.update({_case(100 + i): configmap(_case(100 + i), f"data: {{{token}: v}}\n") for i, token in enumerate(KEYS)})
    assert check_against_kubectl(cases) == []


# A `:` not followed by a blank inside a flow collection's plain scalar:
# go-yaml v2 reads it as part of the scalar, libyaml 0.1.7 (postrender's
# parser) refused it (syntax/flowcolons.py), followed by a letter, a digit,
# a `/`, a flow indicator or another `:`.
FLOW_COLONS = [
    "data: {t: 23:59}", "data: {url: http://example.com}", "data: {23:59: v}", "data: {a:b: c}",
    "data: {a: 'x', b: a:b:c, c: d}", "data: {a: b:}", "data: {a: x:, b: y}",
    "data: {a: 2001-12-14t21:59:43.10-05:00}", "data: {a: '1', b: [x:y]}", "data: {\"a\": http://x:80}",
    "data: {a: yes:no, b: 0x1:2}", "data: {a: &x http://y, b: *x}", "data: {a: !!str http://y}",
    "data:\n  a: http://block\n  b: {c: d:e}", "data: {a: é:ü}",
]


def test_a_colon_inside_a_flow_collection_is_read_as_kubectl_reads_it():
    cases = {_case(i): configmap(_case(i), body + "\n") for i, body in enumerate(FLOW_COLONS)}
    # One go-yaml refuses, as libyaml does: a plain scalar that starts with `:`.
    cases["refused"] = configmap("refused", "data: {a: 'b:', c: :d}\n")
    sent, errors = kubectl_read(cases)
    assert set(errors) == {"refused"}, errors
    assert check_against_kubectl(cases) == []


def _against_the_oracles(text: str, annotated: str) -> tuple[str, dict, dict, str]:
    """postrender's output of `text` (no warning), kubectl's reading of the
    input and of the output, and the name kustomize gives the ConfigMap
    `app` written as `annotated` (needsHashSuffix)."""
    result = run_postrender([], text)
    assert result.status == 0 and result.stderr == "", result.stderr
    sent_in, errors_in = kubectl_read({"in": text})
    sent_out, errors_out = kubectl_read({"out": result.stdout})
    assert not errors_in and not errors_out
    return result.stdout, sent_in, sent_out, f"app-{kustomize_hashes([annotated])['app']}"


def test_a_config_in_a_flow_collection_with_colons_is_versioned_as_kustomize_names_it():
    config = ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app}\n"
              "data: {url: http://x:8080/y, addr: \":80\", list: '[a:b]', when: 12:30}\n")
    workload = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    spec:\n"
                "      containers: [{name: c, image: i, args: [--listen=:8080, --upstream=http://a:1/b],\n"
                "        envFrom: [{configMapRef: {name: app}}]}]\n")
    annotated = config.replace("metadata: {name: app}", "metadata: {name: app, annotations: "
                               "{internal.config.kubernetes.io/needsHashSuffix: enabled}}")
    output, sent_in, sent_out, name = _against_the_oracles(config + "---\n" + workload, annotated)
    assert sent_out[name]["data"] == sent_in["app"]["data"]
    container_in = sent_in["web"]["spec"]["template"]["spec"]["containers"][0]
    container_out = sent_out["web"]["spec"]["template"]["spec"]["containers"][0]
    assert container_out["args"] == container_in["args"] == ["--listen=:8080", "--upstream=http://a:1/b"]
    assert container_out["envFrom"] == [{"configMapRef": {"name": name}}]
    # Written as it came: the colons where they were.
    assert "args: [--listen=:8080, --upstream=http://a:1/b]" in output


# Pairs of keys Kubernetes gets as one JSON key: go-yaml v2 reads them as one
# key (the later wins, and postrender leaves the earlier out), or as two keys
# sigs.k8s.io/yaml turns into the same JSON key, one of them winning at
# random (postrender refuses them).
DUPLICATES = [
    ("y", "yes"), ("yes", "on"), ("no", "off"), ("1", "0x1"), ("1", "01"), ("8", "08.0"), ("1", "'1'"),
    ("true", "'true'"), ("on", "'true'"), ("1.0", "1"), ("1e3", "1000"), ("0.1234567890123", "0.12345679"),
    (".nan", ".NaN"), ("'a'", '"a"'), ("a", "!!str a"), ("!!binary aGk=", "hi"), ("!custom x", "x"),
    ("a", "a"), ("0o1", "1"), ("0b1", "1"), ("1_0", "10"), ("~", "null"), ("1", "+1"), ("0x_1", "1"),
    # One float key to go-yaml, which keeps the later's spelling (oracle61).
    ("0.0", "-0.0"), ("-0.0", "0.0"), ("0.0", "-0e0"),
]
# Copies of a case kubectl reads at once: Go's map order differs from one
# to the next, so a key picked at random shows as two values among them.
# Not evenly: of two keys, the earlier came out last in about one read in
# eight here, so all 128 alike by chance is about (7/8)**128, 4e-8.
_SAMPLES = 128


@pytest.mark.parametrize("first,second", DUPLICATES)
def test_keys_that_reach_kubernetes_alike_are_read_as_kubectl_reads_them(first, second):
    texts = {f"dup{i}": configmap(f"dup{i}", f"data:\n  {first}: one\n  {second}: two\n") for i in range(_SAMPLES)}
    sent, errors = kubectl_read(texts)
    _, error, fields = postrender_reading(texts["dup0"])
    if errors:  # null keys: sigs.k8s.io/yaml has no JSON key for them
        assert len(errors) == _SAMPLES and error is not None and "null key" in error, (errors, error)
        return
    # What makes them a duplicate: Kubernetes gets a single key.
    assert all(len(sent[name]["data"]) == 1 for name in texts), sent
    picked = {value for name in texts for value in sent[name]["data"].values()}
    if picked == {"two"}:  # the last, every time: go-yaml holds them equal
        assert error is None, error
        assert fields is not None and fields["data"] == sent["dup0"]["data"]
    else:
        assert picked == {"one", "two"}, picked
        assert error is not None and "which value wins is random" in error, error
        assert "line 7" in error


def test_a_key_written_twice_anywhere_reaches_kubectl_as_it_read_it():
    # The output, without the earlier keys, is what kubectl read of the input.
    text = (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: first\n  labels:\n    y: a\n    yes: b\n"
        "metadata:\n  name: web\n  labels: {app: a, app: b, tier: x}\nspec:\n  replicas: 1\n  replicas: 2\n"
        "  template:\n    spec:\n      containers:\n      - name: a\n        image: x\n        name: b\n"
        "      - {name: c, image: y, image: z}\n"
    )
    result = run_postrender([], text)
    assert result.status == 0, result.stderr
    # (Not the labels `y` and `yes`: they are in the `metadata` left out.)
    assert result.stderr.count("leaves the earlier out") == 5, result.stderr
    read_in, errors_in = kubectl_read({"in": text})
    read_out, errors_out = kubectl_read({"out": result.stdout})
    assert not errors_in and not errors_out, (errors_in, errors_out)
    assert read_out == read_in and list(read_in) == ["web"]
    assert read_in["web"]["spec"]["replicas"] == 2 and read_in["web"]["metadata"]["labels"] == {"app": "b", "tier": "x"}


# An anchor in the value left out: kubectl reads the last value, and an
# alias naming a node of the earlier one still gets that node (go-yaml v2
# composes it before the later value replaces it). Left out where no alias
# names it; refused where one does.
EARLIER_ANCHORS = {
    "unused": ("data:\n  a: &x '1'\n  a: '2'\n", True),
    "in a nested value, unused": ("metadata:\n  name: x\n  labels: &l {a: b}\nmetadata:\n  name: anchors\ndata: {a: '1'}\n", True),
    "an alias in the later value": ("x-a: &x '0'\ndata:\n  a: &y '1'\n  a: *x\n", True),
    "an alias in it, the anchor outside": ("x-a: &x '0'\ndata:\n  a: *x\n  a: '2'\n", True),
    "its anchor and alias both in it": ("data:\n  a: {p: &x one, q: *x}\n  a: two\n", True),
    "its anchor and alias both in it, block": ("data:\n  a:\n    - &x one\n    - *x\n  a: two\n", True),
    "an anchor outside used in it": ("x-a: &x '0'\ndata:\n  a:\n    p: *x\n  a: two\n", True),
    "in a mapping an alias copies whole": ("data: &d\n  a: &x '1'\n  a: '2'\nx-copy: *d\n", True),
    "many, each with an anchor, one alias elsewhere": (
        "x-r: &r '0'\nx-b: *r\ndata:\n" + "".join(f"  k{i}: &a{i} '1'\n  k{i}: '2'\n" for i in range(300)), True),
    "used after": ("data:\n  a: &x '1'\n  b: *x\n  a: '2'\n", False),
    "used after, in one flow mapping": ("data: {a: &x '1', b: *x, a: '2'}\n", False),
    "its nested anchor used after": ("data:\n  a:\n    p: &x one\n  a: two\n  b: *x\n", False),
    "it, holding its own alias, used after": ("data:\n  a: &v {p: &x one, q: *x}\n  a: two\nx-b: *v\n", False),
    "nested and used after": ("data:\n  a: &x '1'\ndata:\n  a: '2'\n  b: *x\n", False),
}


@pytest.mark.parametrize("case", EARLIER_ANCHORS)
def test_an_anchor_in_a_value_left_out_is_read_as_kubectl_reads_it(case):
    body, left_out = EARLIER_ANCHORS[case]
    text = configmap("anchors", body)
    sent, errors = kubectl_read({"anchors": text})
    assert not errors, errors
    result = run_postrender([], text)
    if not left_out:
        assert result.status == 1 and result.stdout == ""
        assert "defines an anchor (&) that an alias uses" in result.stderr, result.stderr
        return
    assert result.status == 0, result.stderr
    assert "leaves the earlier out" in result.stderr
    read_out, errors_out = kubectl_read({"anchors": result.stdout})
    assert not errors_out and read_out == sent, (read_out, sent)


def test_resolved_duplicates_are_dropped_anywhere_in_a_document():
    text = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  labels:\n    y: a\n    yes: b\n"
    result = run_postrender([], text)
    assert result.status == 0 and result.stdout == text.replace("    y: a\n", "")
    assert result.stderr == (
        "postrender: warning: document 1 (Deployment/web) line 7: key 'yes' in a mapping reads as 'y' on line 6 does"
        " (YAML 1.1): kubectl and Helm read the last, so postrender leaves the earlier out\n"
    )
    sent, errors = kubectl_read({"in": text})
    assert not errors and sent["web"]["metadata"]["labels"] == {"true": "b"}


def test_keys_of_different_types_meeting_through_a_merge_are_refused():
    # go-yaml keeps int 1 and string "1" apart; sigs.k8s.io/yaml then picks either value.
    text = configmap("m", "x-anchors: [&a {1: merged}]\ndata:\n  '1': own\n  <<: *a\n")
    sent, errors = kubectl_read({"m": text})
    assert not errors and list(sent["m"]["data"]) == ["1"]
    _, error, _ = postrender_reading(text)
    assert error is not None and "which value wins is random" in error


# data bodies with merge keys (anchors defined under x-anchors, which the
# API server drops): go-yaml v2 applies entries in order, a later one
# overwriting an earlier one, and a merged list from its last item to its first.
MERGES = {
    "explicit-then-merge": "x-anchors: [&d {L: info}]\ndata: {L: debug, <<: *d}",
    "merge-then-explicit": "x-anchors: [&d {L: info}]\ndata: {<<: *d, L: debug}",
    "list": "x-anchors: [&a {L: a, A: a}, &b {L: b, B: b}]\ndata: {<<: [*a, *b]}",
    "list-after-explicit": "x-anchors: [&a {L: a}, &b {L: b}]\ndata: {L: x, <<: [*a, *b]}",
    "two-merges": "x-anchors: [&a {L: a}, &b {L: b}]\ndata:\n  <<: *a\n  L: x\n  <<: *b",
    "nested": "x-anchors: [&a {L: a, M: a}, &b {<<: *a, L: b}]\ndata: {<<: *b}",
    "nested-overridden": "x-anchors: [&a {L: a, M: a}, &b {L: b, <<: *a}]\ndata: {<<: *b, M: z}",
    "sibling-inside-sibling": "x-anchors: [&b {L: b}, &a {<<: *b, M: a}]\ndata: {<<: [*a, *b]}",
    "inline-mapping": "data: {<<: {L: a}, L: b}",
    "inline-mapping-last": "data: {L: b, <<: {L: a}}",
    "inline-list": "data: {<<: [{L: a}, {L: b, M: b}]}",
    "quoted-is-a-key": "data: {'<<': x}",
    "tagged-merge": "data: {!!merge <<: {L: a}}",
    "str-tagged-is-a-key": "data: {!!str <<: x}",
    "resolved-keys": "x-anchors: [&a {yes: a, 0x10: b}]\ndata: {<<: *a, y: c, 16: d}",
    # One float key to go-yaml, the later's spelling its JSON key (review61a).
    "float-zeros-merged": "data: {<<: {0.0: a}, -0.0: b}",
    "float-zeros-merged-last": "data: {-0.0: b, <<: {0.0: a}}",
    "merge-in-binaryData": "x-anchors: [&a {b: aGk=}]\nbinaryData: {b: eA==, <<: *a}",
    "scalar": "data: {<<: x}",
    "null": "data: {<<: }",
    "list-of-scalar": "data: {<<: [x]}",
    "list-of-list": "data: {<<: [[{a: b}]]}",
    "alias-of-list": "x-anchors: [&s [{a: b}]]\ndata: {<<: *s}",
    "list-of-alias-of-scalar": "x-anchors: [&n x]\ndata: {<<: [*n]}",
}


def test_merge_keys_as_go_yaml_v2_applies_them():
    cases = {name: configmap(name, body + "\n") for name, body in MERGES.items()}
    assert check_against_kubectl(cases) == []


def test_merge_keys_in_secret_data_and_string_data():
    cases = {
        "sd-merge": secret("sd-merge", "x-anchors: [&d {L: info}]\nstringData: {L: debug, <<: *d}\n"),
        "d-merge": secret("d-merge", "x-anchors: [&d {L: aW5mbw==}]\ntype: Opaque\ndata: {<<: *d, L: ZGVidWc=}\n"),
    }
    assert check_against_kubectl(cases) == []


SECRETS = {
    "type-number": "type: 123\ndata: {a: YQ==}",
    "type-quoted-number": "type: '123'\ndata: {a: YQ==}",
    "type-bool": "type: yes",
    "type-null": "type: ~\ndata: {a: YQ==}",
    "type-empty": "type: ''",
    "string-data": "stringData: {a: x, b: 'ü'}",
    "string-data-over-data": "data: {a: YQ==, b: Yg==}\nstringData: {a: z}",
    "string-data-number": "stringData: {a: 08}",
    "string-data-binary": "stringData: {a: !!binary /w==}",
    "string-data-empty": "data: {a: YQ==}\nstringData: {}",
    "string-data-null": "data: {a: YQ==}\nstringData:",
    "data-not-base64": "data: {a: not base64}",
    "data-unpadded": "data: {a: YQ}",
    "data-padding-quantum": "data: {a: YWJj=}",
    "data-data-after-padding": "data: {a: YQ==YQ==}",
    "data-line-broken": "data:\n  a: |\n    YWJj\n    ZGVm",
    "data-binary-tag": "data: {a: !!binary YUdrPQ==}",
    "data-binary-tag-not-base64": "data: {a: !!binary aGk=}",
    "binary-data-ignored": "binaryData: {a: 1}",
    "immutable-yes": "data: {a: YQ==}\nimmutable: yes",
    "immutable-null": "data: {a: YQ==}\nimmutable: ~",
    "immutable-string": "data: {a: YQ==}\nimmutable: 'true'",
    "immutable-number": "data: {a: YQ==}\nimmutable: 1",
    "immutable-mapping": "data: {a: YQ==}\nimmutable: {a: b}",
}


def test_secrets_as_kubectl_reads_them():
    cases = {name: secret(name, body + "\n") for name, body in SECRETS.items()}
    assert check_against_kubectl(cases) == []


def test_a_binary_secret_type_is_refused_by_design():
    # kubectl reads `Opaque`: postrender refuses a !!binary value outside
    # data, binaryData and stringData, whose text it would read as written.
    result = run_postrender([], secret("type-binary", "type: !!binary T3BhcXVl\n"))
    assert result.status == 1 and "a !!binary value outside data" in result.stderr


def test_binary_data_as_kubectl_reads_it():
    cases = {
        "bin-plain": configmap("bin-plain", "binaryData: {a: aGk=}\n"),
        "bin-not-base64": configmap("bin-not-base64", "binaryData: {a: hello}\n"),
        "bin-padding-quantum": configmap("bin-padding-quantum", "binaryData: {a: aGlh=}\n"),
        "bin-number": configmap("bin-number", "binaryData: {a: 1234}\n"),
        "bin-tagged": configmap("bin-tagged", "binaryData: {a: !!binary aGk=}\n"),
        "bin-tagged-twice": configmap("bin-tagged-twice", "binaryData: {a: !!binary YUdrPQ==}\n"),
        "string-data-ignored": configmap("string-data-ignored", "stringData: {a: 1}\n"),
    }
    assert check_against_kubectl(cases) == []


# --- generated tokens ---------------------------------------------------------

numeric_tokens = st.text(alphabet="0123456789.+-_eExXoObB:", min_size=1, max_size=9)
word_tokens = st.sampled_from(["y", "n", "yes", "no", "on", "off", "true", "false", "null", "~"]).map(
    lambda w: "".join(c.upper() if i % 2 else c for i, c in enumerate(w))
) | st.sampled_from(["Y", "N", "Yes", "No", "On", "Off", "True", "False", "Null", "YES", "NO", "ON", "OFF",
                     "TRUE", "FALSE", "NULL", ".inf", ".Inf", ".INF", ".nan", ".NaN", ".NAN", "+.inf", "-.INF"])


@SETTINGS
@given(st.lists(numeric_tokens | word_tokens, min_size=1, max_size=40, unique=True))
def test_generated_plain_values_and_keys_as_kubectl_reads_them(tokens):
    cases = {}
    for i, token in enumerate(tokens):
        cases[f"v{i:02d}"] = configmap(f"v{i:02d}", f"data:\n  k: {token}\n")
        cases[f"k{i:02d}"] = configmap(f"k{i:02d}", f"data:\n  {token}: v\n")
    assert check_against_kubectl(cases) == []


def _float32(value: float) -> float | None:
    try:
        return struct.unpack("<f", struct.pack("<f", value))[0]
    except OverflowError:
        return None


float_texts = st.floats(allow_nan=False).flatmap(
    lambda f: st.sampled_from([repr(f), f"{f:.3e}", f"{f:.9g}", f"{f:f}", f"{f:.1f}", f"{f:e}"])
)


@SETTINGS
@given(st.lists(float_texts | st.integers(-(2**63), 2**63 - 1).map(str), min_size=1, max_size=60))
def test_number_keys_are_the_json_keys_kubectl_sends(texts):
    # Keys whose float32 values meet would be one JSON key: keep the first of each.
    chosen, seen = [], set()
    for text in texts:
        single = _float32(float(text))
        bucket = ("overflow", float(text) > 0) if single is None else single
        if bucket not in seen:
            seen.add(bucket)
            chosen.append(text)
    body = "data:\n" + "".join(f"  {text}: {text!r}\n" for text in chosen)
    assert check_against_kubectl({"f": configmap("f", body)}) == []


# JSON escapes YAML does not have. kubectl reads a stream that starts with
# "{" as JSON up to the end of that value, and everything else with go-yaml
# v2; Helm puts `---` before every document, so it always reads YAML.
JSON_FIRST = (
    '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "%s"}, "data": {"k": "x\\ud83d\\ude00y",'
    ' "lone": "\\ud83d", "low": "\\ude00z", "two": "\\ud83d\\ud83d\\ude00", "s\\ud83d\\ude00": "http:\\/\\/x",'
    ' "escaped": "\\\\ud83d\\\\/"}}\n'
)


def test_json_escapes_in_a_document_that_starts_the_stream_are_read_as_kubectl_reads_json():
    # kubectl drops a byte-order mark starting the file, then reads JSON.
    cases = {"first": JSON_FIRST % "first", "spaced": "\n  " + JSON_FIRST % "spaced",
             "bom": "\ufeff" + JSON_FIRST % "bom", "bom-spaced": "\ufeff \n" + JSON_FIRST % "bom-spaced"}
    assert check_against_kubectl(cases) == []
    sent, _ = kubectl_read(cases)
    assert sent["bom"]["data"] == sent["first"]["data"] and sent["first"]["data"]["s\U0001F600"] == "http://x"
    # A NEL inside a JSON string is a character to kubectl, a line break to YAML: refused, mark or not.
    nel = '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "n"}, "data": {"a": "x\x85y"}}\n'
    for text in (nel, "\ufeff" + nel):
        result = run_postrender(["--version-all"], text)
        assert result.status == 1 and "line break NEL (U+0085) in a JSON document that starts the stream" in result.stderr
    _, _, fields = postrender_reading(cases["first"])
    assert fields["data"]["k"] == "x\U0001F600y" and fields["data"]["two"] == "\ufffd\U0001F600"
    # Written back as it came, the rename aside: kubectl reads the output as the input.
    # Nothing references it, so only --version-all renames it (and writes it back).
    result = run_postrender(["--version-all"], cases["first"])
    assert result.status == 0, result.stderr
    sent, errors = kubectl_read({"out": result.stdout, "in": cases["first"]})
    assert not errors
    (out,) = [o for n, o in sent.items() if n != "first"]
    assert out["data"] == sent["first"]["data"]


_REFERRER = ("---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    spec:\n"
             "      containers: [{name: c, image: x, envFrom: [{configMapRef: {name: first}}, {secretRef: {name: first}}]}]\n")


@pytest.mark.parametrize("kind", ["ConfigMap", "Secret"])
@pytest.mark.parametrize("args", [["--version-all", "--keep-original=all"], ["--keep-original=all"], []])
def test_a_copy_of_a_json_document_that_starts_the_stream_says_what_it_says_in_yaml(kind, args):
    # The copy is a document after the first, which kubectl reads as YAML:
    # written with the JSON-only escapes it was given, kubectl refused the
    # whole output. Each escape is written as YAML writes what it means.
    first = (JSON_FIRST % "first").replace('"kind": "ConfigMap"', f'"kind": "{kind}"')
    if kind == "Secret":
        first = first.replace('"data":', '"stringData":')
    text = first + ("" if "--version-all" in args else _REFERRER)
    result = run_postrender(args, text)
    assert result.status == 0, result.stderr
    field = "stringData" if kind == "Secret" else "data"
    given, errors = kubectl_read({"in": text})
    assert not errors, errors
    sent, errors = kubectl_read({"out": result.stdout})
    assert not errors, errors
    written = [o for o in sent.values() if o["kind"] == kind]
    names = sorted(o["metadata"]["name"] for o in written)
    # The version, and its copy where the run keeps one (by default, of a Secret).
    copied = kind == "Secret" or "--keep-original=all" in args
    assert names[-1].startswith("first-") and names[:-1] == (["first"] if copied else []), names
    assert all(o[field] == given["first"][field] for o in written), written
    again = run_postrender(args, result.stdout)
    assert again.stdout == result.stdout


@pytest.mark.parametrize("before", ["---\n", "# Source: chart/templates/cm.yaml\n",
                                    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: before}\n---\n"])
def test_json_escapes_elsewhere_are_refused_as_kubectl_and_helm_refuse_them(before):
    for text, message in ((JSON_FIRST % "j", "a \\uD800-\\uDFFF escape (a JSON surrogate pair)"),
                          ('{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "j"},'
                           ' "data": {"u": "http:\\/\\/x"}}\n', "a \\/ escape in a double-quoted string")):
        _, errors = kubectl_read({"j": before + text})
        assert "j" in errors, "kubectl reads it after all"
        result = run_postrender([], before + text)
        assert result.status == 1 and result.stdout == "", result.stderr
        assert message in result.stderr, result.stderr


# An anchor defined again in one document: go-yaml v2 reads each alias as
# the latest node anchored so before it; libyaml's composer refuses the
# second definition, so postrender composes the text with those renamed
# (syntax/anchors.py).
REDEFINED_ANCHORS = {
    "scalar, alias after": "data:\n  a: &x one\n  b: &x two\n  c: *x\n",
    "alias between the two": "data:\n  a: &x one\n  b: *x\n  c: &x two\n  d: *x\n",
    "three times": "data:\n  a: &x one\n  b: *x\n  c: &x two\n  d: *x\n  e: &x three\n  f: *x\n",
    "a tag before the anchor": "data:\n  a: &x one\n  b: !!str &x two\n  c: *x\n",
    "an anchor before the tag": "data:\n  a: &x one\n  b: &x !!str two\n  c: *x\n",
    "a mapping merged": "x-a: &m {a: one}\nx-b: &m {a: two}\ndata:\n  <<: *m\n",
    "a sequence anchored again": "x-a: &s [p]\nx-b: &s [q]\nx-c: *s\ndata: {a: one}\n",
    "flow": "data: {a: &x one, b: &x two, c: *x}\n",
    "long names": "data:\n  a: &anchor-name one\n  b: &anchor-name two\n  c: *anchor-name\n",
    "in metadata and data": "x-l: &x {k: v}\nx-m: &x {k: w}\ndata: {a: &x one, b: *x}\n",
    "two names redefined": "data:\n  a: &x one\n  b: &y two\n  c: &x three\n  d: &y four\n  e: *x\n  f: *y\n",
    "an anchor and an alias in a quoted value": "data:\n  a: &x one\n  b: '&x *x'\n  c: &x two\n  d: *x\n",
    "in a block scalar": "data:\n  a: &x one\n  b: |\n    &x two\n    *x\n  c: &x three\n  d: *x\n",
    "one-letter names, all but one in use": (
        "x-n: [" + ", ".join(f"&{c} {i}" for i, c in enumerate("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXY"))
        + "]\ndata:\n  a: &q one\n  b: &q two\n  c: *q\n"),
}


def test_anchors_defined_again_are_read_as_kubectl_reads_them():
    cases = {f"r{i:02d}": configmap(f"r{i:02d}", body) for i, body in enumerate(REDEFINED_ANCHORS.values())}
    assert check_against_kubectl(cases) == []
    sent, errors = kubectl_read(cases)
    assert not errors and sent["r00"]["data"] == {"a": "one", "b": "two", "c": "two"}
    assert sent["r02"]["data"] == {"a": "one", "b": "one", "c": "two", "d": "two", "e": "three", "f": "three"}


def test_anchors_defined_again_at_random_are_read_as_kubectl_reads_them():
    """Documents of random anchors and aliases over a few names, each
    defined any number of times, in block and flow style."""
    rng = random.Random(12)
    cases = {}
    for case in range(60):
        names = rng.sample(["x", "y", "n1", "a-b"], rng.randint(1, 3))
        defined: list[str] = []
        entries = []
        for i in range(rng.randint(2, 12)):
            name = rng.choice(names)
            if defined and rng.random() < 0.4:
                entries.append((f"k{i}", f"*{rng.choice(defined)}"))
            else:
                defined.append(name)
                entries.append((f"k{i}", f"&{name} v{i}"))
        if rng.random() < 0.5:
            body = "data:\n" + "".join(f"  {key}: {value}\n" for key, value in entries)
        else:
            body = "data: {" + ", ".join(f"{key}: {value}" for key, value in entries) + "}\n"
        cases[f"g{case:02d}"] = configmap(f"g{case:02d}", body)
    assert sum("&" in text.partition("&")[2] for text in cases.values()) > 30  # most define one twice
    assert check_against_kubectl(cases) == []


def test_a_config_whose_anchors_are_defined_again_is_versioned_as_kustomize_names_it():
    config = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  a: &v one\n  b: &v two\n  c: *v\n"
    workload = ("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  labels: &l {app: web}\n"
                "spec:\n  selector: {matchLabels: &l {app: web2}}\n  template:\n    metadata: {labels: *l}\n"
                "    spec:\n      containers:\n      - name: c\n        image: i\n"
                "        envFrom: [{configMapRef: {name: app}}]\n")
    annotated = config.replace("  name: app\n", "  name: app\n  annotations:\n"
                               "    internal.config.kubernetes.io/needsHashSuffix: enabled\n")
    output, sent_in, sent_out, name = _against_the_oracles(config + "---\n" + workload, annotated)
    assert sent_out[name]["data"] == sent_in["app"]["data"] == {"a": "one", "b": "two", "c": "two"}
    web_in, web_out = sent_in["web"], sent_out["web"]
    assert web_out["spec"]["template"]["spec"]["containers"][0]["envFrom"] == [{"configMapRef": {"name": name}}]
    # The pod template's labels are the second {app: web2}, as kubectl reads them, with what postrender adds.
    assert web_in["spec"]["template"]["metadata"]["labels"] == {"app": "web2"}
    assert web_out["spec"]["template"]["metadata"]["labels"].items() >= {"app": "web2"}.items()
    assert web_out["spec"]["selector"] == web_in["spec"]["selector"]
    # The output keeps the document's own anchor names.
    assert "b: &v two" in output and "c: *v" in output


def test_a_stand_in_character_of_one_document_is_its_own_when_another_had_colons_hidden():
    # The `:` hidden in the Deployment's args were put back into the next
    # document too, whose anchors renamed also composed it from another
    # text: its own U+E7FF was read as `:`, and the name was not kustomize's.
    workload = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    spec:\n"
                "      containers: [{name: c, image: i, args: [--addr=:8080], envFrom: [{configMapRef: {name: app}}]}]\n")
    config = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  b: &y "0"\n  c: &y "1"\n  a: "p\ue7ffq"\n'
    result = run_postrender([], workload + "---\n" + config)
    assert result.status == 0, result.stderr
    annotated = config.replace("  name: app\n", "  name: app\n  annotations:\n"
                               "    internal.config.kubernetes.io/needsHashSuffix: enabled\n")
    name = f"app-{kustomize_hashes([annotated])['app']}"
    sent, errors = kubectl_read({"out": result.stdout})
    assert not errors and sent[name]["data"] == {"b": "0", "c": "1", "a": "p\ue7ffq"}


def test_an_anchor_defined_again_before_a_colon_in_a_flow_collection_is_read_as_kubectl_reads_it():
    # The renaming's own parse stopped at the `:`, and the document was refused.
    config = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n  labels: &x {a: b}\n"
              "  annotations: &x {u: http://x}\ndata: {a: '1', u: http://y:80}\n")
    workload = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    spec:\n"
                "      containers: [{name: c, image: i, envFrom: [{configMapRef: {name: app}}]}]\n")
    # kustomize hashes the kind, the name and the data.
    annotated = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n  annotations:\n"
                 "    internal.config.kubernetes.io/needsHashSuffix: enabled\ndata: {a: '1', u: http://y:80}\n")
    _, sent_in, sent_out, name = _against_the_oracles(config + "---\n" + workload, annotated)
    assert sent_out[name]["data"] == sent_in["app"]["data"] == {"a": "1", "u": "http://y:80"}
    assert sent_out[name]["metadata"]["annotations"] == {"u": "http://x"}


@pytest.mark.parametrize("volumes, read", MERGE_OVERRIDES.values(), ids=MERGE_OVERRIDES.keys())
def test_an_entry_a_merge_key_overrides_is_read_nowhere_before_or_after(volumes, read):
    # kubectl reads the names the table says, and after postrender each is
    # that config's version, which the output holds (fuzz62: refused before).
    text = merge_override_stream(volumes)
    sent, errors = kubectl_read({"in": text})
    assert not errors and [v["configMap"]["name"] for v in sent["d"]["spec"]["template"]["spec"]["volumes"]] == read
    result = run_postrender([], text)
    assert result.status == 0, result.stderr
    out, errors = kubectl_read({"out": result.stdout})
    assert not errors
    names = [v["configMap"]["name"] for v in out["d"]["spec"]["template"]["spec"]["volumes"]]
    assert [re.sub(r"-[a-z0-9]{10}$", "", name) for name in names] == read and all(name in out for name in names)
    assert all(name != base for name, base in zip(names, read))
