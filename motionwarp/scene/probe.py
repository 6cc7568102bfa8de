"""Rays, convex sweeps and overlap tests into a scene's real geometry through Bullet (docs/design.md 7).

A game passes its own `BulletWorld` (and the collide mask of what counts as obstacle), or
`SceneProbe.from_geometry(root)` builds a static world from the visible geometry under a
NodePath, so a game with no physics gets providers for free. Every hit names the scene
NodePath it came from, so a report or prompt can name the obstacle.
"""
import dataclasses
import math

from panda3d.bullet import (BulletBoxShape, BulletCapsuleShape, BulletGhostNode, BulletRigidBodyNode,
                            BulletSphereShape, BulletTriangleMesh, BulletTriangleMeshShape, BulletWorld)
from panda3d.core import BitMask32, Character, GeomNode, NodePath, Point3, TransformState, Vec3

#: Python tag on a Bullet node: the scene NodePath its shape was built from (set it on your own bodies too).
SOURCE_TAG = "motionwarp-source"
#: Tag a GeomNode's NodePath with `motionwarp-shape=box` to probe its local bounds as a box, not its triangles.
SHAPE_TAG = "motionwarp-shape"
#: Python tag on a `from_geometry` body: its world bounding box (x0, y0, z0, x1, y1, z1), for `near`.
_BOX_TAG = "motionwarp-bounds"
#: Python tag on a `from_geometry` body: its BulletTriangleMesh (world points), for `drop_face`.
_MESH_TAG = "motionwarp-mesh"
#: Metres: half the thickness of the slab `empty` sweeps down a box.
_SLAB = 0.0005


@dataclasses.dataclass
class Hit:
    """Where a ray or sweep touched the scene: the point on the geometry, its normal, the scene node."""

    pos: Point3
    normal: Vec3
    fraction: float
    node: NodePath


