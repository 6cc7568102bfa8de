"""Real third-party props (CC0: ../shared/props/ and the copies in motionwarp/samples/scenes/props/real/)
read as triangles with numpy straight from their GLB bytes, and down rays of the test's own on them.

The oracle never asks Panda3D's loader, Bullet or the code under test: it reads the glTF's
accessors and node transforms itself, turns glTF's y-up into Panda3D's z-up (x, -z, y), as the
glTF loader does, and casts vertical rays through the triangles (Moller-Trumbore, vectorised).
A prop is placed with its footprint's near side `distance` ahead of a character at the origin
facing +Y, centred on the character's line, turned by `heading` and scaled by `scale`.
"""
import math
import pathlib

import numpy

from .glb import accessor, node_matrix, read_glb

ROOT = pathlib.Path(__file__).resolve().parents[1]
#: The shared real props (beside the project, or beside the folder holding a git worktree of it).
SHARED_CANDIDATES = [ROOT.parent / "shared" / "props", ROOT.parents[1] / "shared" / "props"]
SHARED = next((path for path in SHARED_CANDIDATES if path.is_dir()), None)
#: The few real props copied into the project (always there).
COPIED = ROOT / "motionwarp" / "samples" / "scenes" / "props" / "real"

#: The most a walkable top inclines (degrees): the providers' default max_incline_deg (design 7).
MAX_INCLINE_DEG = 35.0
#: Half the character's body width and its height (metres): the providers' default capsule_radius and
#: capsule_height (design 7).
BODY_HALF_WIDTH, BODY_HEIGHT = 0.3, 1.8


def shared_props():
    """Every GLB under ../shared/props/ (sorted by family and name), or [] when it is absent."""
    return sorted(SHARED.glob("*/*.glb")) if SHARED is not None else []


#: Files in COPIED made here from the copies, not copies themselves (authoring/make_blender_level.py).
MADE_HERE = ("blender_level",)


def copied_props():
    return sorted(path for path in COPIED.glob("*.glb") if path.stem not in MADE_HERE)


#: The KayKit props (every other real prop is the Nature Kit's).
KAYKIT = ("box_large", "table_long")
#: Headings every real prop is measured at (degrees).
HEADINGS = (0.0, 45.0, 90.0, 135.0, 180.0, 225.0, 270.0, 315.0)


def scales(path):
    """The scales a level designer gives a prop (../shared/props/README.md): the Nature Kit's 1-unit
    tiles x1.5 to x3, the KayKit crate and table 0.55 to 1.35."""
    return (0.55, 1.0, 1.35) if pathlib.Path(path).stem in KAYKIT else (1.5, 2.0, 3.0)


def triangles(path):
    """(n, 3, 3) triangles of every mesh in the GLB's scene, in Panda3D's z-up frame (metres)."""
    doc, binary = read_glb(path)
    found = []

    def visit(index, parent):
        node = doc["nodes"][index]
        matrix = parent @ node_matrix(node)
        if "mesh" in node:
            for primitive in doc["meshes"][node["mesh"]]["primitives"]:
                if primitive.get("mode", 4) != 4:
                    continue
                points = accessor(doc, binary, primitive["attributes"]["POSITION"]).astype(float)
                points = points @ matrix[:3, :3].T + matrix[:3, 3]
                order = (accessor(doc, binary, primitive["indices"]).ravel() if "indices" in primitive
                         else numpy.arange(len(points)))
                found.append(points[order.reshape(-1, 3)])
        for child in node.get("children", ()):
            visit(child, matrix)

    scene = doc["scenes"][doc.get("scene", 0)]
    for root in scene["nodes"]:
        visit(root, numpy.eye(4))
    tris = numpy.concatenate(found)
    return tris[..., [0, 2, 1]] * numpy.array([1.0, -1.0, 1.0])   # glTF y-up to z-up: (x, -z, y)


