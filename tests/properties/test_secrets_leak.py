"""No Secret value reaches stderr, the log file, `graph` output, KRM `results`
or an error message: only stdout may carry it.

A random marker is planted in a Secret of generated streams, raw in
`stringData` or base64 in `data`, and each stream is also broken in ways
that trip an error right at that Secret.
"""

from __future__ import annotations

import base64
import os
import stat
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

import manifest_strategies as ms
from conftest import run_postrender

MARKER_CHARS = "ABCDEFGHJKLMNPQRSTUVWXYZ"  # no lowercase: generated names never contain these
markers = st.text(MARKER_CHARS, min_size=16, max_size=24).map(lambda s: "ZQ" + s)


def forms(marker: str) -> list[str]:
    """Every way the value could show up: raw, base64, and base64 without padding."""
    encoded = base64.b64encode(marker.encode()).decode()
    return [marker, encoded, encoded.rstrip("="), marker[2:14]]


def _secret_block(marker: str, fault: str) -> str:
    """A Secret whose value is the marker, broken as `fault` says."""
    head = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: leaky\n"
    encoded = base64.b64encode(marker.encode()).decode()
    if fault == "not-base64":
        return head + f"data:\n  token: {marker}!\n"
    if fault == "mapping-value":
        return head + f"data:\n  token: {{inner: {marker}}}\n"
    if fault == "sequence-value":
        return head + f"stringData:\n  token: [{marker}]\n"
    if fault == "number-looking":
        return head + f"data:\n  token: {encoded}\n  port: 8080\n"
    if fault == "colliding-keys":
        # (Keys go-yaml holds equal, kubectl reads the last of: read drops
        # the earlier, and passes.)
        return head + f"stringData:\n  '1': {marker}\n  1: {marker}x\n"
    if fault == "unclosed-quote":
        return head + f'stringData:\n  token: "{marker}\n'
    if fault == "control-char":
        return head + f'stringData:\n  token: "{marker[:6]}\x01{marker[6:]}"\n'
    if fault == "bad-escape":
        return head + f'stringData:\n  token: "{marker[:6]}\\q{marker[6:]}"\n'
    if fault == "tab-indent":
        return head + f"stringData:\n  token: {marker}\n\tother: x\n"
    if fault == "no-name":
        return f"apiVersion: v1\nkind: Secret\nmetadata: {{}}\nstringData:\n  token: {marker}\n"
    if fault == "alias-bomb":
        lines = [head.rstrip("\n"), f"x:\n  l0: &l0 [{marker}, {marker}, {marker}, {marker}, {marker}, {marker}, {marker}]"]
        lines += [f"  l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]" for i in range(1, 9)]
        return "\n".join(lines) + "\nstringData: {token: *l8}\n"
    if fault == "deep":
        return head + "stringData:\n  token: " + "[" * 600 + marker + "]" * 600 + "\n"
    if fault == "line-separator":
        return head + f"stringData:\n  token: {marker[:6]}\u2028{marker[6:]}\n"
    if fault == "duplicate-object":
        return head + f"stringData:\n  token: {marker}\n---\n" + head + f"stringData:\n  token: {marker}\n"
    if fault == "type-mapping":
        return head + f"type: {{a: b}}\nstringData:\n  token: {marker}\n"
    if fault == "scalar-document":
        return head + f"stringData:\n  token: {marker}\n---\nloose words\n"
    raise AssertionError(fault)


FAULTS = ["not-base64", "mapping-value", "sequence-value", "number-looking", "colliding-keys", "unclosed-quote",
          "control-char", "bad-escape", "tab-indent", "no-name", "alias-bomb", "deep", "line-separator",
          "duplicate-object", "type-mapping", "scalar-document"]


def _results_of(stdout: str) -> object:
    """The `results` of a KRM ResourceList written to stdout."""
    if not stdout:
        return None  # input not recognised as a ResourceList: a plain-mode error
    data = YAML(typ="safe").load(stdout)
    assert isinstance(data, dict) and data.get("kind") == "ResourceList", stdout[:200]
    return data.get("results")


GRAPH_FORMATS = ["table", "json", "dot", "mermaid"]


