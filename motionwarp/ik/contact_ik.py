"""ContactIK: keeps hands and feet on what they touch, in a task after the warper (docs/design.md 9).

Root-only warping moves the whole body: on a crate lower than authored the feet sink into the
ground, on a deeper one a planted hand slides. Each frame this task reads the warp asset's
contacts (motionwarp.contacts) at the clip's current time, finds where each touching joint
must be (the phase's target, or the surface a ray finds under it), and bends the limb's two
bones with analytic IK (motionwarp.ik) to put it there. While a contact blends in or out, no
joint turns faster than the clip's own peak (or its animation this frame): a stretched limb
letting go would otherwise whip, since near full reach a small move of the hand or foot is
a large turn of the elbow or knee.

Panda3D 1.10 cannot write a joint after animation, so once per frame and actor, for all limbs
together: freeze the changed joints, recompute the bundle, mark the Character node as updated
for this frame (so cull does not recompute and drop the IK), release the joints (the next frame
starts from pure animation). Anything calling `actor.update()` later in the same frame undoes
it, so the task runs last before rendering. With no contact active it costs next to nothing.
"""
import functools
import math

from direct.directnotify.DirectNotifyGlobal import directNotify
from panda3d.core import ClockObject, LMatrix4f, LQuaternionf, Point3, TransformState, Vec3

from ..warp.asset import joint_parents
from ..base.config import ContactIKSettings, from_base
from ..base.errors import UsageError
from .twobone import bend_direction, limit_turn, reach_limit, solve, turn_angle
from ..animation.motion import Motion
from ..animation.rootmotion import find_channel

#: Feet whose ground correction is below this (metres) are left as animated (flat ground costs nothing).
_GROUND_EPSILON = 1e-3
#: A limb this close to where it must be (metres) is left as animated: no cost, no visible difference.
_NEGLIGIBLE = 5e-4
#: Metres per second of clip time: the most a contact's correction moves a joint while letting go
#: (smoothstep's steepest slope is 1.5 per blend time).
EASE_SPEED = 3.0
#: Metres: the character stands (its feet are kept on the ground) when there is ground this close
#: above or below its origin; otherwise it is in the air and its feet keep the clip's pose.
_STANDING = 0.1
#: Degrees: an IK rotation held back by the turn limit counts as let go below this.
_LET_GO_DEG = 0.05
_notify = directNotify.newCategory("motionwarp")


