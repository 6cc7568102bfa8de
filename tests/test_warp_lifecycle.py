"""Every warp ends, and ends with a reason, whatever the game does to its clip, its targets or
from inside its own event handlers (docs/design.md 10, Events: the rule for a handler's exception
follows Panda3D's messenger and task manager: the exception reaches the caller, unchanged, after
motionwarp has finished what it was doing)."""
import numpy as np
import pytest
from direct.showbase.DirectObject import DirectObject

from motionwarp import CANCELLED, FINISHED, PHASE_END, PHASE_START, WarpRefused, WarpState, WarpTarget

from .conftest import step
from .warp_helpers import ledge_targets, vault_targets

TARGETS = vault_targets(1.0, 0.6, 1.0)


class GameBug(Exception):
    """An exception a game's own handler raises (never one motionwarp raises)."""


@pytest.fixture
def game():
    """A game object listening to motionwarp's events; `heard` gets (event, args) of each."""
    listener = DirectObject()
    listener.heard = []
    for event in (PHASE_START, PHASE_END, FINISHED, CANCELLED):
        listener.accept(event, lambda *args, event=event: listener.heard.append((event, args[1:])))
    yield listener
    listener.ignoreAll()


def on(game, event, handler):
    """Make `handler` the game's listener for `event`, still recording what it hears."""
    game.accept(event, lambda *args: (game.heard.append((event, args[1:])), handler(*args)))


def frames(base, count):
    for _ in range(count):
        step(base, 1 / 60)


def run_to_end(base, warper, limit=600):
    """Frames until no warp plays (at most `limit`); the actor's position after each."""
    path = []
    for _ in range(limit):
        step(base, 1 / 60)
        path.append(np.array(warper.actor.getPos()))
        if not warper.is_warping:
            return path
    raise AssertionError(f"the warp still plays after {limit} frames: {warper.current.state}")


def first_phase_started(base, warper, warp):
    for _ in range(300):
        step(base, 1 / 60)
        if warp.in_phase:
            return
    raise AssertionError("the first phase never started")


# -- the game stops the warp's clip --------------------------------------------------------------

@pytest.mark.parametrize("phases_done", [None, 0, 2])
def test_stopping_the_clip_cancels_the_warp_with_a_reason(base, rig, warp_assets, game, phases_done):
    """Stopped before its first frame (waiting), in the first phase, in the last."""
    actor, warper = rig
    vault = warp_assets["vault"]
    warp = warper.play(vault, TARGETS)
    if phases_done is not None:
        first_phase_started(base, warper, warp)
        while len(warp.results) < phases_done:
            step(base, 1 / 60)
    assert warp.state is (WarpState.WAITING if phases_done is None else WarpState.IN_PHASE)
    actor.stop(vault.clip)
    frame = actor.getAnimControl(vault.clip).getFullFframe()
    frames(base, 3)
    assert warp.state is WarpState.ENDED and not warper.is_warping
    assert game.heard[-1] == (CANCELLED, ("vault", "the warp's clip was stopped before its last phase ended"))
    control = actor.getAnimControl(vault.clip)
    assert not control.isPlaying() and control.getFullFframe() == pytest.approx(frame)


def test_a_play_rate_of_zero_cancels_and_the_game_keeps_its_rate(base, rig, warp_assets, game):
    actor, warper = rig
    vault = warp_assets["vault"]
    warp = warper.play(vault, TARGETS)
    first_phase_started(base, warper, warp)
    actor.setPlayRate(0.0, vault.clip)
    frames(base, 2)
    assert warp.state is WarpState.ENDED
    assert game.heard[-1] == (CANCELLED, ("vault", "the warp's clip was set to play at rate 0 before its last "
                                                   "phase ended"))
    assert actor.getAnimControl(vault.clip).getPlayRate() == 0.0, "the game's rate 0 was overwritten"


def test_a_clip_stopped_after_the_last_phase_finishes_the_warp(base, rig, warp_assets, game):
    actor, warper = rig
    vault = warp_assets["vault"]
    warp = warper.play(vault, TARGETS)
    while len(warp.results) < len(vault.phases):
        step(base, 1 / 60)
    actor.stop(vault.clip)
    frames(base, 2)
    assert warp.state is WarpState.ENDED and game.heard[-1] == (FINISHED, ("vault",))


# -- a handler that starts a warp while play() replaces one --------------------------------------

