"""The contact IK on the Knight (../shared/rigs/Knight.glb, a KayKit rig we did not author), whose
character file turns its skeleton 180 degrees (glTF faces -Y): its jump onto lands one foot on a ridge
and one in a furrow 11 cm lower.

Each landing foot's contact eases in by the error the clip would land with: where the contract puts the
foot (the phase's target, turned, plus the contact's offset) less where the clip puts it at the
contact's start. The oracle is the same jump played without the IK (the joints' world positions, read
from the Actor each frame) and the level's own heights: the feet stay within that error of the clip's
feet, horizontally, and stand their authored height above the ridge and the furrow. The touchdown used
to be measured in the file's skeleton frame and applied in the turned Actor's: the feet swung 27 cm out
to the sides as they eased in, and the hips dropped 67 mm for one frame.
"""
import json

import pytest
from panda3d.core import Point3

from motionwarp import JumpProvider, SceneProbe, WarpAsset
from motionwarp.base.config import ContactIKSettings

from .contact_helpers import ContactRun, RidgeAndFurrow
from .conftest import ROOT
from .pose_oracle import KNIGHT

pytestmark = pytest.mark.skipif(KNIGHT is None, reason="../shared/rigs/Knight.glb is not beside the project")

FPS = 30
RIDGE, FURROW = 0.67, 0.11


@pytest.fixture(scope="module")
def knight():
    from motionwarp_demo.character.character_file import Character
    return Character.load(str(ROOT / "characters" / "knight.json"))


@pytest.fixture(scope="module")
def jump_onto():
    path = ROOT / "assets" / "knight" / "jump_onto.warp.json"
    return WarpAsset.from_dict(dict(json.loads(path.read_text()), model=str(KNIGHT)), path)


def played(base, knight, asset, level, ik):
    """(the Interaction, ContactRun) of the Knight's jump onto `level` from where it is first offered."""
    provider = JumpProvider(SceneProbe.from_geometry(level.root), [asset], reach=3.5)
    found, y = next((provider.find_at(Point3(0, y, 0), 0.0), y) for y in [1.0 - 0.05 * i for i in range(60)]
                    if provider.find_at(Point3(0, y, 0), 0.0))
    run = ContactRun(base, level, None, FPS, ik=ik, found=found, pos=(0.0, y, 0.0), actor=knight.load_actor(),
                     feet=knight.feet, joints=knight.feet)
    assert run.finished
    return found, [dict(frame["pos"], t=frame["t"]) for frame in run.frames]


def test_the_knights_landing_feet_ease_in_by_the_clips_own_error_and_stand_on_the_ridge_and_the_furrow(
        base, knight, jump_onto):
    level = RidgeAndFurrow(base.render, RIDGE, FURROW)
    try:
        found, with_ik = played(base, knight, jump_onto, level, ik=True)
        _, without = played(base, knight, jump_onto, level, ik=False)
    finally:
        level.root.removeNode()
    clip = {round(frame["t"], 4): frame for frame in without}
    blend = ContactIKSettings.from_prc().ik_blend_time
    phases = [phase.name for phase in jump_onto.phases]
    landings = [contact for contact in jump_onto.contacts if contact.touches == "target"]
    assert len(landings) == 2
    for contact in landings:
        pos, quat = found.targets[phases.index(contact.phase)].resolve(base.render, base.render)
        point = pos + quat.xform(contact.offset)
        frames = [frame for frame in with_ik if contact.start - blend < frame["t"] <= contact.end]
        animated = [clip[round(frame["t"], 4)][contact.joint] for frame in frames]
        error = max((point - at).getXy().length() for at, frame in zip(animated, frames)
                    if frame["t"] >= contact.start - 1e-3)
        drift = max((frame[contact.joint] - at).getXy().length() for at, frame in zip(animated, frames))
        assert drift <= error + 0.001, f"{contact.joint} {1000 * drift:.1f} mm from the clip's foot (its error " \
                                       f"{1000 * error:.1f} mm)"
        standing = [frame[contact.joint] for frame in frames if frame["t"] >= contact.start + 2.0 / FPS]
        heights = [at.z - level.surface(at.x, at.y) - contact.offset[2] for at in standing]
        assert len(standing) >= 8 and max(map(abs, heights)) < 0.001, heights