class SceneProbe:
    """Ray, sweep and overlap queries against a BulletWorld, limited to bodies whose into-mask meets `mask`.

    `static` says the world's obstacles do not move, so a provider may keep its last answer for a
    character that has not moved (true of a probe built `from_geometry`; pass it for your own world
    only if its obstacle bodies never move). Call `changed()` after adding, removing or moving a body.
    """

    #: How far (metres) the bounds `near` checks reach past each body's geometry (more than Bullet's margins).
    BOUNDS_PAD = 0.05

    def __init__(self, world, mask=BitMask32.allOn(), static=False):
        self.world, self.mask, self.static = world, BitMask32(mask), static
        #: Counts `changed()` calls: answers kept from an older version are not reused.
        self.version = 0
        self._spheres, self._capsules, self._ghosts = {}, {}, {}
        self._grid = None   # (version, _BoundsGrid) of a static probe, made at the first `near`
        self._kept = (None, {})   # (version, {owner: its store}) of a static probe: see `kept`

    def near(self, low, high):
        """Whether any body's bounds meet the box from `low` to `high` (world points): when not, every
        ray, sweep and overlap inside that box misses, and a query can skip them. The bounds are padded by
        BOUNDS_PAD, so no surface lies within that of a box's faces when it is not near. Answered from a grid
        of the bodies' bounding boxes on a static probe (made once, again after `changed()`); always
        True on one that is not static."""
        if not self.static:
            return True
        grid = self._grid
        if grid is None or grid[0] != self.version:
            grid = self._grid = (self.version, _BoundsGrid(self.world))
        return grid[1].meets(low, high)

    def kept(self, owner):
        """What queries keep of what they measured on a static probe: `owner()` makes the empty store the
        first time (the function names the store), forgotten when the version changes (`changed()`);
        None on a probe that is not static, where nothing measured may be kept."""
        if not self.static:
            return None
        version, kept = self._kept
        if version != self.version:
            self._kept = (self.version, {})
            kept = self._kept[1]
        found = kept.get(owner)
        if found is None:
            found = kept[owner] = owner()
        return found

    def changed(self):
        """Say the world changed (a body added, removed or moved): providers stop reusing kept answers."""
        self.version += 1

    @classmethod
    def from_geometry(cls, root, mask=BitMask32.allOn(), space=None):
        """A probe over a new static world holding the visible GeomNodes under `root`.

        Each GeomNode whose into-collide mask meets `mask` becomes a static triangle mesh with its
        transform relative to `space` (default: `root`'s top, i.e. render) baked in, scale
        included; one tagged `motionwarp-shape=box` becomes the box of its local bounds.
        Animated geometry (under a Character) is left out: it is not level geometry. The world is
        static: moving the scene nodes later does not move it (build a new probe, or edit `world` and
        call `changed()`).
        """
        space = space if space is not None else root.getTop()
        world = BulletWorld()
        nodes = [root] if root.node().isOfType(GeomNode.getClassType()) else []
        for node in nodes + list(root.findAllMatches("**/+GeomNode")):
            if node.isHidden() or (node.node().getIntoCollideMask() & mask).isZero() or _animated(node):
                continue
            body = _static_body(node, space)
            if body is not None:
                body.setIntoCollideMask(node.node().getIntoCollideMask())
                world.attachRigidBody(body)
        return cls(world, mask, static=True)

    def ray(self, start, end):
        """The closest hit on the segment from `start` to `end` (world points), or None."""
        result = self.world.rayTestClosest(start, end, self.mask)
        if not result.hasHit():
            return None
        return Hit(result.getHitPos(), result.getHitNormal(), result.getHitFraction(), self.source(result.getNode()))

    def drop(self, x, y, top, bottom):
        """A vertical ray at (x, y) from `top` down to `bottom`: (hit z, |cos| of the hit's incline), or None.

        The cheap form of `ray` for sampling a surface many times per query.
        """
        found = self.drop_normal(x, y, top, bottom)
        return None if found is None else (found[0], abs(found[1][2]))  # Bullet's ray normals are unit length

    def drop_normal(self, x, y, top, bottom):
        """`drop` with the hit's whole unit normal (facing up the ray): (hit z, normal), or None."""
        result = self.world.rayTestClosest((x, y, top), (x, y, bottom), self.mask)
        if result.hasHit():
            return result.getHitPos()[2], result.getHitNormal()
        return None

    def drop_face(self, x, y, top, bottom):
        """`drop_normal` with the triangle it hit: (hit z, normal, its three corners (world points)), or
        None; the corners are None on a body `from_geometry` did not make (its triangles are not kept).
        A triangle is whole: every vertical ray through it meets it, unless something above it is met first."""
        result = self.world.rayTestClosest((x, y, top), (x, y, bottom), self.mask)
        if not result.hasHit():
            return None
        mesh, triangle = result.getNode().getPythonTag(_MESH_TAG), result.getTriangleIndex()
        corners = None
        if mesh is not None and triangle >= 0 and result.getShapePart() == 0:
            vertices = mesh.vertices
            corners = tuple(Point3(vertices[index]) for index in mesh.triangles[triangle])
        return result.getHitPos()[2], result.getHitNormal(), corners

    def empty(self, low, high):
        """Whether nothing lies inside the upright box from `low` to `high` (world points, more than 1 mm
        apart in z): a 1 mm slab of its footprint swept from its top down to its bottom meets nothing (a
        surface the slab starts in counts too: Bullet reports it at the sweep's start)."""
        if high[2] - low[2] <= 2.0 * _SLAB:
            raise ValueError("SceneProbe.empty needs a box more than 1 mm tall (a shorter slab's sweep has no length)")
        slab = BulletBoxShape(Vec3((high[0] - low[0]) / 2.0, (high[1] - low[1]) / 2.0, _SLAB))
        x, y = (low[0] + high[0]) / 2.0, (low[1] + high[1]) / 2.0
        return not self.world.sweepTestClosest(slab, TransformState.makePos(Point3(x, y, high[2] - _SLAB)),
                                               TransformState.makePos(Point3(x, y, low[2] + _SLAB)),
                                               self.mask, 0.0).hasHit()

    def blocked(self, start, end):
        """Whether anything lies on the segment from `start` to `end`: `ray` without building a Hit."""
        return self.world.rayTestClosest(start, end, self.mask).hasHit()

    def sweep_sphere(self, radius, start, end):
        """The first hit of a sphere moved from `start` to `end` (centres), or None."""
        shape = self._spheres.get(radius)
        if shape is None:
            shape = self._spheres[radius] = BulletSphereShape(radius)
        return self._sweep(shape, start, end)

    def sweep_capsule(self, radius, height, start, end):
        """The first hit of an upright capsule (total `height`) moved from `start` to `end` (its centre)."""
        shape = self._capsule(radius, height)
        return self._sweep(shape, start, end)

    def capsule_padding(self, radius, height):
        """How far past an upright capsule Bullet's box around it reaches (its collision margin): a
        sweep tests every triangle within this of the capsule's path."""
        return self._capsule(radius, height).getMargin()

    def capsule_overlaps(self, radius, height, centre, ignore=()):
        """The scene node an upright capsule (total `height`, centred at `centre`) penetrates, or None;
        nodes in `ignore` (scene NodePaths) and under them are left out."""
        ghost = self._ghosts.get((radius, height))
        if ghost is None:
            ghost = self._ghosts[(radius, height)] = NodePath(BulletGhostNode("motionwarp-probe-capsule"))
            ghost.node().addShape(self._capsule(radius, height))
        ghost.setPos(centre)
        ghost = ghost.node()
        # use_filter=False: the filter needs the ghost in the world; masks are checked here instead.
        # Each body is tested again on its own: Panda3D 1.10 hands every contact of one test the last
        # manifold point Bullet made, so the first body listed would be blamed for another's overlap.
        seen = set()
        for contact in self.world.contactTest(ghost, False).getContacts():
            other = contact.getNode0() if contact.getNode1() == ghost else contact.getNode1()
            if other in seen or (other.getIntoCollideMask() & self.mask).isZero():
                continue
            seen.add(other)
            source = self.source(other)
            if any(source == node or node.isAncestorOf(source) for node in ignore):
                continue
            if any(c.getManifoldPoint().getDistance() < 0.0 for c in self.world.contactTestPair(ghost, other).getContacts()):
                return source
        return None

    @staticmethod
    def source(node):
        """The scene NodePath a Bullet node stands for: its `motionwarp-source` tag, else the node itself."""
        tagged = node.getPythonTag(SOURCE_TAG)
        return tagged if tagged is not None else NodePath(node)

    def _capsule(self, radius, height):
        key = (radius, height)
        shape = self._capsules.get(key)
        if shape is None:
            # Bullet's capsule height is the cylinder part only.
            shape = self._capsules[key] = BulletCapsuleShape(radius, max(height - 2 * radius, 0.0))
        return shape

    def _sweep(self, shape, start, end):
        if (end - start).lengthSquared() < 1e-12:
            raise ValueError("a sweep needs two different points (zero-length sweeps miss overlaps: use capsule_overlaps)")
        result = self.world.sweepTestClosest(shape, TransformState.makePos(start), TransformState.makePos(end),
                                             self.mask, 0.0)
        if not result.hasHit():
            return None
        return Hit(result.getHitPos(), result.getHitNormal(), result.getHitFraction(), self.source(result.getNode()))