class PlacedProp:
    """A real prop's triangles turned by `heading` (degrees, about z), scaled by `scale`, with its
    footprint's near side `distance` ahead of the origin along +Y and centred on x = 0; the ground is z = 0."""

    def __init__(self, path, heading, scale, distance):
        self.path, self.heading, self.scale, self.distance = pathlib.Path(path), heading, scale, distance
        local = triangles(path) * scale
        turn = math.radians(heading)
        rotation = numpy.array([[math.cos(turn), -math.sin(turn), 0.0], [math.sin(turn), math.cos(turn), 0.0],
                                [0.0, 0.0, 1.0]])
        turned = local @ rotation.T
        low, high = turned.reshape(-1, 3).min(axis=0), turned.reshape(-1, 3).max(axis=0)
        #: Where the model's own origin goes (world), so a scene node placed there holds these triangles.
        self.origin = numpy.array([-(low[0] + high[0]) / 2, distance - low[1], 0.0])
        self.tris = turned + self.origin
        self.low, self.high = low + self.origin, high + self.origin
        self._ray_setup()

    def _ray_setup(self):
        a, b, c = self.tris[:, 0], self.tris[:, 1], self.tris[:, 2]
        normal = numpy.cross(b - a, c - a)
        length = numpy.linalg.norm(normal, axis=1)
        keep = length > 1e-12
        self._a, self._b, self._c = a[keep], b[keep], c[keep]
        self._up = numpy.abs(normal[keep, 2]) / length[keep]   # |cos| of each triangle's incline
        self._facing = normal[keep, 2]   # > 0: the triangle faces up (out of the solid)

    def _crossed(self, origin, direction, slack):
        """(which triangles the ray from `origin` along `direction` meets, the distance to each), Moller-Trumbore
        on all; `slack` widens each triangle by that much of its barycentric range (0: a point on an edge
        shared by two triangles meets one of them only when it is strictly inside it)."""
        origin, direction = numpy.asarray(origin, float), numpy.asarray(direction, float)
        edge1, edge2 = self._b - self._a, self._c - self._a
        p = numpy.cross(direction, edge2)
        det = numpy.einsum("ij,ij->i", edge1, p)
        ok = numpy.abs(det) > 1e-14
        inv = numpy.where(ok, 1.0 / numpy.where(ok, det, 1.0), 0.0)
        t_vec = origin - self._a
        u = numpy.einsum("ij,ij->i", t_vec, p) * inv
        q = numpy.cross(t_vec, edge1)
        v = (q @ direction) * inv
        t = numpy.einsum("ij,ij->i", edge2, q) * inv
        return ok & (u >= -slack) & (v >= -slack) & (u + v <= 1 + slack) & (t >= 0.0), t

    def hits(self, origin, direction):
        """(distance along the unit `direction` to the nearest triangle hit from `origin`, that
        triangle's |cos| of incline), or (inf, nan) when the ray meets none."""
        met, t = self._crossed(origin, direction, 1e-9)
        if not met.any():
            return math.inf, math.nan
        t = numpy.where(met, t, numpy.inf)
        best = int(numpy.argmin(t))
        return float(t[best]), float(self._up[best])

    def inside(self, point):
        """Is `point` inside the prop's solid? The nearest of its triangles straight above faces up, or the
        nearest straight below faces down (glTF's counter-clockwise winding faces out): the point is under
        the solid's top, or over its bottom, from within. Both, not one, and not a parity count: a rock made
        of parts has a face inside it (rock_largeB's, 0.36 m up at x3, facing down)."""
        for direction, outward in ((1.0, 1.0), (-1.0, -1.0)):
            met, t = self._crossed(point, (0.0, 0.0, direction), 0.0)
            met &= t > 0.0
            if met.any() and self._facing[int(numpy.argmin(numpy.where(met, t, numpy.inf)))] * outward > 0.0:
                return True
        return False

    def drops(self, xs, ys, top=100.0):
        """(z, |cos| of the incline) of the highest triangle under each (x, y) (arrays), from `top` down;
        z is nan off the prop."""
        xs, ys = numpy.broadcast_arrays(numpy.asarray(xs, float), numpy.asarray(ys, float))
        z = numpy.full(xs.shape, numpy.nan)
        up = numpy.full(xs.shape, numpy.nan)
        for index in numpy.ndindex(xs.shape):
            t, cos = self.hits((xs[index], ys[index], top), (0.0, 0.0, -1.0))
            if math.isfinite(t):
                z[index], up[index] = top - t, cos
        return z, up

    def face(self, z, x=0.0):
        """How far ahead of the origin a horizontal ray along +Y at height `z` on the line x meets the prop (inf: never)."""
        return self.hits((x, -1.0, z), (0.0, 1.0, 0.0))[0] - 1.0

    def near(self, half_width=BODY_HALF_WIDTH, low=0.05, high=BODY_HEIGHT):
        """How far ahead of the origin the character's body first meets the prop on its way: the least
        distance at which horizontal rays along +Y, on lines every 5 cm across the body's width and every
        5 cm from just over the ground to the head, meet it (the footprint's near side, 0, when that is
        square to the way; further on a long prop turned 45 degrees with its corner off the line), or the
        footprint's near side when no ray meets it (stones lower than the rays)."""
        met = min(self.face(z, x) for x in numpy.arange(-half_width, half_width + 1e-9, 0.05)
                  for z in numpy.arange(low, high + 1e-9, 0.05))
        return met if math.isfinite(met) else 0.0

    def line(self, x=0.0, step=0.01):
        """(ys, z, |cos|) of down rays every `step` metres along the line x across the whole footprint."""
        ys = numpy.arange(self.low[1] - step, self.high[1] + step, step)
        z, up = self.drops(numpy.full(ys.shape, x), ys)
        return ys, z, up

    def size(self, half_width=0.15, step=0.01, knee=0.35, seam=0.05, step_rise=0.25 * math.tan(math.radians(35.0))):
        """(height, depth, wide) of what a character meets on its line, from the down rays: where the lines
        x = -half_width and +half_width (a stance's width) are both walkable above the knee is the top a
        character stands on (`wide`); without any, where the centre line or a line `seam` beside it is (a
        rail the hands go on; a groove under the line is bridged). The height is the highest of them, the
        depth from the first to the last along the line within `step_rise` of it (the rise a walkable top
        makes over a 0.25 m probe step at 35 degrees: design 7). (None, None, False) when nothing walkable is above
        the knee."""
        lines = [self.line(x, step) for x in (-half_width, half_width, -seam, 0.0, seam)]
        ys = lines[0][0]
        walkable = [(up >= math.cos(math.radians(MAX_INCLINE_DEG))) & (z >= knee) for _, z, up in lines]
        for used, on_top, wide in (((0, 1), walkable[0] & walkable[1], True),
                                   ((2, 3, 4), walkable[2] | walkable[3] | walkable[4], False)):
            if on_top.any():
                heights = numpy.array([numpy.where(walkable[k], lines[k][1], -numpy.inf) for k in used]).max(axis=0)
                top = float(heights[on_top].max())
                on_top &= heights >= top - step_rise   # lower steps (a stack's lower logs) are not its top
                return top, float(ys[on_top].max() - ys[on_top].min()), wide
        return None, None, False

    def highest(self, half_width=0.3, step=0.01, knee=0.35):
        """The highest walkable surface above the knee anywhere under the body's width (lines every 5 cm
        from -half_width to +half_width): the most a top measured across the width can be."""
        best = -math.inf
        for x in numpy.arange(-half_width, half_width + 1e-9, 0.05):
            _, z, up = self.line(x, step)
            walkable = (up >= math.cos(math.radians(MAX_INCLINE_DEG))) & (z >= knee)
            if walkable.any():
                best = max(best, float(z[walkable].max()))
        return best


