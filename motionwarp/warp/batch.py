"""WarpBatch: the per-frame pass of many MotionWarpers in one task, their in-phase frames placed all at once.

A crowd of warpers, each in its own task, costs Python per character for the same arithmetic
(docs/design.md 4's placement), and that cost grows with the crowd: per-frame temporaries feed the
garbage collector and every character's objects leave the CPU caches between two of its frames. The
batch runs every warper it holds in one task. A frame inside a phase of a plain warp (no blend, a
target that does not follow a node, `warp_rotation` on) takes the fast path: per character only the
pose update (`actor.update()`), the clip time, the driver's bookkeeping and one `setPosQuat`; the
placement of all of them is one numpy pass over arrays that change only when a phase starts. Every
other frame goes through the warper's own code: a frame of plain root motion between phases or after
the last (nothing else in it) through the same functions its task calls, without its overhead; phase
starts and ends, events, blends, refusals and errors through its task, unchanged. So the lifecycle,
the events and each phase's exact arrival are the single path's.
"""
import math
import weakref

import numpy as np
from direct.actor.Actor import Actor
from panda3d.core import ClockObject

from ..base.config import MotionWarpSettings, from_base
from ..base.errors import UsageError, shown
from .placement import moved_by
from .turning import is_plain
from .warper import MotionWarper, WarpState, heard_events

_IN_PHASE, _BETWEEN = WarpState.IN_PHASE, WarpState.BETWEEN


class _Atlas:
    """The root-motion tables of every phase the batch placed, end to end: per knot its frame, A(t) and
    S(t). A phase's knots (its frames, from f0 to f1) sit at `_SEAM` * its number + frame, so one
    sorted search finds the knot before any row's frame, whatever its phase."""

    def __init__(self):
        self.keys = np.zeros(0)
        self.frames = np.zeros(0)
        self.rows = np.zeros((6, 0))
        self.spans = {}   # id(PhaseMotion): (PhaseMotion, its key offset)

    def offset(self, motion):
        """The key offset of `motion`'s knots, its tables added on first use."""
        kept = self.spans.get(id(motion))
        if kept is None or kept[0] is not motion:
            number = len(self.spans)
            frames = np.asarray(motion.frames, dtype=np.float64)
            rows = np.hstack([np.asarray(motion.samples, dtype=np.float64), np.asarray(motion.cumulative, dtype=np.float64)])
            self.keys = np.concatenate([self.keys, frames + _SEAM * number])
            self.frames = np.concatenate([self.frames, frames])
            self.rows = np.hstack([self.rows, rows.T])
            kept = self.spans[id(motion)] = (motion, _SEAM * number)
        return kept[1]

    def at(self, frames, offset):
        """A and S (6, n) at `frames`, each within [f0, f1) of the phase at key `offset`, interpolated as
        PhaseMotion does (the fast path never asks outside: the phase's end frame is the warper's own)."""
        i = np.searchsorted(self.keys, frames + offset, side="right") - 1
        before = self.rows[:, i]
        return before + (self.rows[:, i + 1] - before) * ((frames - self.frames[i]) / (self.frames[i + 1] - self.frames[i]))


#: Phases the atlas holds before it starts again (each asset edit brings new ones).
_MOST_PHASES = 4096
#: Knot keys of one phase lie _SEAM apart from the next one's (more than any clip's frame count).
_SEAM = 1e6
#: The columns of a row of the batch's table: what placing its phase needs, fixed for the phase.
_P0, _R0, _D, _TRAVEL_K, _TIME_K, _F0, _SPAN, _SCALE, _SLERP_A, _SLERP_B, _THETA, _SIN_THETA, _LINEAR = (
    0, 3, 7, 10, 13, 16, 17, 18, 19, 23, 27, 28, 29)
_OFFSET = 30   # the phase's key offset in the atlas
_COLUMNS = 31


