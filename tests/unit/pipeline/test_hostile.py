"""Hostile and odd input: a clean one-line refusal, never a crash or a lost document.

The inputs that must pass through are golden fixtures (fixtures/golden/odd-*);
this file holds the ones that must be refused, and the guards behind them.
Anything that could crash the interpreter runs in a child process.
"""

from __future__ import annotations

import re
import resource
import string
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML
from ruamel.yaml.cyaml import CBaseLoader

from conftest import FIXTURES, run_cli, run_postrender
from postrender.errors import PostrenderError
from postrender.limits import DEFAULT_MAX_DEPTH, MAX_DEPTH_CEILING, Limits
from postrender.pipeline import read as read_stage
from postrender.pipeline.read import events as read_events, libyaml as read_libyaml
from postrender.pipeline.read.documents import Source

BAD = FIXTURES / "bad"
CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  a: b\n"
DEPLOY = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  template:
    spec:
      containers:
      - name: app
        image: nginx
      volumes:
      - name: c
        configMap:
          name: cfg
"""


def assert_refused(result, document: int | None, line: int | None, message: str) -> None:
    assert result.status == 1, (result.status, result.stderr)
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("postrender: error: ")
    assert message in lines[0], lines[0]
    if document is not None:
        assert f"document {document}" in lines[0], lines[0]
    if line is not None:
        assert re.search(rf"\bline {line}\b", lines[0]), lines[0]


# (case, input, document, line, message). fixtures/bad/<case>.yaml holds the
# same inputs for trying by hand.
REFUSED = [
    ("invalid-utf8", CM.encode() + b"---\n" + DEPLOY.encode().replace(b"image: nginx", b"image: ngi\xffnx"),
     2, 17, "invalid UTF-8"),
    # (A key written twice that go-yaml holds equal, kubectl reads the last
    # of: read drops the earlier, test_duplicate_keys.py.)
    ("colliding-keys", CM + "---\n" + DEPLOY.replace("  name: web\n", "  name: web\n  labels:\n    'true': x\n    yes: y\n"),
     2, 14, "reach Kubernetes as 'true'"),
    ("scalar-document", CM + "---\njust words\n", 2, 8, "found a scalar"),
    # kubectl refuses a document of text however it is written (a string is
    # no object): literal or folded, chomped, indented, tagged, anchored.
    ("text-document", CM + "---\n|\n  just words\n", 2, 8, "found a scalar"),
    ("folded-text-document", "# Source: app/templates/notes.yaml\n>-\n  just\n  words\n---\n" + CM, 1, 2,
     "found a scalar"),
    ("tagged-text-document", CM + "---\n!!str |2+\n   words\n\n", 2, 8, "found a scalar"),
    ("string-tagged-null-document", CM + "---\n!!str ~\n", 2, 8, "found a scalar"),
    ("null-tagged-text-document", CM + "---\n&t !!null |\n  words\n", 2, 8, "a !!null value that is not one"),
    ("sequence-document", CM + "---\n- a\n- b\n", 2, 8, "found a sequence"),
    ("no-kind", CM + "---\napiVersion: v1\nmetadata:\n  name: x\n", 2, 8, "object has no kind"),
    # The line of its `metadata:`, where the name goes (errors60: line 1).
    ("configmap-no-name", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  labels: {a: b}\ndata:\n  a: b\n",
     1, 3, "ConfigMap has no metadata.name"),
    ("secret-no-metadata", "---\n" + CM + "---\napiVersion: v1\nkind: Secret\ndata:\n  a: YQ==\n",
     2, 9, "Secret has no metadata.name"),
    ("data-sequence", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n- a\n", 1, 6,
     "ConfigMap data must be a mapping"),
    ("data-scalar", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: x\ndata: hello\n", 1, 5,
     "Secret data must be a mapping"),
    ("data-number", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  port: 8080\n", 1, 6,
     "data.port must be a string"),
    # kubectl reads each CRLF as LF: CR CR LF is one line break to it, two to
    # YAML as written, so the quoted string folds to "x y" for one, "x\ny" for the other.
    ("cr-before-crlf-quoted", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: \"x\r\r\n    y\"\n",
     1, 6, "a CR before a CRLF line break is not supported"),
    ("labels-sequence", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  labels: [a]\n", 1, 5,
     "metadata.labels must be a mapping"),
    # What kubectl decodes of every object before anything else (TypeMeta,
    # ObjectMeta) must be a string, or labels and annotations a map of them:
    # it and Helm refuse the whole document otherwise.
    ("api-version-sequence", CM + "---\napiVersion: [v1]\nkind: ServiceAccount\nmetadata:\n  name: sa\n", 2, 8,
     "apiVersion must be a string (found a sequence)"),
    ("kind-number", CM + "---\napiVersion: v1\nkind: 5\nmetadata:\n  name: sa\n", 2, 9,
     "kind must be a string (quote it: \"5\"; unquoted, Kubernetes reads it as a number under YAML 1.1)"),
    # The empty kind's own line (errors60: the object's first).
    ("kind-empty", CM + "---\napiVersion: v1\nkind: ''\nmetadata:\n  name: sa\n", 2, 9, "object has no kind"),
    ("name-boolean", CM + "---\napiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: yes\n", 2, 11,
     "metadata.name must be a string (quote it; unquoted, Kubernetes reads it as a boolean under YAML 1.1)"),
    ("namespace-number", CM + "---\n" + DEPLOY.replace("  name: web\n", "  name: web\n  namespace: 5\n"), 2, 12,
     "metadata.namespace must be a string (quote it; unquoted"),
    ("namespace-binary", CM + "---\napiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: sa\n  namespace: !!binary bnM=\n",
     2, 12, "a !!binary value outside data, binaryData or stringData: Kubernetes reads its decoded text"),
    ("label-number", CM + "---\n" + DEPLOY.replace("  name: web\n", "  name: web\n  labels:\n    tier: 1\n"), 2, 13,
     "metadata.labels.tier must be a string (quote it; unquoted, Kubernetes reads it as a number"),
    ("label-merged-number", "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: sa\n  labels:\n    <<: {tier: 1}\n",
     1, 6, "metadata.labels.tier must be a string"),
    ("annotation-sequence", CM + "---\napiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: sa\n  annotations:\n    a: [x]\n",
     2, 13, "metadata.annotations.a must be a string (found a sequence)"),
    ("annotations-scalar", CM + "---\n" + DEPLOY.replace("  name: web\n", "  name: web\n  annotations: none\n"), 2, 12,
     "metadata.annotations must be a mapping"),
    ("list-item-namespace", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ServiceAccount\n"
     "  metadata:\n    name: sa\n    namespace: 08\n", 1, 8, "metadata.namespace must be a string"),
    ("list-api-version-number", "apiVersion: 1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ServiceAccount\n"
     "  metadata:\n    name: sa\n", 1, 1, "apiVersion must be a string (quote it; unquoted"),
    ("list-label-boolean", "apiVersion: v1\nkind: List\nmetadata:\n  labels: {audited: on}\nitems: []\n", 1, 4,
     "metadata.labels.audited must be a string (quote it; unquoted, Kubernetes reads it as a boolean"),
    ("secret-type-mapping", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: x\ntype: {a: b}\n", 1, 5,
     "Secret type must be a string (found a mapping)"),
    ("lone-cr", CM + "---\n" + DEPLOY.replace("kind: Deployment\n", "kind: Deployment\r"), 2, 9,
     "a CR without LF"),
    ("line-separator", CM + "---\n" + DEPLOY.replace("image: nginx", "image: nginx\u2028"), 2, 17, "U+2028"),
    # A byte order mark that starts a line: libyaml skips it, kubectl reads
    # it as text or fails (it skips one only at the start of a file).
    ("bom-line-start", CM + "---\n" + DEPLOY.replace("      containers:\n", "\ufeff      containers:\n"), 2, 15,
     "a byte order mark (U+FEFF) starts a line"),
    ("bom-after-separator", CM + "---\n\ufeff" + DEPLOY, 2, 8, "a byte order mark (U+FEFF) starts a line"),
    ("bom-in-block-scalar", CM.replace("  a: b\n", "  a: |\n    x\n\ufeff    y\n"), 1, 8,
     "a byte order mark (U+FEFF) starts a line"),
    # kubectl reads a first document written in JSON as JSON, where these
    # are characters of a string; YAML reads them as line breaks.
    ("json-first-nel", '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg"},\n'
     ' "data": {"a": "x\x85y"}}\n', 1, 2, "NEL (U+0085) in a JSON document that starts the stream"),
    # Lines are counted at LF, as an editor counts them, past a CR or a
    # U+2028 in a quoted string (libyaml counts them too), on an error of
    # postrender's own and on one of libyaml's.
    ("line-after-quoted-break", CM.replace("  a: b\n", '  a: "x\u2028y"\n  port: 8080\n'), 1, 7,
     "data.port must be a string"),
    ("yaml-error-after-quoted-break", CM.replace("  a: b\n", '  a: "x\ry"\n\tb: c\n'), 1, 7, "invalid YAML"),
    ("control-character", CM + "---\n" + DEPLOY.replace("image: nginx", 'image: "ngi\x01nx"'), 2, 17,
     "control characters are not allowed"),
    # sigs.k8s.io/yaml: "invalid map key"; as labels, nested keys would double at every level.
    ("collection-key", CM + "---\napiVersion: v1\nkind: Foo\nmetadata: {name: x}\nspec:\n  ? [a, b]\n  : c\n", 2, 12,
     "a mapping or sequence used as a key"),
    ("recursive-alias", "apiVersion: v1\nkind: Foo\nmetadata: {name: x}\nspec: &a [*a]\n", 1, None,
     "recursive alias"),
    ("undefined-alias", CM + "---\napiVersion: v1\nkind: Foo\nmetadata: {name: *x}\n", 2, 10, "undefined alias"),
    ("unclosed-flow", CM + "---\napiVersion: v1\nkind: Foo\nmetadata: {name: x\n", 2, None, "invalid YAML"),
    ("tab-indentation", CM + "---\napiVersion: v1\nkind: Foo\nmetadata:\n\tname: x\n", 2, 11, "invalid YAML"),
    # Renaming the ConfigMap would also change data.a (the same node, aliased).
    ("alias-shares-name", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: &n cfg\ndata:\n  a: *n\n", 1, 4,
     "YAML alias"),
    # Labels added to one item would appear on the other.
    ("alias-shares-labels",
     "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a, labels: &l {x: z}}\n"
     "  data: {a: b}\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: b, labels: *l}\n  data: {a: c}\n",
     1, 6, "YAML alias"),
    # The reference is also the value of an annotation; rewriting it would change both.
    ("alias-shares-reference", CM + "---\n" + DEPLOY.replace("          name: cfg\n", "          name: &c cfg\n      hostname: *c\n"),
     2, 21, "YAML alias"),
]


@pytest.mark.parametrize("case,data,document,line,message", REFUSED, ids=[c[0] for c in REFUSED])
def test_refused_with_one_line(case, data, document, line, message):
    # --version-all: the alias cases are refused because an edit is needed.
    assert_refused(run_postrender(["--version-all"], data), document, line, message)
    saved = (BAD / f"{case}.yaml").read_bytes()
    assert saved == (data.encode() if isinstance(data, str) else data), "fixtures/bad is out of date"


def test_stream_over_the_size_limit_is_refused_before_parsing():
    big = CM + "---\n" + DEPLOY
    assert_refused(run_postrender(["--max-bytes", str(len(big) - 1)], big), None, None, "larger than the limit")
    assert run_postrender(["--max-bytes", str(len(big))], big).status == 0
    # Unparseable bytes past the limit are never looked at.
    assert_refused(run_postrender(["--max-bytes", "100"], CM * 10 + "\xff: [" * 10), None, None, "larger than the limit")


def test_every_refusal_fixture_is_covered():
    covered = {case for case, *_ in REFUSED}
    on_disk = {p.stem for p in BAD.glob("*.yaml")}
    assert on_disk == covered


# --- nesting: libyaml's composer recurses in C and segfaults past its stack --


def _nest(shape: str, depth: int) -> str:
    if shape == "flow-sequences":
        return "spec: " + "[" * depth + "]" * depth + "\n"
    if shape == "flow-mappings":
        return "spec: " + "{a: " * depth + "x" + "}" * depth + "\n"
    if shape == "unclosed-flow":
        return "spec: " + "[" * depth + "\n"
    if shape == "compact-sequences":
        return "spec:\n" + "- " * depth + "x\n"
    if shape == "indented-mappings":
        return "spec:\n" + "".join(" " * (i + 1) + "a:\n" for i in range(depth)) + " " * (depth + 1) + "x\n"
    if shape == "indented-sequences":
        return "spec:\n" + "".join(" " * (i + 1) + "-\n" for i in range(depth)) + " " * (depth + 1) + "x\n"
    if shape == "explicit-keys":
        return "spec:\n  " + "? " * depth + "x\n"
    if shape == "sequences-of-mappings":
        return "spec:\n" + "".join(" " * (2 * i) + "- a:\n" for i in range(depth // 2)) + " " * (depth + 1) + "x\n"
    if shape == "block-then-flow":
        # Half the levels from indentation, half from brackets: neither alone
        # reaches the limit.
        half = depth // 2
        body = "".join(" " * (i + 1) + "a:\n" for i in range(half))
        return "spec:\n" + body + " " * (half + 1) + "b: " + "[" * half + "]" * half + "\n"
    raise AssertionError(shape)


SHAPES = ["flow-sequences", "flow-mappings", "unclosed-flow", "compact-sequences", "indented-mappings",
          "indented-sequences", "explicit-keys", "sequences-of-mappings", "block-then-flow"]
HEAD = "apiVersion: example.com/v1\nkind: Deep\nmetadata:\n  name: deep\n"


def _depth(text: str) -> int:
    """Nesting depth as libyaml's parser sees it (events only, no recursion)."""
    loader = CBaseLoader(text)
    depth = deepest = 0
    try:
        while loader.check_event():
            name = type(loader.get_event()).__name__
            if name in ("MappingStartEvent", "SequenceStartEvent"):
                depth += 1
                deepest = max(deepest, depth)
            elif name in ("MappingEndEvent", "SequenceEndEvent"):
                depth -= 1
    except Exception:  # noqa: BLE001 - an unclosed document still nests as far as it got
        pass
    finally:
        loader.dispose()
    return deepest


