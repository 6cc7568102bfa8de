"""Character files (`characters/*.json`) and another character in the demo: the Knight walks its
in-place cycles at the file's speeds and dodges with its own root motion."""
import json
import math

import pytest
from panda3d.core import Vec3

from motionwarp_demo.app.app import Demo
from motionwarp_demo.character.character_file import Character, CharacterError
from motionwarp_demo.level.scene import Scene

from .conftest import ROOT, SAMPLES, run_for
from .pose_oracle import KNIGHT, untouched_actor
from .test_demo import run_main, without_display

KNIGHT_FILE = json.loads((ROOT / "characters" / "knight.json").read_text())


def write_character(tmp_path, **changes):
    data = dict(KNIGHT_FILE, model=str(KNIGHT or tmp_path / "missing.glb"), **changes)
    path = tmp_path / "character.json"
    path.write_text(json.dumps({k: v for k, v in data.items() if v is not None}))
    return path


def test_the_default_character_is_the_mannequin_with_its_warps():
    character = Character.load(SAMPLES / "characters" / "mannequin.json")
    assert pathlib_name(character.model_path) == "mannequin.glb"
    assert character.warp_assets == ("vault", "mantle", "mantle_high", "pick_up", "pick_up_table", "use", "sit",
                                     "jump_gap", "jump_onto") and character.contact_ik


def pathlib_name(path):
    return path.replace("\\", "/").rsplit("/", 1)[-1]


def test_the_shipped_knight_file_names_the_rig_beside_the_project_or_says_it_is_missing():
    path = ROOT / "characters" / "knight.json"
    expected = (ROOT / "characters" / KNIGHT_FILE["model"]).resolve()
    if expected.exists():
        assert Character.load(path).model == "../../shared/rigs/Knight.glb"
    else:
        with pytest.raises(CharacterError, match=r"knight.json: model: expected a glTF file relative to the "
                                                 r"character file; .*Knight.glb does not exist"):
            Character.load(path)


@pytest.mark.parametrize("changes,message", [
    ({"clips": {"idle": "Idle", "walk": "Walking_A"}}, "clips.run: missing (required)"),
    ({"root_mode": "hips"}, "root_mode: expected 'bone' or 'projected', got 'hips'"),
    ({"speeds": {"run": -2}}, "speeds.run: expected a speed above 0 (m/s), got -2"),
    ({"speeds": {"crawl": 1}}, "speeds.crawl: unknown key; expected one of run, walk"),
    ({"scale": 0}, "scale: expected a scale above 0 (0.01 for a centimetre rig), got 0"),
    ({"scale": "big"}, "scale: expected a finite number"),
    ({"size": 2}, "size: unknown key"),
    ({"feet": ["foot.l"]}, "feet: expected the left and right foot joints' names, got ['foot.l']"),
    ({"warp_assets": "vault"}, "warp_assets: expected a list of warp asset names, got 'vault'"),
    ({"warp_assets": {"vault": 1}}, "warp_assets: expected a list of warp asset names, got {'vault': 1}"),
    ({"format": "motionwarp.character/9"}, "format: expected 'motionwarp.character/1'"),
])
def test_bad_fields_name_the_field(tmp_path, changes, message):
    with pytest.raises(CharacterError) as error:
        Character.load(write_character(tmp_path, **changes))
    assert message in str(error.value) and str(tmp_path / "character.json") in str(error.value)


def test_feet_naming_a_joint_the_model_lacks_name_the_file_the_field_and_the_joints(tmp_path):
    """The contact IK's feet are looked up when the actor loads (not when the demo builds the IK, whose
    error named neither file nor field)."""
    data = json.loads((SAMPLES / "characters" / "mannequin.json").read_text())
    data.update(model=str(SAMPLES / "assets" / "mannequin.glb"), feet=["foot_l", "nosuch"])
    path = tmp_path / "hero.json"
    path.write_text(json.dumps(data))
    with pytest.raises(CharacterError) as error:
        Character.load(path).load_actor()
    message = str(error.value)
    assert message.startswith(f"{path}: feet[1]: a foot joint of the model: joint 'nosuch' not found; the skeleton "
                              "has: root, hips, ")
    assert "foot_l" in message and "foot_r" in message and "\n" not in message
    data.update(contact_ik=False)
    path.write_text(json.dumps(data))
    actor = Character.load(path).load_actor()   # without the contact IK the feet are not used
    actor.cleanup()


def test_a_bad_character_file_is_one_line_and_exit_2(tmp_path):
    path = tmp_path / "character.json"
    path.write_text('{"format": "motionwarp.character/1", "model": "nowhere.glb", "clips": {}}')
    result = run_main("--headless", "--autopilot", "--character", str(path), env=without_display())
    assert result.returncode == 2 and len(result.stderr.splitlines()) == 1
    assert result.stderr.startswith(f"main.py: {path}: clips.idle: missing (required)")