def _check(
    marker: str, text: str | bytes, tmp_path: Path, krm_text: str | None = None, graph_formats: list[str] = GRAPH_FORMATS
) -> list[int]:
    """Run render, graph and KRM mode on the input; assert the marker stays on stdout only."""
    statuses = []
    log = tmp_path / "postrender.log"
    for args in (["-v"], *(["graph", "-o", f] for f in graph_formats)):
        if log.exists():
            log.unlink()
        result = run_postrender([*args, "--log-file", str(log)], text)
        statuses.append(result.status)
        assert result.status in (0, 1), (args, result.stderr)
        logged = log.read_text() if log.exists() else ""
        channels = {"stderr": result.stderr, "log file": logged}
        if args[0] == "graph":
            channels["graph output"] = result.stdout
        for channel, content in channels.items():
            for form in forms(marker):
                assert form not in content, f"{form} leaked to {channel} with {args}: {content[:500]}"
    if krm_text is not None:
        result = run_postrender([], krm_text)
        assert result.status in (0, 1), result.stderr
        results = repr(_results_of(result.stdout))
        for channel, content in {"stderr": result.stderr, "KRM results": results}.items():
            for form in forms(marker):
                assert form not in content, f"{form} leaked to {channel} in KRM mode: {content[:500]}"
    return statuses


@settings(max_examples=int(os.environ.get("POSTRENDER_FUZZ_EXAMPLES") or 60), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data(), marker=markers)
def test_secret_values_stay_on_stdout_when_rendering_succeeds(data, marker, tmp_path):
    stream, text = data.draw(ms.written(ms.streams(marker)))
    docs = [data.draw(ms.document_text(m)) for m in stream.manifests]
    graph_format = data.draw(st.sampled_from(GRAPH_FORMATS))
    statuses = _check(marker, text, tmp_path, ms.resource_list(docs), [graph_format])
    assert statuses == [0] * len(statuses)
    # The marker did go somewhere: stdout.
    out = run_postrender([], text).stdout
    assert marker in out or base64.b64encode(marker.encode()).decode() in out


@settings(max_examples=int(os.environ.get("POSTRENDER_FUZZ_EXAMPLES") or 100), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data(), marker=markers, fault=st.sampled_from(FAULTS))
def test_secret_values_stay_out_of_errors(data, marker, fault, tmp_path):
    stream, _ = data.draw(ms.written(ms.streams()))
    docs = [data.draw(ms.document_text(m)) for m in stream.manifests]
    position = data.draw(st.integers(0, len(docs)))
    docs.insert(position, _secret_block(marker, fault))
    text = "".join("---\n" + d for d in docs)
    graph_format = data.draw(st.sampled_from(GRAPH_FORMATS))
    statuses = _check(marker, text, tmp_path, ms.resource_list(docs), [graph_format])
    assert statuses[0] == 1, f"{fault} should be refused"


@pytest.mark.parametrize("fault", FAULTS)
def test_each_fault_is_refused_without_the_value(fault, tmp_path):
    marker = "ZQSECRETMARKERVALUE"
    text = _secret_block(marker, fault)
    statuses = _check(marker, text.encode(), tmp_path)
    assert statuses[0] == 1
    invalid = text.encode().replace(marker.encode(), marker[:8].encode() + b"\xff" + marker[8:].encode())
    assert _check(marker, invalid, tmp_path)[0] == 1


def test_verbose_output_names_but_never_shows_values(tmp_path):
    marker = "ZQVERBOSEMARKER"
    text = (
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: creds\nstringData:\n  token: " + marker + "\n---\n"
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: p\nspec:\n  template:\n    spec:\n"
        "      containers:\n      - name: c\n        image: x\n"
        "        envFrom:\n        - secretRef:\n            name: creds\n"
    )
    log = tmp_path / "log"
    result = run_postrender(["-v", "--log-file", str(log)], text)
    assert result.status == 0
    assert "renamed Secret/creds" in result.stderr and "rewrote Deployment/p" in result.stderr
    for form in forms(marker):
        assert form not in result.stderr and form not in log.read_text()


