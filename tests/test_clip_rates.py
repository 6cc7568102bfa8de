"""Clips keyed at 24 fps (Blender's default scene rate) read by `inspect` as they were authored
(issue 28): baked at 30 fps, a cycle whose length is not a whole number of 30 fps frames ends on a
frame added to hold its final key (docs/design.md 3.1), a shorter step of motion than the others;
a walking loop is still a loop that travels on through its seam, not a one-shot."""
import math

import pytest

from motionwarp.animation.gltf_check import clip_ends
from motionwarp.tools.inspector import Model

from . import biped_samples as biped


def biped_at(monkeypatch, path, rate, cycle_frames, speed):
    """The generator's biped keyed at `rate` frames per second, its walks `cycle_frames` of them long."""
    cycle = cycle_frames / rate
    for name, value in (("FPS", rate), ("SPEED", speed), ("CYCLE", cycle), ("STRIDE", speed * biped.STANCE * cycle),
                        ("CLIPS", dict(biped.CLIPS, Walk=cycle, Walk_Travel=cycle))):
        monkeypatch.setattr(biped, name, value)
    return biped.write_biped(path)


@pytest.mark.parametrize("cycle_frames", [17, 19, 24, 25])
def test_a_slow_walk_keyed_at_24_fps_is_a_loop(monkeypatch, tmp_path, cycle_frames):
    """0.6 m/s, cycles of 17 and 25 frames (their final key a quarter of a 30 fps frame after the frame
    before it: the step the old reading took for a stop), 19 (three quarters) and 24 (on a frame)."""
    model = Model(biped_at(monkeypatch, tmp_path / "slow.glb", 24.0, cycle_frames, 0.6))
    seconds = cycle_frames / 24.0
    assert clip_ends(model.path)["Walk_Travel"] == pytest.approx(seconds, abs=1e-6)
    bundle = model.bundles["Walk_Travel"]
    frames = math.ceil(seconds * 30 - 1e-3) + 1
    assert bundle.getNumFrames() == frames
    assert model.last_step("Walk_Travel") == pytest.approx(seconds - (frames - 2) / 30, abs=1e-6)
    facts = model.facts("Walk_Travel")
    assert facts.loops and facts.travel == pytest.approx(0.6 * seconds, rel=0.01)
    assert model.role("Walk_Travel") == "walk"


def test_a_clip_on_whole_frames_steps_a_whole_frame_at_its_end(tmp_path):
    model = Model(biped.write_biped(tmp_path / "hero.glb"))
    assert model.last_step("Walk_Travel") == pytest.approx(1 / 30, abs=1e-9)
    assert model.last_step("Jump") == pytest.approx(1 / 30, abs=1e-9)
