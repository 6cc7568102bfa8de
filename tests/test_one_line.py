"""One line means one line (issue 19): whatever a file or a path holds (line breaks, terminal
escapes, lone surrogates, 10,000 characters), a message shows it escaped and shortened, once;
and a name Panda3D cannot hold is refused when the file is read."""
import json
import os

import pytest

from motionwarp_demo.level.scene import Scene, SceneError
from motionwarp import AssetError, LoadError, WarpAsset, load_actor
from motionwarp.base.errors import TEXT_LIMIT, shown_text

from .conftest import SAMPLES
from .test_asset import good, model  # noqa: F401  (model is a fixture: a 1 s clip in tmp_path)
from .test_demo import run_main, without_display

NASTY = {"a line break": "a\nforged: line", "a terminal escape": "\x1b[31mred", "a lone surrogate": "\ud800x",
         "a carriage return": "a\rb", "a NUL": "a\x00b", "a Unicode line separator": "a\u2028b"}


def assert_one_line(message, limit=600):
    assert message.isprintable(), repr(message[:200])
    assert len(message) < limit, len(message)


@pytest.mark.parametrize("case", sorted(NASTY))
def test_an_unknown_key_is_echoed_escaped(model, case):
    data = good()
    data[NASTY[case]] = 1
    path = model / "hop.warp.json"
    path.write_text(json.dumps(data))
    with pytest.raises(AssetError) as caught:
        WarpAsset.load(path)
    assert_one_line(str(caught.value))
    assert f": {shown_text(NASTY[case])}: unknown key" in str(caught.value)


@pytest.mark.parametrize("case", sorted(NASTY))
def test_a_string_value_with_unprintable_characters_is_refused_and_escaped(model, case):
    data = good()
    data["phases"][0]["name"] = NASTY[case]
    path = model / "hop.warp.json"
    path.write_text(json.dumps(data))
    with pytest.raises(AssetError, match=r"phases\[0\].name: expected a non-empty string of at most 4096 printable "
                                         r"characters \(no control characters, line breaks or lone surrogates\)"):
        WarpAsset.load(path)


@pytest.mark.parametrize("case", sorted(NASTY))
def test_an_obstacle_name_panda3d_cannot_hold_is_refused_at_load(tmp_path, case):
    scene = json.loads((SAMPLES / "scenes" / "course.json").read_text())
    scene["obstacles"][0]["name"] = NASTY[case]
    path = tmp_path / "scene.json"
    path.write_text(json.dumps(scene))
    os.symlink(SAMPLES / "scenes" / "meshes", tmp_path / "meshes")
    with pytest.raises(SceneError) as caught:
        Scene.load(path)
    assert_one_line(str(caught.value))
    assert ": obstacles[0].name: expected a non-empty string" in str(caught.value)


def test_the_rule_matches_what_panda3d_holds():
    """The refused names are ones Panda3D's nodes cannot hold or a message cannot print on one line;
    the printable ones, odd as some look to NodePath.find, are held as they are."""
    from panda3d.core import NodePath
    with pytest.raises(TypeError):
        NodePath("level").attachNewNode(NASTY["a lone surrogate"])
    for name in ("crate é", "a/b", "**", "[x]", "-", "+GeomNode", "x" * 4096):
        assert NodePath("level").attachNewNode(name).getName() == name


LONG = "/tmp/" + "d" * 10_000 + "/scene.json"


@pytest.mark.parametrize("load, error", [(Scene.load, SceneError), (WarpAsset.load, AssetError),
                                         (load_actor, LoadError)])
def test_a_ten_thousand_character_path_is_shown_once_and_cut(load, error):
    with pytest.raises(error) as caught:
        load(LONG)
    message = str(caught.value)
    assert_one_line(message, limit=TEXT_LIMIT + 200)
    assert message.count("\u2026") == 1 and message.startswith("/tmp/ddd") and "scene.json" in message


def test_shown_text_keeps_both_ends_and_escapes():
    assert shown_text("short") == "short"
    cut = shown_text("/home/" + "x" * 500 + "/rock.glb")
    assert len(cut) <= TEXT_LIMIT and cut.startswith("/home/xx") and cut.endswith("x/rock.glb")
    assert shown_text("a\nb\tc\x1b") == "a\\nb\\tc\\x1b"


def test_main_py_prints_one_line_for_a_key_with_a_line_break(tmp_path):
    scene = json.loads((SAMPLES / "scenes" / "course.json").read_text())
    scene["spawn"]["h\nmain.py: all good"] = 0
    path = tmp_path / "scene.json"
    path.write_text(json.dumps(scene))
    result = run_main("--headless", "--autopilot", "--scene", str(path), env=without_display())
    assert result.returncode == 2 and len(result.stderr.splitlines()) == 1
    assert result.stderr == (f"main.py: {path}: spawn.h\\nmain.py: all good: unknown key; expected one of h, pos\n")
