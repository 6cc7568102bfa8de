"""ContactIK: keeps hands and feet on what they touch, in a task after the warper (docs/design.md 9).

Each frame, in its own late task, it composes its parts: the goal step (ik.goals: where each
touching joint must be, from the clip time, the contacts, the phase targets and the surfaces a
ray finds, and how far the pelvis moves), the limb bender (ik.limbs, or the same in one
compiled call, ik.compiled, when numba imports) putting each limb's end there with the two-bone
solver (ik.twobone) and holding back every joint it bends with the turn-rate limiter
(ik.turn_limit: a contact easing in or out, or a body the warp moves under a held hand), and the
pose writer (ik.pose_writer) showing the bent joints this frame. The task runs last before
rendering (anything calling `actor.update()` later in the same frame undoes it). With no contact
active it costs next to nothing.
"""

from direct.directnotify.DirectNotifyGlobal import directNotify
from panda3d.core import ClockObject, LMatrix4f, TransformState, Vec3

from ..base.config import ContactIKSettings, from_base
from ..base.errors import UsageError
from . import compiled
from .compiled import CompiledLimbs
from .goals import ClipTime, ContactGoals, CycleTime, PelvisRise, on_edge, window_edges
from .limbs import Limb, LimbBender
from .pose_writer import PoseWriter, inverse
from .scene_view import SceneView
from .turn_limit import TurnLimiter

#: A limb this close to where it must be (metres) is left as animated: no cost, no visible difference.
_NEGLIGIBLE = 5e-4
_notify = directNotify.newCategory("motionwarp")


