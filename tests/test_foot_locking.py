"""Planted feet stay planted while the demo's character walks and runs (docs/contact-ik.md): the slide
a player sees, measured from the joints as the demo draws them (contact IK applied, read after its
task each frame), is the planted sole's horizontal speed over each window it stands in. A window is
read from the drawn sole alone: the frames it is within 1.5 cm of its lowest, three frames or more.
Played on the KayKit Knight (skipped when it is not beside the project) and the mannequin."""
import json

import numpy as np
import pytest
from panda3d.core import LMatrix4f, Vec3

from motionwarp_demo.app.app import Demo
from motionwarp_demo.character.character_file import Character
from motionwarp_demo.level.scene import Scene

from .conftest import ROOT, SAMPLES, run_for
from .pose_oracle import KNIGHT

#: The issue's bar (m/s): a planted sole slides slower than this over each window.
SLIDE = 0.03
#: After the contact IK's task (47), before drawing.
AFTER_IK = 48
#: A sole within this of its lowest drawn height (m) stands.
LOW = 0.015
FPS = 60.0


def far_scene(tmp_path):
    scene = json.loads((SAMPLES / "scenes" / "course.json").read_text())
    scene.update(obstacles=[{"name": "far away", "shape": "box", "pos": [60, 60, 0], "size": [1, 1, 1]}],
                 spawn={"pos": [0, -20, 0], "h": 0}, autopilot=[])
    (tmp_path / "scene.json").write_text(json.dumps(scene))
    return Scene.load(tmp_path / "scene.json")


def drawn_soles(base, demo, soles, running, seconds):
    """{sole: Nx3 world positions} each frame, after the contact IK, walking (or running) +Y."""
    demo.controller.direction = Vec3(0, 1, 0)
    demo.controller.running = running
    run_for(base, 1.5, 1 / FPS)   # up to speed
    character = demo.actor.find("**/+Character")
    joints = {sole: character.node().findJoint(sole) for sole in soles}
    found = {sole: [] for sole in soles}

    def record(task):
        world = character.getMat(base.render)
        for sole, joint in joints.items():
            net = LMatrix4f()
            joint.getNetTransform(net)
            found[sole].append(tuple(world.xformPoint(net.getRow3(3))))
        return task.cont
    base.taskMgr.add(record, "record-soles", sort=AFTER_IK)
    try:
        run_for(base, seconds, 1 / FPS)
    finally:
        base.taskMgr.remove("record-soles")
    return {sole: np.array(points) for sole, points in found.items()}


def window_slides(path):
    """The planted sole's mean horizontal speed (m/s) over each whole window it stands in (see the
    module): the way it travels from frame to frame inside the window, over the window's time."""
    low = path[:, 2] <= path[:, 2].min() + LOW
    slides, start = [], None
    for frame, standing in enumerate(np.append(low, False)):
        if standing and start is None:
            start = frame
        elif not standing and start is not None:
            if frame - start >= 3 and start > 0 and frame < len(path):   # whole windows only
                steps = np.linalg.norm(np.diff(path[start:frame, :2], axis=0), axis=1)
                slides.append(float(steps.sum() / ((frame - 1 - start) / FPS)))
            start = None
    return slides


def measure(base, tmp_path, character, running, locking=True):
    """{sole: [slide per window]} of `character` walking (or running) in the demo; without
    `locking`, the contact IK keeps feet on the ground but does not lock them."""
    demo = Demo(base, far_scene(tmp_path), character=character)
    demo.removeTask("demo-input")
    try:
        soles = sorted({sole for steps in demo.contact_ik.steps.values() for _, sole, _, _ in steps})
        if not locking:
            demo.contact_ik.steps = {}
        paths = drawn_soles(base, demo, soles, running, 3.0)
        return {sole: window_slides(path) for sole, path in paths.items()}
    finally:
        demo.destroy()


def knight_file(tmp_path):
    if KNIGHT is None:
        pytest.skip("../shared/rigs/Knight.glb is not beside the project")
    data = json.loads((ROOT / "characters" / "knight.json").read_text())
    (tmp_path / "knight.json").write_text(json.dumps(dict(data, model=str(KNIGHT), warp_assets=[])))
    return Character.load(tmp_path / "knight.json")


def shown(slides):
    return "; ".join(f"{sole} {', '.join(f'{s * 100:.1f}' for s in found)}" for sole, found in slides.items())


@pytest.mark.parametrize("running", [False, True], ids=["walk", "run"])
@pytest.mark.parametrize("who", ["knight", "mannequin"])
def test_planted_soles_stay_put(base, tmp_path, who, running):
    character = knight_file(tmp_path) if who == "knight" else Character.load(SAMPLES / "characters" / "mannequin.json")
    slides = measure(base, tmp_path, character, running)
    print(f"{who} {'run' if running else 'walk'}: planted slide per window (cm/s): {shown(slides)}")
    assert all(len(found) >= 2 for found in slides.values()), slides
    assert max(max(found) for found in slides.values()) < SLIDE, slides


def test_without_locking_the_knights_walk_slides(base, tmp_path):
    """The measure's own check, and the number before: the clip's planted toes shuffle and the
    contact IK only held their height (11.5 and 19.3 cm/s measured)."""
    slides = measure(base, tmp_path, knight_file(tmp_path), False, locking=False)
    print(f"Knight walk without locking: planted slide per window (cm/s): {shown(slides)}")
    assert min(max(found) for found in slides.values()) > 3 * SLIDE, slides
