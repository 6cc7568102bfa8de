"""WarpBatch: the per-frame pass of many MotionWarpers in one task, a crowd's in-phase frames placed all at once.

A crowd of warpers, each in its own task, costs Python per character for the task's own overhead and
the same arithmetic (docs/design.md 4's placement). The batch runs every warper it holds in one task.
A warp's plain frames (warp/plainframe.py: inside a phase or between phases with nothing to do but
move the actor) go through the same PlainPhase or PlainStretch the warper's task uses, without the
task's overhead; from `_NUMPY_FROM` warpers on, the in-phase ones are placed all at once in one numpy
pass over arrays that change only when a phase starts (per character then only the pose update, the
clip time, the driver's bookkeeping and one `setPosQuat`). Every other frame (phase starts and ends,
events, blends, refusals and errors) is the warper's own task's, unchanged. So the lifecycle, the
events and each phase's exact arrival are the single path's.
"""
import weakref

import numpy as np

from ..base.config import MotionWarpSettings, from_base
from ..base.errors import UsageError, shown
from .plainframe import PlainPhase
from .warper import MotionWarper, heard_events


class _Atlas:
    """The root-motion tables of every phase the batch placed, end to end: per span between two knots its
    first frame, A(t) and S(t) there and their slopes per frame (PhaseMotion's spans). A phase's spans sit at
    `_SEAM` * its number + frame, so one sorted search finds the span of any row's frame, whatever its phase."""

    def __init__(self):
        self.keys = np.zeros(0)
        self.frames = np.zeros(0)
        self.rows = np.zeros((12, 0))
        self.spans = {}   # id(PhaseMotion): (PhaseMotion, its key offset)

    def offset(self, motion):
        """The key offset of `motion`'s spans, its tables added on first use."""
        kept = self.spans.get(id(motion))
        if kept is None or kept[0] is not motion:
            number = len(self.spans)
            frames = np.asarray(motion.frames[:-1], dtype=np.float64)
            self.keys = np.concatenate([self.keys, frames + _SEAM * number])
            self.frames = np.concatenate([self.frames, frames])
            self.rows = np.hstack([self.rows, np.asarray(motion.spans, dtype=np.float64).T])
            kept = self.spans[id(motion)] = (motion, _SEAM * number)
        return kept[1]

    def at(self, frames, offset):
        """A and S (6, n) at `frames`, each within [f0, f1) of the phase at key `offset`, interpolated as
        PhaseMotion does (a plain frame is never at or past its phase's end)."""
        i = np.searchsorted(self.keys, frames + offset, side="right") - 1
        span = self.rows[:, i]
        return span[:6] + span[6:] * (frames - self.frames[i])


#: Phases the atlas holds before it starts again (each asset edit brings new ones).
_MOST_PHASES = 4096
#: Knot keys of one phase lie _SEAM apart from the next one's (more than any clip's frame count).
_SEAM = 1e6
#: The columns of a row of the batch's table: what placing its phase needs (its Placement and slerp), fixed
#: for the phase.
_P0, _ROTATION, _BY_TRAVEL, _BY_TIME, _F0, _SPAN, _SCALE, _SLERP_A, _SLERP_B, _THETA, _SIN_THETA, _LINEAR = (
    0, 3, 12, 15, 18, 19, 20, 21, 25, 29, 30, 31)
_S_W0, _W0, _WEIGHTED = 32, 35, 36   # the weights' start (warp_from): S there, its frame, frames from it to f1
_OFFSET = 37   # the phase's key offset in the atlas
_COLUMNS = 38
#: From this many warpers on, the batch places its in-phase plain frames at once in numpy (its fixed cost
#: per frame, some 40 calls, outweighs what it saves per character below that); fewer, one by one.
_NUMPY_FROM = 40


