"""Models that cannot be read: a LoadError or SceneError naming the file, never an OSError or a
traceback printed by the glTF loader plugin."""
import builtins
import json
import os
import re
import shutil

import pytest
from panda3d.core import LightAttrib

from motionwarp_demo.level.scene import Scene, SceneError
from motionwarp import AssetError, LoadError, WarpAsset, load_actor
from motionwarp.animation.loader import load_model_node

from .conftest import MANNEQUIN, SAMPLES
from .test_asset import good, model  # noqa: F401  (model is a fixture: a 1 s clip in tmp_path)
from .test_demo import run_main, without_display


def test_a_directory_named_like_a_model(tmp_path):
    folder = tmp_path / "hero.glb"
    folder.mkdir()
    with pytest.raises(LoadError, match=re.escape(f"{folder}: expected a glTF file, this is a directory")):
        load_actor(folder)


def test_a_fifo_named_like_a_model_is_not_opened(tmp_path):
    """Opening a FIFO would block until a writer comes: it is refused by what it is."""
    fifo = tmp_path / "hero.glb"
    os.mkfifo(fifo)
    with pytest.raises(LoadError, match=re.escape(f"{fifo}: expected a glTF file, this is a FIFO (named pipe)")):
        load_actor(fifo)


def test_an_unreadable_model(tmp_path, monkeypatch):
    """chmod 000 does not stop root (tests may run as root), so the refusal comes from `open`."""
    locked = tmp_path / "locked.glb"
    shutil.copy(MANNEQUIN, locked)
    real_open = builtins.open

    def refusing_open(file, *args, **kwargs):
        if str(file) == str(locked):
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, *args, **kwargs)
    monkeypatch.setattr(builtins, "open", refusing_open)
    with pytest.raises(LoadError, match=re.escape(f"{locked}: not a readable glTF file (cannot be read (Permission denied))")):
        load_model_node(locked)


def gltf_with_missing_bin(folder):
    """A one-triangle .gltf whose vertex buffer lives in a .bin that is not there."""
    path = folder / "triangle.gltf"
    path.write_text(json.dumps({
        "asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
        "buffers": [{"uri": "triangle.bin", "byteLength": 36}],
        "bufferViews": [{"buffer": 0, "byteLength": 36}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
                       "min": [0, 0, 0], "max": [1, 1, 0]}]}))
    return path


def test_a_gltf_whose_bin_is_missing(tmp_path):
    path = gltf_with_missing_bin(tmp_path)
    with pytest.raises(LoadError) as caught:
        load_model_node(path)
    assert str(caught.value) == (f"{path}: not a readable glTF file (buffers[0].uri (triangle.bin) does not exist; "
                                 "expected a regular file)")


def test_an_asset_whose_model_cannot_be_read_names_its_model_field(base, model):
    (model / "hop.glb").unlink()
    (model / "hop.glb").mkdir()
    path = model / "hop.warp.json"
    path.write_text(json.dumps(good()))
    with pytest.raises(AssetError, match=re.escape(f"{path}: model: expected a loadable glTF character: ")):
        WarpAsset.load(path)


def scene_with_model(folder, model_name):
    data = json.loads((SAMPLES / "scenes" / "course.json").read_text())
    data["obstacles"].append({"name": "rock", "shape": "model", "path": model_name, "pos": [6, 2, 0]})
    path = folder / "rocks.json"
    path.write_text(json.dumps(data))
    shutil.copytree(SAMPLES / "scenes" / "meshes", folder / "meshes", dirs_exist_ok=True)  # the course's models
    return path


#: Where scene_with_model puts the rock: after the course's own obstacles.
ROCK = f"obstacles[{len(json.loads((SAMPLES / 'scenes' / 'course.json').read_text())['obstacles'])}]"