# Indentation grows with depth, so the input grows with its square: 5,000
# levels is already 12 MB.
INDENTED = {"indented-mappings", "indented-sequences", "sequences-of-mappings", "block-then-flow"}


@pytest.mark.parametrize("shape", SHAPES)
def test_deep_nesting_is_refused_in_a_child_process(shape):
    # 100,000 levels segfault libyaml's composer with an 8 MiB stack.
    result = run_cli([], HEAD + _nest(shape, 5_000 if shape in INDENTED else 100_000))
    assert_refused(result, 1, None, f"nesting deeper than {DEFAULT_MAX_DEPTH} levels")


@pytest.mark.parametrize("shape", SHAPES)
def test_nesting_just_over_the_limit_is_refused_and_under_it_accepted(shape):
    over = HEAD + _nest(shape, DEFAULT_MAX_DEPTH + 10)
    assert _depth(over) > DEFAULT_MAX_DEPTH
    assert_refused(run_postrender([], over), 1, None, "nesting deeper than")
    under = HEAD + _nest(shape, 100)
    assert _depth(under) < DEFAULT_MAX_DEPTH
    result = run_postrender([], under)
    # unclosed-flow is invalid YAML at any depth; keys that are mappings are
    # refused (Kubernetes cannot read them); the rest pass through.
    if shape == "explicit-keys":
        assert_refused(result, 1, None, "a mapping or sequence used as a key")
        return
    assert result.status == (1 if shape == "unclosed-flow" else 0), result.stderr
    if result.status == 0:
        assert result.stdout == under


