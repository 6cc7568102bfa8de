"""Derive the shipped warp assets from the mannequin's contact ground truth.

Each phase ends at an event of the authored clip (hands plant on the near edge, the root
passes over the far edge, feet land; for a mantle, hands grab the ledge), and its `t_offset` is where the root is at that
moment relative to the target point a provider finds in a level (the box's near top edge,
its far top edge, the landing point 1 m past the far face; the ledge's top edge). Played
against the authored obstacle, every warp is then the identity. The contacts (hands on the
phase's target, feet on the surface under them) come from the same ground truth.

    python -m authoring.make_warp_assets [DIR]   # rewrites DIR/*.warp.json (default: motionwarp/samples/assets/)

DIR must hold mannequin.glb and mannequin.contacts.json. The tests derive their own copies
with `write_warp_assets`, so the shipped files stay free for the demo's tuner.
"""
import dataclasses
import functools
import json
import math
import os
import pathlib
import sys

from motionwarp import WarpAsset, WarpPhase
from motionwarp.warp.asset import Traversal
from motionwarp.warp.assetdata import TRAVERSAL_KINDS
from motionwarp.warp.contacts import UP, Contact
from motionwarp.animation.loader import load_model_node
from motionwarp.animation.rootmotion import track_for

ASSETS = pathlib.Path(__file__).resolve().parent.parent / "motionwarp" / "samples" / "assets"

MODEL = "mannequin.glb"
LANDING_PAST_FAR_FACE = 1.0
#: The obstacles each clip fits (docs/design.md 5), centred on the one it was authored over
#: (mannequin.contacts.json: vault 1.0 m high and 0.6 m deep, ledges 1.5 m and 2.0 m high).
TRAVERSAL = {"vault": {"kind": "vault", "height": [0.5, 1.5], "depth": [0.0, 1.2]},
             "mantle": {"kind": "mantle", "height": [0.9, 2.1], "depth": [0.5, 50.0]},
             "mantle_high": {"kind": "mantle", "height": [1.7, 2.3], "depth": [0.5, 50.0]}}
RATES = {"close_edge": (0.5, 1.6), "far_edge": (0.7, 1.4), "landing": (0.7, 1.4), "ledge_top": (0.5, 1.6),
         "grab": (0.4, 1.6), "hand": (0.4, 1.6), "seat": (0.5, 1.6), "stand": (0.5, 1.6), "take_off": (0.5, 1.6),
         "jump_landing": (0.7, 1.4), "stand_on_top": (0.7, 1.4)}
#: The interactions (issue 17): asset name -> (clip, traversal). Heights are centred on the authored
#: target (mannequin.contacts.json: the grab 0.14 m, 0.90 m and 1.15 m up, the seat 0.45 m, the gap 1.5 m).
#: Distances end where the warper still takes the first phase (at 1.5 m it stretches a grab 3.28x, over its 3).
INTERACTIONS = {
    "pick_up": ("pick_up", {"kind": "pick_up", "height": [-0.16, 0.44], "distance": [0.5, 1.4]}),
    "pick_up_table": ("pick_up_table", {"kind": "pick_up", "height": [0.6, 1.2], "distance": [0.5, 1.4]}),
    "use": ("use", {"kind": "use", "height": [0.85, 1.45], "distance": [0.5, 1.4]}),
    "sit": ("sit", {"kind": "sit", "height": [0.3, 0.6], "distance": [0.6, 1.8]}),
    "jump_gap": ("running_jump", {"kind": "jump_gap", "height": [-0.5, 0.5], "depth": [0.8, 2.2]}),
    "jump_onto": ("running_jump", {"kind": "jump_onto", "height": [0.3, 0.9], "depth": [0.7, 50.0]}),
}

#: Phase fields beyond what the clip's contacts give, by asset: the grab gives up on an item moved 0.25 m
#: from where it lay when the reach started (the yard's sled slides it away: docs/design.md 4, Switch-off).
LIMITS = {"pick_up": {"switch_off_distance": 0.25}}


def clip_track(model_path, clip):
    from panda3d.core import NodePath
    model = NodePath(load_model_node(model_path))
    bundles = {n.node().getBundle().getName(): n.node().getBundle() for n in model.findAllMatches("**/+AnimBundleNode")}
    return track_for(bundles[clip], "root", clip=clip)


def root_at(track, seconds):
    return [float(v) for v in track.origin_pos + track.position(seconds * track.fps)]


def phase(name, start, end, track, target, align=None, rates=None):
    """A phase ending at `end` on `target` (model space): its t_offset is where the root (or the joint
    `align`, at `align_pos`) is then relative to the target, in the target's frame (the root's heading)."""
    if align is None:
        point = root_at(track, end)
    else:
        align, point = align
    h = math.radians(track.origin_h + track.heading(end * track.fps))
    dx, dy, dz = (p - t for p, t in zip(point, target))
    offset = tuple(round(v, 4) + 0.0 for v in (math.cos(h) * dx + math.sin(h) * dy, -math.sin(h) * dx + math.cos(h) * dy, dz))
    low, high = RATES[rates or name]
    return WarpPhase(name, round(start, 4), round(end, 4), t_offset=offset, min_rate=low, max_rate=high, align_joint=align)