class ContactIK:
    """Two-bone IK for the contacts of whatever warp `warper` plays, in its own late task.

    It reads the pose the warper's task computed this frame. When every foot has somewhere to be,
    the pelvis moves up or down as far as the lowest foot must go (within the reach of any hand
    in contact), so legs bend rather than stretch; over two heights it also rolls, the spine
    turned back upright.

    `probe` (a motionwarp.SceneProbe) finds the surfaces under feet; without it, surface contacts
    are left as animated. `feet` names the foot joints kept on the ground outside warps when the
    `feet_on_ground` setting is on; `steps` ({clip: [(foot, sole, start s, end s)]},
    `planting.cycle_steps`) says when the locomotion cycles plant each foot: there its sole stays
    where it touched down (foot locking). Keyword arguments override the `motionwarp-ik-*` PRC
    settings (`sort` the task sort, `blend_time`, `feet_on_ground`, `ray_above`, `ray_below`,
    `surface_reach`, `compiled`: 0 bends the limbs in Python even when numba imports).
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
        #: The joints whose parent is the pelvis (a rolled pelvis turns back all but the legs').
        self._below_pelvis = tuple(name for name, parent in self.pose.parents.items()
                                   if parent == self.pelvis and self.pelvis is not None)
        self._world = SceneView(actor, self.render, probe, self.pose, self.settings)
        self._goals = ContactGoals(self.settings, self.feet)
        self._pelvis_rise = PelvisRise(self.feet if self.pelvis is not None else ())
        self._limiter = TurnLimiter()
        self._bender = LimbBender(self._limiter)
        #: The compiled bends (ik.compiled) when numba imports and `ik_compiled` is on, else None.
        self._compiled = CompiledLimbs(self._limiter) if self.settings.ik_compiled and compiled.AVAILABLE else None
        self._warp = None         # the warp whose contacts apply (kept while its clip still shows)
        self._edges = ()          # its contacts' window edges (clip seconds)
        self._hanging = {}        # joint -> does it hang from the pelvis?
        self._last_error = None
        self._rested = False      # the bender, the turn limiter and the pelvis rest since the last bent frame
        self._taskmgr = taskmgr or from_base("taskMgr")
        self._task_name = f"motionwarp-contact-ik-{id(self)}"
        self._taskmgr.add(self._task, self._task_name, sort=self.settings.ik_task_sort)

    @property
    def compiled(self):
        """Are the limbs bent in compiled code (ik.compiled) this frame?"""
        return self._compiled is not None

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
        if not goals and not self._limiter.letting_go:  # nothing in contact: no joint written
            if not self._rested:
                self._rest()
                self._pelvis_rise.rest()
                self._rested = True
            return 0
        self._rested = False
        # limbs the pelvis must keep within reach: hands in contact, and feet a locomotion cycle plants
        arms = {joint: self._arm(joint) for joint in goals
                if (joint not in self.feet or self._goals.stepping(joint)) and self._hangs_from_pelvis(joint)}
        legs = {joint: self._arm(joint) for joint in goals
                if joint in self.feet and joint not in arms and self._hangs_from_pelvis(joint)}
        pelvis = self._pelvis_rise
        rise = pelvis.step(goals, arms, dt, self.settings.ik_blend_time, legs,
                           self.pose.world(self.pelvis) if len(legs) == 2 else None)
        moving = bool(rise or pelvis.roll)
        limiter = self._limiter
        if not moving:  # with the pelvis in place, a limb already where it must be is left alone
            goals = {joint: goal for joint, goal in goals.items()
                     if goal[0].length() * goal[1] >= _NEGLIGIBLE or joint in limiter.letting_go}
        for joint in limiter.letting_go:  # its contact is over: back to the animation, within the turn limit
            goals.setdefault(joint, (Vec3(0, 0, 0), 0.0))
        if not goals and not moving:
            self._rest()
            return 0
        world_from_char = self.pose.world_from_char
        char_from_world = inverse(world_from_char)
        frozen, lifted, rolled = [], None, None
        if moving:
            lifted = LMatrix4f.translateMat(char_from_world.xformVec(Vec3(0, 0, rise)))
            rolled = self._pelvis_motion(lifted, pelvis, world_from_char, char_from_world)
            frozen += self._moved_pelvis(rolled, lifted, goals)
        limiter.start_frame(dt, self._warp.control.getPlayRate() if self._warp is not None else 1.0)
        up = char_from_world.xformVec(Vec3(0, 0, 1)).normalized()
        limbs, carried = [], {}
        for joint, (correction, weight) in goals.items():
            moved = None
            if moving and self._hangs_from_pelvis(joint):   # a leg rolls with the pelvis, the rest only rises
                moved = rolled if self.pose.names(joint)[0] == self.pelvis else lifted
            # the pelvis's rise carries the end beyond its goal's share (its roll does not: the limb bends for it)
            carried[joint] = Vec3(0, 0, rise * (1.0 - weight)) if moved is not None else Vec3(0, 0, 0)
            limbs.append(self._limb(joint, char_from_world.xformVec(correction * weight + carried[joint]), moved, up,
                                    weight))
        letting_go = set()
        for (joint, (_, weight)), bent in zip(goals.items(), self._bend(limbs)):
            frozen += bent.transforms
            if bent.letting_go:
                letting_go.add(joint)
            if weight > 0.0:
                self._goals.reached(joint, (world_from_char.xformVec(bent.reached) - carried[joint]) / weight)
                if bent.slid.length() > 0.0:
                    self._goals.replant(joint, world_from_char.xformVec(bent.slid) / weight)
        limiter.end_frame(letting_go)
        self.pose.write(frozen)
        return len(goals)

    def _rest(self):
        """No limb bent this frame: the next starts from the animation."""
        (self._compiled or self._bender).rest()

    def goals(self, dt):
        """{end joint: (correction, weight)}: move the joint `correction * weight` (world) from its
        animated place this frame; empty when nothing is in contact (then no joint is read, unless
        a limb is still being let go within the turn limit)."""
        clip = self._clip_time()
        if self._goals.resting(clip) and not self._limiter.letting_go:
            return {}
        self.pose.read()   # this frame's animated pose (nothing to do when the warper's task made it)
        return self._goals.step(dt, clip, self._world, self._cycle_time() if clip is None and self.steps else None)

    def _cycle_time(self):
        """Outside warps, the CycleTime of the locomotion cycle in `steps` (not empty) with the most effect on the
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
            self._edges = window_edges(warp.asset.contacts)
            self._goals.restart()
            self._world.start(warp)
            joints = frozenset(name for contact in warp.asset.contacts for name in self.pose.names(contact.joint)[1:])
            firsts = frozenset(self.pose.names(contact.joint)[1] for contact in warp.asset.contacts)
            self._limiter.follow_clip(warp.asset.clip, warp.control.getAnim(), joints, firsts)
        if self._warp is None:
            return None
        control = self._warp.control
        effect = self.pose.bundle.getControlEffect(control)
        if effect <= 0.0:
            self._warp = None
            return None
        fps = control.getFrameRate()
        return ClipTime(self._warp.asset.contacts, on_edge(control.getFullFframe() / fps, self._edges, fps),
                        self._share(effect))

    def _share(self, effect):
        """How much the warp's clip makes of the pose, which its contacts count as: its part of the
        blend (Warp.effect over all clips' effects) while the warp fades it in or out, else its
        control `effect` (1 for the playing clip of an Actor that does not blend)."""
        warp = self._warp
        if warp.effect is not None:
            return warp.warper.clip_share(warp)[0]
        return effect

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

    def _pelvis_motion(self, lifted, pelvis, world_from_char, char_from_world):
        """The pelvis's motion this frame (Character space, `net * motion`): `lifted` (its rise),
        after its roll (`pelvis`: the PelvisRise) about its level world axis through the pelvis."""
        if pelvis.turn is None:
            return lifted
        return world_from_char * pelvis.turn * char_from_world * lifted

    def _moved_pelvis(self, rolled, lifted, goals):
        """[(joint name, local TransformState)]: the pelvis moved by `rolled` (Character space), and
        when it rolls, each joint hanging from it but for the limbs' first joints (a spine) turned
        back to be only `lifted`, so the upper body stays upright."""
        pose, pelvis = self.pose, self.pelvis
        parent = pose.parents[pelvis]
        net, above = pose.net(pelvis), LMatrix4f.identMat() if parent is None else pose.net(parent)
        moved = [(pelvis, TransformState.makeMat(net * rolled * inverse(above)))]
        if rolled is not lifted:
            firsts = {pose.names(joint)[1] for joint in goals if pose.names(joint)[0] == pelvis}
            below = inverse(net * rolled)
            moved += [(child, TransformState.makeMat(pose.net(child) * lifted * below))
                      for child in self._below_pelvis if child not in firsts]
        return moved

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
        return tuple(self.pose.points(self.pose.names(joint)[1:]))

    # -- bending the limbs ---------------------------------------------------------------------
    def _limb(self, joint, move, moved, up, weight):
        """The limbs.Limb ending at `joint`, moved by `move` (Character space) from its animated
        place, `moved` by the pelvis (or None), as animated this frame."""
        pose, limiter = self.pose, self._limiter
        parts = pose.chain(joint)
        parent, upper, mid, end = names = pose.names(joint)
        return Limb(names[1:], _IDENTITY if parent is None else pose.net(parent),
                    (parts[1].getValue(), parts[2].getValue(), parts[3].getValue()), moved, move, up,
                    limiter.limits(upper, mid, end), limiter.most_net(upper), weight, joint in limiter.letting_go)

    def _bend(self, limbs):
        """[limbs.BentLimb] for `limbs`: compiled when it can be (the first limb with shear or
        mirroring makes this ContactIK bend in Python from then on), else in Python."""
        if self._compiled is not None:
            bent = self._compiled.bend(limbs)
            if bent is not None:
                return bent
            _notify.info(f"{self.actor.getName()} contact IK: a limb has shear or mirroring; bending in Python")
            self._compiled = None
        return self._bender.bend(limbs)


_IDENTITY = LMatrix4f.identMat()