@pytest.mark.parametrize("character", ["\x01", "\x00", "\ufffe"])
@pytest.mark.parametrize("flags, brackets", [(["--max-depth", "2"], 1), ([], 520)])
def test_a_character_yaml_refuses_in_a_document_walked_for_its_depth_is_said_by_line(character, flags, brackets):
    """A document the depth screen sends to the events' walk (brackets
    enough to reach --max-depth) holding a character libyaml's reader
    refuses: said where it is, as any document's is, not as an internal
    error (review67c; the walk caught only errors with a mark)."""
    text = HEAD + "".join(f"  k{i}: [1]\n" for i in range(brackets)) + f'  bad: "{character}"\n'
    result = run_postrender(flags, text)
    assert_refused(result, 1, 5 + brackets, "invalid YAML: a character YAML does not allow at column 9 "
                                            "(control characters are not allowed)")


def test_max_depth_is_configurable_up_to_a_ceiling():
    text = HEAD + _nest("flow-sequences", 50)
    assert_refused(run_postrender(["--max-depth", "40"], text), 1, 5, "nesting deeper than 40 levels")
    # One level is said so, and a limit at its ceiling is not said to be raised (cli62).
    assert_refused(run_postrender(["--max-depth", "1"], text), 1, None, "nesting deeper than 1 level (raise it")
    assert_refused(run_postrender(["--max-depth", "1000"], "a: " + "[" * 1001 + "]" * 1001 + "\n"), 1, None,
                   "nesting deeper than 1000 levels (--max-depth, at its ceiling)")
    assert run_postrender(["--max-depth", "60"], text).status == 0
    too_deep = run_postrender(["--max-depth", str(MAX_DEPTH_CEILING + 1)], text)
    assert too_deep.status == 2 and "from 1 to 1000" in too_deep.stderr and too_deep.stdout == ""


@pytest.mark.parametrize("shape", ["flow-sequences", "compact-sequences", "block-then-flow"])
def test_the_depth_ceiling_fits_a_small_stack(shape):
    """At --max-depth's ceiling, a 512 KiB C stack still composes without a crash."""
    text = HEAD + _nest(shape, MAX_DEPTH_CEILING - 10)

    def small_stack():
        resource.setrlimit(resource.RLIMIT_STACK, (512 * 1024, resource.RLIM_INFINITY))

    result = run_cli(["--max-depth", str(MAX_DEPTH_CEILING)], text, preexec_fn=small_stack)
    assert result.status == 0, result.stderr
    assert result.stdout == text


# --- alias bombs -------------------------------------------------------------