class _BoundsGrid:
    """The world bounding boxes of a world's bodies, filed by the CELL-metre squares of the ground plan
    they cover, so a box is checked against the few bodies near it. A body too big to file (a ground
    plane) is checked every time."""

    CELL = 4.0
    MOST_CELLS = 64   # a body covering more squares is checked every time
    PAD = SceneProbe.BOUNDS_PAD

    def __init__(self, world):
        self.cells, self.everywhere = {}, []
        if world.getNumSoftBodies() or world.getNumCharacters():   # no bounds to read: always near
            self.everywhere.append(None)
        for body in list(world.getRigidBodies()) + list(world.getGhosts()):
            bounds = body.getShapeBounds()
            if bounds.isEmpty() or bounds.isInfinite():
                self.everywhere.append(None)   # unknown extent: always near
                continue
            bounds.xform(NodePath(body).getNetTransform().getMat())
            centre, radius = bounds.getCenter(), bounds.getRadius()
            box = (centre.x - radius, centre.y - radius, centre.z - radius,
                   centre.x + radius, centre.y + radius, centre.z + radius)
            box = _tight_box(body, box)
            box = tuple(v - self.PAD for v in box[:3]) + tuple(v + self.PAD for v in box[3:])
            if not all(math.isfinite(v) for v in box):
                self.everywhere.append(None)
                continue
            cell = self.CELL
            i0, i1, j0, j1 = (math.floor(box[k] / cell) for k in (0, 3, 1, 4))
            if (i1 - i0 + 1) * (j1 - j0 + 1) > self.MOST_CELLS:
                self.everywhere.append(box)
                continue
            for i in range(i0, i1 + 1):
                for j in range(j0, j1 + 1):
                    self.cells.setdefault((i, j), []).append(box)

    def meets(self, low, high):
        lx, ly, lz, hx, hy, hz = low[0], low[1], low[2], high[0], high[1], high[2]
        for box in self.everywhere:
            if box is None or (box[0] <= hx and lx <= box[3] and box[1] <= hy and ly <= box[4]
                               and box[2] <= hz and lz <= box[5]):
                return True
        cell = self.CELL
        for i in range(math.floor(lx / cell), math.floor(hx / cell) + 1):
            for j in range(math.floor(ly / cell), math.floor(hy / cell) + 1):
                for box in self.cells.get((i, j), ()):
                    if box[0] <= hx and lx <= box[3] and box[1] <= hy and ly <= box[4] and box[2] <= hz and lz <= box[5]:
                        return True
        return False