class ContactIK:
    """Two-bone IK for the contacts of whatever warp `warper` plays, in its own late task.

    It reads the pose the warper's task computed this frame. When every foot has somewhere to be,
    the pelvis moves up or down as far as the lowest foot must go (within the reach of any hand
    in contact), so legs bend rather than stretch.

    `probe` (a motionwarp.SceneProbe) finds the surfaces under feet; without it, surface contacts
    are left as animated. `feet` names the foot joints kept on the ground outside warps when the
    `feet_on_ground` setting is on. Keyword arguments override the `motionwarp-ik-*` PRC settings
    (`sort` the task sort, `blend_time`, `feet_on_ground`, `ray_above`, `ray_below`).
    """

    def __init__(self, actor, warper, probe=None, feet=("foot_l", "foot_r"), taskmgr=None, render=None,
                 sort=None, **settings):
        if actor.isEmpty():
            raise UsageError("ContactIK: the actor is empty (removed)")
        self.settings = ContactIKSettings.from_prc(ik_task_sort=sort,
                                                   **{f"ik_{name}": value for name, value in settings.items()})
        self.actor, self.warper, self.probe = actor, warper, probe
        self.render = render if render is not None else from_base("render")
        self.character = actor.find("**/+Character")
        if self.character.isEmpty():
            raise UsageError(f"ContactIK: {actor.getName()!r} has no Character node (not an animated model)")
        self.bundle = self.character.node().getBundle(0)
        self._parents = joint_parents(self.bundle)
        self._joints, self._chains, self._names = {}, {}, {}   # name -> CharacterJoint; end joint -> its chain, names
        self.feet = tuple(feet)
        self.pelvis = self._pelvis_of_feet(strict=bool(self.settings.ik_feet_on_ground))
        self._rise = 0.0          # metres the pelvis is raised (eased toward what the feet and hands want)
        self._warp = None         # the warp whose contacts apply (kept while its clip still shows)
        self._held = {}           # joint -> [correction, weight]: what eases out when a contact ends early
        self._locks = {}          # contact index -> world point where a planted foot stays (None: no surface)
        self._points = {}         # contact index -> (what they depend on, its _target_points) for the warp
        self._lifts = {}          # contact index -> its last correction inside the window (eases out after)
        self._inside = {}         # joint -> index of its contact whose window holds this frame
        self._ground = {}         # foot -> smoothed height correction (metres) outside warps
        self._bends = {}          # joint -> last bend direction, for limbs animated perfectly straight
        self._turns = {}          # joint -> (local TransformState frozen, animated local matrix, parent net) last frame
        self._nets = {}           # joint -> its net matrix this frame (read once)
        self._world_from_char = LMatrix4f.identMat()
        self._letting_go = set()  # end joints whose IK rotation the turn limit held back, until it is let go
        self._peaks = {}          # clip -> fastest its limbs turn (degrees per second)
        self._peak = math.inf     # the turn limit: the peak of the warp playing or played last
        self._last_error = None
        self._taskmgr = taskmgr or from_base("taskMgr")
        self._task_name = f"motionwarp-contact-ik-{id(self)}"
        self._taskmgr.add(self._task, self._task_name, sort=self.settings.ik_task_sort)

    def destroy(self):
        """Remove the task; joints are never left frozen (each frame releases them)."""
        self._taskmgr.remove(self._task_name)
        self._warp = None

    def _task(self, task):
        if self.actor.isEmpty():
            return task.done
        try:
            self.step(ClockObject.getGlobalClock().getDt())
        except Exception as exc:  # a game's task loop must never see motionwarp fail
            problem = f"{type(exc).__name__}: {exc}"
            if problem != self._last_error:
                _notify.warning(f"{self.actor.getName()} contact IK: {problem}")
                self._last_error = problem
        return task.cont

    def step(self, dt):
        """Bend the limbs whose contacts are active this frame (after the pose is computed); returns how many."""
        goals = self.goals(dt)
        blend = self.settings.ik_blend_time
        wanted = self._feet_rise(goals)
        # the pelvis moves away from its animated place slower than the limbs, and back as they let go
        ease = 1.0 if abs(wanted) < abs(self._rise) else min(1.0, dt / (2.0 * blend)) if blend > 0 else 1.0
        self._rise = self._hands_bound(goals, self._rise + (wanted - self._rise) * ease)
        rise = self._rise if abs(self._rise) >= _GROUND_EPSILON else 0.0
        if not rise:  # with the pelvis in place, a limb already where it must be is left alone
            goals = {joint: goal for joint, goal in goals.items()
                     if goal[0].length() * goal[1] >= _NEGLIGIBLE or joint in self._letting_go}
        for joint in self._letting_go:  # its contact is over: back to the animation, within the turn limit
            goals.setdefault(joint, (Vec3(0, 0, 0), 0.0))
        if not goals and not rise:
            self._turns = {}
            return 0
        world_from_char = self._world_from_char
        char_from_world = _inverse(world_from_char)
        frozen, shift = [], None
        if rise:
            shift = char_from_world.xformVec(Vec3(0, 0, rise))
            frozen.append(self._moved_pelvis(shift))
        turns, most = {}, self._peak * dt
        letting_go = set()
        for joint, (correction, weight) in goals.items():
            moved = shift if shift is not None and self._hangs_from_pelvis(joint) else None
            carried = Vec3(0, 0, rise * (1.0 - weight)) if moved is not None else Vec3(0, 0, 0)  # by the pelvis
            easing = weight < 1.0 or joint in self._letting_go   # the turn limit holds while the IK blends
            transforms, reached, held = self._bend(joint, char_from_world.xformVec(correction * weight + carried),
                                                   moved, most if easing else math.inf, turns)
            frozen += transforms
            if held or (joint in self._letting_go and not _let_go(turns[name] for name, _ in transforms)):
                letting_go.add(joint)
            if weight > 0.0:
                self._reached(joint, (world_from_char.xformVec(reached) - carried) / weight)
        self._turns, self._letting_go = turns, letting_go
        for name, transform in frozen:
            self.bundle.freezeJoint(name, transform)
        self.bundle.update()
        self.character.node().update()
        for name, _ in frozen:
            self.bundle.releaseJoint(name)
        return len(goals)

    def _reached(self, joint, correction):
        """Remember the correction the limb really achieved (an out-of-reach target is not), so
        easing out starts from where the joint is and spreads over the whole blend time."""
        if joint in self._held:
            self._held[joint][0] = correction
        index = self._inside.get(joint)
        if index is not None:
            self._lifts[index] = correction

    # -- where each joint must be ----------------------------------------------------------
    def goals(self, dt):
        """{end joint: (correction, weight)}: move the joint `correction * weight` (world) from its
        animated place this frame; empty when nothing is in contact."""
        self.bundle.update()   # this frame's animated pose (nothing to do when the warper's task made it)
        self._nets, self._world_from_char = {}, self.character.getMat(self.render)
        goals = self._contact_goals()
        blend = self.settings.ik_blend_time
        for joint, held in list(self._held.items()):
            if joint in goals:
                continue
            held[1] = held[1] - dt / blend if blend > 0 else 0.0
            if held[1] <= 0.0:
                del self._held[joint]
            else:
                goals[joint] = tuple(held)
        for joint, goal in goals.items():
            self._held[joint] = list(goal)
        if self.settings.ik_feet_on_ground and self._warp is None:
            self._ground_goals(goals, dt)
        return goals

    def _contact_goals(self):
        self._inside = {}
        warp = self.warper.current if self.warper is not None else None
        if warp is not None and warp is not self._warp:
            self._warp, self._locks, self._lifts, self._points = warp, {}, {}, {}
            self._peak = self._peak_of(warp)
        if self._warp is None:
            return {}
        control = self._warp.control
        if self.bundle.getControlEffect(control) <= 0.0:
            self._warp = None
            return {}
        share = self._share()
        seconds = control.getFullFframe() / control.getFrameRate()
        blend = self.settings.ik_blend_time
        sums = {}  # joint -> [sum of weight * correction, sum of weights]: overlapping eases add up
        for index, contact in enumerate(self._warp.asset.contacts):
            if seconds <= contact.start - blend:   # not easing in yet
                continue
            lift = self._lifts.get(index) if seconds > contact.end else None
            # a large correction lets go over longer, so the joint moves at most EASE_SPEED faster than animated
            ease_out = blend if lift is None else max(blend, 1.5 * lift.length() / EASE_SPEED)
            weight = contact.weight(seconds, blend, ease_out) * share
            if weight <= 0.0:
                self._locks.pop(index, None)
                self._lifts.pop(index, None)
                continue
            correction = lift if lift is not None else self._correction(index, contact, seconds)
            if correction is None:
                continue
            total = sums.setdefault(contact.joint, [Vec3(0, 0, 0), 0.0])
            total[0] += correction * weight
            total[1] += weight
            if contact.start <= seconds <= contact.end:
                self._inside[contact.joint] = index
        return {joint: (total / weight, min(1.0, weight)) for joint, (total, weight) in sums.items()}

    def _share(self):
        """How much the warp's clip makes of the pose, which its contacts count as: its part of the
        blend (Warp.effect over all clips' effects) while the warp fades it in or out, else its
        control effect (1 for the playing clip of an Actor that does not blend)."""
        warp = self._warp
        if warp.effect is not None:
            return warp.warper.clip_share(warp)[0]
        return self.bundle.getControlEffect(warp.control)

    def _correction(self, index, contact, seconds):
        """How far `contact`'s joint is from where it must be (world), or None when no surface is under it.

        Inside the window the correction is remembered: after the window the joint leaves with
        its animation (a foot lifting off) while that last correction eases out.
        """
        animated = self._joint_world(contact.joint)
        if contact.touches == "target":
            point, touchdown = self._target_points(index, contact)
            if seconds < contact.start:  # easing in: shift the joint's path by the error it would land with
                return point - touchdown
        else:
            if self.probe is None:
                return None
            if seconds >= contact.start:  # planted: the foot stays on what it touched down on
                if index not in self._locks:
                    self._locks[index] = self._surface_point(contact, animated)
                point = self._locks[index]
                if point is None:
                    return None
            else:  # easing in: look under where the clip will put it down; shift the joint's path by
                where = self._ahead(contact, seconds)    # the error it would land with
                point = self._surface_point(contact, where)
                return None if point is None else point - where
        correction = point - animated
        if seconds >= contact.start:
            self._lifts[index] = correction
        return correction

    def _surface_point(self, contact, where):
        """Where (world) `contact`'s joint sits on the surface under `where`, or None."""
        hit = self.probe.drop(where.x, where.y, where.z + self.settings.ik_ray_above,
                              where.z - self.settings.ik_ray_below)
        if hit is None:
            return None
        return Point3(where.x, where.y, hit[0]) + self.actor.getQuat(self.render).xform(Vec3(*contact.offset))

    def _ahead(self, contact, seconds):
        """Where (world) the clip will put `contact`'s joint at its start, if the root follows the
        clip's own motion from now on."""
        track = self._warp.asset.track
        ahead = track.motion(seconds * track.fps).inverse() * track.motion(contact.start * track.fps)
        return self.render.getRelativePoint(self.actor, Point3(*(ahead * Motion(contact.touchdown)).pos))

    def _target_points(self, index, contact):
        """Where `contact`'s joint must touch (world), and where the warp alone would put it then;
        computed again only when the target follows a node or the actor's parent or scale changed."""
        warp = self._warp
        phase = next(i for i, p in enumerate(warp.asset.phases) if p.name == contact.phase)
        depends = None if warp.targets[phase].follow is not None else (self.actor.getParent().getNetTransform(),
                                                                       warp.scale)
        known = self._points.get(index)
        if depends is None or known is None or known[0] != depends:
            known = self._points[index] = depends, self._resolved(warp, phase, contact)
        return known[1]

    def _resolved(self, warp, phase, contact):
        """_target_points, computed."""
        pos, quat = warp.targets[phase].resolve(self.render, self.render)
        goal, goal_quat = warp.phase_goal(phase)  # the root at the phase end
        parent = self.actor.getParent()
        touchdown = self.render.getRelativePoint(parent, goal + goal_quat.xform(Vec3(*contact.touchdown) * warp.scale))
        return pos + quat.xform(Vec3(*contact.offset)), touchdown

    def _ground_goals(self, goals, dt):
        """Outside warps, while standing: each foot at its animated height above what is under
        it, not above the character's own ground (slopes, steps); corrections ease in over the
        blend time, and out while the character is in the air."""
        if self.probe is None:
            return
        origin = self.actor.getPos(self.render)
        ground = origin.z
        ease = min(1.0, dt / self.settings.ik_blend_time) if self.settings.ik_blend_time > 0 else 1.0
        under = self.probe.drop(origin.x, origin.y, ground + _STANDING, ground - _STANDING)
        for foot in self.feet:
            animated = self._joint_world(foot)
            hit = None if under is None else self.probe.drop(animated.x, animated.y, ground + self.settings.ik_ray_above,
                                                             ground - self.settings.ik_ray_below)
            wanted = hit[0] - ground if hit is not None else 0.0  # airborne (nothing under the origin): as animated
            self._ground[foot] = self._ground.get(foot, 0.0) + (wanted - self._ground.get(foot, 0.0)) * ease
        if all(abs(self._ground[foot]) < _GROUND_EPSILON and foot not in goals for foot in self.feet):
            return
        for foot in self.feet:
            correction = Vec3(0, 0, self._ground[foot])
            if foot in goals:  # a contact still easing out: from its correction toward the ground's
                held, weight = goals[foot]
                correction = correction + (held * weight - correction) * weight
            goals[foot] = (correction, 1.0)

    def _feet_rise(self, goals):
        """How far (world metres, up) the pelvis should move: as far as the lowest foot must go, so
        no leg stretches toward the ground (a high crate, the downhill foot on a slope); up only
        as far as every foot must (a low crate: the body rises instead of crouching), so a free
        foot (no goal, counted as 0) never rises with it and never makes the pelvis jump."""
        if self.pelvis is None:
            return 0.0
        return min(goals[foot][0].z * goals[foot][1] if foot in goals else 0.0 for foot in self.feet)

    def _hands_bound(self, goals, rise):
        """`rise`, kept so every hand in contact stays within reach of its shoulder; the bound
        eases in with the hands' contacts (hands win when they and the feet disagree)."""
        low, high, grip = -math.inf, math.inf, 0.0
        for joint, (correction, weight) in goals.items():
            if joint in self.feet or not self._hangs_from_pelvis(joint):
                continue
            _, upper, mid, end = self._chain(joint)
            shoulder, elbow, hand = (self._joint_world(part.getName()) for part in (upper, mid, end))
            reach = reach_limit((hand - shoulder).length(), (elbow - shoulder).length() + (hand - elbow).length())
            to = hand + correction * weight - shoulder
            room = math.sqrt(max(0.0, reach * reach - to.x * to.x - to.y * to.y))
            low, high, grip = max(low, to.z - room), min(high, to.z + room), max(grip, weight)
        return rise + (max(low, min(high, rise)) - rise) * grip if grip > 0.0 else rise

    def _pelvis_of_feet(self, strict):
        """The joint every foot's leg hangs from (None when there is none; UsageError if `strict`)."""
        try:
            hips = {self._parents[self._chain(foot)[1].getName()] for foot in self.feet}
        except UsageError:
            if strict:
                raise
            return None
        if len(hips) != 1 or None in hips:
            if strict:
                raise UsageError(f"ContactIK: feet {', '.join(self.feet)} do not hang from one pelvis joint "
                                 f"(their legs start at {', '.join(map(str, sorted(hips, key=str)))})")
            return None
        return hips.pop()

    def _moved_pelvis(self, shift):
        """(pelvis name, its local TransformState moved by `shift` in Character space)."""
        parent = self._parents[self.pelvis]
        net, above = self._net(self.pelvis), LMatrix4f.identMat() if parent is None else self._net(parent)
        return self.pelvis, TransformState.makeMat(net * LMatrix4f.translateMat(shift) * _inverse(above))

    def _hangs_from_pelvis(self, joint):
        while joint is not None and joint != self.pelvis:
            joint = self._parents[joint]
        return joint is not None

    # -- bending one limb ---------------------------------------------------------------------
    def _chain(self, joint):
        """The CharacterJoints (parent of upper, upper, mid, end) of the limb ending at `joint`."""
        chain = self._chains.get(joint)
        if chain is None:
            mid = self._parents.get(joint)
            upper = self._parents.get(mid) if mid else None
            if upper is None:
                raise UsageError(f"ContactIK: {joint!r} is not an end joint with a parent and a grandparent "
                                 f"in {self.actor.getName()!r}")
            names = self._names[joint] = (self._parents[upper], upper, mid, joint)
            chain = self._chains[joint] = [None if name is None else self._joint(name) for name in names]
        return chain

    def _joint(self, name):
        joint = self._joints.get(name)
        if joint is None:
            joint = self._joints[name] = self.character.node().findJoint(name)
        return joint

    def _net(self, joint):
        """The joint's net matrix (Character space) this frame; shared, never modify it."""
        net = self._nets.get(joint)
        if net is None:
            net = self._nets[joint] = LMatrix4f()
            self._joint(joint).getNetTransform(net)
        return net

    def _joint_world(self, joint):
        return self._world_from_char.xformPoint(Point3(self._net(joint).getRow3(3)))

    def _bend(self, joint, move, moved, most, turns):
        """([(joint name, new local TransformState)], the move achieved, held back?) moving `joint`
        by `move` (Character space) from its animated place: less when out of reach, or when
        no joint of the limb may turn more than `most` degrees this frame beyond what its
        animation turns it (`turns` gets each joint's IK rotation). `moved`: how far the pelvis
        above this limb was moved (the limb's animated joints move with it)."""
        chain = self._chain(joint)[1:]
        names = self._names[joint]
        nets = [LMatrix4f.identMat() if name is None else self._net(name) for name in names]
        if moved is not None:
            nets = [net * LMatrix4f.translateMat(moved) for net in nets]
        parent_net, upper, mid, end = nets
        animated = Point3(end.getRow3(3)) - (moved if moved is not None else Vec3(0, 0, 0))
        bend = bend_direction(upper.getRow3(3), mid.getRow3(3), end.getRow3(3), self._bends.get(joint))
        self._bends[joint] = bend
        new = solve(upper, mid, end, animated + move, bend)
        transforms, held, above = [], False, parent_net
        for part, name, net, first in zip(chain, names[1:], new, (parent_net, None, None)):
            local, animated_local = TransformState.makeMat(net * _inverse(above)), part.getValue()
            if most < math.inf:
                local, turned = self._limited(name, local, animated_local, first, most)
                held = held or turned
            turns[name] = (local, animated_local, first)
            transforms.append((name, local))
            above = local.getMat() * above if held else net
        return transforms, Vec3(above.getRow3(3) - animated), held

    def _limited(self, name, wanted, animated, parent, most):
        """(joint `name`'s new local TransformState, held back?): `wanted`, unless that turns it
        more than `most` degrees this frame and beyond its animation (`animated`, its animated
        local matrix; ik.limit_turn). `parent` (for the limb's first joint): its parent's net
        matrix, for its turn in Character space too."""
        last, held = self._turns.get(name), False
        if last is None or not self._within(last, wanted, parent, most):
            anim_quat = _rotation(animated)
            if last is None:  # not bent last frame: from the animation
                previous, anim_turn = LQuaternionf.identQuat(), 0.0
            else:
                out, last_animated, last_parent = last
                last_quat = _rotation(last_animated)
                previous, anim_turn = out.getQuat() * last_quat.conjugate(), _turn(last_quat, None, anim_quat, None)
                if parent is not None:
                    anim_turn = max(anim_turn, _turn(last_quat, _rotation(last_parent), anim_quat, _rotation(parent)))
            turn, held = limit_turn(previous, wanted.getQuat() * anim_quat.conjugate(), anim_turn, most)
            if held:
                wanted = TransformState.makeMat(animated).setQuat(turn * anim_quat)
        return wanted, held

    @staticmethod
    def _within(last, wanted, parent, most):
        """Does `wanted` turn the joint at most `most` degrees from last frame's pose (`last`:
        its _turns entry), in its parent's space and, with `parent`, in Character space?"""
        before, now = last[0].getQuat(), wanted.getQuat()
        if not _within(before, None, now, None, most):
            return False
        return parent is None or _within(before, _rotation(last[2]), now, _rotation(parent), most)

    def _peak_of(self, warp):
        """Degrees per second the clip of `warp` turns its contacts' limb joints at most (cached)."""
        clip = warp.asset.clip
        if clip not in self._peaks:
            joints = frozenset(part.getName() for contact in warp.asset.contacts
                               for part in self._chain(contact.joint)[1:])
            self._peaks[clip] = peak_turn_speed(warp.control.getAnim(), joints)
        return self._peaks[clip]


