"""What the contact IK's goal step reads from the scene, and nothing else: where joints are
animated, the surface a ray finds under a point, where a phase target puts a contact, and where
the clip will put a joint. Reads only; the goal step (ik.goals) stays free of NodePaths.
"""
import math
from typing import NamedTuple, Optional

from panda3d.core import Point3, Vec3

from ..animation.motion import Motion


class SceneView:
    """The scene around `actor` as the goal step sees it: `pose` (ik.PoseWriter) for animated
    joints, `probe` (a SceneProbe, or None) for surfaces, the warp whose contacts apply (`start`)."""

    def __init__(self, actor, render, probe, pose, settings):
        self.actor, self.render, self.probe, self.pose, self.settings = actor, render, probe, pose, settings
        self.has_surfaces = probe is not None
        self._warp = None
        self._points = {}         # contact index -> (what they depend on, its target_points) for the warp
        self._phases = {}         # phase name -> its index in the warp's asset
        self._ground = KeptGround(probe, settings)
        #: drop(name, x, y, top, bottom): the height (world z) of the first surface on a vertical ray
        #: from `top` down to `bottom` at (x, y), or None; the ground found for `name` (a foot, the
        #: origin) is used again while it still answers the ray (KeptGround.drop, called directly).
        self.drop = self._ground.drop

    def start(self, warp):
        """The contacts of `warp` apply from now on."""
        self._warp, self._points = warp, {}
        self._phases = {phase.name: index for index, phase in reversed(list(enumerate(warp.asset.phases)))}

    def animated(self, joint):
        """Where (world) the animation puts `joint` this frame."""
        return self.pose.world(joint)

    def animated_points(self, joints):
        """Where (world) the animation puts each of `joints` this frame."""
        return self.pose.points(joints)

    def origin(self):
        """The character's origin (world)."""
        return self.actor.getPos(self.render)

    def surface_point(self, contact, where):
        """Where (world) `contact`'s joint sits on the surface under `where`, or None."""
        hit = self.probe.drop(where.x, where.y, where.z + self.settings.ik_ray_above,
                              where.z - self.settings.ik_ray_below)
        if hit is None:
            return None
        return Point3(where.x, where.y, hit[0]) + self.actor.getQuat(self.render).xform(Vec3(*contact.offset))

    def ahead(self, contact, seconds):
        """Where (world) the clip will put `contact`'s joint at its start, if the root follows the
        clip's own motion from now on."""
        track = self._warp.asset.track
        ahead = track.motion(seconds * track.fps).inverse() * track.motion(contact.start * track.fps)
        return self.render.getRelativePoint(self.actor, self._touchdown((ahead * Motion(contact.touchdown)).pos))

    def _touchdown(self, point):
        """A point of the warp's model frame (a contact's touchdown) in the actor's own frame."""
        turn = self._warp.into_skeleton
        return Point3(*point) if turn is None else turn.xformPoint(Point3(*point))

    def target_points(self, index, contact):
        """Where `contact`'s joint must touch (world), and where the warp alone would put it then;
        computed again only when the target follows a node or the actor's parent or scale changed."""
        warp = self._warp
        phase = self._phases[contact.phase]
        depends = None if warp.targets[phase].follow is not None else (self.actor.getParent().getNetTransform(),
                                                                       warp.scale)
        known = self._points.get(index)
        if depends is None or known is None or known[0] != depends:
            known = self._points[index] = depends, self._resolved(warp, phase, contact)
        return known[1]

    def _resolved(self, warp, phase, contact):
        """target_points, computed. The joint sits at its offset from the target (in the target's
        frame), moved along the contact's normal by as far as the surface a ray finds along that
        normal, through the point the joint touches (`touch`, a palm; else the offset point), lies
        from the target's own surface (a curved, sloped or stacked top is not level with the edge
        target; a button stands proud of its wall; a palm on the flat top behind a bevelled lip the
        wrist hangs over): from `ik_ray_above` out of the target's surface to
        `ik_surface_reach` into it. At the offset itself when no surface is there, the contact has
        no normal (a marker's point) or there is no probe: never on whatever lies farther (the
        floor under a thin top a hand is past the end of)."""
        pos, quat = warp.targets[phase].resolve(self.render, self.render)
        goal, goal_quat = warp.phase_goal(phase)  # the root at the phase end
        parent = self.actor.getParent()
        touchdown = self.render.getRelativePoint(parent, goal + goal_quat.xform(Vec3(self._touchdown(contact.touchdown))
                                                                              * warp.scale))
        offset = quat.xform(Vec3(*contact.offset))
        point = pos + offset
        if self.probe is not None and contact.normal is not None:
            normal = quat.xform(Vec3(*contact.normal))
            normal.normalize()
            touched = offset if contact.touch is None else quat.xform(Vec3(*contact.touch))
            surface = pos + touched - normal * touched.dot(normal)   # the target's own surface under the touched point
            hit = self.probe.ray(surface + normal * self.settings.ik_ray_above,
                                 surface - normal * self.settings.ik_surface_reach)
            if hit is not None:   # the joint keeps its offset from the touched point, moved to the surface found
                point = point + normal * (Point3(hit.pos) - surface).dot(normal)
        return point, touchdown