def billion_laughs(levels: int = 9, kind: str = "Secret", field: str = "stringData") -> str:
    lines = [HEAD.replace("example.com/v1", "v1").replace("Deep", kind).rstrip("\n"), "laughs:",
             "  l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for i in range(1, levels):
        lines.append(f"  l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]")
    lines.append(f"{field}: {{a: *l{levels - 1}}}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("kind,field", [("Secret", "stringData"), ("ConfigMap", "data"), ("Deployment", "spec")])
def test_alias_bomb_is_refused_before_it_expands(kind, field):
    assert_refused(run_postrender([], billion_laughs(9, kind, field)), 1, None, "an alias bomb")


def test_alias_bomb_refusal_stays_in_bounded_memory():
    """9**9 (387 million) nodes if expanded; refused using a few MiB above the baseline."""
    probe = (
        "import resource, subprocess, sys\n"
        "data = sys.stdin.buffer.read()\n"
        "proc = subprocess.run(sys.argv[1:], input=data, capture_output=True)\n"
        "print(proc.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )
    exe = Path(sys.executable).parent / "postrender"

    def peak_kib(text: str) -> tuple[int, int]:
        out = subprocess.run([sys.executable, "-c", probe, str(exe)], input=text.encode(), capture_output=True, check=True)
        status, rss = out.stdout.split()
        return int(status), int(rss)

    status, bomb_rss = peak_kib(billion_laughs(9))
    assert status == 1
    baseline_status, baseline_rss = peak_kib(CM)
    assert baseline_status == 0
    assert bomb_rss < baseline_rss + 20 * 1024, (bomb_rss, baseline_rss)


def test_merge_key_chains_are_counted_like_aliases():
    lines = [HEAD.rstrip("\n"), "x:", "  m0: &m0 {k0: v}"]
    for i in range(1, 25):
        lines.append(f"  m{i}: &m{i} {{<<: [*m{i - 1}, *m{i - 1}, *m{i - 1}], k{i}: v}}")
    lines.append("spec: *m24")
    assert_refused(run_postrender([], "\n".join(lines) + "\n"), 1, None, "an alias bomb")


@pytest.mark.parametrize("aliases, refused", [(1, False), (16, False), (17, True)])
def test_the_expansion_limit_counts_what_aliases_add_not_what_is_written(aliases, refused):
    # Over 300 nodes written, more than the limit of 80; each alias of the
    # 5-node list adds 5 when expanded: 16 add 80, 17 add 85.
    written = "".join(f"  k{i}: v\n" for i in range(150))
    text = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"
            "x:\n  l: &l [a, b, c, d]\n" + "".join(f"  u{i}: *l\n" for i in range(aliases)) + "data:\n" + written)
    limits = Limits(max_expanded_nodes=80)
    if refused:
        with pytest.raises(PostrenderError, match="beyond those written"):
            read_stage.read([Source(None, text)], limits)
    else:
        stream = read_stage.read([Source(None, text)], limits)
        assert len(stream.objects) == 1


def test_an_ampersand_inside_a_value_is_no_anchor_to_the_expansion_limit():
    # More nodes written than the limit, and `&&` in a script: no anchor, so
    # no alias and nothing to expand (a ConfigMap of 500,000 keys holding a
    # script was refused as an alias bomb).
    text = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  run.sh: make && make install\n"
            + "".join(f"  k{i}: v\n" for i in range(150)))
    stream = read_stage.read([Source(None, text)], Limits(max_expanded_nodes=80))
    assert len(stream.objects) == 1


# --- odd input that passes: the guards above must not catch it -------------


def test_aliases_shared_only_by_references_are_rewritten_once():
    text = CM + "---\n" + DEPLOY.replace(
        "        image: nginx\n",
        "        image: nginx\n        env: &env\n        - name: A\n          valueFrom:\n"
        "            configMapKeyRef: {name: cfg, key: a}\n      - name: sidecar\n        image: busybox\n"
        "        env: *env\n",
    )
    result = run_postrender([], text)
    assert result.status == 0, result.stderr
    renamed = re.search(r"name: (cfg-\w{10})\n", result.stdout).group(1)
    assert "configMapKeyRef: {name: " + renamed + ", key: a}" in result.stdout
    assert result.stdout.count("env: *env") == 1
    assert run_postrender([], result.stdout).stdout == result.stdout


def test_byte_order_mark_does_not_shift_edits():
    result = run_postrender(["--version-all"], "\ufeff" + CM)
    assert result.status == 0, result.stderr
    assert result.stdout.startswith("\ufeffapiVersion: v1\n")
    assert re.search(r"^  name: cfg-\w{10}$", result.stdout, re.M), result.stdout


def test_verbatim_tags_are_skipped_when_editing():
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata: !<tag:yaml.org,2002:map> {name: cfg}\ndata: {a: !<tag:yaml.org,2002:str> '1'}\n"
    result = run_postrender([], text)
    assert result.status == 0, result.stderr
    assert "metadata: !<tag:yaml.org,2002:map> {" in result.stdout
    assert "data: {a: !<tag:yaml.org,2002:str> '1'}" in result.stdout


def test_explicit_string_tag_makes_a_string():
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  port: !!str 8080\n  on: ! yes\n"
    result = run_postrender([], text)
    assert result.status == 0, result.stderr
    # Still refused without the tag: data values must be strings.
    assert run_postrender([], text.replace("!!str ", "")).status == 1


@pytest.mark.parametrize("scalar", ["some text", "'some text'", "|\n  some text", ">\n  some text", "|-\n  some text",
                                    "|+\n  some text\n", "|1\n  some text", ">2-\n   some text", "|", "|\n",
                                    "!!str |\n  some text", "&a |\n  some text", "! >\n  some text", "!!str",
                                    "!!str null", "!!binary |\n  aGk=", "# c\n|\n  some text\n...", "1", "true"])
def test_a_document_that_is_a_scalar_is_refused_as_kubectl_refuses_it(scalar):
    # kubectl reads each as a string, number or bool, which is no object
    # (tests/integration/kubernetes/test_document_roots.py asks it).
    text = "---\n" + scalar + "\n---\n" + CM
    line = 3 if scalar.startswith("#") else 2
    assert_refused(run_postrender([], text), 1, line, "found a scalar")
    # On the `---` line kubectl refuses either (test_a_line_that_starts_with_three_dashes...).


@pytest.mark.parametrize("scalar", ["null", "~", "Null", "", "!!null", "!!null ''", "!!null |", "&a", "&a ~", "&a !!null"])
def test_a_document_that_is_a_null_passes_as_kubectl_skips_it(scalar):
    text = "---\n" + scalar + "\n---\n" + CM
    result = run_postrender([], text)
    assert result.status == 0, result.stderr
    assert result.stdout.startswith("---\n" + scalar + "\n---\n")


def test_empty_input_gives_empty_output():
    for text in ("", "\n", "---\n", "# nothing\n", "---\n...\n"):
        result = run_postrender([], text)
        assert (result.status, result.stdout, result.stderr) == (0, text, "")


@pytest.mark.parametrize("end", ["...", "... ", "...\t", "... \t# c"])
def test_directives_after_a_document_end_belong_to_the_document_after_them(end):
    # A `...` line ends a document with white space after it too, as libyaml
    # and kubectl read it (syntax62: `... ` before a directive was refused).
    text = CM + end + "\n%YAML 1.1\n%TAG !k! tag:kubernetes.io,2024:\n---\n" + DEPLOY
    result = run_postrender([], text)
    assert result.status == 0, result.stderr
    assert f"\n{end}\n%YAML 1.1\n%TAG !k! tag:kubernetes.io,2024:\n---\napiVersion: apps/v1\n" in result.stdout
    assert re.search(r"^          name: cfg-\w{10}$", result.stdout, re.M)
    # Errors still count lines from the top of the stream.
    assert_refused(run_postrender([], text.replace("kind: Deployment", "kind: [")), 2, 12, "invalid YAML")


def test_directives_after_a_document_end_are_not_applied():
    # kubectl never applies a directive: the `---` line after it splits it
    # off, into the end of the document before, where go-yaml ignores it.
    # A %TAG handle is undefined in the next document, as in kubectl...
    tagged = CM + "...\n%TAG !k! tag:kubernetes.io,2024:\n---\n" + CM.replace("a: b", "a: !k!x b")
    assert_refused(run_postrender([], tagged), 2, 15, "undefined tag handle")
    # ...and a directive libyaml would refuse is never read.
    for directives in ("%YAML 2.0\n", "%FOO bar\n", "%YAML 1.1\n%YAML 1.1\n"):
        text = CM + "...\n" + directives + "---\n" + DEPLOY
        result = run_postrender([], text)
        assert result.status == 0, result.stderr
        assert "\n...\n" + directives + "---\napiVersion: apps/v1\n" in result.stdout


@pytest.mark.parametrize("text, document, line", [
    ("%YAML 1.1\n---\n" + CM, 1, 1),
    ("# Source: x\n\n%TAG !k! tag:kubernetes.io,2024:\n---\n" + CM, 1, 3),
    ("\ufeff%YAML 1.1\r\n---\r\n" + CM.replace("\n", "\r\n"), 1, 1),
    ("%YAML 1.1\n", 1, 1),
    ("%YAML 1.1\n---#x\n" + CM, 1, 1),
    ("---\n...\n%YAML 1.1\n---\n" + CM, 1, 3),
], ids=["first", "after comments", "bom crlf", "alone", "before a glued separator", "after an empty document"])
def test_directives_kubectl_refuses_are_refused(text, document, line):
    # kubectl's first chunk of a file holds the directives alone, and a `...`
    # with no document before it opens its chunk: go-yaml refuses both.
    assert_refused(run_postrender([], text), document, line, "a directive (a line that starts with %)")


@pytest.mark.parametrize("blank", ["\t", " \t", "\v", "\f", "\xa0", "\u3000", "\t# a comment", "  # c\n\t",
                                   "\x1c", "\x1f", "# a note\x01", "# a note\x7f"])
@pytest.mark.parametrize("last", [False, True], ids=["between", "last"])
def test_a_document_blank_to_python_but_not_to_yaml_is_refused(blank, last):
    # A tab-only line, VT, FF or NBSP is white space to str.isspace() and
    # content to go-yaml and libyaml: kubectl refuses the stream, which
    # postrender had passed, the line and all (syntax62).
    text = CM + "---\n" + blank + "\n" + ("" if last else "---\n" + DEPLOY)
    result = run_postrender([], text)
    assert result.status == 1 and result.stdout == "", result.stderr
    assert "document 2" in result.stderr and "Traceback" not in result.stderr
    # Blanks YAML reads as blanks, and such characters inside a comment, pass.
    for passing in (" \n", "# a\tcomment\xa0\n", "  \r\n", "# h\xe9llo\t\n"):
        text = CM + "---\n" + passing + ("" if last else "---\n" + DEPLOY)
        assert run_postrender([], text).status == 0, text


def test_a_comment_document_ended_by_dots_is_refused_at_the_dots():
    # kubectl drops the `---` line before, so its chunk opens with comments
    # and `...`, where go-yaml stops ("did not find expected node content"),
    # before the directive after it.
    text = CM + "---\n# only a comment\n...\n%YAML 1.1\n---\n" + CM
    assert_refused(run_postrender([], text), 2, 9, "a ... line with no document before it")


def test_unicode_line_separators_inside_quoted_strings_pass():
    # kubectl kustomize writes U+2028/U+2029 raw inside quoted scalars.
    text = CM.replace("  a: b\n", "  a: 'line\u2028    para\u2029    end'\n  b: \"x\u2028y\"\n") + "---\n" + DEPLOY
    result = run_postrender([], text)
    assert result.status == 0, result.stderr
    assert "  a: 'line\u2028    para\u2029    end'\n  b: \"x\u2028y\"\n" in result.stdout
    assert re.search(r"^          name: cfg-\w{10}$", result.stdout, re.M)


def test_error_stays_on_one_line_when_the_source_comment_holds_odd_breaks():
    # Found by the fuzz test: a lone CR inside `# Source:` split the message in two.
    for odd in ("\r", "\u2028", "\x85"):
        text = f"---\n# Source: chart/cm.yaml{odd}---\nkind: [\n"
        assert_refused(run_postrender([], text), None, None, "invalid YAML")


INVALID_SEPARATORS = ["---apiVersion: v1", "----", "---kind: x", "--- x", "--- |", "--- {a: b}", "--- !!map",
                      "---\t&a", "---\xa0x", "---\v-"]


@pytest.mark.parametrize("line", INVALID_SEPARATORS)
def test_a_line_that_starts_with_three_dashes_is_a_separator_or_refused(line, tmp_path):
    # kubectl and Helm refuse a line that starts with --- and goes on with
    # more than white space and a comment ("invalid Yaml document
    # separator"), even where YAML reads a marker and a node (`--- x`).
    for text, document in ((CM + line + "\n" + CM, 1), ("---\n" + CM + "---\n" + CM + line + "\r\n", 2)):
        at = text[: text.index(line)].count("\n") + 1
        result = run_postrender([], text)
        assert_refused(result, document, at, "a line starts with --- and goes on with more than white space")
        assert line not in result.stderr  # the message describes the line; it does not quote input
    # Helm's `# Source:` heading names the template, as for any other error.
    headed = "---\n# Source: chart/templates/cm.yaml\n" + CM + line + "\n"
    assert_refused(run_postrender([], headed), None, None, "(chart/templates/cm.yaml) line ")
    first, second = tmp_path / "a.yaml", tmp_path / "b.yaml"
    first.write_text(CM)
    second.write_text(line + "\n" + CM)
    # The line of the second file, in its first document.
    assert_refused(run_postrender(["-f", str(first), "-f", str(second)], ""), 2, 1, "more than white space")


# (And white space Go trims and YAML does not, after a space or a tab:
# libyaml read the marker, then a scalar, syntax62.)
GLUED_SEPARATORS = ["---#x", "---#", "---#---", "---\v#x", "---\f", "---\xa0# nbsp", "---\u3000", "---# \t",
                    "--- \xa0", "---\t\u3000", "--- \v", "--- \xa0# c", "---  \u202f\t"]


@pytest.mark.parametrize("crlf", [False, True], ids=["lf", "crlf"])
@pytest.mark.parametrize("line", GLUED_SEPARATORS)
def test_a_separator_yaml_reads_as_text_splits_where_kubectl_splits(line, crlf):
    # kubectl's reader takes `---#x` for a separator, as `--- #x`; libyaml
    # reads text. Composed with the line masked, written back as it was.
    text = DEPLOY + line + "\n" + CM + "# a comment\n" + line + "\n" + CM.replace("cfg", "other") + line
    text = text.replace("\n", "\r\n") if crlf else text
    result = run_postrender(["--keep-original=all"], text)
    assert result.status == 0, result.stderr
    out = result.stdout
    assert out.count(line) == text.count(line) + 1  # and the copy's, which follows its document
    assert re.search(r"^          name: cfg-\w{10}\r?$", out, re.M)
    again = run_postrender(["--keep-original=all"], out)
    assert (again.status, again.stdout) == (0, out), again.stderr
    untouched = CM.replace("cfg", "kept") + line + "\n" + DEPLOY.replace("name: cfg", "name: none")
    assert run_postrender([], untouched).stdout == untouched


@pytest.mark.parametrize("text, document, line", [
    ("---#x\n" + CM, 1, 1),
    ("---\n---#x\n" + CM, 1, 2),
    (CM + "---\n---#x\n" + CM, 2, 8),
    (CM + "--- # a comment\r\n---\v\r\n" + CM, 2, 8),
    (CM + "---#x\n---#x\n" + CM, 2, 8),
    ("--- \xa0\n" + CM, 1, 1),
    ('{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "j"}}\n---#x\n' + CM, 1, 2),
    ('  {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "j"}} \t\n---#x\n' + CM, 1, 2),
], ids=["first line", "after the first ---", "after a ---", "crlf", "after a ---#", "after a space, nbsp", "after JSON",
        "after JSON and spaces"])
def test_a_separator_kubectl_reads_as_text_is_refused(text, document, line):
    # kubectl drops a separator line only when a line came since the last
    # one it dropped; otherwise go-yaml reads it, and `---#x` is text. One
    # with a space after --- and then white space only Go trims is said so,
    # not told to put a space after --- (review62a).
    said = "there kubectl reads it as text" if "\xa0" not in text else (
        "a --- line holding white space YAML does not take for it (a no-break space, U+3000, VT, FF ...) opens the"
        " file or follows another --- line or a JSON document: there kubectl reads it as the document's first line")
    assert_refused(run_postrender([], text), document, line, said)


def test_a_glued_separator_after_a_json_document_and_a_line_passes():
    # kubectl goes on as YAML past one line break after a JSON first value.
    for tail in ("\n\n", "\n# c\n", " # c\n"):
        text = '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "j"}}' + tail + "---#x\n" + DEPLOY
        result = run_postrender([], text)
        assert result.status == 0, result.stderr
        assert "---#x\n" in result.stdout


def test_composer_errors_name_the_line_of_each_node_they_point_at():
    # libyaml's composer marks these with a node's own start, an offset in
    # the text (counted after a byte-order mark), not a libyaml mark. An
    # anchor defined again is read as go-yaml reads it (syntax/anchors.py)
    # unless no name of its length is free to rename it to: every one-letter
    # name is taken here.
    taken = "".join(f"x-k{i}: &{c} v\n" for i, c in enumerate(string.ascii_letters + string.digits + "_-") if c != "x")
    cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n" + taken + "data:\n  a: &x one\n  b: &x two\n"
    for text in (cm, "\ufeff" + cm, "---\n# Source: chart/cm.yaml\n" + cm):
        first = text.count("\n", 0, text.index("&x")) + 1
        assert_refused(run_postrender([], text), 1, first + 1,
                       f"invalid YAML: second occurrence (found duplicate anchor; first occurrence at line {first})")
    text = "---\n# Source: chart/cm.yaml\r---\nkind: [\n"
    # The lone CR is no line break to kubectl or an editor: the second `---`
    # is on line 2.
    assert_refused(run_postrender([], text), 1, 2,
                   "invalid YAML: but found another document (expected a single document in the stream at line 2)")


def test_explicit_keys_keep_inserted_entries_at_the_mapping_column():
    # Found by the fuzz test: `? --` made the first key start at column 2 and
    # `immutable: true` was indented under it, which no longer parsed.
    for text in (
        "? --\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\ndata: {a: b}\n",
        # No entry ends on a line of its own: inserted ahead of the first `?`.
        "? apiVersion\n: v1\n? kind\n: ConfigMap\nmetadata:\n  ? name\n  : cfg\ndata: {a: b}\n",
    ):
        result = run_postrender(["--version-all"], text)
        assert result.status == 0, result.stderr
        assert re.search(r"^immutable: true\r?$", result.stdout, re.M), result.stdout
        again = run_postrender([], result.stdout)
        assert (again.status, again.stdout) == (0, result.stdout), again.stderr


def _kubectl_separators(text: str) -> tuple[list[int], list[int]] | None:
    """apimachinery's YAMLReader, line by line: the offsets of the separator
    lines, and of those it keeps as its chunk's first line (it drops one only
    when a line came since the last it dropped); None where it refuses one."""
    from postrender.pipeline.read.lines import _GO_SPACE

    separators: list[int] = []
    kept: list[int] = []
    buffered, at = False, 0
    for line in text.split("\n"):
        if line.startswith("---"):
            rest = line[3:].strip(_GO_SPACE)
            if rest and not rest.startswith("#"):
                return None
            separators.append(at)
            if not buffered:
                kept.append(at)
            buffered = not buffered
        else:
            buffered = True
        at += len(line) + 1
    return separators, kept


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="-\n\r \t.a#%\v\xa0", max_size=60))
def test_document_starts_are_kubectls_separators(text):
    # split() finds `---` lines with str.find for speed; it must agree with
    # the regex and with kubectl's reader: refuse what kubectl refuses, and a
    # separator YAML reads as text where kubectl does too (or may, once
    # written: right after another separator line).
    from postrender.pipeline.read.split import _DOCUMENT_START, _document_starts

    model = _kubectl_separators(text)
    if model is None:
        with pytest.raises(PostrenderError, match="more than white space and a comment"):
            _document_starts(text)
        return
    separators, kept = model
    assert [m.start() for m in _DOCUMENT_START.finditer(text)] == separators
    hidden = [at for at in separators if text[at + 3 : at + 4] not in ("", " ", "\t", "\r", "\n")]
    read_as_text = [at for at in hidden if at in kept or at - 1 in [s + len(text[s:].split("\n")[0]) for s in separators]]
    if read_as_text:
        with pytest.raises(PostrenderError, match="there kubectl reads it as text"):
            _document_starts(text)
    else:
        assert list(_document_starts(text)) == separators


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="-\n\r \t.a#%\v", max_size=60), st.sampled_from([1, 3, 16, 1 << 16]))
def test_chunks_are_the_whole_text(text, block):
    # read() keeps a source's text as its documents' packed texts alone
    # (Source.pack): each must be its chunk, and together the text, wherever
    # the blocks are cut.
    from postrender.pipeline import packed
    from postrender.pipeline.read.documents import Source
    from postrender.pipeline.read.split import _chunk_starts, split

    source = Source(None, text)
    # As kubectl reads it: its last line given a line break (Source), a
    # CRLF where the line before ends in one.
    if text and not text.endswith("\n"):
        crlf = text[: max(text.rfind("\n"), 0)].endswith("\r") and not text.endswith("\r")
        text += "\r\n" if crlf else "\n"
    assert source.text == text
    try:
        chunks = split(source)
    except PostrenderError:
        return  # refused (test_document_starts_are_kubectls_separators)
    starts = _chunk_starts(text, None, None, 0)
    assert list(starts.begins) == [sum(len(c) for c, _ in chunks[:i]) for i in range(len(chunks))]
    assert list(starts.lines) == [line for _, line in chunks]
    saved, packed.BLOCK = packed.BLOCK, block
    try:
        source.pack(starts.begins)
    finally:
        packed.BLOCK = saved
    assert [source.document_text(i) for i in reversed(range(len(chunks)))] == [c for c, _ in reversed(chunks)]
    assert source.text == text and source.size == len(text)
    held = Source(None, text)
    held.held_in([chunk for chunk, _ in chunks])
    assert held.text == text and [held.document_text(i) for i in range(len(chunks))] == [c for c, _ in chunks]


