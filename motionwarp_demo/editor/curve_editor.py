"""The curve panel as a mouse editor: drag a phase window to move it, its edge handles to resize
it, press or drag on the time axis to scrub the clip while the game is paused.

Left mouse only. A press the panel takes holds the mouse until it is released, and the orbit
camera does not turn meanwhile (OrbitCamera.mouse_taken). While dragging, the panel shows the
edited asset live; the release hands it to the tuner as one undoable edit (Z), which the next
warp plays and F5 saves. Windows are not edited while a warp plays; scrubbing needs the game
paused (P) with no warp playing, and ends when it runs again.
"""
import math

from direct.showbase.DirectObject import DirectObject
from panda3d.core import Point3

from motionwarp import WarpRefused
from motionwarp.warp.assetdata import TRAVERSAL_KINDS

from .panel_map import dragged, grab_at, time_at
from .phase_edit import phase_motion, snap, stuck, windows

#: The editor's mouse controls, as the demo's F1 panel lists them.
KEYS = (("drag a phase", "move it, or resize it by an edge handle"),
        ("drag the ruler", "scrub the clip while paused"))


def phase_info(asset, index, rates, offer):
    """The panel's line about phase `index`: its window, root motion and play rate (`rates`: one
    per phase for the `offer`, an Interaction; None when nothing this clip fits is on offer)."""
    phase, fps = asset.phases[index], asset.track.fps
    motion = phase_motion(asset, index)
    frames = round((phase.end - phase.start) * fps)
    if rates is not None:
        rate = f"play rate {rates[index]:.2f} for the {TRAVERSAL_KINDS[offer.kind].verb} on offer"
    elif offer is not None:
        rate = f"play rate: the warper refuses the {TRAVERSAL_KINDS[offer.kind].verb} on offer from here"
    else:
        rate = "play rate: face an obstacle this clip fits"
    return (f"{phase.name} {phase.start:.2f}-{phase.end:.2f} s ({frames} frames)   root motion "
            f"{' '.join(f'{v:+.2f}' for v in motion)} m ({math.hypot(*motion):.2f} m)\n{rate}")