def _let_go(turns):
    """Are the IK rotations of these joints' `turns` entries (frozen, animated, ...) all negligible?"""
    return all(_turn(frozen.getQuat(), None, _rotation(animated), None) <= _LET_GO_DEG for frozen, animated, _ in turns)


def _rotation(mat):
    return TransformState.makeMat(mat).getQuat()


def _within(a, a_parent, b, b_parent, most):
    """Is the turn from `a` to `b` (as in _turn) at most `most` degrees? (the cheap test)"""
    if a_parent is not None:
        a, b = a * a_parent, b * b_parent
    return abs(a.dot(b)) >= math.cos(math.radians(min(most, 180.0)) / 2.0)


def _turn(a, a_parent, b, b_parent):
    """Degrees between local rotations `a` and `b` (quaternions), each under its parent's rotation
    when given (then the turn in the parents' space)."""
    if a_parent is not None:
        a, b = a * a_parent, b * b_parent
    return turn_angle(a.conjugate() * b)


def _inverse(mat):
    inverse = LMatrix4f(mat)
    inverse.invertInPlace()
    return inverse


@functools.lru_cache(maxsize=64)
def peak_turn_speed(anim, joints):
    """Degrees per second the fastest of `joints` (a frozenset) turns relative to its parent, from
    frame to frame of AnimBundle `anim` at its own frame rate (inf when it has no such joints).
    Cached: Actors loaded from one file share their AnimBundles."""
    frames, peak = anim.getNumFrames(), 0.0
    channels = [channel for channel in (find_channel(anim, joint) for joint in joints) if channel is not None]
    mat = LMatrix4f()
    for channel in channels:
        quats = []
        for frame in range(frames):
            channel.getValue(frame, mat)
            quats.append(TransformState.makeMat(mat).getQuat())
        peak = max([peak] + [turn_angle(a.conjugate() * b) for a, b in zip(quats, quats[1:])])
    return peak * anim.getBaseFrameRate() if channels and peak > 0.0 else math.inf
