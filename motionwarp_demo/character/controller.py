"""The demo's character controller: where the player (or the autopilot) wants to go becomes a
heading and a gait, the clips' root motion moves the character, and its body keeps it on the
ground and out of walls. While a warp plays, the warp owns the motion.
"""
import math

from direct.showbase.DirectObject import DirectObject
from panda3d.core import ClockObject, Vec3

from motionwarp import BLEND_OUT, CANCELLED, FINISHED

from .body import FALLING, CharacterBody
from .locomotion import Locomotion

#: How fast the character turns toward where it is asked to go (degrees per second).
TURN_DEG_PER_S = 400.0
#: A wanted direction more than this far behind turns the character on the spot first (degrees).
TURN_IN_PLACE_DEG = 110.0


class Controller(DirectObject):
    """Steers `actor` (played by `warper`) through the level `probe` sees.

    Set `direction` (a world-space ground vector; zero to stand still) and `running` every
    frame; start traversals with `play(asset, targets)`. A fall past the body's kill plane
    puts the character back where it stood when the controller was made. Tasks: steering at sort 40 (before
    the warper's root motion), the body at 46 (after it).
    """

    def __init__(self, actor, warper, probe, taskmgr, blend_time=0.2, body_settings=None, space=None):
        super().__init__()
        self.actor, self.warper = actor, warper
        self.space = space if space is not None else actor.getParent()
        self.locomotion = Locomotion(actor, warper.driver, blend_time)
        self.body = CharacterBody(actor, probe, body_settings, space=self.space)
        self.direction = Vec3(0, 0, 0)
        self.running = False
        #: Every landing as (height fallen, where), for reports and tests.
        self.landings = []
        #: Every fall past the kill plane (where it was stopped); each respawns the character.
        self.left_world = []
        self._respawn = (actor.getPos(self.space), actor.getH(self.space))   # where it started
        self._clock = ClockObject.getGlobalClock()
        self._taskmgr = taskmgr
        self._prefix = f"demo-controller-{id(self)}"
        taskmgr.add(self._steer_task, f"{self._prefix}-steer", sort=40)
        taskmgr.add(self._body_task, f"{self._prefix}-body", sort=46)
        self.accept(FINISHED, self._warp_ended)
        self.accept(CANCELLED, self._warp_ended)
        self.accept(BLEND_OUT, self._warp_fading)

    @property
    def airborne(self):
        return self.body.state == FALLING

    @property
    def moving(self):
        return self.direction.lengthSquared() > 1e-6 and abs(self.turn_needed()) < TURN_IN_PLACE_DEG

    def place(self, pos, h=None):
        """Put the character at `pos` (and heading `h`) at once, standing on what is there or falling."""
        self.actor.setPos(self.space, pos)
        if h is not None:
            self.actor.setH(self.space, h)
        self.body.resume()

    def play(self, asset, targets):
        """Start a warp; its clip takes the Actor over as the warper fades it in (at once when the
        warper does not blend).

        A refusal (WarpRefused) propagates and leaves locomotion and its cross-fades untouched.
        """
        warp = self.warper.play(asset, targets)
        self.locomotion.hand_over(asset.clip, fading=warp.effect is not None)
        return warp

    def _warp_fading(self, warper, clip, seconds):
        if warper is self.warper:
            self.locomotion.rise(self.moving, self.airborne)

    def _warp_ended(self, warper, clip, reason=None):
        if warper is not self.warper:
            return
        self.body.resume()
        self.locomotion.take_back(self.moving, self.airborne)

    def turn_needed(self):
        """Degrees from the character's heading to the wanted direction (positive: to the left)."""
        wanted = math.degrees(math.atan2(-self.direction.x, self.direction.y))
        return (wanted - self.actor.getH(self.space) + 180.0) % 360.0 - 180.0

    def _steer_task(self, task):
        if self.actor.isEmpty():
            return task.cont
        if self.warper.is_warping:
            warp = self.warper.current
            if warp.effect is not None:
                self.locomotion.share(warp.effect)
            return task.cont
        dt = self._clock.getDt()
        if self.direction.lengthSquared() > 1e-6 and not self.airborne:
            turn = self.turn_needed()
            limit = TURN_DEG_PER_S * dt
            self.actor.setH(self.space, self.actor.getH(self.space) + max(-limit, min(limit, turn)))
        self.locomotion.update(dt, self.moving, self.running, self.airborne)
        return task.cont

    def _body_task(self, task):
        if self.warper.is_warping or self.actor.isEmpty():
            return task.cont
        forward = self.space.getRelativeVector(self.actor, Vec3(0, 1, 0))
        self.body.update(self._clock.getDt(), forward * self.locomotion.speed())
        if self.body.landed is not None:
            self.landings.append(self.body.landed)
            self.locomotion.land(self.body.landed[0])
            self.body.landed = None
        if self.body.left_world is not None:   # as a game respawns a character that fell off its level
            self.left_world.append(self.body.left_world)
            self.body.left_world = None
            self.place(*self._respawn)
        return task.cont

    def destroy(self):
        self.ignoreAll()
        self._taskmgr.remove(f"{self._prefix}-steer")
        self._taskmgr.remove(f"{self._prefix}-body")
