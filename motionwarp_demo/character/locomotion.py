"""Which of the character's own clips play, and how much: cross-fades by control effect.

idle, walk and run blend by speed; fall loops in the air; land plays once on touching down.
Walk and run stay in step: their play rates make both cycles last the blended cycle's
time, so a foot plants at the same moment in both. The root motion driver moves the
character by the effect-weighted root motion of these clips, so the clips set the speed.
"""
from panda3d.core import PartBundle

from motionwarp.animation import rootmotion
from motionwarp.animation.planting import Skeleton, cycle_steps
from motionwarp.animation.poses import ClipPoses, rest_positions
from motionwarp.warp.asset import joint_parents

LOOPS = ("idle", "walk", "run", "fall")
LAND = "land"
#: Falls lower than this (metres) land without the landing clip.
LAND_FROM = 0.4


class Locomotion:
    """Control effects of the locomotion clips, moved toward what the character is doing.

    `blend_time` (seconds) is how long a cross-fade between clips takes; `speed_time` how
    long walk takes to become run. A warp gets the Actor to itself through `hand_over`.
    """

    def __init__(self, actor, driver, blend_time=0.2, speed_time=0.4):
        if blend_time <= 0 or speed_time <= 0:
            raise ValueError(f"blend_time and speed_time must be positive, got {blend_time}, {speed_time}")
        self.actor, self.driver = actor, driver
        self.blend_time, self.speed_time = blend_time, speed_time
        self.actor.enableBlend(blendType=PartBundle.BT_normalized_linear)
        self.weights = dict.fromkeys(LOOPS + (LAND,), 0.0)
        self.run = 0.0            # 0 walking .. 1 running
        self.landing = False
        self.owner = None         # the clip of a warp that has the Actor, or None
        self._under = None        # while a warp fades its clip: the weights it blends with
        self.cycle = {clip: driver.tracks[clip].duration for clip in ("walk", "run")}
        #: Ground speed of each clip at play rate 1 (m/s), from its root motion.
        self.speeds = {clip: _ground_speed(driver.tracks[clip]) for clip in self.weights}
        for clip in LOOPS:        # all loop from the same moment: walk and run stay in step
            driver.loop(clip)
        self.weights["idle"] = 1.0
        self._apply()

    # -- what plays -----------------------------------------------------------------------
    def target(self, moving, airborne):
        """The effect each clip heads for."""
        target = dict.fromkeys(self.weights, 0.0)
        if self.landing:
            target[LAND] = 1.0
        elif airborne:
            target["fall"] = 1.0
        elif moving:
            target["walk"], target["run"] = 1.0 - self.run, self.run
        else:
            target["idle"] = 1.0
        return target

    def land(self, height):
        """Touch-down after falling `height` metres: the landing clip, unless the fall was small."""
        if height >= LAND_FROM:
            self.driver.play(LAND)
            self.landing = True

    def update(self, dt, moving, running, airborne):
        """Move the effects one frame toward the target (a warp holding the Actor is left alone)."""
        if self.owner is not None:
            return
        self.run = _toward(self.run, 1.0 if running else 0.0, dt / self.speed_time)
        if self.landing and self._land_left() <= self.blend_time:
            self.landing = False   # fade out of the landing as it ends
        step = dt / self.blend_time
        for clip, goal in self.target(moving, airborne).items():
            self.weights[clip] = _toward(self.weights[clip], goal, step)
        self._apply()

    def speed(self):
        """The ground speed the blended clips move the character at now (m/s)."""
        total = sum(self.weights.values())
        if total <= 0 or self.owner is not None:
            return 0.0
        return sum(w * self.speeds[clip] * self.actor.getPlayRate(clip) for clip, w in self.weights.items()) / total

    def _land_left(self):
        control = self.actor.getAnimControl(LAND)
        if not control.isPlaying():
            return 0.0
        return (control.getNumFrames() - 1 - control.getFullFframe()) / control.getFrameRate()

    def _apply(self):
        for clip, weight in self.weights.items():
            self.actor.setControlEffect(clip, weight)
        # In step: both cycles last the blended cycle's time.
        walk, run = self.weights["walk"], self.weights["run"]
        share = run / (walk + run) if walk + run > 0 else self.run
        cycle = (1.0 - share) * self.cycle["walk"] + share * self.cycle["run"]
        for clip in ("walk", "run"):
            self.actor.setPlayRate(self.cycle[clip] / cycle, clip)

    # -- warps ----------------------------------------------------------------------------
    def hand_over(self, clip, fading=False):
        """Give `clip` (a warp's) the Actor: at once (full effect, every locomotion clip none), or,
        when the warp fades its clip's effect itself, through `share` each frame."""
        self.landing = False
        self.owner = clip
        if fading:
            total = sum(self.weights.values())
            self._under = {name: (w / total if total > 0 else 0.0) for name, w in self.weights.items()}
            return
        for name in self.weights:
            self.weights[name] = 0.0
            self.actor.setControlEffect(name, 0.0)
        self.actor.setControlEffect(clip, 1.0)

    def share(self, effect):
        """While the warp fades its clip to `effect`: locomotion keeps the rest of the pose."""
        if self.owner is None or self._under is None:
            return
        for clip, weight in self._under.items():
            self.weights[clip] = weight * (1.0 - effect)
        self._apply()

    def rise(self, moving, airborne):
        """The warp's fade-out began: what locomotion fades in from now is what the character does."""
        if self._under is not None:
            self._under = self.target(moving, airborne)

    def take_back(self, moving, airborne):
        """After a warp: its clip stops counting and locomotion takes over at once (no blend yet)."""
        if self.owner is None:
            return
        self.actor.setControlEffect(self.owner, 0.0)
        self.owner = self._under = None
        self.weights = self.target(moving, airborne)
        self._apply()


def planted_steps(actor, clips=("walk", "run")):
    """{clip: [(foot, sole, start s, end s)]} of the Actor's cycles `clips`: when each planted foot's
    sole stays put, for the contact IK's foot locking (read from the clips as authored)."""
    bundle = actor.find("**/+Character").node().getBundle(0)
    base = rootmotion.character_base(actor)
    skeleton = Skeleton(joint_parents(bundle), rest_positions(bundle, base))
    return {clip: cycle_steps(ClipPoses(actor.getAnimControl(clip).getAnim(), base, clip), skeleton) for clip in clips}


def _ground_speed(track):
    if track.duration <= 0:
        return 0.0
    x, y, _ = track.position(track.num_frames - 1)
    return float((x * x + y * y) ** 0.5) / track.duration


def _toward(value, goal, step):
    return min(goal, value + step) if value < goal else max(goal, value - step)