def _holds_text(doc) -> bool:
    from postrender.pipeline.read.documents import Document

    try:
        Document.text.__get__(doc)  # the slot itself, not __getattr__'s answer
    except AttributeError:
        return False
    return True


def test_a_source_read_keeps_its_text_once(monkeypatch):
    from postrender.options import RenderOptions
    from postrender.pipeline import packed
    from postrender.pipeline.read import read
    from postrender.pipeline.read.documents import PackedDocument, Source

    text = "---\n" + CM + "...\n%YAML 1.1\n---#x\n" + CM.replace("name: cfg", "name: other") + "# end"
    source = Source("in.yaml", text)
    text += "\n"  # as kubectl reads it: its last line given a line break
    stream = read([source], RenderOptions().limits)
    assert source.text == text
    # The documents' chunks are the text: no second copy of it, whole.
    assert source._text is None and all(a is b for a, b in zip(source._chunks, (d.text for d in stream.documents)))
    # In a large stream the source holds it compressed, and no document holds it whole.
    monkeypatch.setattr(packed, "COMPRESS_FROM", 0)
    source = Source("in.yaml", text)
    stream = read([source], RenderOptions().limits)
    assert source._text is None and not source._chunks and isinstance(source._packed._blocks[0], bytes)
    assert all(type(doc) is PackedDocument for doc in stream.documents)
    assert not any(map(_holds_text, stream.documents))
    assert "".join(doc.text for doc in stream.documents) == text == source.text