def test_a_warp_started_by_a_cancel_handler_during_play_keeps_playing(base, rig, warp_assets, game):
    actor, warper = rig
    vault, mantle = warp_assets["vault"], warp_assets["mantle"]
    warper.play(vault, TARGETS)
    frames(base, 5)
    started = []
    on(game, CANCELLED, lambda *args: started.append(warper.play(vault, vault_targets(1.0, 0.6, 1.2)))
       if not started else None)
    game.heard.clear()
    with pytest.raises(WarpRefused, match="^a motionwarp-cancelled handler started another warp in its place$"):
        warper.play(mantle, ledge_targets(1.5, 0.5))
    assert warper.current is started[0] and started[0].state is WarpState.WAITING
    run_to_end(base, warper)
    assert started[0].state is WarpState.ENDED and len(started[0].results) == len(vault.phases)
    assert [e for e, _ in game.heard] == [CANCELLED] + [PHASE_START, PHASE_END] * 3 + [FINISHED]
    assert not actor.getAnimControl(mantle.clip).isPlaying()


def test_a_cancel_handler_that_destroys_the_warper_during_play_refuses_the_new_warp(base, rig, warp_assets, game):
    actor, warper = rig
    vault = warp_assets["vault"]
    warper.play(vault, TARGETS)
    frames(base, 5)
    on(game, CANCELLED, lambda *args: warper.destroy())
    with pytest.raises(WarpRefused, match="handler destroyed the warper"):
        warper.play(vault, TARGETS)
    assert warper.current is None and warper.destroyed


# -- exceptions from the game's own handlers -----------------------------------------------------

def recorded_run(base, rig, asset, exception=None):
    """The actor's positions, frame by frame, of a vault from the origin (after two still frames),
    and the `exception`s taskMgr.step() raised meanwhile."""
    actor, warper = rig
    actor.stop()
    actor.setPosQuat((0, 0, 0), (1, 0, 0, 0))
    frames(base, 2)
    warp = warper.play(asset, TARGETS)
    path, raised = [], []
    for _ in range(600):
        try:
            step(base, 1 / 60)
        except exception or () as caught:
            raised.append(caught)
        path.append(np.array(actor.getPos()))
        if not warper.is_warping:
            return warp, path, raised
    raise AssertionError("the warp never ended")


@pytest.mark.parametrize("event", [PHASE_START, PHASE_END])
def test_a_handler_exception_reaches_the_game_loop_and_the_warp_plays_on_unchanged(base, rig, warp_assets, game,
                                                                                event):
    """taskMgr.step() raises the game's own exception (as for any task of the game's), once per
    raising handler call, and the warp's moves are exactly those of a run without it."""
    actor, warper = rig
    vault = warp_assets["vault"]
    _, clean, _ = recorded_run(base, rig, vault)
    bugs = []

    def broken(*args):
        bugs.append(GameBug(f"the game's handler is broken ({len(bugs)})"))
        raise bugs[-1]
    on(game, event, broken)
    warp, path, raised = recorded_run(base, rig, vault, GameBug)
    assert raised == bugs and len(bugs) == len(vault.phases)
    assert raised[0].__notes__ == ["(a game's motionwarp event handler raised this during MotionWarper frame task, "
                                   "which finished first)"]
    assert warp.state is WarpState.ENDED and len(warp.results) == len(vault.phases)
    assert game.heard[-1] == (FINISHED, ("vault",))
    # A frame that raised skipped the tasks after the warper's, igLoop among them (it ticks the
    # clock): the next frame has no time to play and repeats the position. Otherwise the same frames,
    # to 0.1 mm: the runs start at other clock times, whose float rounding moves the clip time a little
    # (a frame's move is centimetres).
    np.testing.assert_allclose(moves(path), moves(clean), atol=1e-4)
    assert len(path) == len(clean) + len(raised)


def moves(path):
    """The positions with each repeat of the one before left out."""
    return [p for i, p in enumerate(path) if i == 0 or np.abs(p - path[i - 1]).max() > 1e-9]


def test_a_refused_play_in_a_phase_end_handler_does_not_cancel_the_running_warp(base, rig, warp_assets, game):
    actor, warper = rig
    vault = warp_assets["vault"]
    warp = warper.play(vault, TARGETS)
    on(game, PHASE_END, lambda *args: warper.play(vault, [WarpTarget((0, 50, 0))]))   # far too far: refused
    refusals = []
    for _ in range(600):
        try:
            step(base, 1 / 60)
        except WarpRefused as refused:
            refusals.append(refused)
        if not warper.is_warping:
            break
    assert len(refusals) == len(vault.phases)
    assert warp.state is WarpState.ENDED and len(warp.results) == len(vault.phases)
    assert CANCELLED not in [e for e, _ in game.heard]