def _tight_box(body, loose):
    """A `from_geometry` body's box: its mesh's own bounds (kept at build) when it has them, else `loose`."""
    tight = body.getPythonTag(_BOX_TAG)
    return tight if tight is not None else loose


def _add_box(mesh, low, high, mat):
    """The 12 triangles of the box from `low` to `high`, through `mat`; returns its 8 corners.

    A triangle mesh rather than a BulletBoxShape: Bullet's rays against convex shapes are off by
    up to a centimetre on turned boxes, against triangles they are exact.
    """
    corners = [mat.xformPoint(Point3(x, y, z)) for z in (low.z, high.z) for y in (low.y, high.y) for x in (low.x, high.x)]
    for a, b, c, d in ((0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)):
        mesh.addTriangle(corners[a], corners[b], corners[c])
        mesh.addTriangle(corners[a], corners[c], corners[d])
    return corners


def _animated(node):
    return any(node.getAncestor(i).node().isOfType(Character.getClassType()) for i in range(node.getNumNodes()))


def _static_body(node, space):
    """A static Bullet body for one GeomNode, tagged with it, or None when it has no triangles."""
    transform = node.getTransform(space)
    body = BulletRigidBodyNode(node.getName())
    body.setPythonTag(SOURCE_TAG, node)
    mesh = BulletTriangleMesh()
    corners = None
    if node.getTag(SHAPE_TAG) == "box":   # its own geoms' box: children are bodies of their own
        corners = _add_box(mesh, *_own_tight_bounds(node, TransformState.makeIdentity()), transform.getMat())
    else:
        for geom in node.node().getGeoms():
            mesh.addGeom(geom, False, transform)
    if mesh.getNumTriangles() == 0:
        return None
    body.addShape(BulletTriangleMeshShape(mesh, dynamic=False))
    body.setPythonTag(_BOX_TAG, _box_of(corners if corners else _own_tight_bounds(node, transform)))
    body.setPythonTag(_MESH_TAG, mesh)
    return body


def _own_tight_bounds(node, transform):
    """The tight bounds of a GeomNode's own geoms through `transform`, its children left out
    (`getTightBounds` takes them in: they are bodies of their own, or not level geometry)."""
    alone = NodePath("motionwarp-bounds").attachNewNode(node.node().makeCopy())
    alone.setTransform(transform)
    return alone.getTightBounds(alone.getParent())


def _box_of(points):
    """(x0, y0, z0, x1, y1, z1) around `points`."""
    return tuple(min(p[axis] for p in points) for axis in range(3)) + tuple(max(p[axis] for p in points) for axis in range(3))
