"""A demo level made the way a level designer makes one (issue 26): real CC0 props imported into
Blender with its own glTF importer, placed, turned and scaled by hand, three marker empties with
the custom property `motionwarp-interaction`, and the lot exported by Blender's glTF exporter with
custom properties on. The demo loads it as one scene model (scenes/blender.json) and finds the
markers with no code.

    blender -b --factory-startup --python authoring/make_blender_level.py -- OUT.glb

(the shipped copy is motionwarp/samples/scenes/props/real/blender_level.glb).

Frames: Blender's importer turns glTF's y-up into Blender's z-up as (x, -z, y), the exporter turns
it back, and panda3d-gltf turns glTF into Panda3D's z-up as (x, -z, y) too: Blender's world frame
*is* Panda3D's. The walking line runs along +Y in both, and a marker's +Y (the way the character
faces on arrival) is Blender's +Y. Headings are turns about +Z, counter-clockwise seen from above
(Panda3D's H).

The level, walked from (0, -3) along +Y, one prop about every 5 m:

    y =  3   fence_simple      x2.5, turned 200 deg   (something to vault)
    y =  7   log_large         x1.5, turned 200 deg   marker `sit` on its top, facing away from it
    y = 12   table_long        x0.8, turned 90 deg    a cup, marker `pick_up` at the cup
    y = 17.5 box_large (crate) x1.35, turned 30 deg   marker `use` on a latch on its front panel
    y = 22.5 log_stackLarge    x2.0, turned 90 deg
    y = 27.5 cliff_block_rock  x1.5, turned 30 deg
    y = 32   box_large (crate) x0.55, turned 200 deg
"""
import math
import os
import pathlib
import sys

import numpy

if not hasattr(numpy, "bool"):   # Debian's Blender 3.4 glTF importer still says numpy.bool
    numpy.bool = bool

import bpy  # noqa: E402
from mathutils import Matrix, Vector  # noqa: E402

PROPS = pathlib.Path(__file__).resolve().parent.parent / "motionwarp" / "samples" / "scenes" / "props" / "real"
TAG = "motionwarp-interaction"

#: (name, source file, (x, y), heading in degrees, scale)
LAYOUT = [
    ("fence", "fence_simple.glb", (0.0, 3.0), 200.0, 2.5),
    ("log_seat", "log_large.glb", (0.0, 7.0), 200.0, 1.5),
    ("table", "table_long.glb", (0.0, 12.0), 90.0, 0.8),
    ("crate_latch", "box_large.glb", (-0.5, 17.5), 30.0, 1.35),
    ("log_stack", "log_stackLarge.glb", (0.0, 22.5), 90.0, 2.0),
    ("rock_block", "cliff_block_rock.glb", (0.0, 27.5), 30.0, 1.5),
    ("small_crate", "box_large.glb", (0.0, 32.0), 200.0, 0.55),
]
#: The pick-up clip grabs 0.14 m above the table top, 0.08 m in from its near edge (as the yard's table).
GRAB_ABOVE, GRAB_IN = 0.14, 0.08
#: The use clip's hand meets the latch 1.15 m up, 0.08 m out from the crate's panel (as the yard's button).
USE_HEIGHT, USE_OUT = 1.15, 0.08


def clear_scene():
    bpy.ops.object.select_all(action="SELECT")
    bpy.ops.object.delete()
    for collection in (bpy.data.meshes, bpy.data.materials, bpy.data.cameras, bpy.data.lights):
        for block in list(collection):
            collection.remove(block)


def import_prop(path):
    """The objects Blender's glTF importer makes of `path`: (root, mesh object)."""
    before = set(bpy.data.objects)
    bpy.ops.import_scene.gltf(filepath=str(path))
    new = [obj for obj in bpy.data.objects if obj not in before]
    roots = [obj for obj in new if obj.parent is None]
    meshes = [obj for obj in new if obj.type == "MESH"]
    if len(roots) != 1 or len(meshes) != 1:
        raise RuntimeError(f"{path.name}: expected one root and one mesh, got {roots} and {meshes}")
    return roots[0], meshes[0]


def placement(pos, heading, scale=1.0, z=0.0):
    return (Matrix.Translation((pos[0], pos[1], z)) @ Matrix.Rotation(math.radians(heading), 4, "Z")
            @ Matrix.Scale(scale, 4))


def place(root, pos, heading, scale):
    root.location = (pos[0], pos[1], 0.0)
    root.rotation_mode = "XYZ"
    root.rotation_euler = (0.0, 0.0, math.radians(heading))
    root.scale = (scale, scale, scale)


def world_vertices(obj):
    matrix = obj.matrix_world
    return [matrix @ v.co for v in obj.data.vertices]


def local_bounds(obj):
    """(min, max) of the mesh's vertices in the object's own frame."""
    coords = [v.co for v in obj.data.vertices]
    return (Vector([min(c[i] for c in coords) for i in range(3)]), Vector([max(c[i] for c in coords) for i in range(3)]))


def add_marker(kind, parent, world, name):
    """An empty child of `parent` (the prop's mesh) at `world`, with the custom property TAG = kind."""
    empty = bpy.data.objects.new(name, None)
    empty.empty_display_type = "ARROWS"
    empty.empty_display_size = 0.25
    bpy.context.scene.collection.objects.link(empty)
    empty.parent = parent
    empty.matrix_parent_inverse = Matrix.Identity(4)
    empty.matrix_world = world
    empty[TAG] = kind
    return empty