def level(render, loader, placed):
    """A ground slab and the prop's model placed as `placed` says (its triangles are where `placed` has
    them: the tests check the loader's bounds against them), under a new root."""
    from panda3d.core import Filename

    from .obstacles import box_profile, prism
    root = render.attachNewNode("level")
    prism(root, "ground", box_profile(40, 0.1), 40, pos=(0, 0, -0.1))
    model = loader.loadModel(Filename.fromOsSpecific(str(placed.path)))
    model.reparentTo(root)
    model.setPos(*placed.origin)
    model.setH(placed.heading)
    model.setScale(placed.scale)
    return root, model


def fitting(assets, size):
    """The traversal kinds (vault, mantle, jump_onto) whose asset ranges hold the size `PlacedProp.size`
    measured; a top too narrow to stand on across a stance fits only a vault."""
    height, depth, wide = size
    if height is None:
        return set()
    return {a.traversal.kind for a in assets if a.traversal is not None and a.traversal.kind in TRAVERSED
            and a.traversal.fits(height, depth) and (wide or a.traversal.kind == "vault")}


#: The kinds a prop's geometry offers (markers are the marker provider's).
TRAVERSED = ("vault", "mantle", "jump_onto")
#: Where a character walking up to a prop asks what it can do: 3.0 m down to 0.2 m before its body meets it.
WALK = tuple(round(0.1 * k, 1) for k in range(30, 1, -1))


def walk_up(chooser, near=0.0):
    """(the first Interaction offered to a character walking up the line at heading 0 from WALK's
    distances before `near` (where its body meets the prop: PlacedProp.near), the feet's y there), or
    (None, the Refusal answered 0.5 m before it)."""
    from panda3d.core import Point3
    refused = None
    for distance in WALK:
        found = chooser.find_at(Point3(0, near - distance, 0), 0.0)
        if found:
            return found, near - distance
        if distance == 0.5:
            refused = found
    return None, refused