class _Row:
    """What a warper's fast frames read, fixed while its phase plays (kept to spare lookups per frame)."""

    __slots__ = ("warp", "plan", "phase", "motion", "f1", "scale", "actor", "bundle", "control", "driver", "driven",
                 "update_pose")

    def __init__(self, warper, warp, plan, phase):
        self.warp, self.plan, self.phase, self.motion = warp, plan, phase, phase.motion
        self.f1, self.scale = phase.motion.f1, plan.scale
        self.actor, self.driver, self.control = warper.actor, warper.driver, warp.control
        self.bundle = self.driver.part_bundle
        self.driven = self.driver._clip_named[warp.asset.clip]   # the warp clip as the driver follows it
        self.update_pose = _pose_update(warper.actor, self.bundle) or warper._update_pose


def _pose_update(actor, bundle):
    """`bundle.update` when that is all `actor.update()` does (a plain Actor of one part in one LOD, the
    warper's own pose update reads them anew each frame to the same end), else None."""
    if type(actor).update is not Actor.update:
        return None
    lods = actor.getLODNames()
    parts = actor.getPartBundleDict()[lods[0]] if len(lods) == 1 else {}
    if len(parts) == 1 and next(iter(parts.values())).partBundleHandle.getBundle() == bundle:
        return bundle.update
    return None


class _Slot:
    """A warper's place in the batch: its column of the table, its fast row (None until a phase that can
    take the fast path plays), and the batch's frame whose pass it last finished (see WarpBatch.remove)."""

    __slots__ = ("warper", "column", "row", "cur", "posed", "ran", "gone")

    def __init__(self, warper, column):
        self.warper, self.column = warper, column
        self.row, self.cur, self.ran, self.gone = None, None, -1, False
        self.posed = None   # (batch frame, clip frame) of the fast path's last pose update