knight_only = pytest.mark.skipif(KNIGHT is None, reason="../shared/rigs/Knight.glb is not beside the project")


@pytest.fixture
def knight_demo(base, tmp_path):
    scene = json.loads((SAMPLES / "scenes" / "course.json").read_text())
    far = {"name": "far away", "shape": "box", "pos": [30, 30, 0], "size": [1, 1, 1]}  # a scene needs an obstacle
    scene.update(obstacles=[far], spawn={"pos": [0, -3, 0], "h": 0}, autopilot=[])
    (tmp_path / "scene.json").write_text(json.dumps(scene))
    # walking and dodging need no warp assets (tests/test_knight.py plays those)
    demo = Demo(base, Scene.load(tmp_path / "scene.json"),
                character=Character.load(write_character(tmp_path, warp_assets=[])))
    demo.removeTask("demo-input")  # the test steers
    yield demo
    demo.destroy()


@knight_only
def test_a_clip_the_knight_lacks_is_named_with_the_clips_it_has(base, tmp_path):
    character = Character.load(write_character(tmp_path, clips=dict(KNIGHT_FILE["clips"], walk="Walk")))
    with pytest.raises(CharacterError, match=r"clips.walk: a clip of the model: clip 'Walk' not found; the actor "
                                             r"has: .*Walking_A"):
        character.load_actor()


@knight_only
def test_the_knight_walks_its_in_place_cycle_at_the_files_speed(base, knight_demo):
    demo = knight_demo
    run_for(base, 0.5, 1 / 60)
    start = demo.actor.getPos()
    demo.controller.direction = Vec3(0, 1, 0)
    speed = KNIGHT_FILE["speeds"]["walk"]
    run_for(base, 1.0, 1 / 60)  # the blend into walk takes 0.2 s: then the file's speed
    run_for(base, 1.0, 1 / 60)
    moved = demo.actor.getPos() - start
    assert abs(moved.x) < 1e-3 and speed * 1.5 < moved.y < speed * 2.0


@knight_only
def test_the_knight_dodges_with_its_own_root_motion(base, knight_demo):
    demo = knight_demo
    run_for(base, 0.5, 1 / 60)
    start, heading = demo.actor.getPos(), demo.actor.getH()
    # Dodge_Forward's own travel, from an untouched Knight's root joint (it faces -Y in its file).
    reference = untouched_actor(KNIGHT)
    root = reference.exposeJoint(None, "modelRoot", KNIGHT_FILE["root_joint"])
    ends = []
    for frame in (0, reference.getAnimControl("Dodge_Forward").getNumFrames() - 1):
        reference.pose("Dodge_Forward", frame)
        reference.update(force=True)
        ends.append(root.getPos(reference))
    travel = math.hypot(*(ends[1] - ends[0]).getXy())
    reference.cleanup()
    assert travel > 0.1
    assert demo.dodge()
    run_for(base, 1.0, 1 / 60)
    moved = demo.actor.getPos() - start
    assert not demo.warper.is_warping and demo.actor.getH() == pytest.approx(heading, abs=1e-3)
    assert moved.y == pytest.approx(travel, abs=1e-3) and abs(moved.x) < 1e-3


def mannequin_file(tmp_path, **changes):
    data = json.loads((SAMPLES / "characters" / "mannequin.json").read_text())
    data.update(model=str(SAMPLES / "assets" / "mannequin.glb"), **changes)
    path = tmp_path / "mannequin.json"
    path.write_text(json.dumps(data))
    return path


def test_a_root_joint_the_model_lacks_names_the_file_and_field(base, tmp_path):
    path = mannequin_file(tmp_path, root_joint="pelvis")
    with pytest.raises(CharacterError, match=rf"^{path}: root_joint: a joint of the model: joint 'pelvis' not "
                                             r"found; the skeleton has: root, hips"):
        Character.load(path).load_actor()


@pytest.mark.parametrize("times", [[0.0], [0.0, 1e-6]])
def test_a_walk_that_is_a_single_pose_names_the_field(base, tmp_path, times):
    """A one-key or microsecond clip bakes to one frame: locomotion would divide by its length."""
    from .gltf_samples import two_bone_quad
    move = [("root", "translation", [0.0, 1.0], [[0, 0, 0], [0, 1, 0]])]
    pose = [("root", "translation", times, [[0, 0, 0], [0, 1, 0]][:len(times)])]
    two_bone_quad(tmp_path / "poser.glb", {"idle": move, "walk": pose, "run": move, "fall": move, "land": move})
    data = {"format": "motionwarp.character/1", "model": "poser.glb",
            "clips": {role: role for role in ("idle", "walk", "run", "fall", "land")}}
    (tmp_path / "poser.json").write_text(json.dumps(data))
    with pytest.raises(CharacterError, match=r"poser.json: clips.walk: a cycle at least one frame long; 'walk' is a "
                                             r"single pose \(one frame\)"):
        Character.load(tmp_path / "poser.json").load_actor()