def test_log_file_is_created_private(tmp_path):
    old = os.umask(0)
    try:
        log = tmp_path / "new.log"
        assert run_postrender(["--log-file", str(log)], "").status == 0
        assert stat.S_IMODE(log.stat().st_mode) == 0o600
        # A log that already exists with looser permissions is tightened.
        loose = tmp_path / "loose.log"
        loose.write_text("")
        loose.chmod(0o644)
        assert run_postrender(["--log-file", str(loose)], "").status == 0
        assert stat.S_IMODE(loose.stat().st_mode) == 0o600
        # And through the environment variable.
        from_env = tmp_path / "env.log"
        assert run_postrender([], "", env={"POSTRENDER_LOG_FILE": str(from_env)}).status == 0
        assert stat.S_IMODE(from_env.stat().st_mode) == 0o600
    finally:
        os.umask(old)


# --- every place a value can be written, broken every way --------------------
#
# The marker goes in one position of a Secret (the value itself, written each
# way YAML allows; a key or a comment inside a value; behind an anchor), and
# the document is then broken by one error kind. Whatever the error, the
# marker must stay off stderr, the log and (in plain mode) stdout, and out
# of graph output and KRM results.

HEAD = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: leaky\n"


def _b64(marker: str) -> str:
    return base64.b64encode(marker.encode()).decode()


# position -> the Secret's value section, holding the marker
POSITIONS = {
    "plain": lambda m: f"stringData:\n  token: {m}\n",
    "double-quoted": lambda m: f'stringData:\n  token: "{m}"\n',
    "single-quoted": lambda m: f"stringData:\n  token: '{m}'\n",
    "literal": lambda m: f"stringData:\n  token: |\n    {m}\n    more\n",
    "folded": lambda m: f"stringData:\n  token: >-\n    {m}\n",
    "indented literal": lambda m: f"stringData:\n  token: |2-\n      {m}\n",
    "multi-line plain": lambda m: f"stringData:\n  token: first\n    {m}\n",
    "multi-line quoted, a Source line": lambda m: f'stringData:\n  token: "first\n# Source: {m}\n    rest"\n',
    "multi-line quoted, a ResourceList line": lambda m: f'stringData:\n  token: "a\nkind: ResourceList\n  {m}"\n',
    "comment-like line in a block": lambda m: f"stringData:\n  token: |\n    # Source: {m}\n    x: y\n",
    "flow": lambda m: f"stringData: {{token: {m}, other: x}}\n",
    "flow, quoted": lambda m: f'stringData: {{"token": "{m}"}}\n',
    "key inside a value": lambda m: f"stringData:\n  token:\n    {m}: x\n",
    "duplicate key inside a value": lambda m: f"stringData:\n  token:\n    {m}: x\n    {m}: y\n",
    "key inside a flow value": lambda m: f"stringData:\n  token: {{{m}: x, {m}: y}}\n",
    "sequence value": lambda m: f"stringData:\n  token: [{m}]\n",
    "anchored": lambda m: f"stringData:\n  token: &t {m}\n  again: *t\n",
    "aliased from elsewhere": lambda m: f"x-kept: &t {m}\nstringData:\n  token: *t\n",
    "anchor name": lambda m: f"stringData:\n  token: &{m} value\n",
    "base64 in data": lambda m: f"data:\n  token: {_b64(m)}\n",
    "base64, block": lambda m: f"data:\n  token: |\n    {_b64(m)}\n",
    "not base64 in data": lambda m: f"data:\n  token: {m}!\n",
    "control character": lambda m: f'stringData:\n  token: "{m[:6]}\\x01{m[6:]}"\n',
    "raw control character": lambda m: f'stringData:\n  token: "{m[:6]}\x01{m[6:]}"\n',
    "bad escape": lambda m: f'stringData:\n  token: "{m[:6]}\\q{m[6:]}"\n',
    "unclosed quote": lambda m: f'stringData:\n  token: "{m}\n',
    "line separator": lambda m: f"stringData:\n  token: {m[:6]}\u2028{m[6:]}\n",
    "key of a data mapping": lambda m: f"stringData:\n  {m}: value\n",
}

