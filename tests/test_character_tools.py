"""`python -m motionwarp inspect` on characters it never saw (docs/design.md 12): generated bipeds in
centimetres and metres, facing +Y, -Y (glTF's +Z forward) or +X, Z-up or in a Y-up armature, with
in-place and travelling clips whose answers the generator knows (tests/biped_samples.py); and the
character file `--write-character` writes, played by the demo without edits."""
import json
import math

import numpy as np

import pytest
from panda3d.core import Vec3

from motionwarp_demo.app.app import Demo
from motionwarp_demo.character.character_file import Character
from motionwarp_demo.level.scene import Scene
from motionwarp.animation.rootmotion import RootMotionTrack
from motionwarp.tools import clipfacts
from motionwarp.tools.inspector import Model, report

from . import biped_samples as biped
from . import scaled_rigs
from .conftest import SAMPLES, run_for
from .test_inspect import run_inspect

#: (facing, units, up, shape): shape is "" (a root bone, joints named), "pelvis" (the legs hang from the
#: top joint, the hips), "bones" (joints named bone1, bone2...: found by shape), both, or a re-export of
#: tests/scaled_rigs.py (armature nodes scaled and turned, moved mesh nodes: the world stays in metres).
VARIANTS = [("+Y", "m", "z", ""), ("-Y", "cm", "y", ""), ("+X", "m", "y", ""), ("-Y", "m", "z", ""),
            ("+Y", "cm", "z", ""), ("+Y", "m", "z", "pelvis"), ("-Y", "m", "z", "bones"),
            ("+X", "cm", "y", "pelvis bones"), ("-Y", "m", "z", "cm"), ("+Y", "m", "y", "hundred"),
            ("-Y", "m", "z", "mixamo"), ("+X", "m", "z", "skin_offset")]


def write_variant(folder, facing, units, up, shape):
    """The biped of one VARIANTS entry, written in `folder`; returns its path."""
    words = shape.split()
    path = biped.write_biped(folder / "biped.glb", facing, units, up, root_bone="pelvis" not in words,
                             names="bones" if "bones" in words else "plain")
    if shape in scaled_rigs.VARIANTS:
        return scaled_rigs.write_variant(path, shape, folder / f"biped_{shape}.glb")
    return path
#: The contact windows' bar: within two frames of the generator's.
FRAMES = 2


@pytest.fixture(scope="module", params=VARIANTS, ids=["_".join(v).replace(" ", "_").strip("_") for v in VARIANTS])
def variant(request, tmp_path_factory):
    return request.param, Model(write_variant(tmp_path_factory.mktemp("biped"), *request.param))


def test_height_and_units(variant):
    (_, units, _, _), model = variant
    assert model.scale == (0.01 if units == "cm" else 1.0)
    assert model.height * model.scale == pytest.approx(biped.MESH_HEIGHT, abs=0.01)
    line = report(model).splitlines()[2]
    if units == "cm":
        assert line == "height: 180.00 units: a centimetre rig (scale 0.01 makes it 1.80 m)"
    else:
        assert line == "height: 1.80 m"


def test_facing_from_how_the_walk_moves(variant):
    """The turn undoes the generator's: the character then faces +Y (glTF's +Z forward needs 180)."""
    (facing, _, _, _), model = variant
    assert (model.turn - (-biped.FACINGS[facing])) % 360.0 == pytest.approx(0.0, abs=1e-6)
    assert "Walk" in model.facing[1]


