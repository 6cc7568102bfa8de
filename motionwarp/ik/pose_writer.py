"""The contact IK's hold on a Character's joints: this frame's animated pose, and the IK's written over it.

Panda3D 1.10 cannot write a joint after animation, so once per frame and actor, for all limbs
together: freeze the changed joints, recompute the bundle, mark the Character node as updated
for this frame (so cull does not recompute and drop the IK), release the joints (the next frame
starts from pure animation). Anything calling `actor.update()` later in the same frame undoes it.
"""
from panda3d.core import LMatrix4f

from ..base.errors import UsageError
from ..warp.asset import joint_parents


class PoseWriter:
    """The joints of `actor`'s Character: read (net matrices, once per frame) and written (`write`)."""

    def __init__(self, actor, render):
        self.actor, self.render = actor, render
        self.character = actor.find("**/+Character")
        if self.character.isEmpty():
            raise UsageError(f"ContactIK: {actor.getName()!r} has no Character node (not an animated model)")
        self.bundle = self.character.node().getBundle(0)
        self.parents = joint_parents(self.bundle)
        self._joints, self._chains, self._names = {}, {}, {}   # name -> CharacterJoint; end joint -> its chain, names
        self._nets = {}           # joint -> its net matrix this frame (read once)
        self.world_from_char = LMatrix4f.identMat()

    def read(self):
        """Start a frame from its animated pose (nothing to do when the warper's task computed it)."""
        self.bundle.update()
        self._nets, self.world_from_char = {}, self.character.getMat(self.render)

    def write(self, frozen):
        """Show [(joint name, local TransformState)] this frame: freeze, update, mark, release. Each
        joint is frozen on itself (the bundle's `freezeJoint` looks it up by name through the whole
        hierarchy), so the update is forced; the bundle releases them, marking the pose for the next
        frame's update (a joint released on itself keeps the IK's pose while its clip holds a frame)."""
        for name, transform in frozen:
            self._joint(name).applyFreeze(transform)
        self.bundle.forceUpdate()
        self.character.node().update()
        for name, _ in frozen:
            self.bundle.releaseJoint(name)

    def chain(self, joint):
        """The CharacterJoints (parent of upper, upper, mid, end) of the limb ending at `joint`."""
        chain = self._chains.get(joint)
        if chain is None:
            mid = self.parents.get(joint)
            upper = self.parents.get(mid) if mid else None
            if upper is None:
                raise UsageError(f"ContactIK: {joint!r} is not an end joint with a parent and a grandparent "
                                 f"in {self.actor.getName()!r}")
            names = self._names[joint] = (self.parents[upper], upper, mid, joint)
            chain = self._chains[joint] = [None if name is None else self._joint(name) for name in names]
        return chain

    def names(self, joint):
        """The names of `chain(joint)` (the first is None for a limb hanging from the Character)."""
        names = self._names.get(joint)
        if names is None:
            self.chain(joint)
            names = self._names[joint]
        return names

    def net(self, joint):
        """The joint's net matrix (Character space) this frame; shared, never modify it."""
        net = self._nets.get(joint)
        if net is None:
            net = self._nets[joint] = LMatrix4f()
            self._joint(joint).getNetTransform(net)
        return net

    def world(self, joint):
        """Where (world) the joint is this frame."""
        return self.world_from_char.xformPoint(self.net(joint).getRow3(3))

    def points(self, joints):
        """Where (world) each of `joints` is this frame, in one call (the feet, every frame)."""
        world_from_char, nets = self.world_from_char, self._nets
        points = []
        for joint in joints:
            net = nets.get(joint)
            points.append(world_from_char.xformPoint((net if net is not None else self.net(joint)).getRow3(3)))
        return points

    def _joint(self, name):
        joint = self._joints.get(name)
        if joint is None:
            joint = self._joints[name] = self.character.node().findJoint(name)
        return joint


def inverse(mat):
    """A new matrix, the inverse of `mat`."""
    inverse = LMatrix4f(mat)
    inverse.invertInPlace()
    return inverse