class _Ground(NamedTuple):
    """A ray's answer kept for a name: where it was cast (`x`, `y`, from `top` to `bottom`), the
    height it found (None: nothing), and the slope there (dz per metre along x and y)."""
    x: float
    y: float
    top: float
    bottom: float
    z: Optional[float]
    dz_dx: float
    dz_dy: float


class _Patch(NamedTuple):
    """Level ground with nothing above it (KeptGround): a vertical ray inside the square from (`x0`,
    `y0`) to (`x1`, `y1`) (all of it on one triangle) starting no higher than `top` first meets the
    plane through (`x`, `y`, `z`) of slope `dz_dx`, `dz_dy`."""
    x0: float
    y0: float
    x1: float
    y1: float
    top: float
    x: float
    y: float
    z: float
    dz_dx: float
    dz_dy: float

    def answer(self, x, y, top, bottom):
        """The height the ray at (x, y) from `top` to `bottom` meets the plane at, or None when the patch
        does not answer it: outside the square, higher than `top`, or the plane not between the two."""
        x0, y0, x1, y1, patch_top, px, py, pz, dz_dx, dz_dy = self
        if not (x0 <= x <= x1 and y0 <= y <= y1 and top <= patch_top):
            return None
        z = pz + dz_dx * (x - px) + dz_dy * (y - py)
        return z if bottom <= z <= top else None


