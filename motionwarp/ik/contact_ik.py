"""ContactIK: keeps hands and feet on what they touch, in a task after the warper (docs/design.md 9).

Each frame, in its own late task, it composes its parts: the goal step (ik.goals: where each
touching joint must be, from the clip time, the contacts, the phase targets and the surfaces a
ray finds, and how far the pelvis moves), the two-bone solver (ik.twobone) bending each limb to
put its end there, the turn-rate limiter (ik.turn_limit) holding back every joint it bends (a
contact easing in or out, or a body the warp moves under a held hand), and the pose writer (ik.pose_writer) showing the bent
joints this frame. The task runs last before rendering (anything calling `actor.update()` later in the same frame undoes
it). With no contact active it costs next to nothing.
"""

from direct.directnotify.DirectNotifyGlobal import directNotify
from panda3d.core import ClockObject, LMatrix4f, Point3, TransformState, Vec3

from ..base.config import ContactIKSettings, from_base
from ..base.errors import UsageError
from .goals import ClipTime, ContactGoals, CycleTime, PelvisRise
from .pose_writer import PoseWriter, inverse
from .scene_view import SceneView
from .turn_limit import TurnLimiter
from .twobone import bend_direction, reach_limit, slide_within_reach, solve

#: A limb this close to where it must be (metres) is left as animated: no cost, no visible difference.
_NEGLIGIBLE = 5e-4
_notify = directNotify.newCategory("motionwarp")


