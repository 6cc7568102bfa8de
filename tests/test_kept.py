"""A provider's kept answer (scene/kept.py) is given again only to the question it answered, within
SAME_POS metres and SAME_H degrees (docs/design.md 7)."""
import dataclasses

import pytest

from motionwarp.scene.kept import KeptAnswer
from motionwarp.scene.measure import SAME_H, SAME_POS

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
