"""The autopilot in a window, where the real-time clock can hitch: a frame longer than its blocked window."""
from motionwarp_demo.app.app import Demo
from motionwarp_demo.character.autopilot import BLOCKED_S
from motionwarp_demo.level.scene import Scene

from .conftest import SAMPLES, run_for, step


def test_a_frame_longer_than_the_blocked_window_is_a_hitch_not_a_stop(base, warp_asset_dir):
    demo = Demo(base, Scene.load(SAMPLES / "scenes" / "course.json"), autopilot=True, asset_dir=warp_asset_dir)
    try:
        run_for(base, 0.5, 1 / 60)   # walking toward the first crate
        start_y = demo.actor.getY(base.render)
        step(base, BLOCKED_S + 0.5)   # the first frame of a window compiling its shaders, say
        run_for(base, 0.5, 1 / 60)
        assert demo.autopilot.stopped is None
        assert demo.actor.getY(base.render) > start_y + 0.5   # still walking the course
    finally:
        demo.destroy()