@pytest.mark.parametrize("clip", sorted(biped.CLIPS))
def test_each_clip_is_what_the_generator_made(variant, clip):
    _, model = variant
    facts = model.facts(clip)
    assert facts.loops == (clip in biped.LOOPS)
    assert model.role(clip) == biped.ROLES[clip]
    assert facts.seconds == pytest.approx(biped.CLIPS[clip], abs=1e-6)
    speed = facts.speed * model.scale
    travel = facts.travel * model.scale
    if clip == "Walk":
        assert speed == pytest.approx(biped.SPEED, rel=0.01) and travel == 0.0
    elif clip == "Walk_Travel":
        assert travel == pytest.approx(biped.SPEED * biped.CYCLE, abs=1e-3) and speed == 0.0
    elif clip == "Vault":
        assert travel == pytest.approx(biped.VAULT_TRAVEL, abs=1e-3)
    else:
        assert speed == 0.0 and travel == 0.0
    expected = list(biped.CONTACTS[clip])
    found = [(p.limb.role, p.start, p.end) for p in facts.contacts]
    for role, start, end in expected:
        near = [f for f in found if f[0] == role and abs(f[1] - start) * biped.FPS <= FRAMES
                and abs(f[2] - end) * biped.FPS <= FRAMES]
        assert near, f"{clip}: {role} {start}..{end} not in {found}"
        found.remove(near[0])
    assert not found, f"{clip}: windows the generator did not make: {found}"


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """A centimetre biped facing -Y in a Y-up armature, and the character file the tool wrote for it."""
    folder = tmp_path_factory.mktemp("written")
    path = biped.write_biped(folder / "hero.glb", "-Y", "cm", "y")
    (folder / "characters").mkdir()
    out = folder / "characters" / "hero.json"
    result = run_inspect(path, "--write-character", out)
    assert result.returncode == 0, result.stderr
    return out, result.stdout


def test_the_written_character_file(written):
    out, stdout = written
    data = json.loads(out.read_text())
    assert data["model"] == "../hero.glb" and data["scale"] == 0.01 and data["turn"] == 180.0
    assert (data["root_joint"], data["root_mode"]) == ("root", "bone")
    assert data["clips"] == {"idle": "Idle", "walk": "Walk", "run": "Walk", "fall": "Fall", "land": "Idle"}
    assert data["speeds"] == {"walk": pytest.approx(biped.SPEED, rel=0.01), "run": pytest.approx(biped.SPEED, rel=0.01)}
    assert f"wrote {out}: idle Idle, walk Walk (" in stdout
    assert "note: no run clip found: Walk plays as run" in stdout and "note: no land clip found: Idle plays as land" in stdout
    assert Character.load(out).scale == 0.01


def test_the_written_character_walks_forward_in_the_demo_at_its_speed(base, written, tmp_path):
    """No edits: the demo loads the file; walking +Y for two seconds (0.2 s blend in) carries it
    about SPEED * 1.9 m along +Y in the world, though the rig is in centimetres and faces -Y."""
    out, _ = written
    scene = json.loads((SAMPLES / "scenes" / "course.json").read_text())
    scene.update(obstacles=[{"name": "far away", "shape": "box", "pos": [30, 30, 0], "size": [1, 1, 1]}],
                 spawn={"pos": [0, -3, 0], "h": 0}, autopilot=[])
    (tmp_path / "scene.json").write_text(json.dumps(scene))
    demo = Demo(base, Scene.load(tmp_path / "scene.json"), character=Character.load(out))
    demo.removeTask("demo-input")
    try:
        run_for(base, 0.5, 1 / 60)
        start = demo.actor.getPos()
        demo.controller.direction = Vec3(0, 1, 0)
        run_for(base, 2.0, 1 / 60)
        moved = demo.actor.getPos() - start
        assert abs(moved.x) < 1e-3
        assert biped.SPEED * 1.7 < moved.y < biped.SPEED * 2.0
        assert demo.actor.getScale().x == pytest.approx(0.01)
        # the body stands upright, head up: the head joint is above the feet in the world
        head = demo.actor.exposeJoint(None, "modelRoot", "head")
        assert head.getZ(base.render) - demo.actor.getZ(base.render) == pytest.approx(
            biped.HIPS + biped.HEAD_ABOVE_HIPS, abs=0.05)
        assert math.isfinite(moved.y)
    finally:
        demo.destroy()


@pytest.mark.parametrize("path, cycle", [
    (lambda t: 1.2 * t, True),               # moves through its seam: a cycle
    (lambda t: 1.2 * t * t, False),          # starts from rest (a start to walk): once
    (lambda t: 1.2 * (2 * t - t * t), False),  # comes to rest at its end (a stop): once
])
def test_a_travelling_loop_moves_at_both_ends_of_its_seam(path, cycle):
    """Design 12: a travelling clip that returns to its pose is a loop only if its root still
    travels at its first and at its last frame (more than STILL of the height per second)."""
    times = np.arange(31) / 30.0
    track = RootMotionTrack("clip", 30.0, np.column_stack([0 * times, [path(t) for t in times], 0 * times]),
                            np.zeros(31))
    assert clipfacts._moves_at_seam(track, 1.65) == cycle
