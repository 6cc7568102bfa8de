"""The headless autopilot: walks a scene's waypoints through the same controller a player uses,
takes whatever it meets, and stops where an obstacle it cannot take blocks the way.
"""
from panda3d.core import Vec2, Vec3

from motionwarp.warp.assetdata import TRAVERSAL_KINDS

#: Blocked: while walking, the character moved less than BLOCKED_M in BLOCKED_S seconds.
BLOCKED_S = 1.0
BLOCKED_M = 0.15
#: Blocked in front of something the providers would take (only too close to start its clip):
#: walk away from it this long and come again, at most BACK_OFF_TRIES times in a row.
BACK_OFF_S = 1.2
BACK_OFF_TRIES = 3
#: Obstacles are taken only when the character faces its way within this (degrees).
FACING_DEG = 30.0


class Autopilot:
    """Steers `demo.controller` toward each waypoint in turn (the first is where it starts)."""

    def __init__(self, demo, waypoints):
        self.demo = demo
        self.waypoints = [tuple(w) for w in waypoints[1:]]
        self._leg_start = tuple(waypoints[0]) if waypoints else None
        #: Why the autopilot stopped before the end ({"obstacle", "reason"}), or None.
        self.stopped = None
        self._walked = []   # (time walking, position) over the last BLOCKED_S seconds
        self._back_off = (0.0, None)   # (seconds left, direction) of a step back
        self._tries = 0
        self._marker_done = False   # an interaction a marker names was played on this leg

    @property
    def done(self):
        """The course is over (its end reached, or blocked) and the character stands still on something."""
        controller = self.demo.controller
        return ((not self.waypoints or self.stopped is not None) and not self.demo.warper.is_warping
                and not controller.airborne)

    def update(self, dt):
        """One frame of steering: head for the next waypoint, take obstacles on the way."""
        controller, actor = self.demo.controller, self.demo.actor
        if controller.left_world and self.stopped is None:
            where = controller.left_world[0]
            self.stopped = {"obstacle": None, "reason": f"fell off the world at ({where.x:.1f}, {where.y:.1f}) "
                                                        "and was put back at the start"}
            self.demo.say(f"autopilot stopped: {self.stopped['reason']}")
        while self.waypoints and self._reached(self.waypoints[0]):
            self._leg_start = self.waypoints.pop(0)
            self._marker_done = False
        if not self.waypoints or self.stopped is not None:
            controller.direction = Vec3(0, 0, 0)
            return
        here = actor.getPos(self.demo.base.render)
        if self._back_off[0] > 0.0:
            self._back_off = (self._back_off[0] - dt, self._back_off[1])
            controller.direction, controller.running = self._back_off[1], False
            return
        to_go = Vec3(self.waypoints[0][0] - here.x, self.waypoints[0][1] - here.y, 0)
        to_go.normalize()
        controller.direction, controller.running = to_go, False
        demo = self.demo
        if abs(controller.turn_needed()) > FACING_DEG:   # still turning: what is in front is not on the way
            self._walked.clear()
            return
        if demo.interact(within=lambda clip: demo.authored_distance.get(clip, demo.skip_distance)):
            self._walked.clear()
            self._tries = 0
            self._marker_done = TRAVERSAL_KINDS[demo.last_interaction.kind].found_by == "marker"
            return
        self._watch_progress(dt, here)

    def _watch_progress(self, dt, here):
        controller = self.demo.controller
        if (self.demo.warper.is_warping or not controller.moving or controller.airborne
                or controller.locomotion.landing):
            self._walked.clear()
            return
        self._walked.append([0.0, here])
        for entry in self._walked:
            entry[0] += dt
        while self._walked and self._walked[0][0] > BLOCKED_S + 1e-9:
            self._walked.pop(0)
        if not self._walked:   # one frame longer than BLOCKED_S (a hitch, a window's first frame): watch anew
            return
        oldest = self._walked[0]
        if oldest[0] >= BLOCKED_S - 1e-9 and (here - oldest[1]).getXy().length() < BLOCKED_M:
            self._blocked()

    def _blocked(self):
        """Step back from what the providers would take, or stop and name what is in the way (the offer
        for where the character stands: the HUD's answer after the last move, not a second question)."""
        demo = self.demo
        self._walked.clear()
        found = demo.offer()
        if found and self._tries < BACK_OFF_TRIES:
            self._tries += 1
            away = Vec3(found.normal.x, found.normal.y, 0)   # the face's normal points at the character
            away.normalize()
            self._back_off = (BACK_OFF_S, away)
            return
        node = found.node if found.node is not None else demo.obstacle_ahead()
        name = demo.obstacle_name(node) if node is not None else None   # None: nothing the probe can name
        reason = demo.last_refusal.get(name) or (found.reason if not found else self._not_started(found))
        self.stopped = {"obstacle": name, "reason": reason}
        demo.say(f"autopilot stopped at {name}: {reason}" if name else f"autopilot stopped: {reason}")

    def _not_started(self, found):
        """Why an Interaction offered in front of the character was never started: it stood farther from
        the face than the autopilot starts that clip, and could come no closer."""
        within = self.demo.authored_distance.get(found.asset.clip, self.demo.skip_distance)
        verb = TRAVERSAL_KINDS[found.kind].verb if found.kind in TRAVERSAL_KINDS else found.kind
        return (f"could not come close enough to {verb} ({found.distance:.2f} m from it > {within:.2f} m, "
                f"where its clip starts)")

    def _reached(self, waypoint):
        """Within 0.5 m of the waypoint, past it along the leg (a vault can carry the character over it),
        or done with the interaction a marker named there (a clip that presses a button in place ends
        where it stood, which may be farther: without this it would press again and again)."""
        if self._marker_done and not self.demo.warper.is_warping:
            return True
        here = self.demo.actor.getPos(self.demo.base.render).getXy()
        start, end = Vec2(*self._leg_start), Vec2(*waypoint)
        return (here - end).length() < 0.5 or (here - start).dot(end - start) >= (end - start).lengthSquared()
