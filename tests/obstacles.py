"""Analytic obstacles for the provider tests, and their true edges computed from the same numbers.

An obstacle is a prism: a convex profile in the (y, z) plane (counter-clockwise, z up, the
ground at z = 0) extruded along x, turned by a heading and placed in a level. The oracle
reads the profile directly: the top's walkable run (edges inclined at most `max_incline`
degrees, facing up) starts at the close edge and ends at the far edge; nothing here calls
the code under test.
"""
import math

from panda3d.core import Geom, GeomNode, GeomTriangles, GeomVertexData, GeomVertexFormat, GeomVertexWriter, NodePath


def box_profile(depth, height):
    return [(-depth / 2, 0.0), (depth / 2, 0.0), (depth / 2, height), (-depth / 2, height)]


def circle_profile(radius, segments, axis_height):
    """A lying cylinder's cross-section: a regular polygon with a vertex on top, counter-clockwise."""
    clockwise = [(radius * math.sin(2 * math.pi * i / segments), axis_height + radius * math.cos(2 * math.pi * i / segments))
                 for i in range(segments)]
    return clockwise[::-1]


def prism_triangles(profile, width):
    """The closed prism's triangles, each three (x, y, z) corners: `profile` (y, z) extruded from
    x = -width/2 to width/2, its sides and its two caps."""
    count = len(profile)
    corners = [(x, y, z) for x in (-width / 2, width / 2) for y, z in profile]
    triangles = []
    for i in range(count):  # sides
        j = (i + 1) % count
        triangles += [(i, j, count + j), (i, count + j, count + i)]
    for i in range(1, count - 1):  # caps
        triangles += [(0, i + 1, i), (count, count + i, count + i + 1)]
    return [tuple(corners[k] for k in triangle) for triangle in triangles]


def prism(parent, name, profile, width, pos=(0, 0, 0), h=0.0):
    """A closed prism NodePath under `parent`: `profile` (y, z) extruded from x = -width/2 to width/2."""
    return mesh_node(parent, name, prism_triangles(profile, width), pos, h)


def subdivided(triangles, cuts):
    """The same surface in `cuts` * `cuts` times as many triangles: each split along a grid of its edges."""
    out = []
    for a, b, c in triangles:
        def at(i, j):  # the point i/cuts of the way from a to b and j/cuts from a to c
            return tuple(a[k] + (b[k] - a[k]) * i / cuts + (c[k] - a[k]) * j / cuts for k in range(3))
        for i in range(cuts):
            for j in range(cuts - i):
                out.append((at(i, j), at(i + 1, j), at(i, j + 1)))
                if i + j < cuts - 1:
                    out.append((at(i + 1, j), at(i + 1, j + 1), at(i, j + 1)))
    return out


def mesh_node(parent, name, triangles, pos=(0, 0, 0), h=0.0, indexed=True):
    """A GeomNode NodePath of `triangles` (vertex positions only, no normals) under `parent`. `indexed`:
    corners shared through an index list (each written once); else three vertices per triangle, no indices."""
    data = GeomVertexData(name, GeomVertexFormat.getV3(), Geom.UH_static)
    vertex = GeomVertexWriter(data, "vertex")
    primitive = GeomTriangles(Geom.UH_static)
    if indexed:
        primitive.setIndexType(Geom.NT_uint32)
        index = {}
        for triangle in triangles:
            for corner in triangle:
                if corner not in index:
                    index[corner] = len(index)
                    vertex.addData3(*corner)
                primitive.addVertex(index[corner])
    else:
        for triangle in triangles:
            for corner in triangle:
                vertex.addData3(*corner)
        primitive.addConsecutiveVertices(0, 3 * len(triangles))
    geom = Geom(data)
    geom.addPrimitive(primitive)
    node = GeomNode(name)
    node.addGeom(geom)
    path = parent.attachNewNode(node)
    path.setPos(*pos)
    path.setH(h)
    return path


def walkable_run(profile, max_incline):
    """(close, far) (y, z) ends of the profile's walkable top, approached from -y; None when there is none."""
    count = len(profile)
    walkable = []
    for i in range(count):
        (y0, z0), (y1, z1) = profile[i], profile[(i + 1) % count]
        # Counter-clockwise: the outward normal of edge (dy, dz) is (dz, -dy); up-facing means y decreasing.
        dy, dz = y1 - y0, z1 - z0
        up = -dy
        if up > 1e-9 and math.degrees(math.atan2(abs(dz), abs(dy))) <= max_incline:
            walkable.append(((y0, z0), (y1, z1)))
    if not walkable:
        return None
    points = [p for edge in walkable for p in edge]
    return min(points), max(points)


def top(profile):
    return max(z for _, z in profile)


def to_local(path, point):
    """A world point in the prism's own frame (x along its length, y across, z up)."""
    return path.getRelativePoint(path.getTop(), point)


def distance_to_edge_line(path, point, edge):
    """How far `point` (world) lies from the prism's edge line through profile point `edge` (y, z)."""
    local = to_local(path, point)
    return math.hypot(local.y - edge[0], local.z - edge[1])


def level():
    """A scene root of its own: the probe's world space, with no character in it."""
    return NodePath("level")