# error kind -> the document (head + values) broken that way
ERRORS = {
    "unclosed flow after": lambda head, values: head + values + "broken: [unclosed\n",
    "unclosed flow before": lambda head, values: head + "broken: [unclosed\n" + values,
    "tab indentation": lambda head, values: head + values + "\tother: x\n",
    "duplicate key": lambda head, values: head + values + "kind: Secret\n",
    "colliding data keys": lambda head, values: head + values + "data:\n  1: YQ==\n  '1': Yg==\n",
    "number in data": lambda head, values: head + values + "data:\n  port: 8080\n",
    "binaryData mapping value": lambda head, values: head + values + "binaryData:\n  bad: {a: b}\n",
    "type is a mapping": lambda head, values: head + "type: {a: b}\n" + values,
    "labels are a list": lambda head, values: head.replace("  name: leaky\n", "  name: leaky\n  labels: [a]\n") + values,
    "no name": lambda head, values: head.replace("  name: leaky\n", "  labels: {}\n") + values,
    "no kind": lambda head, values: head.replace("kind: Secret\n", "") + values,
    "a collection key": lambda head, values: head + values + "? [a]\n: b\n",
    "undefined alias": lambda head, values: head + values + "extra: *nowhere\n",
    "duplicate object": lambda head, values: head + values + "---\n" + head + values,
    "scalar document after": lambda head, values: head + values + "---\nloose words\n",
    "sequence document before": lambda head, values: "- a\n---\n" + head + values,
    "alias bomb": lambda head, values: head + values + "bomb:\n  l0: &l0 [a, a, a, a, a, a, a, a, a]\n" + "".join(
        f"  l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]\n" for i in range(1, 9)),
    "too deep": lambda head, values: head + values + "deep: " + "[" * 600 + "]" * 600 + "\n",
    "lone CR": lambda head, values: head + values + "other: a\rb\n",
    "invalid UTF-8": lambda head, values: head + values + "other: \udcff\n",
    "alias shares the name": lambda head, values: head.replace("name: leaky", "name: &n leaky") + values + "alias: *n\n",
    "List item not a mapping": lambda head, values: "apiVersion: v1\nkind: List\nitems:\n- " + (head + values).replace(
        "\n", "\n  ") + "\n- just words\n",
}


def _encoded(text: str) -> bytes:
    # "invalid UTF-8" plants a lone surrogate: written out as the byte 0xff.
    return text.encode("utf-8", "surrogateescape")


@pytest.mark.parametrize("error", ERRORS, ids=list(ERRORS))
def test_no_position_leaks_through_any_error(error, tmp_path):
    marker = "ZQPOSITIONMARKERVALUE"
    log = tmp_path / "log"
    for position, values in POSITIONS.items():
        text = _encoded(ERRORS[error](HEAD, values(marker)))
        for args in (["-v"], ["graph", "-o", "json"]):
            if log.exists():
                log.unlink()
            result = run_postrender([*args, "--log-file", str(log)], text)
            where = f"{position} / {error} / {args[0]}"
            assert result.status in (0, 1), (where, result.stderr)
            channels = {"stderr": result.stderr, "log file": log.read_text() if log.exists() else ""}
            if result.status == 1 or args[0] == "graph":
                channels["stdout"] = result.stdout
            for channel, content in channels.items():
                for form in forms(marker):
                    assert form not in content, f"{where}: {form} leaked to {channel}: {content[:400]}"
        # As the items of a ResourceList: the error goes to `results`.
        indented = "".join("  " + line + "\n" for line in _encoded(ERRORS[error](HEAD, values(marker))).decode(
            "utf-8", "replace").splitlines())
        krm = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n-" + indented[1:]
        result = run_postrender([], krm)
        results = repr(_results_of(result.stdout)) if result.stdout else ""
        for channel, content in {"stderr": result.stderr, "KRM results": results}.items():
            for form in forms(marker):
                assert form not in content, f"{position} / {error} / KRM: {form} leaked to {channel}: {content[:400]}"


# Kinds that no longer fail on their own under today's rules (the render
# exits 0). They stay above for the leak check, and still fail wherever the
# marker's position is itself an error.
PASSING_KINDS = ("binaryData mapping value", "alias shares the name", "duplicate key")


def test_every_error_kind_is_an_error():
    """Each error kind above really fails, whatever the value's position; the
    kinds that pass today fail exactly where the position alone fails."""
    for error, make in ERRORS.items():
        for position, values in POSITIONS.items():
            result = run_postrender([], _encoded(make(HEAD, values("ZQMARKER"))))
            if error in PASSING_KINDS:
                alone = run_postrender([], _encoded(HEAD + values("ZQMARKER")))
                assert result.status == alone.status, f"{error} with {position}: {result.stderr}"
            else:
                assert result.status == 1, f"{error} with {position} passed"
    assert any(run_postrender([], HEAD + values("ZQMARKER")).status == 0 for values in POSITIONS.values())


