"""What the plan's validation reads of a key and a value (json_key and
string_value, which decide an untagged scalar without resolving its tag)."""

import pytest

from postrender.syntax.nodes import Composer, json_key, string_value


def _scalar(tag: str, style: str, text: str):
    written = style.format(text.replace("'", "''") if style.startswith("'") else text.replace('"', '\\"'))
    root = Composer(f"{tag}{written}: {tag}{written}\n").get_single_node()
    return root.value[0]


@pytest.mark.parametrize("text,key,value", [
    ("a", "a", "a"), ("'1'", "1", "1"), ("1", "1", None), ("true", "true", None), ("!!binary aGk=", "hi", "hi"),
])
def test_examples(text, key, value):
    key_node, value_node = _scalar("", "{}", text)
    assert (json_key(key_node), string_value(value_node)) == (key, value)


@pytest.mark.parametrize("kind", ["ConfigMap", "Secret", "configmap", "Deployment", "", "ConfigMapList"])
@pytest.mark.parametrize("api_version", ["v1", "core/v1", "/v1", "v1beta1", "", "apps/v1"])
def test_is_config_object_is_is_config_kind_written_out(kind, api_version):
    """references.is_config_object writes is_config_kind out (stop 67): the
    same answer for every kind and apiVersion spelling."""
    from types import SimpleNamespace

    from postrender.pipeline.graph.references import is_config_kind, is_config_object

    assert is_config_object(SimpleNamespace(kind=kind, api_version=api_version)) == is_config_kind(kind, api_version)