class ContactIK:
    """Two-bone IK for the contacts of whatever warp `warper` plays, in its own late task.

    It reads the pose the warper's task computed this frame. When every foot has somewhere to be,
    the pelvis moves up or down as far as the lowest foot must go (within the reach of any hand
    in contact), so legs bend rather than stretch.

    `probe` (a motionwarp.SceneProbe) finds the surfaces under feet; without it, surface contacts
    are left as animated. `feet` names the foot joints kept on the ground outside warps when the
    `feet_on_ground` setting is on; `steps` ({clip: [(foot, sole, start s, end s)]},
    `planting.cycle_steps`) says when the locomotion cycles plant each foot: there its sole stays
    where it touched down (foot locking). Keyword arguments override the `motionwarp-ik-*` PRC
    settings (`sort` the task sort, `blend_time`, `feet_on_ground`, `ray_above`, `ray_below`).
    """

    def __init__(self, actor, warper, probe=None, feet=("foot_l", "foot_r"), taskmgr=None, render=None,
                 sort=None, steps=None, **settings):
        if actor.isEmpty():
            raise UsageError("ContactIK: the actor is empty (removed)")
        self.settings = ContactIKSettings.from_prc(ik_task_sort=sort,
                                                   **{f"ik_{name}": value for name, value in settings.items()})
        self.actor, self.warper, self.probe = actor, warper, probe
        self.render = render if render is not None else from_base("render")
        self.pose = PoseWriter(actor, self.render)
        self.feet = tuple(feet)
        self.steps = {clip: tuple(planted) for clip, planted in (steps or {}).items()}
        self.pelvis = self._pelvis_of_feet(strict=bool(self.settings.ik_feet_on_ground))
        self._world = SceneView(actor, self.render, probe, self.pose, self.settings)
        self._goals = ContactGoals(self.settings, self.feet)
        self._pelvis_rise = PelvisRise(self.feet if self.pelvis is not None else ())
        self._limiter = TurnLimiter()
        self._warp = None         # the warp whose contacts apply (kept while its clip still shows)
        self._bends = {}          # joint -> last bend direction, for limbs animated perfectly straight
        self._hanging = {}        # joint -> does it hang from the pelvis?
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
        if not goals and not self._limiter.letting_go:  # nothing in contact: no joint read, none written
            self._limiter.rest()
            self._pelvis_rise.rest()
            return 0
        # limbs the pelvis must keep within reach: hands in contact, and feet a locomotion cycle plants
        arms = {joint: self._arm(joint) for joint in goals
                if (joint not in self.feet or self._goals.stepping(joint)) and self._hangs_from_pelvis(joint)}
        rise = self._pelvis_rise.step(goals, arms, dt, self.settings.ik_blend_time)
        limiter = self._limiter
        if not rise:  # with the pelvis in place, a limb already where it must be is left alone
            goals = {joint: goal for joint, goal in goals.items()
                     if goal[0].length() * goal[1] >= _NEGLIGIBLE or joint in limiter.letting_go}
        for joint in limiter.letting_go:  # its contact is over: back to the animation, within the turn limit
            goals.setdefault(joint, (Vec3(0, 0, 0), 0.0))
        if not goals and not rise:
            limiter.rest()
            return 0
        world_from_char = self.pose.world_from_char
        char_from_world = inverse(world_from_char)
        frozen, shift = [], None
        if rise:
            shift = char_from_world.xformVec(Vec3(0, 0, rise))
            frozen.append(self._moved_pelvis(shift))
        limiter.start_frame(dt, self._warp.control.getPlayRate() if self._warp is not None else 1.0)
        up = char_from_world.xformVec(Vec3(0, 0, 1)).normalized()
        letting_go = set()
        for joint, (correction, weight) in goals.items():
            moved = shift if shift is not None and self._hangs_from_pelvis(joint) else None
            carried = Vec3(0, 0, rise * (1.0 - weight)) if moved is not None else Vec3(0, 0, 0)  # by the pelvis
            transforms, reached, held, slid = self._bend(joint, char_from_world.xformVec(correction * weight + carried),
                                                         moved, up)
            frozen += transforms
            names = [name for name, _ in transforms]
            # a limb easing out whose IK rotation is more than a frame's turn is let go within the
            # limit when its goal ends (its last correction may be small and its rotation not)
            if held or (joint in limiter.letting_go and not limiter.let_go(names)) \
                    or (weight < 1.0 and limiter.beyond_a_frame(names)):
                letting_go.add(joint)
            if weight > 0.0:
                self._goals.reached(joint, (world_from_char.xformVec(reached) - carried) / weight)
                if slid.length() > 0.0:
                    self._goals.replant(joint, world_from_char.xformVec(slid) / weight)
        limiter.end_frame(letting_go)
        self.pose.write(frozen)
        return len(goals)

    def goals(self, dt):
        """{end joint: (correction, weight)}: move the joint `correction * weight` (world) from its
        animated place this frame; empty when nothing is in contact (then no joint is read, unless
        a limb is still being let go within the turn limit)."""
        clip = self._clip_time()
        if self._goals.resting(clip) and not self._limiter.letting_go:
            return {}
        self.pose.read()   # this frame's animated pose (nothing to do when the warper's task made it)
        return self._goals.step(dt, clip, self._world, self._cycle_time() if clip is None else None)

    def _cycle_time(self):
        """Outside warps, the CycleTime of the locomotion cycle in `steps` with the most effect on the
        pose (None when none plays)."""
        playing = [(self.pose.bundle.getControlEffect(control), clip, control)
                   for clip, control in ((clip, self.actor.getAnimControl(clip)) for clip in self.steps)
                   if control is not None]
        effect, clip, control = max(playing, key=lambda item: item[0], default=(0.0, None, None))
        if effect <= 0.0:
            return None
        frame = control.getFrame() + control.getFullFframe() - control.getFullFrame()
        return CycleTime(self.steps[clip], frame / control.getFrameRate())

    def _clip_time(self):
        """The ClipTime of the warp whose contacts apply this frame (a new one restarts the goal
        step and sets the turn limit), or None when its clip no longer shows."""
        warp = self.warper.current if self.warper is not None else None
        if warp is not None and warp is not self._warp:
            self._warp = warp
            self._goals.restart()
            self._world.start(warp)
            joints = frozenset(name for contact in warp.asset.contacts for name in self.pose.names(contact.joint)[1:])
            firsts = frozenset(self.pose.names(contact.joint)[1] for contact in warp.asset.contacts)
            self._limiter.follow_clip(warp.asset.clip, warp.control.getAnim(), joints, firsts)
        if self._warp is None:
            return None
        control = self._warp.control
        if self.pose.bundle.getControlEffect(control) <= 0.0:
            self._warp = None
            return None
        return ClipTime(self._warp.asset.contacts, control.getFullFframe() / control.getFrameRate(), self._share())

    def _share(self):
        """How much the warp's clip makes of the pose, which its contacts count as: its part of the
        blend (Warp.effect over all clips' effects) while the warp fades it in or out, else its
        control effect (1 for the playing clip of an Actor that does not blend)."""
        warp = self._warp
        if warp.effect is not None:
            return warp.warper.clip_share(warp)[0]
        return self.pose.bundle.getControlEffect(warp.control)

    # -- the pelvis -----------------------------------------------------------------------------
    def _pelvis_of_feet(self, strict):
        """The joint every foot's leg hangs from (None when there is none; UsageError if `strict`)."""
        try:
            hips = {self.pose.parents[self.pose.names(foot)[1]] for foot in self.feet}
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
        parent = self.pose.parents[self.pelvis]
        net, above = self.pose.net(self.pelvis), LMatrix4f.identMat() if parent is None else self.pose.net(parent)
        return self.pelvis, TransformState.makeMat(net * LMatrix4f.translateMat(shift) * inverse(above))

    def _hangs_from_pelvis(self, joint):
        hangs = self._hanging.get(joint)
        if hangs is None:
            above = joint
            while above is not None and above != self.pelvis:
                above = self.pose.parents[above]
            hangs = self._hanging[joint] = above is not None
        return hangs

    def _arm(self, joint):
        """(shoulder, elbow, hand): where (world) the limb ending at `joint` is animated this frame."""
        return tuple(self.pose.world(name) for name in self.pose.names(joint)[1:])

    # -- bending one limb ---------------------------------------------------------------------
    def _bend(self, joint, move, moved, up):
        """([(joint name, new local TransformState)], the move achieved, held back?, how far the
        goal slid) moving `joint` by `move` (Character space) from its animated place. A goal out
        of reach slides along the level plane through it (`up`: the world's up in Character
        space) until the limb reaches it (twobone.slide_within_reach: a planted foot slides on
        the ground rather than lifting). The move is less when a joint of the limb
        would turn faster than its own peak in the clip beyond what its animation turns it (the
        limiter gets each joint's IK rotation). `moved`: how far the pelvis above this limb was moved (the limb's
        animated joints move with it)."""
        pose, limiter = self.pose, self._limiter
        chain, names = pose.chain(joint), pose.names(joint)
        nets = [LMatrix4f.identMat() if name is None else pose.net(name) for name in names]
        if moved is not None:
            shift = LMatrix4f.translateMat(moved)
            nets = [net * shift for net in nets]
        parent_net, upper, mid, end = nets
        a, b, c = upper.getRow3(3), mid.getRow3(3), end.getRow3(3)
        animated = Point3(c) - moved if moved is not None else Point3(c)
        bend = self._bends[joint] = bend_direction(a, b, c, self._bends.get(joint))
        reach = reach_limit((c - a).length(), (b - a).length() + (c - b).length())
        goal = slide_within_reach(Point3(a), animated + move, reach, up)
        new = solve(upper, mid, end, goal, bend)
        transforms, held, above = [], False, parent_net
        parent_quat = TransformState.makeMat(parent_net).getQuat()
        for part, name, net, first in zip(chain[1:], names[1:], new, (parent_net, None, None)):
            animated_local = part.getValue()
            anim_quat = TransformState.makeMat(animated_local).getQuat()
            quat = parent_quat if first is not None else None
            local, turned = limiter.limit(name, TransformState.makeMat(net * inverse(above)), animated_local, first,
                                          limiter.most(name), anim_quat, quat)
            held = held or turned
            limiter.bent(name, local, animated_local, first, anim_quat, quat)
            transforms.append((name, local))
            above = local.getMat() * above if held else net
        return transforms, Vec3(above.getRow3(3) - animated), held, Vec3(goal - (animated + move))