def test_a_handler_exception_in_cancel_comes_out_of_cancel_after_the_warp_ended(base, rig, warp_assets, game):
    actor, warper = rig
    vault = warp_assets["vault"]
    warp = warper.play(vault, TARGETS)
    first_phase_started(base, warper, warp)

    def broken(*args):
        raise GameBug("cancel handler")
    on(game, CANCELLED, broken)
    with pytest.raises(GameBug, match="cancel handler"):
        warper.cancel("the game said so")
    assert warp.state is WarpState.ENDED and not warper.is_warping and warper.play_rate == 1.0
    assert actor.getAnimControl(vault.clip).getPlayRate() == 1.0
    frames(base, 3)   # nothing left to raise


def test_a_handler_exception_during_play_comes_out_of_play_with_the_new_warp_playing(base, rig, warp_assets, game):
    actor, warper = rig
    vault = warp_assets["vault"]
    warper.play(vault, TARGETS)
    frames(base, 5)

    def broken(*args):
        raise GameBug("cancel handler")
    on(game, CANCELLED, broken)
    with pytest.raises(GameBug):
        warper.play(vault, vault_targets(1.0, 0.6, 1.2))
    game.ignore(CANCELLED)
    new = warper.current
    assert new is not None and new.targets[0].pos[1] == pytest.approx(1.2)
    run_to_end(base, warper)
    assert len(new.results) == len(vault.phases)


def test_a_handler_exception_in_destroy_still_removes_the_task(base, rig, warp_assets, game):
    actor, warper = rig
    warper.play(warp_assets["vault"], TARGETS)
    frames(base, 3)
    on(game, CANCELLED, lambda *args: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        warper.destroy()
    assert warper.destroyed and not base.taskMgr.hasTaskNamed(warper._task_name)
    assert actor.getPythonTag("motionwarp-warper") is None


def test_a_handler_whose_play_is_refused_sees_the_refusal_itself(base, rig, warp_assets, game):
    """A handler's own play() is an operation of its own: its exception reaches the handler."""
    actor, warper = rig
    vault = warp_assets["vault"]
    warper.play(vault, TARGETS)
    seen = []

    def replay(*args):
        try:
            warper.play(vault, [WarpTarget((0, 50, 0))])
        except WarpRefused as refused:
            seen.append(refused.reason)
    on(game, PHASE_END, replay)
    run_to_end(base, warper)
    assert len(seen) == len(vault.phases) and all("phases" in reason or "target" in reason for reason in seen)


# -- a followed node scaled to nothing ----------------------------------------------------------

@pytest.mark.parametrize("scale", [0.0, (1.0, 1.0, 0.0), 1e-9])
def test_a_follow_node_scaled_to_nothing_cancels_instead_of_sinking(base, rig, warp_assets, game, scale):
    actor, warper = rig
    vault = warp_assets["vault"]
    platform = base.render.attachNewNode("platform")
    warp = warper.play(vault, [WarpTarget(t.pos, h=t.h, follow=platform) for t in TARGETS])
    first_phase_started(base, warper, warp)
    platform.setScale(*(scale if isinstance(scale, tuple) else (scale,)))
    lowest = min(p[2] for p in run_to_end(base, warper))
    assert game.heard[-1] == (CANCELLED, ("vault", "the follow node of phase 'close_edge''s target is scaled to "
                                                   "nothing (its transform cannot be inverted)"))
    assert lowest > -0.01, f"the character went {lowest:.2f} m under the ground"


def test_of_two_handler_exceptions_in_one_frame_the_first_comes_out(base, rig, warp_assets, game):
    """The vault's phases touch: one frame ends a phase and starts the next; its end's exception
    comes out, its start's is only logged."""
    actor, warper = rig
    vault = warp_assets["vault"]

    def broken(kind):
        def handler(warper, name, index):
            raise GameBug(f"{kind} {name}")
        return handler
    on(game, PHASE_START, broken("start"))
    on(game, PHASE_END, broken("end"))
    _, _, raised = recorded_run(base, rig, vault, GameBug)
    assert [str(bug) for bug in raised] == ["start close_edge", "end close_edge", "end far_edge", "end landing"]


def test_a_handlers_own_play_raises_its_handlers_exception_to_that_handler(base, rig, warp_assets, game):
    """A phase-start handler replaces the warp; the cancel handler's bug comes out of that play(), in
    the handler, not out of the frame."""
    actor, warper = rig
    vault = warp_assets["vault"]
    warper.play(vault, TARGETS)
    caught = []

    def replace(*args):
        try:
            warper.play(vault, vault_targets(1.0, 0.6, 1.0))
        except GameBug as bug:
            caught.append(bug)
        game.ignore(PHASE_START)

    def broken(*args):
        raise GameBug("cancel handler")
    on(game, PHASE_START, replace)
    on(game, CANCELLED, broken)
    run_to_end(base, warper)   # a GameBug out of the frame would fail here
    assert [str(bug) for bug in caught] == ["cancel handler"]