# --- keys inside a value that Kubernetes reads as one ------------------------
#
# The keys of a mapping inside a Secret's value are the value: a number
# (a PIN) written twice, as YAML 1.1 spells it two ways or once merged in
# with <<, is refused without either key shown, wherever the Secret stands.

PIN = "918273645"
PIN_FORMS = [PIN, f"{int(PIN):x}", f"{int(PIN):o}", _b64(PIN), PIN[:7]]

# shape -> the lines of the mapping under `pin`, at 4 spaces
COLLIDING = {
    "a key merged in, then written quoted": f'    <<: {{{PIN}: a}}\n    "{PIN}": b\n',
    "a key merged in as a list of mappings": f'    <<: [{{{PIN}: a}}]\n    "{PIN}": b\n',
    "a key merged in through an alias": f'    <<: *base\n    "{PIN}": b\n',
    "a key merged in, a boolean": '    <<: {true: a}\n    "true": b\n',
    "a number, then quoted": f"    {PIN}: a\n    \"{PIN}\": b\n",
}

# Keys go-yaml v2 holds equal: kubectl reads the last, and read drops the
# earlier with a warning that shows neither.
EQUAL = {
    "decimal and hexadecimal": f"    {PIN}: a\n    0x{int(PIN):x}: b\n",
    "decimal and octal": f"    {PIN}: a\n    0{int(PIN):o}: b\n",
    "written twice": f"    {PIN}: a\n    {PIN}: b\n",
}

# where the Secret stands -> the document(s), given the `pin` mapping's lines
PLACES = {
    "stringData": lambda lines: HEAD + f"x-base: &base {{{PIN}: a}}\nstringData:\n  pin:\n" + lines,
    "data": lambda lines: HEAD + f"x-base: &base {{{PIN}: a}}\ndata:\n  pin:\n" + lines,
    "deep in a list": lambda lines: HEAD + f"x-base: &base {{{PIN}: a}}\nstringData:\n  pin:\n  - k:\n"
                                     + "".join("    " + line + "\n" for line in lines.splitlines()),
    "a List's item": lambda lines: "apiVersion: v1\nkind: List\nitems:\n- " + (
        HEAD + f"x-base: &base {{{PIN}: a}}\nstringData:\n  pin:\n" + lines).replace("\n", "\n  ").rstrip() + "\n",
}


@pytest.mark.parametrize("place", PLACES, ids=list(PLACES))
@pytest.mark.parametrize("shape", COLLIDING, ids=list(COLLIDING))
def test_colliding_keys_inside_a_value_are_refused_unshown(shape, place, tmp_path):
    text = PLACES[place](COLLIDING[shape])
    log = tmp_path / "log"
    for args in (["-v"], ["graph", "-o", "json"]):
        if log.exists():
            log.unlink()
        result = run_postrender([*args, "--log-file", str(log)], text)
        assert result.status == 1 and result.stdout == "", (shape, place, result.stderr)
        assert "not shown: values may be secret" in result.stderr, result.stderr
        for channel, content in {"stderr": result.stderr, "log file": log.read_text()}.items():
            for form in PIN_FORMS:
                assert form not in content, f"{form} leaked to {channel}: {content}"
    krm = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- " + text.replace("\n", "\n  ").rstrip() + "\n"
    if place != "a List's item":
        result = run_postrender([], krm)
        results = repr(_results_of(result.stdout))
        assert "not shown: values may be secret" in results, results
        for form in PIN_FORMS:
            assert form not in result.stderr + results, f"{form} leaked to KRM results: {results}"


# A mapping a Secret's value cannot be, but a custom resource's `data` may
# hold: its keys are hidden from messages all the same.
VAULT = "apiVersion: example.com/v1\nkind: Vault\nmetadata:\n  name: v\ndata:\n  pin:\n"
EQUAL_PLACES = {
    "a custom resource's data": lambda lines: VAULT + lines,
    "a List's item": lambda lines: "apiVersion: v1\nkind: List\nitems:\n- " + (VAULT + lines).replace(
        "\n", "\n  ").rstrip() + "\n",
    "a Secret's stringData, refused for its type": lambda lines: PLACES["stringData"](lines),
}