class KeptGround:
    """The ground under a few named points (the feet, the origin), kept from one frame to the next.

    A ray at (x, y) from top to bottom is answered from the last one cast for its name while (x, y)
    is within `ik_ground_keep` metres of where that was cast and its top no more than that above
    the last top: the height found there, moved along the plane of the surface it hit (its
    normal), so flat and evenly sloped ground answer exactly; only where the surface bends or
    steps within that distance is the answer off (at most the step, over at most that distance).
    A ray that finds level ground on a triangle the probe knows (SceneProbe.drop_face: a probe built
    `from_geometry`) also keeps the square around it inside that triangle, up to `_PATCH` metres
    each way (a _Patch), when nothing lies above its plane in the square (SceneProbe.empty, up to
    the ray's top plus `ik_ground_keep`): every ray there is answered on that plane, exactly but for
    a surface less than 1 mm above it (`_CLEARANCE`, twice), so a foot walking on a floor casts a
    ray about once a metre, not every 2 mm. Only on a static probe
    (SceneProbe.static), forgotten when its version changes (`changed()`); `ik_ground_keep` 0 casts
    every ray."""

    def __init__(self, probe, settings):
        self.probe, self.settings = probe, settings
        self._kept = {}           # name -> _Ground
        self._patches = []        # _Patch, the newest last (at most _PATCHES)
        self._refused = {}        # name -> (x, y) where something lay in the patch tried for it last
        self._on = {}             # name -> the _Patch that answered it last (tried first)
        self._version = None      # the probe's version the kept ground was found in

    def drop(self, name, x, y, top, bottom):
        """The height (world z) of the first surface from `top` down to `bottom` at (x, y), or None."""
        probe, keep = self.probe, self.settings.ik_ground_keep
        if not probe.static or keep <= 0.0:
            hit = probe.drop(x, y, top, bottom)
            return None if hit is None else hit[0]
        if probe.version != self._version:
            self._kept, self._patches, self._refused, self._on, self._version = {}, [], {}, {}, probe.version
        last = self._on.get(name)
        z = None if last is None else last.answer(x, y, top, bottom)
        if z is not None:
            return z
        for patch in self._patches:
            z = patch.answer(x, y, top, bottom)
            if z is not None:
                self._on[name] = patch
                return z
        kept = self._kept.get(name)
        if kept is not None:
            kept_x, kept_y, kept_top, kept_bottom, kept_z, dz_dx, dz_dy = kept
            dx, dy = x - kept_x, y - kept_y
            if dx * dx + dy * dy <= keep * keep and top <= kept_top + keep:
                if kept_z is None:
                    if bottom >= kept_bottom - keep:
                        return None
                else:
                    z = kept_z + dz_dx * dx + dz_dy * dy
                    if bottom <= z <= top:
                        return z
        found = probe.drop_face(x, y, top, bottom)
        if found is None:
            self._kept[name] = _Ground(x, y, top, bottom, None, 0.0, 0.0)
            return None
        z, normal, corners = found
        if normal[2] < _STEEPEST:   # next to a wall: found again next time
            self._kept.pop(name, None)
        else:
            dz_dx, dz_dy = -normal[0] / normal[2], -normal[1] / normal[2]
            self._kept[name] = _Ground(x, y, top, bottom, z, dz_dx, dz_dy)
            refused = self._refused.get(name)
            if corners is not None and (refused is None or (x - refused[0]) ** 2 + (y - refused[1]) ** 2 > _RETRY * _RETRY):
                if self._keep_patch(x, y, top + keep, z, dz_dx, dz_dy, corners):
                    self._refused.pop(name, None)
                else:   # something on the ground near: not swept for again for _RETRY metres
                    self._refused[name] = (x, y)
        return z

    def _keep_patch(self, x, y, top, z, dz_dx, dz_dy, corners):
        """Keep the square around (x, y) inside the triangle `corners` (world points) the ray there
        found the plane (z, slope) on, at most `_PATCH` metres each way and `_EDGE` from the triangle's
        edges, for rays from no higher than `top`: when it is at least `_SMALLEST` each way, the plane
        rises less than `_CLEARANCE` across it, `top` is at least `_ABOVE` above it and nothing
        lies in it from `_CLEARANCE` above the plane's highest point there up to `top`. Returns False
        only when something lies there."""
        half = _PATCH
        (ax, ay, _), (bx, by, _), (cx, cy, _) = corners
        turn = 1.0 if (bx - ax) * (cy - ay) - (by - ay) * (cx - ax) > 0.0 else -1.0
        for (px, py), (qx, qy) in (((ax, ay), (bx, by)), ((bx, by), (cx, cy)), ((cx, cy), (ax, ay))):
            length = math.hypot(qx - px, qy - py)
            if length == 0.0:
                return True
            nx, ny = -turn * (qy - py) / length, turn * (qx - px) / length   # the inward normal
            # a square's corner nearest this edge is half * (|nx| + |ny|) closer to it than its centre
            half = min(half, ((x - px) * nx + (y - py) * ny - _EDGE) / (abs(nx) + abs(ny)))
        rise = (abs(dz_dx) + abs(dz_dy)) * half
        if half < _SMALLEST or rise > _CLEARANCE or top < z + _ABOVE:
            return True   # too near an edge, not level, or rays starting hardly above the plane
        x0, y0, x1, y1 = x - half, y - half, x + half, y + half
        if not self.probe.empty((x0, y0, z + rise + _CLEARANCE), (x1, y1, top)):
            return False
        if len(self._patches) >= _PATCHES:
            del self._patches[0]
        self._patches.append(_Patch(x0, y0, x1, y1, top, x, y, z, dz_dx, dz_dy))
        return True


#: The cosine of the steepest incline whose hit KeptGround keeps (84 degrees; a wall's is not).
_STEEPEST = 0.1
#: Metres: half the side of the square of level ground KeptGround keeps around a ray (a _Patch).
_PATCH = 0.5
#: Metres: how much a patch's plane may rise across it, and how far above that nothing is looked for.
_CLEARANCE = 0.0005
#: Metres: how far a patch keeps from its triangle's edges (Bullet's rays may miss on them).
_EDGE = 1e-4
#: Metres: how far above a patch's plane its rays must start (the box it sweeps is that tall, less 1 mm).
_ABOVE = 0.01
#: Metres: the smallest patch kept, each way of its ray (a ray nearer a triangle's edge keeps none).
_SMALLEST = 0.05
#: Metres a name moves from where something lay in its patch before one is tried again.
_RETRY = 0.25
#: How many patches a KeptGround remembers (the feet and the origin of a character walking over them).
_PATCHES = 8