def crossing_time(track, y):
    """Clip seconds at which the root first passes `y` going forward."""
    for frame in range(1, track.num_frames):
        y0, y1 = track.positions[frame - 1][1], track.positions[frame][1]
        if y0 < y <= y1:
            return (frame - 1 + (y - y0) / (y1 - y0)) / track.fps
    raise ValueError(f"the root of {track.clip!r} never passes y = {y}")


def contact_events(clip):
    hands = [c for c in clip["contacts"] if c["joint"].startswith("hand")]
    grab, release = min(c["start"] for c in hands), max(c["end"] for c in hands)
    landings = [c["start"] for c in clip["contacts"] if c["joint"].startswith("foot") and c["start"] > release]
    return grab, release, (min(landings) if landings else None)


def vault(clip, track):
    """The vault's phases and the target point each warps to."""
    box = clip["obstacle"]
    near, far, top = box["min"][1], box["max"][1], box["max"][2]
    plant, release, land = contact_events(clip)
    over = round(crossing_time(track, far), 2)
    points = {"close_edge": (0.0, near, top), "far_edge": (0.0, far, top),
              "landing": (0.0, far + LANDING_PAST_FAR_FACE, 0.0)}
    # the feet stay planted up to the hands' plant: a top higher than authored is risen to over the top,
    # as the clip itself rises, not in the run-up (docs/design.md 4, Deferred rise); the hands then hold
    # the close edge to their release: far_edge warps from there (Held warp), so a top deeper or shallower
    # than authored never moves the body off the planted hands
    phases = [dataclasses.replace(phase("close_edge", 0.0, plant, track, points["close_edge"]), defer_rise=True),
              dataclasses.replace(phase("far_edge", plant, over, track, points["far_edge"]), warp_from=release),
              phase("landing", over, land, track, points["landing"])]
    return phases, points


def mantle(clip, track):
    """Hands grab the ledge top; then the root goes to where the clip ends standing on the top by the
    time the first foot plants there (the provider finds that floor: a sunk lid's panel, a slope)."""
    box = clip["obstacle"]
    grab, _, _ = contact_events(clip)
    plant = min(c["start"] for c in clip["contacts"] if c["joint"].startswith("foot") and c["start"] > grab)
    end = root_at(track, track.duration)
    points = {"ledge_top": (0.0, box["min"][1], box["max"][2]), "stand_on_top": (end[0], end[1], box["max"][2])}
    # the feet stay planted before the face up to the grab: a ledge higher than authored is risen to in the
    # climb onto it, as the clip itself rises, not with the feet still down (docs/design.md 4, Deferred rise)
    return [dataclasses.replace(phase("ledge_top", 0.0, grab, track, points["ledge_top"]), defer_rise=True),
            phase("stand_on_top", grab, plant, track, points["stand_on_top"])], points


def reach(name, clip, track):
    """A hand to the target: phase `name` ends as the right hand grabs (or presses), the hand on the target."""
    hand = next(c for c in clip["contacts"] if c["joint"] == "hand_r")
    points = {name: tuple(hand["pos"])}
    return [phase(name, 0.0, hand["start"], track, points[name], align=("hand_r", hand["pos"]))], points


def sit(clip, track):
    """Seat: the hips land above the seat's top centre; stand: where the root ends stepping away."""
    hips = next(c for c in clip["contacts"] if c["joint"] == "hips")
    away = max(c["start"] for c in clip["contacts"] if c["joint"].startswith("foot"))
    last = next(c["end"] for c in clip["contacts"] if c["joint"] == "hips")
    end = round(crossing_time_back(track, clip["root_end"][1] + 0.005), 2)
    assert end > away, "sit: the root still moves after the last step starts"
    points = {"seat": tuple(hips["surface"]), "stand": tuple(root_at(track, end))}
    return [phase("seat", 0.0, hips["start"], track, points["seat"], align=("hips", hips["pos"])),
            phase("stand", last, end, track, points["stand"])], points


def crossing_time_back(track, y):
    """Clip seconds at which the root, going back along -Y, first reaches `y`."""
    for frame in range(track.num_frames - 1, 0, -1):
        if track.positions[frame - 1][1] > y >= track.positions[frame][1] - 1e-9:
            return frame / track.fps
    raise ValueError(f"the root of {track.clip!r} never reaches y = {y} going back")


def jump(clip, track):
    """Take off at the gap's near edge (the last foot off before the flight), land where the root touches down."""
    gap = clip["obstacle"]
    feet = [c for c in clip["contacts"] if c["joint"].startswith("foot")]
    take_off = max(c["end"] for c in feet if c["pos"][1] < gap["min"][1])
    land = min(c["start"] for c in feet if c["pos"][1] > gap["max"][1])
    points = {"take_off": (0.0, gap["min"][1], 0.0), "landing": (0.0, root_at(track, land)[1], 0.0)}
    return [phase("take_off", 0.0, take_off, track, points["take_off"]),
            phase("landing", take_off, land, track, points["landing"], rates="jump_landing")], points


