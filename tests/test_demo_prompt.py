"""The demo asks the providers: its prompt says what Space would do, or why not, and names the obstacle."""
import pytest

from demo.app.app import Demo
from demo.level.scene import Scene

from .conftest import ROOT, step


@pytest.fixture
def demo(base, warp_asset_dir):
    demo = Demo(base, Scene.load(ROOT / "scenes" / "course.json"), asset_dir=warp_asset_dir)
    yield demo
    demo.destroy()


@pytest.mark.parametrize("pos, h, expected", [
    ((0, 0.2, 0), 0, "Space: vault crate (vault, 1.00 m high, 0.60 m deep, 1.5 m away)"),
    ((0, 4.4, 0), 0, "Space: vault log (vault, 0.80 m high, 0.44 m deep, 1.2 m away)"),
    ((0, 25.5, 0), 0, "roofed ledge: too deep to vault (2.00 m > 1.20 m); no head room on top (1.20 m < 1.80 m); "
                      "too high to jump onto (1.40 m > 0.90 m)"),
    ((0, 0.2, 0), 90, "Space: nothing to vault or mantle in front"),
])
def test_the_prompt_shows_every_frame(base, demo, pos, h, expected):
    demo.controller.place(pos, h)
    step(base, 1 / 60)
    assert demo.prompt.getText() == expected


def test_a_refusal_names_the_obstacle_in_the_report_hook(base, demo):
    skipped = []
    demo.on_skip = lambda name, reason: skipped.append((name, reason))
    demo.controller.place((0, 20.9, 0), 0)  # before the walled crate, facing it
    assert not demo.interact()
    assert skipped and skipped[0][0] == "walled crate" and skipped[0][1].startswith("landing blocked by wall behind")
