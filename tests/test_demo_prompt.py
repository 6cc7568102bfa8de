"""The demo asks the providers: its prompt says what Space would do, or why not, and names the obstacle."""
import json

import pytest

from motionwarp_demo.app.app import Demo
from motionwarp_demo.level.scene import Scene

from .conftest import SAMPLES, step
from .test_demo_hud import card_box, window_size  # noqa: F401 (a fixture)


@pytest.fixture
def demo(base, warp_asset_dir):
    demo = Demo(base, Scene.load(SAMPLES / "scenes" / "course.json"), asset_dir=warp_asset_dir)
    yield demo
    demo.destroy()


@pytest.mark.parametrize("pos, h, expected", [
    ((0, 0.2, 0), 0, "Space: vault crate (vault, 1.00 m high, 0.60 m deep, 1.5 m away)"),
    ((0, 4.4, 0), 0, "Space: vault log (vault, 0.80 m high, 0.44 m deep, 1.2 m away)"),
    ((0, 25.5, 0), 0, "roofed ledge: too deep to vault (2.00 m > 1.20 m); no head room on top (1.20 m < 1.80 m); "
                      "too high to jump onto (1.40 m > 0.90 m)"),
    ((0, 0.2, 0), 90, "Space: nothing to vault, mantle, jump or interact with in front"),   # all it can do
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


#: The yard (scenes/yard.json and its props' marker nodes), and what the prompt says before each
#: thing in it, at 800x600: what Space does in a player's words (design 5.1: "pick up", "jump across",
#: "jump onto"), where, and what matters for the kind. Markers: the marker's height above the feet and
#: its ground distance, no depth. A gap: its width, edge to edge (the ledge's far side y = 27 to the
#: platform's near side y = 28.5), level, and the distance to its edge. A ledge: its height (0.8 m)
#: and the distance to the take-off (the clip's run back from the landing on top).
YARD_PROMPTS = [
    ((0, 0.2, 0), "Space: pick up (item, 0.14 m up, 0.8 m away)"),           # grab point (0, 0.97, 0.14)
    ((0, 4.3, 0), "Space: pick up (table, 0.90 m up, 1.0 m away)"),          # (0, 5.28, 0.90): the cup
    ((0, 8.8, 0), "Space: use (button wall, 1.15 m up, 1.0 m away)"),        # (0, 9.82, 1.15): the button
    ((0, 13.2, 0), "Space: sit (bench, 0.45 m up, 1.1 m away)"),             # seat (0, 14.3, 0.45)
    ((0, 17.9, 0), "Space: sit (chair, 0.45 m up, 1.1 m away)"),             # seat (0, 19.0, 0.45)
    ((-2, 21.0, 0), "Space: jump onto (ledge, 0.80 m high, 1.3 m away)"),
    ((-2, 26.0, 0.8), "Space: jump across (1.50 m gap to platform, 1.0 m away)"),
    ((0, 0.9, 0), "item: too close to pick up (0.07 m < 0.50 m)"),           # 0.97 - 0.90 on the ground
    # placed into the wall, the body steps back 5 cm at a time until its capsule (0.3 m) clears the
    # button (out to y 9.82): y 9.55, 0.27 m from it
    ((0, 9.8, 0), "button wall: too close to use (0.27 m < 0.50 m)"),
]


@pytest.fixture
def yard(base, warp_asset_dir, window_size):
    window_size(800, 600)
    demo = Demo(base, Scene.load(SAMPLES / "scenes" / "yard.json"), asset_dir=warp_asset_dir)
    yield demo
    demo.destroy()


@pytest.mark.parametrize("pos, expected", YARD_PROMPTS)
def test_the_yards_prompts_say_each_kind_in_words_on_one_line_at_800x600(base, yard, pos, expected):
    yard.controller.place(pos, 0)
    step(base, 1 / 60)
    text = yard.prompt.getText()
    assert text == expected
    assert "_" not in text and "0.00 m deep" not in text
    left, right, bottom, top = card_box(yard.prompt, base)
    assert base.a2dLeft < left < right < base.a2dRight and base.a2dBottom < bottom < top < base.a2dTop
    assert yard.prompt.textNode.getNumRows() == 1, text     # short enough not to wrap at 800x600


def test_the_autopilot_and_the_prompt_ask_the_chooser_once_a_frame(base, warp_asset_dir):
    """Walking the course under the autopilot (its interact() before the move, the HUD after it), the
    chooser is asked at most once a frame, and the prompt is what a fresh question gives there."""
    demo = Demo(base, Scene.load(SAMPLES / "scenes" / "course.json"), autopilot=True, asset_dir=warp_asset_dir)
    try:
        chooser, asked = demo.traversal, []
        find = chooser.find
        chooser.find = lambda actor: asked.append(1) or find(actor)
        per_frame, warped = [], 0
        for _ in range(180):
            before = len(asked)
            step(base, 1 / 60)
            per_frame.append(len(asked) - before)
            warped += demo.warper.is_warping
            if not demo.warper.is_warping:
                assert demo.prompt.getText() == demo.prompt_text(find(demo.actor))
        assert demo.autopilot.stopped is None and warped > 0     # it walked up to the first crate and took it
        assert max(per_frame[1:]) == 1 and per_frame.count(1) > 100   # the first: nothing was asked before it
    finally:
        demo.destroy()


def test_a_blocked_autopilot_names_the_obstacle_without_asking_the_chooser_again(base, warp_asset_dir, tmp_path):
    """Stopped in front of a tower it cannot take, the autopilot names it from the offer the HUD asked for
    where the character stands: the frame it stops in asks the chooser nothing, and no frame asks twice."""
    scene = json.loads((SAMPLES / "scenes" / "course.json").read_text())
    scene["obstacles"] = [{"name": "tower", "shape": "box", "pos": [0, 2, 0], "size": [2, 2, 3.0]}]
    scene["autopilot"] = [[0, -3], [0, 12]]
    path = tmp_path / "tower.json"
    path.write_text(json.dumps(scene))
    demo = Demo(base, Scene.load(path), autopilot=True, asset_dir=warp_asset_dir)
    try:
        chooser, asked = demo.traversal, []
        find = chooser.find
        chooser.find = lambda actor: asked.append(1) or find(actor)
        per_frame = []
        while demo.autopilot.stopped is None and len(per_frame) < 600:
            before = len(asked)
            step(base, 1 / 60)
            per_frame.append(len(asked) - before)
        assert demo.autopilot.stopped is not None and demo.autopilot.stopped["obstacle"] == "tower"
        assert max(per_frame[1:]) == 1 and per_frame[-1] == 0
    finally:
        demo.destroy()
