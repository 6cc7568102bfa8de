"""The demo asks the providers: its prompt says what Space would do, or why not, and names the obstacle."""
import pytest

from demo.app import Demo
from demo.scene import Scene

from .conftest import ROOT, step


@pytest.fixture
def demo(base, warp_asset_dir):
    demo = Demo(base, Scene.load(ROOT / "scenes" / "course.json"), asset_dir=warp_asset_dir)
    yield demo
    demo.destroy()


@pytest.mark.parametrize("pos, h, expected", [
    ((0, 0.2, 0), 0, "Space: vault crate (vault, 1.00 m high, 0.60 m deep, 1.5 m away)"),
    ((0, 4.4, 0), 0, "Space: vault log (vault, 0.80 m high, 0.44 m deep, 1.2 m away)"),
    ((5, 16.5, 0), 180, "roofed ledge: too deep to vault (2.00 m > 1.20 m); no head room on top (1.20 m < 1.80 m)"),
    ((0, 0.2, 0), 90, "Space: nothing to vault or mantle in front"),
])
def test_the_prompt_shows_every_frame(base, demo, pos, h, expected):
    demo.actor.setPos(*pos)
    demo.actor.setH(h)
    step(base, 1 / 60)
    assert demo.prompt.getText() == expected


def test_a_refusal_names_the_obstacle_in_the_report_hook(base, demo):
    skipped = []
    demo.on_skip = lambda name, reason: skipped.append((name, reason))
    demo.actor.setPos(5, 9.9, 0)  # before the walled crate, facing it
    demo.actor.setH(180)
    assert not demo.interact()
    assert skipped and skipped[0][0] == "walled crate" and skipped[0][1].startswith("landing blocked by wall behind")


def test_a_walking_character_stands_on_what_is_under_it(base, demo):
    demo.actor.setPos(20, 0, 1.5)  # over open ground, as after walking off a ledge
    step(base, 1 / 60)
    assert demo.actor.getZ() == pytest.approx(0.0, abs=1e-4)
    demo.actor.setPos(5, 15, 1.45)  # on the roofed ledge (1.4 m), a little above it
    step(base, 1 / 60)
    assert demo.actor.getZ() == pytest.approx(1.4, abs=1e-4)
