"""Render docs/contact_sheet.png: for each clip of motionwarp/samples/assets/mannequin.glb, several frames side by side.

Usage:  python -m authoring.render_contact_sheet [GLB] [OUT_PNG] [--frames N]

Headless (p3headlessgl offscreen).  One row per clip, seen from the character's right side
(+X) with an orthographic camera, so +Y (forward) runs left to right.  Each cell is its own
display region with its own scene: ground, the clip's authored obstacle (from
mannequin.contacts.json) and an Actor posed at that frame.  The root motion is not stripped,
so the body appears where the clip puts it relative to the model origin.
"""
import argparse
import json
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CELL_W, CELL_H = 260, 330


def box_between(parent, name, bmin, bmax, color):
    """A demo box spanning the corners bmin..bmax."""
    from motionwarp_demo.level.world import add_box
    size = [hi - lo for lo, hi in zip(bmin, bmax)]
    bottom_centre = ((bmin[0] + bmax[0]) / 2, (bmin[1] + bmax[1]) / 2, bmin[2])
    return add_box(parent, name, bottom_centre, size, color=color)


PREFERRED_ORDER = ["idle", "walk", "run", "vault", "mantle", "mantle_high", "fall", "land"]


def row_height(info):
    """Metres of height a row shows: the body standing on the highest surface of the clip."""
    top = max(0.0, info["root_end"][2])
    if info.get("obstacle"):
        top = max(top, info["obstacle"]["max"][2])
    return max(2.4, top + 2.45)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("glb", nargs="?", default=os.path.join(REPO, "motionwarp", "samples", "assets", "mannequin.glb"))
    ap.add_argument("out", nargs="?", default=os.path.join(REPO, "docs", "contact_sheet.png"))
    ap.add_argument("--frames", type=int, default=6)
    ap.add_argument("--clips", default="", help="comma-separated subset of clips")
    ap.add_argument("--picks", default="", help="comma-separated frame numbers (instead of even spacing)")
    ap.add_argument("--cell", default=f"{CELL_W}x{CELL_H}", help="cell size in pixels, WxH")
    ap.add_argument("--view", default="side", choices=["side", "front", "back", "three_quarter"])
    args = ap.parse_args(argv)

    contacts_path = os.path.splitext(args.glb)[0] + ".contacts.json"
    with open(contacts_path, encoding="utf-8") as f:
        meta = json.load(f)["clips"]

    from panda3d.core import loadPrcFileData
    clip_names = [c for c in PREFERRED_ORDER if c in meta] + sorted(c for c in meta if c not in PREFERRED_ORDER)
    if args.clips:
        clip_names = [c for c in clip_names if c in args.clips.split(",")]
    cell_w, cell_h = (int(v) for v in args.cell.lower().split("x"))
    picks_arg = [int(v) for v in args.picks.split(",")] if args.picks else None
    cols = len(picks_arg) if picks_arg else args.frames
    rows = len(clip_names)
    loadPrcFileData("", "load-display p3headlessgl\nwindow-type offscreen\naudio-library-name null\n"
                        f"win-size {cols * cell_w} {rows * cell_h}\nframebuffer-multisample 1\n"
                        "multisamples 4\nsync-video 0")
    from direct.actor.Actor import Actor
    from direct.showbase.ShowBase import ShowBase
    from motionwarp import load_actor
    from panda3d.core import (AmbientLight, Camera, DirectionalLight, Filename, NodePath,
                              OrthographicLens, TextNode, TransparencyAttrib)

    base = ShowBase()
    base.win.set_clear_color((0.93, 0.93, 0.95, 1))
    base.cam.node().set_active(False)
    template = load_actor(args.glb)
    cam_dir = {"side": (1, 0, 0), "front": (0, 1, 0), "back": (0, -1, 0),
               "three_quarter": (0.8, 0.6, 0.25)}[args.view]

    actors = []   # keep a reference to every Actor (else they fall back to the bind pose)
    for r, clip in enumerate(clip_names):
        info = meta[clip]
        n_frames = info.get("frames", int(round(info["duration"] * 30)))
        picks = picks_arg or [round(i * n_frames / (cols - 1)) for i in range(cols)]
        height = row_height(info)
        width = height * cell_w / cell_h
        for c, frame in enumerate(picks):
            scene = NodePath(f"cell_{clip}_{frame}")
            actor = Actor(other=template)    # a copy sharing the loaded animations
            actor.reparent_to(scene)
            actor.pose(clip, frame)
            actor.update(force=True)
            actors.append(actor)
            hips = actor.expose_joint(None, "modelRoot", "hips").get_pos(scene)
            yc, zc = hips.y, height / 2 - 0.25
            amb = scene.attach_new_node(AmbientLight("amb"))
            amb.node().set_color((0.42, 0.42, 0.45, 1))
            sun = scene.attach_new_node(DirectionalLight("sun"))
            sun.node().set_color((0.75, 0.73, 0.68, 1))
            sun.set_hpr(60, -45, 0)
            scene.set_light(amb)
            scene.set_light(sun)
            box_between(scene, "ground", (-4, yc - 4, -0.05), (4, yc + 4, 0.0), (0.6, 0.62, 0.6, 1))
            obst = info.get("obstacle")
            if obst:
                box = box_between(scene, "obstacle", obst["min"], obst["max"], (0.78, 0.56, 0.34, 0.6))
                box.set_transparency(TransparencyAttrib.M_alpha)
                box.set_depth_write(False)
                box.set_bin("transparent", 10)
            # camera: orthographic, from the side (+X) by default, so +Y runs left to right
            lens = OrthographicLens()
            lens.set_film_size(width, height)
            lens.set_near_far(0.1, 60)
            cam = scene.attach_new_node(Camera(f"cam_{clip}_{frame}", lens))
            look = (hips.x, yc, zc) if args.view == "side" else (hips.x, hips.y, zc)
            cam.set_pos(look[0] + 12 * cam_dir[0], look[1] + 12 * cam_dir[1], look[2] + 12 * cam_dir[2])
            cam.look_at(*look)
            # label, parented to the camera so it sits in the top-left corner
            tn = TextNode("label")
            tn.set_text(f"{clip}  f{frame}  t={frame / 30:.2f}s")
            tn.set_text_color(0.1, 0.1, 0.1, 1)
            label = cam.attach_new_node(tn)
            label.set_light_off()
            label.set_scale(width * 0.05)
            label.set_pos(-width * 0.47, 5.0, height * 0.5 - width * 0.07)
            dr = base.win.make_display_region(c / cols, (c + 1) / cols,
                                              1 - (r + 1) / rows, 1 - r / rows)
            dr.set_camera(cam)
            dr.set_clear_color_active(True)
            dr.set_clear_color((0.93, 0.93, 0.95, 1) if (r + c) % 2 else (0.88, 0.89, 0.92, 1))
            dr.set_clear_depth_active(True)

    base.graphicsEngine.render_frame()
    base.graphicsEngine.render_frame()
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    ok = base.win.save_screenshot(Filename.from_os_specific(os.path.abspath(args.out)))
    print("wrote" if ok else "FAILED to write", args.out, f"({cols}x{rows} cells)")
    base.destroy()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
