"""The field-spec tables a run loads (fieldspecs/compiled.py) are the YAML
people edit (fieldspecs/*.yaml), compiled by scripts/compile-fieldspecs."""

import hashlib
import subprocess
import sys
from pathlib import Path

from ruamel.yaml import YAML

from postrender import fieldspecs
from postrender.fieldspecs import compiled

ROOT = Path(__file__).resolve().parents[3]
TABLES = ROOT / "postrender" / "fieldspecs"
RERUN = "fieldspecs/compiled.py is out of date with {name}: run scripts/compile-fieldspecs"


def _yaml_files() -> list[Path]:
    files = sorted(TABLES.glob("*.yaml"))
    assert {f.name for f in files} >= {"builtin.yaml", "guard.yaml", "fixednames.yaml", "producers.yaml",
                                       "dependencies.yaml"}
    return files


def test_every_table_is_compiled_and_equals_its_yaml():
    files = _yaml_files()
    assert sorted(compiled.TABLES) == [f.name for f in files], RERUN.format(name="the list of tables")
    for file in files:
        parsed = YAML(typ="safe").load(file.read_text(encoding="utf-8")) or {}
        assert compiled.TABLES[file.name] == parsed, RERUN.format(name=file.name)
        assert compiled.SOURCES[file.name] == hashlib.sha256(file.read_bytes()).hexdigest(), \
            RERUN.format(name=file.name)


def test_the_script_writes_exactly_the_committed_module():
    # Also fails when compiled.py was edited by hand.
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "compile-fieldspecs"), "--check"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_the_loader_hands_out_the_compiled_tables():
    for file in _yaml_files():
        assert fieldspecs.data(file.name) is compiled.TABLES[file.name]
    assert fieldspecs.builtin_config()["nameReference"]
