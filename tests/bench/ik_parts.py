"""Where a ContactIK frame's time goes: thread-time timers wrapped around its parts, per frame.

`PartTimers(iks)` wraps, on those instances only (and, for the run, the two-bone solve the pure
bender calls and the compiled bends' numba call), the goal step, the limbs' records read from the
pose, their bends (the solve and the turn limiter inside, or the compiled call), the pelvis, the
let-go checks and the write-back; `frame()` returns {part: microseconds} since the last call.
Each wrapped call adds about 1 us of timer, so the parts add up to more than an unwrapped run;
"glue" is the step's time outside every part. Only for measuring (`--parts`).
"""
import collections
import functools

from tests.bench.timing import CpuTimer


class PartTimers:
    """Timers around the parts of `iks` (ContactIK instances); `restore()` takes them off."""

    def __init__(self, iks):
        from motionwarp.ik import compiled, limbs
        self._timer = CpuTimer(2000)
        self._times = collections.defaultdict(float)
        self._undo = []
        self._modules = (compiled, limbs)
        self._wrap_attr(limbs, "solve", "solve (twobone)")
        self._wrap_attr(compiled, "_bend_limbs", "compiled call")
        for ik in iks:
            self._wrap_attr(ik, "step", "step")
            self._wrap_attr(ik, "goals", "goals (with pose read)")
            self._wrap_attr(ik.pose, "read", "pose read")
            self._wrap_attr(ik, "_limb", "limb records")
            self._wrap_attr(ik, "_bend", "bend (solve, limit)")
            self._wrap_attr(ik._limiter, "limit", "turn limit")
            self._wrap_attr(ik._limiter, "beyond_a_frame", "let-go checks")
            self._wrap_attr(ik._limiter, "let_go", "let-go checks")
            self._wrap_attr(ik._pelvis_rise, "step", "pelvis")
            self._wrap_attr(ik, "_moved_pelvis", "pelvis")
            self._wrap_attr(ik.pose, "write", "write-back")

    def frame(self):
        """{part: microseconds} since the last call, "glue" included (the step outside its parts)."""
        times = dict(self._times)
        self._times.clear()
        if "step" in times:
            inner = ("goals (with pose read)", "limb records", "bend (solve, limit)", "pelvis", "write-back")
            times["glue"] = times.pop("step") - sum(times.get(part, 0.0) for part in inner)
        return times

    def restore(self):
        for owner, name, original in reversed(self._undo):
            if original is None:
                delattr(owner, name)
            else:
                setattr(owner, name, original)

    def _wrap_attr(self, owner, name, part):
        original = getattr(owner, name)
        timer, times = self._timer, self._times

        @functools.wraps(original)
        def timed(*args, **kwargs):
            t0 = timer.start()
            try:
                return original(*args, **kwargs)
            finally:
                times[part] += timer.since(t0)
        setattr(owner, name, timed)
        self._undo.append((owner, name, original if owner in self._modules else None))
