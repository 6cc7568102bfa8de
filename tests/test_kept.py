"""A provider's kept answer (scene/kept.py) is given again only to the question it answered, within
SAME_POS metres and SAME_H degrees (docs/design.md 7); a kept line says a place is filed under its key
without rounding only where the rounding files it there."""
import dataclasses

import pytest
from panda3d.core import Point3, Vec3

from motionwarp.scene.kept import KeptAnswer, KeptLine, LineKey
from motionwarp.scene.measure import SAME_H, SAME_POS, facing

OBJECTS, VALUES = (object(), object()), (7, (3.0,))   # assets and settings; the edit count and what is read
KEPT = KeptAnswer(4, 1.0, 2.0, 0.5, 90.0, 1.0, OBJECTS, VALUES, "the answer")
ASKED = {"version": 4, "pos": (1.0, 2.0, 0.5), "h": 90.0, "scale": 1.0, "objects": OBJECTS, "values": VALUES}


def test_the_same_question_matches_and_a_hair_inside_too():
    assert KEPT.matches(**ASKED)
    near = dict(ASKED, pos=(1.0 + SAME_POS / 2, 2.0 - SAME_POS / 2, 0.5), h=90.0 + SAME_H / 2)
    assert KEPT.matches(**near)


@pytest.mark.parametrize("change", [
    {"version": 5}, {"pos": (1.0 + 2 * SAME_POS, 2.0, 0.5)}, {"pos": (1.0, 2.0 - 2 * SAME_POS, 0.5)},
    {"pos": (1.0, 2.0, 0.5 + 2 * SAME_POS)}, {"h": 90.0 + 2 * SAME_H}, {"scale": 1.5},
    {"objects": (OBJECTS[0],)}, {"objects": (OBJECTS[0], object())}, {"values": (8, (3.0,))}, {"values": (7, (2.5,))},
])
def test_any_other_question_does_not(change):
    assert not KEPT.matches(**dict(ASKED, **change))


def test_a_kept_answer_is_read_only():
    with pytest.raises(dataclasses.FrozenInstanceError):
        KEPT.x = 0.0  # type: ignore[misc]


@pytest.mark.parametrize("h", [0.0, 37.0, -121.5, 90.0])
def test_a_place_surely_filed_under_a_line_s_key_is_one_the_rounding_files_there(h):
    """KeptLine.surely_filed (a walking-up frame's key check without rounding) is True only where
    LineKey.placed files the place under the line's key: every 0.01 mm across the line over 2 mm either side
    of where it was measured (over the key's millimetre's edges), and True over most of the key's millimetre;
    another heading, or a line a million metres out, is left to the rounding."""
    forward = facing(h)
    origin = Point3(3.21, -7.6543, 0.4)
    line = KeptLine(LineKey((), *LineKey.placed(origin, h, forward)), origin.x, origin.y, origin.z, h,
                    forward.x, forward.y, 2.0, None, None)
    across = Vec3(-forward.y, forward.x, 0)   # the line's offset grows 1 m a metre this way
    sure = 0
    for step in range(-200, 201):
        pos = origin + across * (step * 1e-5)
        if line.surely_filed(pos, h):
            assert LineKey.placed(pos, h, forward) == (line.key.h, line.key.offset), step
            sure += 1
    assert sure >= 90
    assert not line.surely_filed(origin, h + SAME_H / 2)
    far = Point3(origin + across * 2e6)
    far_line = KeptLine(LineKey((), *LineKey.placed(far, h, forward)), far.x, far.y, far.z, h, forward.x,
                        forward.y, 2.0, None, None)
    assert not far_line.surely_filed(far, h)