class _Slot:
    """A warper's place in the batch: its column of the table, the PlainPhase whose arrays that column holds
    (None until one was placed in numpy), and the batch's frame whose pass it last finished (see
    WarpBatch.remove)."""

    __slots__ = ("warper", "column", "plain", "cur", "posed", "ran", "gone")

    def __init__(self, warper, column):
        self.warper, self.column = warper, column
        self.plain, self.cur, self.ran, self.gone = None, None, -1, False
        self.posed = None   # (batch frame, clip frame) of the numpy path's last pose update


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
        self._slots = []            # in table column order; one that left is `gone` until the frame ends
        self._slot_of = {}          # warper: its _Slot
        self._frame_number = 0      # the batch's frames so far
        self._running = False       # inside the batch's task (a handler's add and remove wait for its end)
        #: Plain character-frames so far (warp/plainframe.py): the others ran the warper's own task.
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
        """Each warper's frame: a plain frame (warp/plainframe.py: the single path's own, without its
        task's overhead) where it has one, else its own task; from `_NUMPY_FROM` warpers on, the plain
        in-phase frames are placed together at the end.

        A game's handler (called from a warper's own frame) may do anything to any character: after
        one, the frames decided for the fast path are decided again, as if their own tasks ran after
        it. Warpers that join during the frame start at the next; those that leave are not placed;
        a handler's exception is raised once every warper had its frame (the first, as a task's)."""
        if len(self._atlas.spans) > _MOST_PHASES:   # assets replaced by edits: start again
            self._atlas = _Atlas()
            for slot in self._slots:
                slot.plain = None
        self._frame_number += 1
        self._running = True
        error = None
        try:
            heard = heard_events()
            fast, error = self._pass(tuple(self._slots), task, None)
            while fast and heard_events() != heard:   # a handler ran: decide again after it
                heard = heard_events()
                fast, error = self._pass(fast, task, error)
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

    def _pass(self, slots, task, error):
        """Run the frame of each of `slots` still in the batch: a plain frame (warp/plainframe.py) at once,
        or its pose update when it waits to be placed in numpy, else its own task's frame. (The slots
        waiting to be placed, the first exception a game's handler raised.)"""
        fast = []
        number = self._frame_number
        together = len(self._slots) >= _NUMPY_FROM
        for slot in slots:
            if slot.gone:
                continue
            warper = slot.warper
            if warper.destroyed:
                self._leave(slot)
                continue
            warp = warper._warp
            plain = None if warp is None else warp._plain
            cur = None if plain is None else plain.frame(warp)
            if cur is not None:
                try:
                    if together and isinstance(plain, PlainPhase):
                        posed = (number, cur)
                        if slot.posed != posed:   # deciding again after a handler: posed unless the clip moved
                            plain.update_pose()
                            slot.posed = posed
                        if slot.plain is not plain:
                            self._load(slot, plain)
                        slot.cur = cur
                        fast.append(slot)
                        continue
                    slot.cur, slot.ran = None, number
                    plain.update_pose()
                    plain.write(warp, cur)
                    self.fast_frames += 1
                except Exception as exc:  # as the warper's own task: a game's task loop never sees motionwarp fail
                    slot.cur, slot.ran = None, number
                    warper._fail(exc)
                continue
            slot.cur, slot.ran = None, number   # before its handlers run: they may take it out of the batch
            try:
                if warper._task(task) == task.done and not slot.gone:
                    self._leave(slot)   # the actor was removed: its own task would end
            except Exception as exc:    # a handler's: the others still get their frame
                error = MotionWarper._keep_first(error, exc, "a motionwarp event")
        return fast, error

    def _load(self, slot, plain):
        """`slot`'s column takes the arrays of `plain`, its warper's phase in progress."""
        placement, turn = plain.placement, plain.turn
        linear = turn.theta is None
        self._table[:, slot.column] = (*placement.p0, *placement.rotation, *placement.by_travel, *placement.by_time,
                                       placement.f0, placement.span, placement.scale, *turn.a, *turn.b,
                                       0.0 if linear else turn.theta, 1.0 if linear else turn.sin_theta,
                                       float(linear), *placement.held, placement.w0, placement.weighted,
                                       self._atlas.offset(placement.motion))
        slot.plain = plain

    def _place(self, slots):
        """docs/design.md 4's placement (Placement's arithmetic) of every slot waiting at its frame, then each
        actor written once."""
        frames = [slot.cur for slot in slots]
        f = np.array(frames)
        table = self._table[:, [slot.column for slot in slots]]
        motion = self._atlas.at(f, table[_OFFSET])
        u = (f - table[_F0]) / table[_SPAN]
        t = np.clip((f - table[_W0]) / table[_WEIGHTED], 0.0, 1.0)
        t = t * t * (3.0 - 2.0 * t)
        travel = np.maximum(motion[3:] - table[_S_W0:_S_W0 + 3], 0.0)   # since the weights' start (0 before)
        local = motion[:3] * table[_SCALE] + table[_BY_TRAVEL:_BY_TRAVEL + 3] * travel + table[_BY_TIME:_BY_TIME + 3] * t
        rotation = table[_ROTATION:_ROTATION + 9].reshape(3, 3, -1)
        pos = table[_P0:_P0 + 3] + np.einsum("ijn,jn->in", rotation, local)
        theta, linear = table[_THETA], table[_LINEAR] > 0.0
        wa = np.where(linear, 1.0 - u, np.sin((1.0 - u) * theta) / table[_SIN_THETA])
        wb = np.where(linear, u, np.sin(u * theta) / table[_SIN_THETA])
        quat = wa * table[_SLERP_A:_SLERP_A + 4] + wb * table[_SLERP_B:_SLERP_B + 4]
        quat /= np.sqrt((quat * quat).sum(axis=0))
        for slot, cur, x, y, z, qr, qi, qj, qk in zip(slots, frames, *pos.tolist(), *quat.tolist()):
            plain = slot.plain
            plain.actor.setPosQuat((x, y, z), (qr, qi, qj, qk))   # tuples: Panda3D converts them faster than we build
            slot.warper._warp.frame = cur
            plain.driver.moved_alone(plain.clip, cur)