@pytest.mark.parametrize("compress", [False, True])
def test_each_document_knows_its_first_line_in_its_own_source(monkeypatch, compress):
    # Held by the source, a document's first line is its chunk's there
    # (Source.first_lines), whatever came before it in other sources.
    from postrender.options import RenderOptions
    from postrender.pipeline import packed
    from postrender.pipeline.read import read
    from postrender.pipeline.read.documents import Source

    if compress:
        monkeypatch.setattr(packed, "COMPRESS_FROM", 0)
    first = "---\n" + CM + "...\n%YAML 1.1\n---#x\n" + CM.replace("name: cfg", "name: other")
    second = "# head\n\n" + CM.replace("name: cfg", "name: third") + "---\n---\n" + CM.replace("name: cfg", "name: fourth")
    stream = read([Source("a.yaml", first), Source("b.yaml", second)], RenderOptions().limits)
    for doc in stream.documents:
        source_text = doc.source.text
        offset = sum(len(d.text) for d in stream.documents[:doc.index - 1] if d.source is doc.source)
        assert source_text[offset:].startswith(doc.text)
        assert doc.first_line == source_text.count("\n", 0, offset), (doc.index, doc.source.name)
    assert [doc.first_line for doc in stream.documents] != [0] * len(stream.documents)


# --- size: nodes and documents may grow only with the input -----------------
#
# Beyond --max-nodes (100,000) YAML nodes, at most one per 4 characters of
# input; beyond 5,000 documents and List items, one per 32. Real manifests
# stay far below both (a node per 7-18 characters); the shapes below are far
# above, and are refused before they are composed.

