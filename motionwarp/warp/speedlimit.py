"""The speed clamp `max_speed` (docs/design.md 4, Play rate): a phase's play rate is lowered until
the root's fastest move along the warped path is no faster than the phase allows."""
from .placement import position

#: Steps per clip frame at which the warped path is sampled: A and the travel weights are linear
#: between clip frames, the time weights' smoothstep nearly so.
_STEPS_PER_FRAME = 2


def peak_speed(plan, phase, fps):
    """The fastest the phase's placement moves the root, in metres per second of clip time (play
    rate 1): the longest step between samples of the path, over its clip time."""
    motion = phase.motion
    count = max(int((motion.f1 - motion.f0) * _STEPS_PER_FRAME + 0.5), 1)
    frames = [motion.f0 + (motion.f1 - motion.f0) * i / count for i in range(count + 1)]
    points = [position(plan, phase, frame) for frame in frames]
    step = (motion.f1 - motion.f0) / count / fps
    return max((b - a).length() for a, b in zip(points, points[1:])) / step


def speed_capped(scale, phase, plan, fps, base_rate):
    """The rate scale `scale`, lowered so the root moves at most `max_speed` m/s at `base_rate` times
    it (the cap wins over min_rate); `scale` itself without a cap or when the root stands still."""
    if phase.max_speed is None:
        return scale
    peak = peak_speed(plan, phase, fps) * base_rate
    return min(scale, phase.max_speed / peak) if peak > 1e-9 else scale
