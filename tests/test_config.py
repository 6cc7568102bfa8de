"""Settings come from motionwarp-* PRC variables; constructor arguments win."""
import pytest
from panda3d.core import loadPrcFileData, unloadPrcFile

from motionwarp import MotionWarper, MotionWarpSettings, load_actor

from .conftest import MANNEQUIN


@pytest.fixture
def prc():
    page = loadPrcFileData("motionwarp-test-settings", "motionwarp-task-sort 33\nmotionwarp-max-turn-deg 20")
    yield
    unloadPrcFile(page)


def test_prc_variables_and_overrides(prc):
    settings = MotionWarpSettings.from_prc()
    assert settings.task_sort == 33 and settings.max_turn_deg == 20.0
    assert MotionWarpSettings.from_prc(task_sort=12).task_sort == 12
    assert MotionWarpSettings.from_prc(task_sort=None).task_sort == 33  # None keeps the PRC value
    with pytest.raises(TypeError, match="unknown motionwarp setting 'speed'"):
        MotionWarpSettings.from_prc(speed=2)


def test_warper_task_runs_at_the_configured_sort(base, prc):
    actor, other_actor = load_actor(MANNEQUIN), load_actor(MANNEQUIN)  # one warper per actor
    warper = MotionWarper(actor, taskmgr=base.taskMgr, render=base.render)
    other = MotionWarper(other_actor, taskmgr=base.taskMgr, render=base.render, sort=49)
    try:
        assert base.taskMgr.getTasksNamed(warper._task_name)[0].getSort() == 33
        assert base.taskMgr.getTasksNamed(other._task_name)[0].getSort() == 49
    finally:
        warper.destroy()
        other.destroy()
        actor.cleanup()
        other_actor.cleanup()