DENSE = {
    # The two: a long flow list, a million tiny documents (scaled down:
    # the rule is a density, so a megabyte is enough).
    "one long flow list": "kind: X\nx: [" + "a, " * 400_000 + "a]\n",
    "a flow list without spaces": "kind: X\nspec: [" + "a," * 500_000 + "a]\n",
    "tiny documents": "---\nkind: X\n" * 20_000,
    "empty documents": "---\n" * 50_000,
    "a flow mapping of bare keys": "kind: X\nx: {" + "a," * 500_000 + "a}\n",
    "a block list of nulls": "kind: X\nx:\n" + "-\n" * 500_000,
    # (Each with an apiVersion: kubectl refuses a List's item without one.)
    "a List of tiny items": "apiVersion: v1\nkind: List\nitems: [" + "{apiVersion: v1, kind: X}, " * 40_000 + "]\n",
    "dense documents": "".join(f"---\nkind: X\nmetadata: {{name: n{i}}}\nx: [{'a,' * 300}a]\n" for i in range(3_000)),
    "a dense ConfigMap in a second input": None,  # see test_the_count_runs_across_inputs
}


@pytest.mark.parametrize("text", [t for t in DENSE.values() if t], ids=[k for k, t in DENSE.items() if t])
def test_dense_input_is_refused_with_one_line(text):
    result = run_postrender([], text)
    assert_refused(result, None, None, "; raise it with --max-nodes")
    assert re.search(r"more than [\d,]+ (YAML nodes|documents and List items) in the first [\d,]+ characters",
                     result.stderr), result.stderr


def test_the_count_runs_across_inputs(tmp_path):
    # Each input alone is within the allowance; together they are not.
    first, second = tmp_path / "a.yaml", tmp_path / "b.yaml"
    first.write_text("kind: X\nx: [" + "a," * 150_000 + "a]\n")
    second.write_text("kind: Z\nx: [" + "a," * 150_000 + "a]\n")
    assert run_postrender(["-f", str(first)], "").status == 0
    result = run_postrender(["-f", str(first), "-f", str(second)], "")
    assert_refused(result, 2, None, "YAML nodes in the first")


def test_max_nodes_raises_the_allowance():
    text = DENSE["one long flow list"]
    assert run_postrender(["--max-nodes", "2000000"], text).status == 0
    assert run_postrender(["--max-nodes", "0"], text).status == 2
    assert run_postrender(["--max-nodes", "1e6"], text).status == 2


def test_max_nodes_in_a_postrender_config():
    from postrender.options import by_config_key

    option = by_config_key()["maxNodes"]
    assert option.convert_config(2_000_000, "maxNodes") == 2_000_000
    with pytest.raises(Exception):
        option.convert_config("many", "maxNodes")


def test_real_manifests_pass_on_their_density_alone():
    """With almost no fixed allowance, real streams still pass: every corpus
    and golden input, and a stream of apps (a ConfigMap, a Secret, a
    Deployment and a Service each) as dense as the benchmark's."""
    app = (CM + "---\n" + DEPLOY + "---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: s\nstringData:\n  k: v\n"
           "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  ports:\n  - port: 80\n")
    streams = {"apps": "---\n".join(app.replace("name: ", f"name: a{i}-") for i in range(300))}
    for path in [*sorted((FIXTURES / "corpus").rglob("*.yaml")), *sorted((FIXTURES / "golden").glob("*/input.yaml"))]:
        if path.parent.name != "odd-empty-documents":  # 16 empty documents in 40 characters
            streams[str(path.relative_to(FIXTURES))] = path.read_text(encoding="utf-8")
    for name, text in streams.items():
        result = run_postrender(["--max-nodes", "20"], text)
        assert result.status == 0, f"{name}: {result.stderr}"


def test_nodes_are_counted_as_libyaml_counts_parse_events():
    from postrender.pipeline.read import read
    from postrender.pipeline.read.documents import Source
    from postrender.limits import Limits

    checked = 0
    for path in sorted((FIXTURES / "golden").glob("*/input.yaml")):
        for doc in read([Source(None, path.read_text(encoding="utf-8"))], Limits()).documents:
            if doc.root is None:
                continue
            loader = CBaseLoader(doc.text)
            try:
                events = loader.raw_parse() - 2  # the stream's start and end
            finally:
                loader.dispose()
            assert doc.nodes == events, (path, doc.index)
            checked += 1
    assert checked > 100


# Brackets a scalar holds (a CRD's descriptions, a regular expression):
# hundreds of them, but no level of nesting.
SCALAR_BRACKETS = ("  description: |\n" + "    e.g. {{request.object}} or [0-9]+ {x}\n" * 150
                   + "  pattern: a[b]{2}\n  note: 'x {y} [z]'\n")


@pytest.mark.parametrize("shape", SHAPES)
def test_brackets_in_scalars_do_not_hide_deep_nesting(shape):
    over = HEAD + "notes:\n" + SCALAR_BRACKETS + _nest(shape, DEFAULT_MAX_DEPTH + 10)
    assert _depth(over) > DEFAULT_MAX_DEPTH
    assert read_events._may_nest_deeply(over, DEFAULT_MAX_DEPTH)
    assert_refused(run_postrender([], over), 1, None, "nesting deeper than")


def test_brackets_in_scalars_are_not_walked_for_depth(monkeypatch):
    # Every CRD's descriptions hold brackets: each such document's parse
    # events were walked one by one in Python (kyverno's chart: a fifth of
    # a render).
    text = HEAD + "spec:\n" + SCALAR_BRACKETS + "".join(" " * (i + 2) + "a:\n" for i in range(30)) + " " * 32 + "x\n"
    assert text.count("[") + text.count("{") > DEFAULT_MAX_DEPTH
    assert not read_events._may_nest_deeply(text, DEFAULT_MAX_DEPTH)
    monkeypatch.setattr(read_events, "_check_depth", lambda *args: pytest.fail("walked for depth"))
    monkeypatch.setattr(read_libyaml, "_check_depth", lambda *args: pytest.fail("walked for depth"))
    assert run_postrender([], text).stdout == text
    # With an anchor or a tag, which may stand between an indicator and a
    # bracket, every bracket counts again.
    for marked in (text.replace("  pattern:", "  pattern: &p"), text.replace("  pattern:", "  pattern: !!str")):
        assert read_events._may_nest_deeply(marked, DEFAULT_MAX_DEPTH)


_LEAVES = st.sampled_from(["x", "'[a]'", '"{b}"', "a[b]", "c{d}", "'{{e}}'", "x y {z}", "[", "{", "|-\n  [q]"])


# Scalars a flow collection may hold, brackets in some.
_FLOW_LEAVES = st.sampled_from(["x", "'[a]'", '"{b}"', "'{{e}}'", '"x [y] {z}"'])


def _values(depth: int) -> st.SearchStrategy[str]:
    """A flow value nesting up to `depth` levels, with brackets in scalars
    and at node starts, after `: `, `, ` and another bracket."""
    if depth == 0:
        return _FLOW_LEAVES
    inner = _values(depth - 1)
    return st.one_of(
        _FLOW_LEAVES,
        st.lists(inner, min_size=1, max_size=3).map(lambda items: "[" + ", ".join(items) + "]"),
        st.lists(inner, min_size=1, max_size=3).map(lambda items: "{" + ", ".join(f"k{i}: {v}" for i, v in enumerate(items)) + "}"),
        inner.map(lambda key: "{" + key + ": x}"),  # a collection as a key: `{[a]: x}`
    )


def _block(value: str, depth: int, indent: int) -> str:
    """`value` under `depth` levels of block mappings and sequences."""
    lines = []
    for level in range(depth):
        lines.append(" " * indent + ("- a:" if level % 2 else "b:"))
        indent += 2 + (level % 2)
    return "\n".join(lines) + "\n" + " " * indent + "c: " + value + "\n"