@pytest.mark.parametrize("place", EQUAL_PLACES, ids=list(EQUAL_PLACES))
@pytest.mark.parametrize("shape", EQUAL, ids=list(EQUAL))
def test_equal_keys_inside_a_value_are_dropped_unshown(shape, place, tmp_path):
    text = EQUAL_PLACES[place](EQUAL[shape])
    refused = "Secret" in place
    log = tmp_path / "log"
    for args in (["-v"], ["graph", "-o", "json"]):
        if log.exists():
            log.unlink()
        result = run_postrender([*args, "--log-file", str(log)], text)
        assert result.status == (1 if refused else 0), (shape, place, result.stderr)
        if not refused:
            assert "(not shown: values may be secret)" in result.stderr and "leaves the earlier out" in result.stderr
        for channel, content in {"stderr": result.stderr, "log file": log.read_text()}.items():
            for form in PIN_FORMS:
                assert form not in content, f"{form} leaked to {channel}: {content}"
        if args == ["-v"] and not refused:
            # What kubectl reads of the value, and so the output: the last key alone.
            pin = result.stdout.split("pin:")[1]
            assert pin.count(": b") == 1 and ": a" not in pin, result.stdout


@pytest.mark.parametrize("invalid", [b"\xc3(", b"\xff", b"\xe2\x82", b"\xed\xa0\x80"])
@pytest.mark.parametrize("field", ["stringData", "data"])
def test_an_invalid_byte_in_a_secret_is_placed_not_shown(invalid, field, tmp_path):
    """The byte kubectl would fail on may be one of a Secret's value (a raw
    key pasted into stringData): the message says where it is, not what
    (leak60)."""
    text = (b"apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n" + field.encode()
            + b":\n  key: \"AB" + invalid + b"CD\"\n")
    result = run_postrender([], text)
    assert result.status == 1 and result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert "line 6: invalid UTF-8 at column 11 (byte offset" in line, line
    for byte in invalid:
        assert f"{byte:02x}" not in line.lower().split("byte offset")[0] and f"0x{byte:02x}" not in line.lower()


@pytest.mark.parametrize("value, reads_as", [
    ("1234", "a number"), ("0x1F", "a number"), ("1e3", "a number"), ("off", "a boolean"), ("Yes", "a boolean"),
    ("!!int 7", "a number"), ("!!bool true", "a boolean"),
])
def test_what_a_secrets_value_reads_as_is_not_said(value, reads_as):
    """`must be a string (... reads it as a number)` told a reader that a
    Secret's value is digits, a PIN (leak60). A ConfigMap's is still said,
    with the value quoted back."""
    secret = run_postrender([], f"apiVersion: v1\nkind: Secret\nmetadata: {{name: s}}\nstringData:\n  pin: {value}\n")
    assert secret.status == 1 and secret.stdout == ""
    fix = "drop its tag or make it !!str" if value.startswith("!!") else "quote it"
    assert f"stringData.pin must be a string ({fix}: Kubernetes" in secret.stderr, secret.stderr
    for word in ("number", "boolean", "bool", "int", "float", value.split()[-1]):
        assert word not in secret.stderr.split("must be a string", 1)[1], secret.stderr
    config = run_postrender([], f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c}}\ndata:\n  pin: {value}\n")
    assert config.status == 1 and reads_as in config.stderr, config.stderr


@pytest.mark.parametrize("char", ["\x01", "\x00", "\x08", "\x7f", "\x9b", "\ufffe"])
def test_a_character_yaml_refuses_in_a_secret_is_placed_not_named(char):
    """libyaml names the character it refuses (`unacceptable character
    #x0001`): one of the Secret's value (review60)."""
    text = f'apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\nstringData:\n  key: "AB{char}CD"\n'
    result = run_postrender([], text)
    assert result.status == 1 and result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert "line 6: invalid YAML: a character YAML does not allow at column 11" in line, line
    code = f"{ord(char):04x}"
    assert code not in line.lower() and "#x" not in line
