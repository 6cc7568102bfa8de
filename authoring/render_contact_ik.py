"""Render docs/contact_ik.png: the vault over 0.5, 1.0 and 1.4 m crates, without and with the contact IK.

Usage:  python -m authoring.render_contact_ik [OUT_PNG]

Headless (p3headlessgl offscreen). One row per crate and mode, seen from the character's right
side (+X) with an orthographic camera, so +Y (forward) runs left to right. Each row plays the
vault the providers find over a real crate through the MotionWarper (and the ContactIK), and
captures the rendered frame as the clip passes each picked time. Red marks: where the hands
were authored on the edge.
"""
import json
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CELL_W, CELL_H = 300, 220
PICKS = [0.4, 0.62, 0.8, 1.1, 1.6]   # clip seconds: stepping in, planting, hands on, over, landed
HEIGHTS = [0.5, 1.0, 1.4]
DISTANCE, DEPTH = 1.0, 0.6


def main(argv=None):
    out = (argv or sys.argv)[1] if len(argv or sys.argv) > 1 else os.path.join(REPO, "docs", "contact_ik.png")
    from panda3d.core import loadPrcFileData
    loadPrcFileData("", "load-display p3headlessgl\nwindow-type offscreen\naudio-library-name null\n"
                        f"win-size {CELL_W} {CELL_H}\nframebuffer-multisample 1\nmultisamples 4\nsync-video 0")
    from direct.gui.OnscreenText import OnscreenText
    from direct.showbase.ShowBase import ShowBase
    from panda3d.core import ClockObject, Filename, OrthographicLens, PNMImage
    from motionwarp_demo.views.looks import Looks
    from motionwarp_demo.level.world import Lights, add_box
    from motionwarp import ContactIK, MotionWarper, SceneProbe, TraversalProvider, WarpAsset, load_actor

    base = ShowBase()
    base.win.setClearColor((0.93, 0.93, 0.95, 1))
    clock = ClockObject.getGlobalClock()
    clock.setMode(ClockObject.MNonRealTime)
    clock.setFrameRate(60)
    lens = OrthographicLens()
    lens.setFilmSize(3.6, 3.6 * CELL_H / CELL_W)
    lens.setNearFar(0.1, 60)
    base.cam.node().setLens(lens)
    base.cam.setPos(12, 1.5, 1.2)
    base.cam.lookAt(0, 1.5, 1.2)
    Lights(base.render, Looks())
    assets = [WarpAsset.load(os.path.join(REPO, "motionwarp", "samples", "assets", f"{name}.warp.json"))
              for name in ("vault", "mantle", "mantle_high")]
    with open(os.path.join(REPO, "motionwarp", "samples", "assets", "mannequin.contacts.json"), encoding="utf-8") as stream:
        authored = json.load(stream)["clips"]["vault"]
    near, top = authored["obstacle"]["min"][1], authored["obstacle"]["max"][2]
    hands = [c["pos"] for c in authored["contacts"] if c["joint"].startswith("hand")]

    rows = [(height, ik) for height in HEIGHTS for ik in (False, True)]
    sheet = PNMImage(CELL_W * len(PICKS), CELL_H * len(rows))
    cell = PNMImage()
    for r, (height, ik) in enumerate(rows):
        level = base.render.attachNewNode("level")
        add_box(level, "ground", (0, 0, -0.1), (8, 12, 0.1), color=(0.6, 0.62, 0.6, 1))
        add_box(level, "crate", (0, DISTANCE + DEPTH / 2, 0), (1.2, DEPTH, height))
        probe = SceneProbe.from_geometry(level)
        for x, y, z in hands:
            mark = add_box(level, "mark", (x, DISTANCE + y - near, height + z - top - 0.03), (0.03, 0.03, 0.03))
            mark.setLightOff()
            mark.setColor(0.9, 0.1, 0.1, 1)   # unlit: its own colour, not its material's
        actor = load_actor(os.path.join(REPO, "motionwarp", "samples", "assets", "mannequin.glb"))
        actor.reparentTo(base.render)
        warper = MotionWarper(actor, taskmgr=base.taskMgr, render=base.render)
        contact_ik = ContactIK(actor, warper, probe, taskmgr=base.taskMgr, render=base.render) if ik else None
        found = TraversalProvider(probe, assets).find_at(actor.getPos(), 0.0)
        warp = warper.play(found.asset, found.targets)
        picks = list(PICKS)
        for c in range(len(PICKS)):
            label = OnscreenText(f"{height:.1f} m crate, IK {'on' if ik else 'off'}, t={PICKS[c]:.2f}s",
                                 pos=(-1.3, 0.85), scale=0.1, align=0, fg=(0.1, 0.1, 0.1, 1))
            while picks and picks[0] == PICKS[c]:
                base.taskMgr.step()
                if warp.control.getFullFframe() / warp.control.getFrameRate() >= picks[0] or not warper.is_warping:
                    picks.pop(0)
            base.win.getScreenshot(cell)
            sheet.copySubImage(cell, c * CELL_W, r * CELL_H)
            label.destroy()
        if contact_ik is not None:
            contact_ik.destroy()
        warper.destroy()
        actor.cleanup()
        actor.removeNode()
        level.removeNode()
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    ok = sheet.write(Filename.fromOsSpecific(os.path.abspath(out)))
    print("wrote" if ok else "FAILED to write", out)
    base.destroy()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
