"""Write the yard's props (motionwarp/samples/scenes/props/*.glb): a bench, a chair, an item, the item on a sled, a
table with an item on it, a wall with a button. Each carries a marker made the way a level designer would in Blender: an
empty, child of the prop's mesh, with the custom property `motionwarp-interaction` (glTF node
`extras`, which panda3d-gltf turns into a tag). The demo loads them as scene models and finds the
markers with no code. Each marker sits where the mannequin's clip was authored to meet it
(mannequin.contacts.json): the wrist on the item or the button, the seat's top centre.

    python -m authoring.make_yard_props        # rewrites motionwarp/samples/scenes/props/*.glb
"""
import math
import pathlib

from authoring.gltf_writer import GltfBuilder
from authoring.make_obstacle_meshes import prism
from authoring.mannequin.clips.interact import REACHES, SEAT

OUT = pathlib.Path(__file__).resolve().parent.parent / "motionwarp" / "samples" / "scenes" / "props"
WOOD, PAINT, STEEL = (0.55, 0.38, 0.22, 1), (0.75, 0.2, 0.15, 1), (0.55, 0.58, 0.62, 1)
TAG = "motionwarp-interaction"


def box(builder, name, material, centre, size):
    """A box mesh (width, depth, height) standing on z = centre[2], centred on x, y."""
    (x, y, z), (w, d, h) = centre, size
    profile = [(x - w / 2, y - d / 2), (x + w / 2, y - d / 2), (x + w / 2, y + d / 2), (x - w / 2, y + d / 2)]
    positions, normals, triangles = prism(profile, h, "z")
    positions = [(px, py, pz + z) for px, py, pz in positions]
    return builder.add_static_mesh(name, positions, normals, triangles, material)


def heading(h):
    return (math.cos(math.radians(h) / 2), 0.0, 0.0, math.sin(math.radians(h) / 2))


def marker(builder, mesh, kind, pos, h=0.0):
    """The marker on `mesh` (its prop): where the character must arrive, facing +Y turned by h."""
    return builder.add_empty(kind, pos, heading(h), extras={TAG: kind}, mesh=mesh)


def reach_offset(name, centre_y):
    """The wrist where `name` grabs or presses, relative to a prop whose centre is at `centre_y` (clip space)."""
    x, y, z = REACHES[name]["grab"]
    return (0.0, round(y - centre_y, 4), z)


def write_props(folder=OUT):
    folder.mkdir(parents=True, exist_ok=True)
    props = {}

    b = GltfBuilder("item")
    low, high = REACHES["pick_up"]["obstacle"]
    centre_y = (low[1] + high[1]) / 2
    item = box(b, "item", b.add_material("paint", PAINT), (0, 0, 0), (high[0] - low[0], high[1] - low[1], high[2]))
    marker(b, item, "pick_up", reach_offset("pick_up", centre_y))
    props["item"] = b

    b = GltfBuilder("sled")   # the item again, on a tray the yard's scene file slides away (its `motion`)
    tray_top = 0.03
    sled = box(b, "sled", b.add_material("wood", WOOD), (0, 0, 0), (0.5, 0.4, tray_top))
    box(b, "item", b.add_material("paint", PAINT), (0, 0, tray_top), (high[0] - low[0], high[1] - low[1], high[2]))
    marker(b, sled, "pick_up", reach_offset("pick_up", centre_y))   # where the clip grabs, as on the bare item
    props["sled"] = b

    b = GltfBuilder("table")
    low, high = REACHES["pick_up_table"]["obstacle"]
    centre_y = (low[1] + high[1]) / 2
    width, depth, top = high[0] - low[0], high[1] - low[1], high[2]
    table = box(b, "table", b.add_material("wood", WOOD), (0, 0, 0), (width, depth, top))
    grab = reach_offset("pick_up_table", centre_y)
    box(b, "cup", b.add_material("paint", PAINT), (grab[0], grab[1] + 0.03, top), (0.08, 0.08, 0.1))
    marker(b, table, "pick_up", grab)
    props["table"] = b

    b = GltfBuilder("button_wall")
    low, high = REACHES["use"]["obstacle"]
    centre_y = (low[1] + high[1]) / 2
    wall = box(b, "wall", b.add_material("stone", (0.7, 0.7, 0.68, 1)), (0, 0, 0),
               (high[0] - low[0], high[1] - low[1], high[2]))
    press = reach_offset("use", centre_y)
    box(b, "button", b.add_material("steel", STEEL), (press[0], -(high[1] - low[1]) / 2 - 0.02, press[2] - 0.05),
        (0.12, 0.04, 0.1))
    marker(b, wall, "use", press)
    props["button_wall"] = b

    seat_z = SEAT[2]
    b = GltfBuilder("bench")
    bench = box(b, "bench", b.add_material("wood", WOOD), (0, 0, 0), (1.2, 0.4, seat_z))
    marker(b, bench, "sit", (0.0, 0.0, seat_z), h=180.0)   # the sitter faces the bench's front (-Y)
    props["bench"] = b

    b = GltfBuilder("chair")
    wood = b.add_material("wood", WOOD)
    chair = box(b, "chair", wood, (0, 0, 0), (0.5, 0.45, seat_z))
    box(b, "chair_back", wood, (0, 0.2, seat_z), (0.5, 0.05, 0.5))
    marker(b, chair, "sit", (0.0, 0.0, seat_z), h=180.0)
    props["chair"] = b

    for name, builder in props.items():
        builder.write_glb(str(folder / f"{name}.glb"))
        print("wrote", folder / f"{name}.glb")
    return props


if __name__ == "__main__":
    write_props()