def contacts(clip, phases, points, normal=UP):
    """The asset's contacts from the clip's ground truth, each at the offset it was authored at;
    target contacts touch a surface facing `normal` (None: a marker's point itself).

    A hand grabs the target of the phase that ends as it plants; a foot touching down at or after
    the last phase's end stands on that phase's target (the landing point, the ledge top: found
    by the providers where the character ends); other feet stand on whatever is under them. A
    target contact whose touched point is not under the joint (the mantle's palm, on the top 2 cm
    beyond the wrist, which hangs over the face) names it (`touch`, relative to the target).
    """
    ends = {phase.end: phase.name for phase in phases}
    last = phases[-1]
    found = []
    for truth in clip["contacts"]:
        start, end, pos = round(truth["start"], 4), round(truth["end"], 4), truth["pos"]
        name = ends[start] if truth["joint"].startswith("hand") else (last.name if start >= last.end else None)
        if truth["joint"] == "hips":
            continue   # the seat: the phase's own target (aligned), not a limb the contact IK holds
        if name is not None:
            offset = tuple(round(p - t, 4) for p, t in zip(pos, points[name]))
            touch = tuple(round(s - t, 4) + 0.0 for s, t in zip(truth["surface"], points[name]))
            found.append(Contact(truth["joint"], start, end, "target", name, offset, normal,
                                 touch if normal is not None and _beside(pos, truth["surface"], normal) else None))
        else:
            offset = tuple(round(p - s, 4) for p, s in zip(pos, truth["surface"]))
            found.append(Contact(truth["joint"], start, end, "surface", offset=offset))
    return found


def _beside(pos, surface, normal):
    """Is the touched `surface` point off the line through the joint's `pos` along `normal` (a palm
    2 cm beyond the wrist, more than 1 mm): then the contact names the point it touches (`touch`)."""
    away = [s - p for s, p in zip(surface, pos)]
    along = sum(a * n for a, n in zip(away, normal))
    return math.dist(away, [along * n for n in normal]) > 1e-3


def _marker_normal(traversal):
    """A marker kind's hand goes to the marker itself (None); a traversal's touches the top (up)."""
    return None if TRAVERSAL_KINDS[traversal["kind"]].found_by == "marker" else UP


def write_warp_assets(out_dir, model_path, contacts_path):
    """Write vault, mantle and mantle_high .warp.json, and the interactions' (INTERACTIONS), into
    `out_dir`, their model path relative to it; returns the written paths."""
    out_dir = pathlib.Path(out_dir)
    truth = json.loads(pathlib.Path(contacts_path).read_text())["clips"]
    model = os.path.relpath(model_path, out_dir)
    written = []
    for name, build in (("vault", vault), ("mantle", mantle), ("mantle_high", mantle)):
        track = clip_track(model_path, name)
        path = out_dir / f"{name}.warp.json"
        phases, points = build(truth[name], track)
        asset = WarpAsset(model=model, clip=name, root_joint="root", phases=phases,
                          traversal=Traversal(**TRAVERSAL[name]), contacts=contacts(truth[name], phases, points),
                          path=str(path))
        authored = truth[name]["obstacle"]["size"]
        assert asset.traversal.centre[0] == authored[2], f"{name}: height range not centred on the authored obstacle"
        assert name != "vault" or asset.traversal.centre[1] == authored[1], "vault: depth range not centred on it"
        asset.save()
        WarpAsset.load(path)  # validate what was written
        written.append(path)
        print(f"wrote {path}: " + ", ".join(f"{p.name} {p.start:.2f}-{p.end:.2f}s" for p in asset.phases))
    builders = {"pick_up": functools.partial(reach, "grab"), "pick_up_table": functools.partial(reach, "grab"),
                "use": functools.partial(reach, "hand"), "sit": sit, "running_jump": jump}
    for name, (clip, traversal) in INTERACTIONS.items():
        track = clip_track(model_path, clip)
        path = out_dir / f"{name}.warp.json"
        phases, points = builders[clip](truth[clip], track)
        phases = [dataclasses.replace(phases[0], **LIMITS.get(name, {}))] + phases[1:]
        asset = WarpAsset(model=model, clip=clip, root_joint="root", phases=phases, traversal=Traversal(**traversal),
                          contacts=contacts(truth[clip], phases, points, _marker_normal(traversal)), path=str(path))
        asset.save()
        WarpAsset.load(path)
        written.append(path)
        print(f"wrote {path}: " + ", ".join(f"{p.name} {p.start:.2f}-{p.end:.2f}s" for p in asset.phases))
    return written


def main(argv):
    folder = pathlib.Path(argv[1]) if len(argv) > 1 else ASSETS
    write_warp_assets(folder, folder / MODEL, folder / "mannequin.contacts.json")


if __name__ == "__main__":
    main(sys.argv)