def test_a_scene_model_that_is_not_gltf_is_one_error_and_prints_nothing(base, tmp_path, capfd):
    (tmp_path / "rock.glb").write_text("this is not glTF")
    path = scene_with_model(tmp_path, "rock.glb")
    scene = Scene.load(path)
    capfd.readouterr()
    with pytest.raises(SceneError) as caught:
        scene.build(base.render, base.loader)
    out, err = capfd.readouterr()
    assert out == "" and err == ""  # neither the plugin's traceback nor Panda3D's loader error line
    assert str(caught.value) == (f"{path}: {ROCK}.path: expected a model Panda3D can load, {tmp_path / 'rock.glb'} "
                                 "is not (its JSON does not parse (Expecting value: line 1 column 1 (char 0)))")


def test_main_reports_a_bad_scene_model_in_one_line(tmp_path):
    (tmp_path / "rock.glb").write_text("this is not glTF")
    path = scene_with_model(tmp_path, "rock.glb")
    result = run_main("--headless", "--autopilot", "--scene", str(path), env=without_display())
    assert result.returncode == 2
    assert result.stderr.splitlines() == [f"main.py: {path}: {ROCK}.path: expected a model Panda3D can load, "
                                          f"{tmp_path / 'rock.glb'} is not (its JSON does not parse "
                                          "(Expecting value: line 1 column 1 (char 0)))"]


def test_a_broken_character_stops_the_demo_with_a_load_error(base, tmp_path):
    import json
    from motionwarp_demo.app.app import Demo
    from motionwarp_demo.character.character_file import Character
    (tmp_path / "mannequin.glb").write_bytes(b"glTF truncated")
    data = json.loads((SAMPLES / "characters" / "mannequin.json").read_text())
    (tmp_path / "mannequin.json").write_text(json.dumps(dict(data, model="mannequin.glb")))
    scene = Scene.load(SAMPLES / "scenes" / "course.json")
    with pytest.raises(LoadError) as caught:  # main.py prints any MotionWarpError as one line, exit 2
        Demo(base, scene, asset_dir=SAMPLES / "assets", character=Character.load(tmp_path / "mannequin.json"))
    assert str(caught.value).startswith(f"{tmp_path / 'mannequin.glb'}: not a readable glTF file (")


def _what_the_game_has(base):
    """The tasks, the scene's top nodes, render's lights and the 2D overlay's nodes: what a Demo adds."""
    return ({task.name for task in base.taskMgr.getTasks()}, {child.getName() for child in base.render.getChildren()},
            base.render.getAttrib(LightAttrib) if base.render.hasAttrib(LightAttrib) else None,
            len(base.aspect2d.findAllMatches("**")))


@pytest.mark.parametrize("fails_in", ["the character", "the controller"])
def test_a_demo_that_fails_midway_leaves_nothing_behind(base, tmp_path, warp_asset_dir, monkeypatch, fails_in):
    """Before its warper exists (a character that does not load) or after (fault injected into the
    controller): the game keeps no half-built level, character, light, task or HUD."""
    import json
    from motionwarp_demo.app import app
    from motionwarp_demo.character.character_file import Character
    character = Character.load(SAMPLES / "characters" / "mannequin.json")
    if fails_in == "the character":
        (tmp_path / "mannequin.glb").write_bytes(b"glTF truncated")
        data = json.loads((SAMPLES / "characters" / "mannequin.json").read_text())
        (tmp_path / "mannequin.json").write_text(json.dumps(dict(data, model="mannequin.glb")))
        character, expected = Character.load(tmp_path / "mannequin.json"), LoadError
    else:
        def broken(*args, **kwargs):
            raise RuntimeError("injected")
        monkeypatch.setattr(app, "Controller", broken)
        expected = RuntimeError
    before = _what_the_game_has(base)
    with pytest.raises(expected):
        app.Demo(base, Scene.load(SAMPLES / "scenes" / "course.json"), asset_dir=warp_asset_dir, character=character)
    assert _what_the_game_has(base) == before


def test_destroy_takes_the_level_down_too(base, warp_asset_dir):
    from motionwarp_demo.app.app import Demo
    before = _what_the_game_has(base)
    demo = Demo(base, Scene.load(SAMPLES / "scenes" / "course.json"), asset_dir=warp_asset_dir)
    assert _what_the_game_has(base) != before
    demo.destroy()
    assert _what_the_game_has(base) == before