class CurveEditor(DirectObject):
    """Edits the tuner's selected asset through `panel` (a CurvePanel) with the mouse of `watcher`.

    `render2d` is the space the mouse is read in, `warper` plays the warps (none is edited while
    it plays; the rates are foreseen for it), `standin` (a StandIn) shows scrubbed poses,
    `paused()` says whether the game is paused and `say(text)` shows a status line.
    """

    def __init__(self, panel, tuner, watcher, render2d, warper, standin, paused, say):
        super().__init__()
        self.panel, self.tuner, self.watcher, self.render2d = panel, tuner, watcher, render2d
        self.warper, self.standin, self.paused, self.say = warper, standin, paused, say
        self.grab = None          # what the held mouse took (a panel_map.Grab), None when not held
        self.mode = None          # while held: "edit", "scrub", or "idle" (a press that can do nothing now)
        self.press_x = self.drag_x = None   # panel x of the press, and of the preview's drag
        self.before = self.preview = None   # the asset a drag started from, and what it makes of it
        self.scrub_time = None
        self.accept("mouse1", self.press)
        self.accept("mouse1-up", self.release)

    @property
    def holds_mouse(self):
        return self.mode is not None

    def mouse_point(self):
        """The mouse in panel coordinates (x, z), or None when it is not over the window."""
        if self.watcher is None or not self.watcher.hasMouse():
            return None
        mouse = self.watcher.getMouse()
        point = self.panel.root.getRelativePoint(self.render2d, Point3(mouse.x, 0, mouse.y))
        return point.x, point.z

    def press(self):
        point = self.mouse_point()
        if point is not None:
            self.press_at(*point)

    def press_at(self, x, z):
        """A left press at panel point (x, z): True when the panel takes it (and holds the mouse)."""
        if self.tuner is None or not self.panel.visible:
            return False
        asset = self.tuner.asset
        grab = grab_at(self.panel.box, asset.track.duration, windows(asset), x, z)
        if grab is None:
            return False
        self.grab, self.press_x, self.drag_x, self.mode = grab, x, x, "idle"
        if self.warper.is_warping:
            self.say("the phases can be edited once the warp has ended")
        elif grab.part == "time":
            if self.paused():
                self.mode = "scrub"
                self.drag_to(x)
            else:
                self.say("pause (P) to scrub the clip")
        else:
            self.mode, self.before = "edit", asset
            self.preview = asset
            self.tuner.select_phase(grab.index)
        return True

    def drag_to(self, x):
        """The held mouse is at panel x `x`: the window follows it, or the scrub does."""
        if self.mode == "edit":
            if x != self.drag_x:  # a new asset is checked and prepared (~2 ms) only when the mouse moved
                self.preview = dragged(self.before, self.grab, self.panel.box, self.press_x, x)
                self.drag_x = x
                self._say_if_stuck(x)
        elif self.mode == "scrub":
            asset = self.tuner.asset
            track = asset.track
            self.scrub_time = snap(time_at(self.panel.box, track.duration, x), track.fps)
            self.standin.pose(asset.clip, track, round(self.scrub_time * track.fps))

    def _say_if_stuck(self, x):
        """A window dragged by its body that cannot go the way it is dragged says what holds it."""
        index, later = self.grab.index, x > self.press_x
        why = stuck(self.before, index, later) if self.grab.part == "body" and x != self.press_x else None
        if why is not None:
            self.say(f"{self.before.phases[index].name} cannot move {'later' if later else 'earlier'}: {why} "
                     "(drag its edge handles to resize it)")

    def release(self):
        """The left button is up: a drag that changed the window becomes one edit (the mouse may have
        moved since the last frame read it: the button and the move can arrive in one frame). A drag
        whose asset was deselected meanwhile (Tab) or replaced (a key edit, undo) is dropped."""
        point = self.mouse_point()
        if point is not None:
            self.drag_to(point[0])
        if (self.mode == "edit" and self.tuner.asset is self.before
                and windows(self.preview) != windows(self.before)):
            self.tuner.replace(self.preview)
            phase = self.preview.phases[self.grab.index]
            self.say(f"{phase.name} now {phase.start:.2f}-{phase.end:.2f} s (Z undoes, F5 saves)")
        self.grab = self.mode = self.before = self.preview = None

    def update(self, warp, offer):
        """Once a frame: follow the held mouse, end a scrub once the game runs again, and draw the
        warp in progress (`warp`) with its playhead, else the edited asset with the rates for `offer`.
        A hidden panel is not drawn (the rates cost a `MotionWarper.check` a frame): the first frame it
        shows draws it, before it is rendered."""
        point = self.mouse_point()
        if self.mode is not None and point is not None:
            self.drag_to(point[0])
        if self.standin.active and (warp is not None or not self.paused()):
            self.standin.end()
            self.scrub_time = None
        if not self.panel.visible:
            return
        if warp is not None:
            self.panel.show(warp.asset, selected=warp.phase_index if warp.in_phase else None)
            self.panel.set_time(warp.control.getFullFframe() / warp.track.fps)
            return
        if self.tuner is None:
            return
        asset = self.preview if self.mode == "edit" else self.tuner.asset
        fits = bool(offer) and offer.asset.clip == asset.clip
        rates = self._foreseen_rates(asset, offer) if fits else None
        hot = self.grab if self.mode == "edit" else (
            grab_at(self.panel.box, asset.track.duration, windows(asset), *point) if point is not None else None)
        index = self.tuner.phase_index
        info = phase_info(asset, index, rates, offer if fits else None)
        if self.scrub_time is not None:
            info += f"\nscrubbed to {self.scrub_time:.2f} s (frame {round(self.scrub_time * asset.track.fps)}): P resumes"
        self.panel.show(asset, selected=index, hot=hot, held=self.mode == "edit", rates=rates, info=info)
        self.panel.set_time(self.scrub_time)

    def _foreseen_rates(self, asset, offer):
        """The rate each phase of `asset` would get for `offer` from here (MotionWarper.check), or
        None when the warper would refuse it."""
        try:
            return self.warper.check(asset, offer.targets)
        except WarpRefused:
            return None

    def destroy(self):
        self.ignoreAll()
        self.standin.destroy()
