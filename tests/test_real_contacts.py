"""The contact IK on real props nobody here made (issue 26's done-when): planted hands within 1.5 cm of
the surface they touch, feet within -1 / +2 cm of what is under them, and no frame where the hips are
more than 10 cm below the warped clip's.

Copied props (motionwarp/samples/scenes/props/real/) at a turned heading and a scale; a character walks
up to each with the demo's chooser (tests/test_real_props.py) and the traversal it is offered is played
with the contact IK and without at 30 fps (tests/real_contact_runs.py). The oracle is the prop's own
triangles, read from its GLB bytes with numpy (tests/real_props.py), and the mannequin's authored
contacts: the surface under the point a palm touches (a hand over a surface more than the IK's 15 cm
reach below the target is counted apart: the IK keeps the target there by design), the surface or
ground under each planted sole, the hips frame by frame against the no-IK run at the same clip time.
The sweep over every prop is `python tests/bench/measure_contact_ik.py real`.
"""
import pytest

from .real_contact_runs import Measured
from .real_props import COPIED, PlacedProp, fitting, level, walk_up
from .test_real_props import assets, chooser  # noqa: F401 (the module's assets fixture)

HAND, FOOT_LOW, FOOT_HIGH, HIPS_DROP = 0.015, -0.010, 0.020, 0.10

#: The mantle's wrist is authored 2 cm in front of its palm. The IK used to seat the wrist 5 cm above the
#: surface under the wrist's own point: over a rounded or bevelled front lip (the target, the near end of
#: the flat top, lies 3.5 cm / 10 cm in from the face) that point is over the lip, 19 / 20 mm lower than
#: the flat top, and the palm went 19 / 20 mm into the top. The contact now names the point it touches
#: (`touch`, design 5.1): the palm ends 0.0 / 0.5 mm from the top.
#: box_large's top is a rim around a panel sunk 18 cm (x1) / 25 cm (x1.35) below it. Measured from its
#: triangles at x1.35: the flat rim runs 0.10 to 0.32 m in from the face and the panel starts at 0.37 m;
#: the mantle's ankles end at 0.52 and 0.64 m (soles 6 cm behind to 12 cm ahead of them), so both soles
#: are wholly over the panel. With the ledge top its one target the root ended at the rim's height and
#: the feet floated 248 mm over the panel (beyond the IK's 15 cm reach); the mantles' second phase now
#: lands the root on the floor the provider finds where they stand (design 7): the feet are on the panel.

CASES = [
    pytest.param("box_large", 0.55, 90.0, "vault", id="box_large-x0.55-90-vault"),
    pytest.param("table_long", 0.55, 270.0, "vault", id="table_long-x0.55-270-vault"),
    pytest.param("log_large", 2.0, 135.0, "vault", id="log_large-x2-135-vault"),
    pytest.param("cliff_block_rock", 2.0, 270.0, "mantle", id="cliff_block_rock-x2-270-mantle"),
    pytest.param("table_long", 1.35, 90.0, "mantle", id="table_long-x1.35-90-mantle"),
    pytest.param("box_large", 1.35, 270.0, "mantle", id="box_large-x1.35-270-mantle"),
]


@pytest.mark.parametrize("name, scale, heading, kind", CASES)
def test_planted_hands_and_feet_are_on_a_real_prop_and_the_hips_hold(base, assets, name, scale, heading, kind):  # noqa: F811
    placed = PlacedProp(COPIED / f"{name}.glb", heading, scale, 0.0)
    root, _ = level(base.render, base.loader, placed)
    try:
        found, y = walk_up(chooser(root, assets))
        assert found is not None, f"refused: {y.reason}"
        assert found.kind == kind and kind in fitting(assets, placed.size()), (found.kind, placed.size())
        run = Measured(base, root, placed, found, y)
    finally:
        root.removeNode()
    detail = "\n".join(run.worst_frames())
    assert run.finished, detail
    assert run.hand is not None, f"no planted hand over a surface it could reach: {run.apart} frames apart"
    assert run.hand <= HAND, f"hand {1000 * run.hand:.1f} mm\n{detail}"
    assert FOOT_LOW <= run.low and run.high <= FOOT_HIGH, f"feet {1000 * run.low:.1f} / {1000 * run.high:+.1f} mm\n{detail}"
    assert run.hips < HIPS_DROP, f"hips {1000 * run.hips:.0f} mm below the warped clip's\n{detail}"