@settings(max_examples=500, deadline=None)
@given(st.integers(0, 4), _values(6), st.lists(_LEAVES, max_size=8), st.integers(1, 8))
# A level opened after each indicator the rule names, brackets in scalars beside.
@example(0, "[x, [x, [x, [x]]]]", ["'[a]'", '"{b}"'], 3)
@example(0, "{k0: {k0: {k0: [x]}}}", [], 3)
@example(0, "[[[[x]]]]", [], 3)
@example(0, "{[{[x]: x}]: x}", ["x y {z}"], 3)
def test_the_depth_screen_never_misses_a_document_over_the_limit(block, value, scalars, limit):
    # Scalars at the root, where no indentation makes the screen say yes on
    # its own: what it says of the flow levels is what is tested.
    text = "".join(f"s{i}: {leaf}\n" for i, leaf in enumerate(scalars)) + (
        _block(value, block, 0) if block else f"spec: {value}\n")
    try:
        YAML(typ="safe").compose(text)
    except Exception:  # noqa: BLE001 - not YAML: composing refuses it anyway
        return
    if _depth(text) > limit:
        assert read_events._may_nest_deeply(text, limit), text


JSON_CM = '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "json"}, "data": {"a": "x%sy"}}\n'


@pytest.mark.parametrize("character", ["\x85", "\u2028", "\u2029"])
def test_a_yaml_line_break_in_a_string_is_refused_only_where_kubectl_reads_json(character):
    # kubectl reads a first document written in JSON as JSON: there the
    # character is one of the string's, where YAML would fold it to a space.
    assert_refused(run_postrender([], JSON_CM % character), 1, 1, "in a JSON document that starts the stream")
    # After a `---` line kubectl reads the same text with go-yaml, as YAML
    # does: both fold it, and the render goes on.
    for text in ("---\n" + JSON_CM % character, CM + "---\n" + JSON_CM % character):
        result = run_postrender([], text)
        assert result.status == 0, result.stderr
        assert character in result.stdout


@pytest.mark.parametrize("separator", ["---", "--- ", "---\t# c", "--- #c", "---#x", "---\u00a0"])
def test_invalid_utf8_names_the_document_the_splitter_finds(separator):
    # The document an invalid byte is in is counted with the splitter's own
    # separator rule: the same text with a valid character there is split so.
    from postrender.inputs import decode

    text = "# first\n" + CM + separator + "\n" + CM.replace("a: b", "a: b@") + "---\n" + CM
    at = text.index("@")
    split = read_stage.read([Source(None, text)], Limits()).documents
    starts = [text.index(d.text) for d in split]
    document = split[max(i for i, start in enumerate(starts) if start <= at)].index
    with pytest.raises(PostrenderError) as refused:
        decode(text.encode().replace(b"@", b"\xff"), None)
    assert refused.value.location.document == document == 2


# How a stream may end without a final line break: a plain value, a block
# scalar (its content hash holds the final newline kubectl gives it), a
# quoted one, a flow mapping, a comment, a `...` line.
_ENDINGS = {
    "plain": "  a: b",
    "block scalar": "  a: |\n    one\n    two",
    "quoted": '  a: "b"',
    "flow": "  a: b\nextra: {d: e}",
    "comment": "  a: b\n# the end",
    "document end": "  a: b\n...",
}


@pytest.mark.parametrize("ending", _ENDINGS, ids=list(_ENDINGS))
def test_a_crlf_stream_without_a_final_line_break_renders_as_with_one(ending):
    # The last line is given the line ending the one before it has: the
    # render is the LF render with every line break a CRLF, the final one
    # too, and the names (the content hashes) are the same.
    lf = DEPLOY + "---\n" + CM.replace("  a: b\n", _ENDINGS[ending])
    crlf = lf.replace("\n", "\r\n")
    written_lf = run_postrender([], lf)
    written_crlf = run_postrender([], crlf)
    assert written_lf.status == written_crlf.status == 0, (written_lf.stderr, written_crlf.stderr)
    assert "cfg-" in written_lf.stdout
    assert written_crlf.stdout == written_lf.stdout.replace("\n", "\r\n")


# A name Kubernetes reads decoded (`!!binary Y20=` is "cm") would be matched,
# rewritten and guarded as its base64, and left naming a config renamed away.
_BINARY_PLACES = {
    "a volume's configMap": "kind: Deployment\nmetadata: {name: d}\nspec:\n  template:\n    spec:\n"
                            "      volumes: [{name: v, configMap: {name: !!binary Y20=}}]\n",
    "an env value": "kind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, env: [{name: X, value: !!binary eA==}]}]\n",
    "a custom field": "kind: Widget\nmetadata: {name: w}\nspec:\n  configMapRef: {name: !<tag:yaml.org,2002:binary> Y20=}\n",
    "a List's item": "kind: List\nitems:\n- kind: Widget\n  metadata: {name: w}\n  spec: {ref: !!binary Y20=}\n",
    "a label": "kind: Widget\nmetadata:\n  name: w\n  labels: {a: !!binary Y20=}\n",
}
# Where it is data: read decoded, as its hash reads it.
_BINARY_DATA = {
    "a ConfigMap's data": "kind: ConfigMap\nmetadata: {name: c}\ndata: {k: !!binary aGk=}\n",
    "a ConfigMap's binaryData": "kind: ConfigMap\nmetadata: {name: c}\nbinaryData: {k: !!binary aGk=}\n",
    "a Secret's stringData": "kind: Secret\nmetadata: {name: s}\nstringData: {k: !!binary aGk=}\n",
}


@pytest.mark.parametrize("text", _BINARY_PLACES.values(), ids=_BINARY_PLACES)
def test_a_binary_value_outside_data_is_refused_with_its_line(text):
    with pytest.raises(PostrenderError, match=r"line \d+: a !!binary value outside data, binaryData or stringData"):
        read_stage.read([Source(None, "apiVersion: v1\n" + text)], Limits())


@pytest.mark.parametrize("text", _BINARY_DATA.values(), ids=_BINARY_DATA)
def test_a_binary_value_in_data_is_read(text):
    (obj,) = read_stage.read([Source(None, "apiVersion: v1\n" + text)], Limits()).objects
    assert obj.name in ("c", "s")


def test_yaml_right_after_a_json_first_document_is_refused_for_what_it_is():
    # kubectl reads the YAML after the JSON value, and a `...` after it:
    # the reason given was kubectl's refusal of `...`, which this is not (review60b).
    json_first = '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "j"}, "data": {"a": "b"}}\n'
    text = json_first + "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: o}\n...\n---\n" + CM
    assert_refused(run_postrender([], text), 1, 1, "a JSON document that starts the stream, and YAML after it with"
                   " no `---` line between them: kubectl reads them as two documents, postrender as one")
    # A `...` right after the value is kubectl's refusal, and said so.
    assert_refused(run_postrender([], json_first + "...\n---\n" + CM), 1, 2,
                   "a `...` line after a JSON document that starts the stream: kubectl reads such a stream as JSON")


def test_a_json_first_document_nested_past_pythons_stack_meets_the_depth_limit():
    # Deciding whether it is JSON Go reads recursed past Python's stack: an
    # internal error (review60c). It is refused as any document nested so deep.
    text = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"x":' + "[" * 1000 + "]" * 1000 + "}\n"
    assert_refused(run_postrender([], text), 1, 1, "nesting deeper than 512 levels (raise it with --max-depth, up to 1000)")