#: Which batch runs a warper (a weak reference to it): two batches would both run it.
_HELD: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class WarpBatch:
    """Runs the per-frame pass of the MotionWarpers added to it, in one task at `sort` (default: the first
    warper's `task_sort`), instead of each warper's own task.

    `add(warper)` takes a warper over (its own task is removed), `remove(warper)` gives it back its task,
    `destroy()` gives every warper back. A warper destroyed or whose actor was removed leaves the batch.
    Where the actor ends each frame is where the warper's own task puts it (to float32 rounding), whatever
    a game's event handler does meanwhile to another character (removes it, its warper, its batch place).
    """

    def __init__(self, taskmgr=None, sort=None):
        self._taskmgr = taskmgr or from_base("taskMgr")
        self._sort = None if sort is None else MotionWarpSettings.from_prc(task_sort=sort).task_sort
        self._task_name = f"motionwarp-batch-{id(self)}"
        self._task_added = False
        self._clock = ClockObject.getGlobalClock()
        self._slots = []            # in table column order; one that left is `gone` until the frame ends
        self._slot_of = {}          # warper: its _Slot
        self._frame_number = 0      # the batch's frames so far
        self._running = False       # inside the batch's task (a handler's add and remove wait for its end)
        #: Character-frames placed on the fast path so far (the others ran the warper's own task).
        self.fast_frames = 0
        self._atlas = _Atlas()
        self._grow(16)

    @property
    def warpers(self):
        """The warpers the batch runs, in the order it runs them."""
        return [slot.warper for slot in self._slots if not slot.gone]

    def _grow(self, rows):
        old = self.__dict__.get("_table")
        self._table = np.zeros((_COLUMNS, rows))
        if old is not None:
            self._table[:, :old.shape[1]] = old

    # -- membership -----------------------------------------------------------------------
    def add(self, warper):
        """Run `warper`'s per-frame pass in this batch from the next frame on (a second add does nothing)."""
        if not isinstance(warper, MotionWarper):
            raise UsageError(f"WarpBatch.add: expected a MotionWarper, got {type(warper).__name__} {shown(warper)}")
        if warper in self._slot_of:
            return
        if warper.destroyed:
            raise UsageError("WarpBatch.add: this warper was destroyed")
        if warper.actor.isEmpty():
            raise UsageError("WarpBatch.add: the warper's actor was removed")
        holder = _HELD.get(warper)
        if holder is not None and holder() is not None:
            raise UsageError("WarpBatch.add: this warper is in another WarpBatch (remove it from that one first; "
                             "two batches would both run it)")
        warper._taskmgr.remove(warper._task_name)
        _HELD[warper] = weakref.ref(self)
        slot = self._slot_of[warper] = _Slot(warper, len(self._slots))
        self._slots.append(slot)
        if len(self._slots) > self._table.shape[1]:
            self._grow(2 * len(self._slots))
        if not self._task_added:
            sort = self._sort if self._sort is not None else warper.settings.task_sort
            self._taskmgr.add(self._task, self._task_name, sort=sort)
            self._task_added = True

    def remove(self, warper):
        """Give `warper` back its own task. A warper that left by itself (destroyed, its actor removed)
        has nothing to get back: removing it does nothing. Called from a game's handler during the
        batch's frame, its own task runs this frame unless the batch already ran its frame."""
        if not isinstance(warper, MotionWarper):
            raise UsageError(f"WarpBatch.remove: expected a MotionWarper, got {type(warper).__name__} {shown(warper)}")
        slot = self._slot_of.get(warper)
        if slot is None:
            if warper.destroyed or warper.actor.isEmpty():
                return
            raise UsageError("WarpBatch.remove: this warper is not in this batch (never added, or already removed)")
        self._leave(slot)
        if not warper.destroyed:
            ran = self._running and slot.ran == self._frame_number
            warper._taskmgr.add(warper._task, warper._task_name, sort=warper.settings.task_sort,
                                delay=0.0 if ran else None)   # delay 0: from the next frame on

    def destroy(self):
        """Remove the batch's task and give every warper back its own."""
        for warper in self.warpers:
            self.remove(warper)
        self._taskmgr.remove(self._task_name)
        self._task_added = False

    def _leave(self, slot):
        """`slot`'s warper leaves the batch; its column is freed now, or at the frame's end during one."""
        slot.gone = True
        del self._slot_of[slot.warper]
        _HELD.pop(slot.warper, None)
        if not self._running:
            self._compact()

    def _compact(self):
        """Close the gaps the warpers that left made, keeping the others' order and table columns."""
        kept = [slot for slot in self._slots if not slot.gone]
        if len(kept) == len(self._slots):
            return
        for column, slot in enumerate(kept):   # each column moves down: no source is overwritten first
            if slot.column != column:
                self._table[:, column] = self._table[:, slot.column]
                slot.column = column
        self._slots = kept

    # -- the frame ------------------------------------------------------------------------
    def _task(self, task):
        """Each warper's frame: the fast path where it can take it, else its own task; then the fast
        ones placed at once.

        The fast path is the single path's frame inside a phase with nothing else to do: the warp
        plays unblended (no fade, the Actor not blending: then every other clip is stopped, and one
        started or posed would stop the warp's clip, so no other clip moves the actor, lifts it or
        changes its clip time; a warp's first frame is its own task's, which brings the driver's
        lift back to 0), its phase plan is fixed (no following target, same scale), and the clip
        moved on without restarting or reaching the phase's end.

        A game's handler (called from a warper's own frame) may do anything to any character: after
        one, the frames decided for the fast path are decided again, as if their own tasks ran after
        it. Warpers that join during the frame start at the next; those that leave are not placed;
        a handler's exception is raised once every warper had its frame (the first, as a task's)."""
        if len(self._atlas.spans) > _MOST_PHASES:   # assets replaced by edits: start again
            self._atlas = _Atlas()
            for slot in self._slots:
                slot.row = None
        self._frame_number += 1
        self._running = True
        error = None
        try:
            now = self._clock.getFrameTime()
            heard = heard_events()
            fast, error = self._pass(tuple(self._slots), task, now, None)
            while fast and heard_events() != heard:   # a handler ran: decide again after it
                heard = heard_events()
                fast, error = self._pass(fast, task, now, error)
            if fast:
                self.fast_frames += len(fast)
                try:
                    self._place(fast)
                except Exception as exc:
                    for slot in fast:
                        slot.warper._fail(exc)
        finally:
            self._running = False
            self._compact()
        if error is not None:
            raise error
        return task.cont

    def _pass(self, slots, task, now, error):
        """Run the frame of each of `slots` still in the batch: its own task's frame, or the fast path's
        pose update. (The slots waiting to be placed, the first exception a game's handler raised.)"""
        fast = []
        number = self._frame_number
        for slot in slots:
            if slot.gone:
                continue
            warper = slot.warper
            if warper.destroyed:
                self._leave(slot)
                continue
            cur = self._fast_frame(slot)
            if cur is not None:
                try:
                    posed = (number, cur)
                    if slot.posed != posed:   # deciding again after a handler: posed already unless the clip moved
                        slot.row.update_pose()
                        slot.posed = posed
                    slot.cur = cur
                    fast.append(slot)
                    continue
                except Exception as exc:  # as the warper's own task: a game's task loop never sees motionwarp fail
                    slot.cur, slot.ran = None, number
                    warper._fail(exc)
                    continue
            slot.cur, slot.ran = None, number   # before its handlers run: they may take it out of the batch
            try:
                if (not self._between(warper, warper._warp, now) and warper._task(task) == task.done
                        and not slot.gone):
                    self._leave(slot)   # the actor was removed: its own task would end
            except Exception as exc:    # a handler's: the others still get their frame
                error = MotionWarper._keep_first(error, exc, "a motionwarp event")
        return fast, error

    def _fast_frame(self, slot):
        """The clip frame to place `slot`'s actor at on the fast path this frame, or None."""
        warp = slot.warper._warp
        row = slot.row
        if row is None or warp is not row.warp or warp._phase_plan is not row.plan:
            row = self._load(slot)
            if row is None:
                return None
        actor, bundle, phase = row.actor, row.bundle, row.phase
        if (warp.state is _IN_PHASE and not actor.isEmpty() and actor.getSx() == row.scale
                and not bundle.getAnimBlendFlag() and bundle.getControlEffect(row.control) > 0.0
                and warp.phases[warp.phase_index] is phase and phase.motion is row.motion):
            cur = row.control.getFullFframe()
            if warp.frame - 1e-6 <= cur < row.f1:
                return cur
        return None

    def _between(self, warper, warp, now):
        """The single path's frame of plain root motion between phases or after the last (the clip's
        own motion since the last frame, the same functions on the same numbers) when nothing else
        happens in it: no phase starts, the clip still plays, the warp unblended as on the fast path.
        Whether it did it."""
        if warp is None or warp.state is not _BETWEEN or warp.effect is not None or warp._follows:
            return False
        actor, driver, control = warper.actor, warper.driver, warp.control
        bundle = driver.part_bundle
        if (actor.isEmpty() or not 1e-6 < actor.getSx() < math.inf or bundle.getAnimBlendFlag()
                or bundle.getControlEffect(control) <= 0.0):
            return False
        phases, cur = warp.phases, control.getFullFframe()
        last = warp.phase_index >= len(phases)
        if (cur < warp.frame - 1e-6 or (last and not control.isPlaying())
                or (not last and cur >= phases[warp.phase_index].motion.f0)):
            return False
        try:
            warper._update_pose()
            actor.setPosQuat(*moved_by((actor.getPos(), actor.getQuat()), warp.track.between(warp.frame, cur),
                                       actor.getScale()))
        except Exception as exc:  # as the warper's own task: a game's task loop never sees motionwarp fail
            warper._fail(exc)
            return True
        warp.frame = cur
        driver._prev_time = now   # what the driver's frame_motion() leaves (see _task)
        driver._clip_named[warp.asset.clip].prev = cur
        return True

    def _load(self, slot):
        """`slot` takes the arrays of its warper's phase in progress (it just started): its fast row, or
        None when that phase cannot take the fast path at all (a fade, a following target, no rotation
        warp, or a turn beyond the contract's slerp: facing, a rotation time or a turn-rate cap)."""
        slot.row = slot.cur = None
        warper = slot.warper
        warp = warper._warp
        plan = None if warp is None or warp.state is not _IN_PHASE else warp._phase_plan
        if plan is None or warp.effect is not None or warp._follows:   # a fade (even if blending stopped)
            return None
        phase = warp.phases[warp.phase_index]
        motion = phase.motion
        if not phase.warp_rotation or not is_plain(phase) or plan.weights.motion is not motion:
            return None
        pos, quat = plan.origin
        turn = plan.turn
        linear = turn.theta is None
        self._table[:, slot.column] = (*pos, quat.getR(), quat.getI(), quat.getJ(), quat.getK(), *plan.warp,
                                       *plan.weights.travel_k, *plan.weights.time_k, motion.f0, motion.f1 - motion.f0,
                                       plan.scale, *turn.a, *turn.b, 0.0 if linear else turn.theta,
                                       1.0 if linear else turn.sin_theta, float(linear), self._atlas.offset(motion))
        row = slot.row = _Row(warper, warp, plan, phase)
        return row

    def _place(self, slots):
        """docs/design.md 4's placement of every fast slot at its frame, then each actor written once."""
        frames = [slot.cur for slot in slots]
        f = np.array(frames)
        table = self._table[:, [slot.column for slot in slots]]
        motion = self._atlas.at(f, table[_OFFSET])
        u = (f - table[_F0]) / table[_SPAN]
        time_w = np.clip(u, 0.0, 1.0)
        time_w = time_w * time_w * (3.0 - 2.0 * time_w)
        weights = table[_TRAVEL_K:_TRAVEL_K + 3] * motion[3:] + table[_TIME_K:_TIME_K + 3] * time_w
        lx, ly, lz = motion[:3] * table[_SCALE] + table[_D:_D + 3] * weights
        w, x, y, z = table[_R0:_R0 + 4]
        # P0 + R0 local: v + w t + axis x t, with t = 2 axis x v
        tx, ty, tz = 2.0 * (y * lz - z * ly), 2.0 * (z * lx - x * lz), 2.0 * (x * ly - y * lx)
        px = table[_P0] + lx + w * tx + (y * tz - z * ty)
        py = table[_P0 + 1] + ly + w * ty + (z * tx - x * tz)
        pz = table[_P0 + 2] + lz + w * tz + (x * ty - y * tx)
        theta, linear = table[_THETA], table[_LINEAR] > 0.0
        wa = np.where(linear, 1.0 - u, np.sin((1.0 - u) * theta) / table[_SIN_THETA])
        wb = np.where(linear, u, np.sin(u * theta) / table[_SIN_THETA])
        quat = wa * table[_SLERP_A:_SLERP_A + 4] + wb * table[_SLERP_B:_SLERP_B + 4]
        quat /= np.sqrt((quat * quat).sum(axis=0))
        now = self._clock.getFrameTime()
        for slot, cur, x, y, z, qr, qi, qj, qk in zip(slots, frames, px.tolist(), py.tolist(), pz.tolist(), *quat.tolist()):
            row = slot.row
            row.actor.setPosQuat((x, y, z), (qr, qi, qj, qk))   # tuples: Panda3D converts them faster than we build
            row.warp.frame = cur
            # What the driver's frame_motion() leaves: only the warp's clip moved (see _fast_frame).
            row.driver._prev_time = now
            row.driven.prev = cur
