"""Scrubbing's stand-in: the character posed at any frame of a clip, without touching the real one.

The real character's clips, their control effects and the root-motion driver stay as they were
(a posed clip would move the character by its root motion, and a jump back would read as a
restart): it is hidden, and a copy of it shows the pose, placed where the clip's own root motion
takes the character from where it stood. Ending the scrub removes the copy and shows it again.
"""
from direct.actor.Actor import Actor
from panda3d.core import Point3


class StandIn:
    """Poses a copy of `actor` (whose parent is `space`) while scrubbing; `end()` gives the character back."""

    def __init__(self, actor, space):
        self.actor, self.space = actor, space
        self.copy = None
        self.anchor = space.attachNewNode("motionwarp-scrub-anchor")

    @property
    def active(self):
        return self.copy is not None

    def pose(self, clip, track, frame):
        """Show `clip`'s whole frame `frame`, its root where `track` (the clip's root motion) puts it."""
        if self.copy is None:
            self.anchor.setTransform(self.actor.getTransform(self.space))
            self.copy = Actor(other=self.actor)
            self.copy.reparentTo(self.space)
            self.actor.hide()
        self.copy.pose(clip, frame)
        motion = track.motion(frame)
        self.copy.setPos(self.space, self.space.getRelativePoint(self.anchor, Point3(*motion.pos)))
        self.copy.setHpr(self.space, self.anchor.getH(self.space) + motion.h, 0, 0)
        self.copy.setScale(self.anchor.getScale())

    def end(self):
        if self.copy is not None:
            self.copy.cleanup()
            self.copy.removeNode()
            self.copy = None
            self.actor.show()

    def destroy(self):
        self.end()
        self.anchor.removeNode()
