"""The warp's explicit state: waiting, then each phase in turn (in_phase, between), then ended;
the owner sends the events, at the moves they name, and a cancel carries its reason."""
import itertools

import pytest
from direct.showbase.DirectObject import DirectObject
from direct.showbase.MessengerGlobal import messenger

from motionwarp import CANCELLED, FINISHED, PHASE_END, PHASE_START, WarpState

from .conftest import step
from .warp_helpers import vault_targets


class Events:
    """Every motionwarp event with the sender's state when it was sent."""

    def __init__(self, warper):
        self.seen = []
        for event in (PHASE_START, PHASE_END, FINISHED, CANCELLED):
            messenger.accept(event, self, self._heard, [event, warper])

    def _heard(self, event, warper, sender, *args):
        warp = warper.current
        self.seen.append((event, sender is warper, None if warp is None else warp.state, args))

    def close(self):
        messenger.ignoreAll(self)


@pytest.fixture
def vaulting(rig, warp_assets):
    """(warper, asset, events heard, the vault just played)."""
    _, warper = rig
    asset = warp_assets["vault"]
    events = Events(warper)
    yield warper, asset, events, warper.play(asset, vault_targets(1.0, 0.6, 1.0))
    events.close()


def test_a_warp_moves_through_its_states_in_order(base, vaulting):
    warper, asset, events, warp = vaulting
    states = [(warp.state, warp.phase_index)]
    for _ in range(600):
        if not warper.is_warping:
            break
        step(base, 1 / 60)
        states.append((warp.state, warp.phase_index))
    count = len(asset.phases)
    assert states[0] == (WarpState.WAITING, 0) and states[-1] == (WarpState.ENDED, count)
    runs = [state for state, _ in itertools.groupby(states)]
    # A phase that starts on the frame the previous one ends skips BETWEEN on the frames seen.
    assert [r for r in runs if r[0] is not WarpState.BETWEEN] == (
        [(WarpState.WAITING, 0)] + [(WarpState.IN_PHASE, i) for i in range(count)] + [(WarpState.ENDED, count)])
    names = [p.name for p in asset.phases]
    assert [(e, a) for e, _, _, a in events.seen] == (
        [x for i, n in enumerate(names) for x in ((PHASE_START, (n, i)), (PHASE_END, (n, i)))] + [(FINISHED, (asset.clip,))])
    assert all(own for _, own, _, _ in events.seen), "an event was sent with another sender than the warper"
    assert [s for e, _, s, _ in events.seen if e == PHASE_START] == [WarpState.IN_PHASE] * len(names)
    assert [s for e, _, s, _ in events.seen if e == PHASE_END] == [WarpState.BETWEEN] * len(names)
    assert events.seen[-1][2] is None, "the warper still had the warp as current when it announced its end"


def test_a_cancel_ends_the_warp_with_its_reason(base, vaulting):
    warper, asset, events, warp = vaulting
    step(base, 1 / 60)
    warper.cancel("the test said so")
    assert warp.state is WarpState.ENDED and warper.current is None
    assert events.seen[-1][0] == CANCELLED and events.seen[-1][3] == (asset.clip, "the test said so")


def test_a_listener_that_cancels_at_a_phase_end_stops_the_warp_there(base, vaulting):
    """The frame's move stops with the warp: no later phase starts, nothing finishes after the cancel."""
    warper, asset, events, warp = vaulting
    game = DirectObject()
    game.accept(PHASE_END, lambda *args: warper.cancel("the game changed its mind"))
    try:
        for _ in range(300):
            step(base, 1 / 60)
    finally:
        game.ignoreAll()
    names = [p.name for p in asset.phases]
    assert [(e, a) for e, _, _, a in events.seen] == [(PHASE_START, (names[0], 0)), (PHASE_END, (names[0], 0)),
                                                      (CANCELLED, (asset.clip, "the game changed its mind"))]
    assert warp.state is WarpState.ENDED and warp.phase_index == 1 and not warper.is_warping


TRANSFORM_SETTERS = ("setPos", "setPosQuat", "setQuat", "setHpr", "setPosHpr", "setH", "setP", "setR", "setX",
                     "setY", "setZ", "setMat", "setTransform", "setPosQuatScale", "setPosHprScale")


def test_the_actor_is_written_once_a_frame_and_before_each_event(base, rig, warp_assets, monkeypatch):
    """One transform write per frame; an event sent mid-frame (a phase's start or end, the finish)
    first puts the actor where it happened, one write more each."""
    actor, warper = rig
    writes = []
    for name in TRANSFORM_SETTERS:
        setter = getattr(actor, name)
        monkeypatch.setattr(actor, name, lambda *args, setter=setter, name=name: (writes.append(name), setter(*args)))
    events = Events(warper)
    try:
        warper.play(warp_assets["vault"], vault_targets(1.0, 0.6, 1.0))
        per_frame = []
        while warper.is_warping:
            writes.clear()
            heard = len(events.seen)
            step(base, 1 / 60)
            per_frame.append((len(writes), len(events.seen) - heard))
    finally:
        events.close()
    assert len(per_frame) > 60 and set(writes) <= {"setPosQuat"}
    assert all(count == 1 + sent for count, sent in per_frame), per_frame
