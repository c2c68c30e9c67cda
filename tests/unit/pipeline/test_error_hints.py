"""Refusals of input kubectl reads say why and what to write instead."""

from __future__ import annotations

import pytest

from conftest import run_postrender

CM = '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "%s"}, "data": {"a": "b"}}\n'


@pytest.mark.parametrize("text", [CM % "a" + CM % "b", "\ufeff" + CM % "a" + CM % "b", "  " + CM % "a" + CM % "b"])
def test_json_objects_one_after_another_are_refused_saying_to_separate_them(text):
    result = run_postrender([], text)
    assert result.status == 1 and result.stdout == ""
    assert result.stderr == (
        "postrender: error: document 1 line 2: invalid YAML: did not find expected <document start>; JSON objects"
        " one after another without a `---` line between them are read by kubectl, not by postrender; put `---`"
        " between them\n")
    assert run_postrender([], text.replace("}\n{", "}\n---\n{")).status == 0


def test_a_yaml_document_missing_its_separator_gets_no_json_hint():
    result = run_postrender([], "kind: ConfigMap\nmetadata: {name: a}\n{kind: ConfigMap}\n")
    assert result.status == 1 and "JSON objects" not in result.stderr


@pytest.mark.parametrize("value", ["{docs: https://example.com/x}", "{a: x:y:z, b: c}", "{t: 23:59}"])
def test_a_colon_in_a_flow_scalar_is_read_and_written_as_it_came(value):
    # libyaml 0.1.7 refused it, which go-yaml v2 (kubectl, Helm) reads.
    text = f"apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n  annotations: {value}\n"
    result = run_postrender([], text)
    assert result.status == 0 and result.stderr == "", result.stderr
    assert result.stdout == text


@pytest.mark.parametrize("annotations", [
    "{a: [" + ", ".join(["x:y"] * 300) + "]}",   # more than syntax/flowcolons.HIDDEN_UP_TO
    "{a: \ue7ff, b: x:y}",                         # the stand-in it would hide them with, there already
])
def test_a_colon_in_a_flow_scalar_not_read_is_refused_saying_what_to_write(annotations):
    result = run_postrender([], f"apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n  annotations: {annotations}\n")
    assert result.status == 1 and result.stdout == ""
    assert "invalid YAML: found unexpected ':'" in result.stderr
    assert result.stderr.rstrip().endswith("quote the value, or write the collection in block style")


@pytest.mark.parametrize("kind,field,instead", [("ConfigMap", "binaryData", "data"), ("Secret", "data", "stringData")])
def test_invalid_base64_says_where_plain_text_goes_for_its_kind(kind, field, instead):
    result = run_postrender([], f"apiVersion: v1\nkind: {kind}\nmetadata:\n  name: c\n{field}:\n  b: '%%'\n")
    assert result.status == 1
    assert f"{field}.b is not valid base64 (encode it, or move it to {instead} as plain text)" in result.stderr