def painted_object(name, verts, faces, paint, parent, world):
    """An object `name` (and its mesh) of `verts` and `faces`, in one colour (`paint`: material
    name, RGBA), a child of `parent` placed at the world matrix `world`."""
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(verts, [], faces)
    mesh.update()
    material = bpy.data.materials.new(paint[0])
    material.use_nodes = True
    material.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value = paint[1]
    mesh.materials.append(material)
    thing = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(thing)
    thing.parent = parent
    thing.matrix_parent_inverse = Matrix.Identity(4)
    thing.matrix_world = world
    return thing


def add_cup(parent, world_pos, radius=0.04, height=0.1):
    segments = 12
    verts = [(radius * math.cos(2 * math.pi * k / segments), radius * math.sin(2 * math.pi * k / segments), z)
             for z in (0.0, height) for k in range(segments)]
    faces = [tuple(range(segments - 1, -1, -1)), tuple(range(segments, 2 * segments))]
    faces += [(k, (k + 1) % segments, segments + (k + 1) % segments, segments + k) for k in range(segments)]
    return painted_object("cup", verts, faces, ("cup_paint", (0.75, 0.2, 0.15, 1.0)), parent,
                          Matrix.Translation(world_pos))


def add_latch(parent, at, heading, size=(0.12, USE_OUT, 0.1)):
    """A small latch block on the panel, from the panel out to where the hand meets it (as the yard's button)."""
    (w, d, h) = size
    verts = [(x, y, z) for z in (-h / 2, h / 2) for y in (0.0, d) for x in (-w / 2, w / 2)]
    faces = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    return painted_object("latch_block", verts, faces, ("latch_steel", (0.55, 0.58, 0.62, 1.0)), parent,
                          placement(at, heading, z=at.z))


def build():
    clear_scene()
    props, imported = {}, {}
    for name, source, pos, heading, scale in LAYOUT:
        if source in imported and imported[source][0].parent is None and imported[source][0].type == "MESH":
            # A second crate: a linked duplicate (the same mesh and texture, written once).
            root = imported[source][0].copy()
            bpy.context.scene.collection.objects.link(root)
            mesh = root
        else:
            root, mesh = import_prop(PROPS / source)
            imported[source] = (root, mesh)
        root.name = name
        if mesh is not root:
            mesh.name = f"{name}_mesh"
        place(root, pos, heading, scale)
        props[name] = (mesh, pos, heading, scale)
    bpy.context.view_layer.update()

    # The seat: the log's top, over the middle of its length and depth; the sitter faces away from the
    # log's far side, towards where it came from (the log's own +Y, turned 200 deg: world -Y, 20 deg off).
    mesh, pos, heading, scale = props["log_seat"]
    low, high = local_bounds(mesh)
    centre = mesh.matrix_world @ Vector(((low.x + high.x) / 2, (low.y + high.y) / 2, high.z))
    add_marker("sit", mesh, placement(centre, heading, z=centre.z), "seat")

    # The cup on the table: the table is turned 90 deg, its long side across the walking line; the near
    # edge is the mesh's lowest local x (local +x is world +Y at 90 deg).
    mesh, pos, heading, scale = props["table"]
    top = max(v.z for v in world_vertices(mesh))
    near_y = min(v.y for v in world_vertices(mesh))
    grab = Vector((pos[0], near_y + GRAB_IN, top + GRAB_ABOVE))
    add_cup(mesh, Vector((grab.x, grab.y + 0.03, top)))
    add_marker("pick_up", mesh, placement(grab, 0.0, z=grab.z), "cup_grab")

    # The crate's latch: on the middle of its front panel (its local -Y side), which is sunk behind the
    # crate's jutting frame: found with a ray into the mesh, the hand facing into it.
    mesh, pos, heading, scale = props["crate_latch"]
    low, high = local_bounds(mesh)
    inverse = mesh.matrix_world.inverted()
    height = (inverse @ Vector((0.0, 0.0, USE_HEIGHT))).z
    hit, panel, _, _ = mesh.ray_cast(Vector(((low.x + high.x) / 2, low.y - 1.0, height)), Vector((0.0, 1.0, 0.0)))
    if not hit:
        raise RuntimeError("no front panel found on the crate")
    panel = mesh.matrix_world @ panel
    out = Matrix.Rotation(math.radians(heading), 4, "Z") @ Vector((0.0, -USE_OUT, 0.0, 0.0))
    latch = Vector((panel.x + out.x, panel.y + out.y, USE_HEIGHT))
    add_latch(mesh, latch, heading)
    add_marker("use", mesh, placement(latch, heading, z=latch.z), "latch")
    bpy.context.view_layer.update()
    for obj in bpy.data.objects:
        if TAG in obj:
            print(f"marker {obj.name}: {obj[TAG]} at {tuple(round(c, 4) for c in obj.matrix_world.translation)}, "
                  f"heading {math.degrees(obj.matrix_world.to_euler().z):.1f}")


def export(out):
    out = pathlib.Path(out).resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    temporary = out.with_name(f".{out.stem}.tmp{os.getpid()}.glb")
    try:
        bpy.ops.export_scene.gltf(filepath=str(temporary), export_format="GLB", export_extras=True,
                                  export_yup=True, export_apply=False, export_cameras=False,
                                  export_lights=False, export_animations=False, use_selection=False)
        os.replace(temporary, out)
    finally:
        if temporary.exists():
            temporary.unlink()
    print("wrote", out, out.stat().st_size, "bytes")


def main(argv):
    args = argv[argv.index("--") + 1:] if "--" in argv else []
    if len(args) != 1:
        sys.exit("usage: blender -b --factory-startup --python authoring/make_blender_level.py -- OUT.glb")
    build()
    export(args[0])


if __name__ == "__main__":
    main(sys.argv)
