"""Roles found by the skeleton's shape (docs/design.md 3.2, 12): feet of bipeds whose joints say
nothing (`bone1`...) and whose legs hang from the top joint, a quadruped named like a biped refused,
a one-legged rig refused for want of feet, `--write-anyway`, the contact IK only for legs that bend,
and the inspector's "how sure" lines."""
import json

import numpy as np
import pytest

from authoring.gltf_writer import GltfBuilder
from motionwarp.animation.bodyplan import BodyPlan
from motionwarp.tools.inspector import Model, report

from . import biped_samples as biped
from . import rig_samples, scaled_rigs
from .test_inspect import tool_in_process

#: The quadruped: (leg name, hip offset from its girdle); its feet stand on the ground at FOOT.
QUAD_LEGS = {"front.L": "chest", "front.R": "chest", "back.L": "pelvis", "back.R": "pelvis"}
QUAD_BODY = 0.55   # girdle height
FOOT = 0.04


def write_quadruped(path):
    """A four-legged rig whose joints are named like a biped's (`foot_front.L`...) with an `Idle` and a
    `Walk` (each foot swinging in turn): the shape, four feet on the ground, must refuse it."""
    builder = GltfBuilder("quadruped")
    joints = {"root": builder.add_joint("root")}
    joints["pelvis"] = builder.add_joint("pelvis", joints["root"], (0.0, -0.35, QUAD_BODY))
    joints["spine"] = builder.add_joint("spine", joints["pelvis"], (0.0, 0.35, 0.02))
    joints["chest"] = builder.add_joint("chest", joints["spine"], (0.0, 0.35, 0.0))
    joints["neck"] = builder.add_joint("neck", joints["chest"], (0.0, 0.15, 0.2))
    joints["head"] = builder.add_joint("head", joints["neck"], (0.0, 0.15, 0.1))
    for leg, girdle in QUAD_LEGS.items():
        side = 0.15 if leg.endswith("R") else -0.15
        drop = QUAD_BODY + (0.02 if girdle == "chest" else 0.0) - FOOT
        joints[f"thigh_{leg}"] = builder.add_joint(f"thigh_{leg}", joints[girdle], (side, 0.0, -0.05))
        joints[f"shin_{leg}"] = builder.add_joint(f"shin_{leg}", joints[f"thigh_{leg}"], (0.0, 0.03, -0.45 * drop))
        joints[f"foot_{leg}"] = builder.add_joint(f"foot_{leg}", joints[f"shin_{leg}"], (0.0, -0.03, 0.05 - 0.55 * drop))
        joints[f"toe_{leg}"] = builder.add_joint(f"toe_{leg}", joints[f"foot_{leg}"], (0.0, 0.06, -0.02))
    corners = np.array([[x, y, z] for z in (0.4, 0.7) for y in (-0.4, 0.8) for x in (-0.2, 0.2)])
    faces = np.array([[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
                      [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]])
    builder.add_skinned_mesh("body", corners, np.tile([0, 0, 1.0], (8, 1)), np.array([[joints["pelvis"], 0, 0, 0]] * 8),
                             np.array([[1.0, 0, 0, 0]] * 8), faces, builder.add_material("grey", (0.6, 0.6, 0.6)))
    times = np.arange(31) / 30.0
    idle = [(joints["pelvis"], "translation", times,
             [(0.0, -0.35, QUAD_BODY + 0.01 * np.sin(np.pi * t)) for t in times], "LINEAR")]
    walk = [(joints[f"thigh_{leg}"], "rotation", times,
             [rig_samples.quat_axis((1, 0, 0), 25.0 * np.sin(2 * np.pi * (t + i / 4))) for t in times], "LINEAR")
            for i, leg in enumerate(QUAD_LEGS)]
    builder.add_animation("Idle", idle)
    builder.add_animation("Walk", walk)
    builder.write_glb(str(path))
    return path


@pytest.fixture(scope="module")
def quadruped(tmp_path_factory):
    return write_quadruped(tmp_path_factory.mktemp("quadruped") / "quadruped.glb")


def test_a_quadruped_named_like_a_biped_is_refused_in_one_line(quadruped, tmp_path, capsys):
    model = Model(quadruped)
    assert sorted(model.skeleton.plan.legs) == sorted(f"foot_{leg}" for leg in QUAD_LEGS)
    out = tmp_path / "characters" / "quadruped.json"
    status, stderr = tool_in_process(capsys, "inspect", quadruped, "--write-character", out)
    assert status == 2 and stderr.count("\n") == 1, stderr
    assert "4 feet reach the ground standing (a quadruped?)" in stderr and "--write-anyway" in stderr
    assert not out.exists()
    assert "  cannot play: 4 feet reach the ground standing" in report(model)


def test_write_anyway_writes_what_could_not_play_and_says_why(quadruped, tmp_path, capsys):
    from motionwarp.__main__ import main
    out = tmp_path / "quadruped.json"
    status = main(["inspect", str(quadruped), "--write-character", str(out), "--write-anyway"])
    printed = capsys.readouterr()
    assert status == 0, printed.err
    assert "  note: cannot play: 4 feet reach the ground standing (a quadruped?)" in printed.out
    data = json.loads(out.read_text())
    assert data["contact_ik"] is False and set(data["clips"]) >= {"idle", "walk", "run", "fall", "land"}


def test_a_rig_with_one_leg_is_refused_for_want_of_feet(tmp_path, capsys):
    fox = rig_samples.write_rig(tmp_path / "fox.glb", "fox_root")
    status, stderr = tool_in_process(capsys, "inspect", fox, "--write-character", tmp_path / "fox.json")
    assert status == 2 and stderr.count("\n") == 1, stderr
    assert "no feet found: no two chain ends reach the ground from legs" in stderr
    assert not (tmp_path / "fox.json").exists()


@pytest.mark.parametrize("root_bone", [True, False], ids=["root_bone", "legs_from_the_top"])
def test_unnamed_feet_are_found_by_shape_on_their_sides(tmp_path, root_bone):
    """Joints named bone1, bone2...: the feet are the ankles over the chain ends on the ground, the
    left one on the character's left (-X facing +Y, as the generator puts it), the pelvis where they
    meet; the arms' ends are the hands."""
    path = biped.write_biped(tmp_path / "bones.glb", "+Y", "m", "z", root_bone=root_bone, names="bones")
    plain_path = biped.write_biped(tmp_path / "plain.glb", "+Y", "m", "z", root_bone=root_bone)
    plain, model = Model(plain_path), Model(path)
    # both files hold the same nodes in the same order: node i's two names
    order = {bone["name"]: named["name"] for bone, named in zip(scaled_rigs.Glb.read(path).doc["nodes"],
                                                                 scaled_rigs.Glb.read(plain_path).doc["nodes"])}
    assert {role: order[limb.joint] for role, limb in model.skeleton.limbs.items()} == \
        {"foot_l": "foot.l", "foot_r": "foot.r", "hand_l": "hand.l", "hand_r": "hand.r"}
    assert order[model.skeleton.hips] == "hips"
    assert model.skeleton.how["feet"].startswith("likely: shaped as feet")
    assert plain.skeleton.how["feet"].startswith("sure: named and shaped")
    assert model.role("Walk") == "walk" and model.facts("Walk").speed == pytest.approx(biped.SPEED, rel=0.01)


def test_legs_that_cannot_bend_leave_the_contact_ik_off(tmp_path):
    """The generated biped's feet hang straight from one shared hip joint: no knee to bend."""
    from motionwarp.tools.character_writer import character_data
    model = Model(biped.write_biped(tmp_path / "hero.glb"))
    data, notes, problems = character_data(model, tmp_path / "hero.json")
    assert problems == [] and data["contact_ik"] is False and "feet" not in data
    assert any(note.startswith("contact_ik is off: the legs cannot bend (no knee") for note in notes)


def test_the_report_says_how_sure_it_is(tmp_path):
    model = Model(biped.write_biped(tmp_path / "hero.glb", names="bones"))
    text = report(model)
    block = text.split("how sure:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert [line.split(":", 1)[0].strip() for line in block] == ["units", "facing", "feet", "hands", "walk", "run"]
    assert "  units:       sure: 1.80 m tall, a human's height" in block
    assert "  facing:      sure: from how Walk moves (its feet step)" in block
    assert "  run:         not found: no stepping cycle is faster than 1 height a second" in block


def test_the_plan_of_a_skeleton_with_helpers_at_the_feet():
    """IK targets and foot-roll controls on the ground under a root bone are no legs: they rise to no knee."""
    rest = {"root": (0, 0, 0), "hips": (0, 0, 0.9), "ik_foot.l": (-0.1, 0, 0.05), "roll.l": (-0.1, 0.1, 0.0),
            "rollend.l": (-0.1, 0.2, 0.0), "thigh.l": (-0.1, 0, 0.85), "shin.l": (-0.1, 0, 0.45),
            "ankle.l": (-0.1, 0, 0.06), "toe.l": (-0.1, 0.1, 0.0), "thigh.r": (0.1, 0, 0.85), "shin.r": (0.1, 0, 0.45),
            "ankle.r": (0.1, 0, 0.06), "toe.r": (0.1, 0.1, 0.0), "head": (0, 0, 1.7)}
    parents = {"root": None, "hips": "root", "ik_foot.l": "root", "roll.l": "root", "rollend.l": "roll.l",
               "thigh.l": "hips", "shin.l": "thigh.l", "ankle.l": "shin.l", "toe.l": "ankle.l", "thigh.r": "hips",
               "shin.r": "thigh.r", "ankle.r": "shin.r", "toe.r": "ankle.r", "head": "hips"}
    plan = BodyPlan(parents, {k: np.array(v, dtype=float) for k, v in rest.items()}, 1.7)
    assert plan.legs == ["ankle.l", "ankle.r"] and plan.pelvis == "hips" and plan.toes == (0.0, 1.0)
    assert plan.side("ankle.l") == "l" and plan.side("ankle.r") == "r"


@pytest.mark.parametrize("clip, kind, limbs", [("in_place", "jump_over", "feet"), ("in_place", "jump_onto", "feet"),
                                               ("walk", "vault", "hands"), ("in_place", "pick_up", "hands"),
                                               ("in_place", "use", "hands")])
def test_author_names_the_missing_feet_or_hands_not_a_clip_that_never_leaves_the_ground(tmp_path, capsys, clip,
                                                                                         kind, limbs):
    """A rig whose feet (or hands) were not found: the refusal says so, not "its feet never leave the ground"."""
    fox = rig_samples.write_rig(tmp_path / "fox.glb", "fox_root")
    out = tmp_path / "fox.warp.json"
    status, stderr = tool_in_process(capsys, "author", fox, clip, "--kind", kind, "--out", out)
    assert status == 2 and stderr.count("\n") == 1, stderr
    assert f"{clip}: fox.glb has no {limbs} to read this clip's contacts from" in stderr
    assert "never leave the ground" not in stderr and "inspect fox.glb" in stderr
    if limbs == "feet":
        assert "no feet found: no two chain ends reach the ground" in stderr
    assert not out.exists()
