"""Hotkeys that tune the warp assets while the demo runs, and save them (atomically)."""
from direct.showbase.DirectObject import DirectObject
from panda3d.core import TextNode

from motionwarp import MotionWarpError
from motionwarp.base.atomicfile import save_path

from ..views.hud import panel_text
from .phase_edit import EditHistory, changes

OFFSET_STEP = 0.01  # metres
RATE_STEP = 0.05
#: key -> (what it changes, how much)
EDITS = {
    "j": (("t_offset", 0), -OFFSET_STEP), "l": (("t_offset", 0), OFFSET_STEP),
    "k": (("t_offset", 1), -OFFSET_STEP), "i": (("t_offset", 1), OFFSET_STEP),
    "u": (("t_offset", 2), -OFFSET_STEP), "o": (("t_offset", 2), OFFSET_STEP),
    "9": (("min_rate", None), -RATE_STEP), "0": (("min_rate", None), RATE_STEP),
    "-": (("max_rate", None), -RATE_STEP), "=": (("max_rate", None), RATE_STEP),
    "7": (("rotation_time", None), -0.1), "8": (("rotation_time", None), 0.1),
    "v": (("facing_min_distance", None), -0.05), "b": (("facing_min_distance", None), 0.05),
}
#: key -> (a limit that is off (null) by default, its step): raised from off it starts at one step,
#: lowered to 0 it is off again (issue 30's limits, docs/design.md 4).
LIMIT_EDITS = {
    "5": ("max_turn_rate", -90.0), "6": ("max_turn_rate", 90.0),
    "3": ("max_speed", -0.5), "4": ("max_speed", 0.5),
    "1": ("switch_off_distance", -0.25), "2": ("switch_off_distance", 0.25),
    "n": ("switch_off_angle", -15.0), "m": ("switch_off_angle", 15.0),
}
#: The rotation modes R cycles through, in order.
ROTATIONS = ("target", "facing", "opposite_facing")
#: The tuner's keys, as the demo's F1 panel lists them.
KEYS = (("Tab", "select the next warp asset"), ("[ ]", "select the previous / next phase"),
        ("J L / K I / U O", "move the phase's t_offset 1 cm along x / y / z"),
        ("9 0 / - =", "lower / raise min_rate / max_rate by 0.05"),
        ("R", "rotation: target, facing, opposite_facing"), ("7 8", "rotation_time -/+ 0.1"),
        ("5 6 / 3 4", "max_turn_rate -/+ 90 deg/s / max_speed -/+ 0.5 m/s (0: off)"),
        ("1 2 / N M", "switch_off_distance -/+ 0.25 m / switch_off_angle -/+ 15 deg (0: off)"),
        ("V B", "facing_min_distance -/+ 5 cm"), ("Z", "undo the asset's last edit"),
        ("F5", "save the asset (atomically)"))


def _limit(value, unit):
    """A limit as the panel says it: "540 deg/s", or "any" when it is off."""
    return "any" if value is None else f"{value:g} {unit}"


class AssetTuner(DirectObject):
    """Edits one phase of one asset at a time; each edit is validated like a loaded file and
    re-bound to the clip already loaded (`WarpAsset.rebind`), not loaded again.

    `assets` is the demo's name -> WarpAsset dict; edited assets replace their entry, so the
    next warp uses them (the curve editor's too, through `replace`). Each asset keeps its own
    undo history. Saving writes the asset's own file atomically. An asset is unsaved while it
    differs from its file as last loaded or saved (undoing back to it makes it saved again).
    `say(text)` shows what an undo did on the demo's status line.
    """

    def __init__(self, assets, show=True, parent=None, say=lambda text: None):
        super().__init__()
        self.assets = assets
        self.names = list(assets)
        self.asset_index = self.phase_index = 0
        self.say = say
        #: name -> the asset's content as its file holds it (loaded or saved).
        self.on_disk = {name: asset.to_dict() for name, asset in assets.items()}
        self.history = {name: EditHistory() for name in self.names}
        self.message = ""
        self.text = panel_text(parent, (-0.06, -0.1), TextNode.ARight, scale=0.048,
                               fg=(1, 1, 0.85, 1)) if show else None
        for key, (field, delta) in EDITS.items():
            self.accept(key, self.edit, [field, delta])
        for key, (name, step) in LIMIT_EDITS.items():
            self.accept(key, self.edit_limit, [name, step])
        self.accept("r", self.next_rotation)
        self.accept("tab", self.next_asset)
        self.accept("]", self.next_phase, [1])
        self.accept("[", self.next_phase, [-1])
        self.accept("f5", self.save)
        self.accept("z", self.undo)
        self._show()

    @property
    def asset(self):
        return self.assets[self.names[self.asset_index]]

    @property
    def phase(self):
        return self.asset.phases[self.phase_index]

    def unsaved(self, name):
        return self.assets[name].to_dict() != self.on_disk[name]

    def next_asset(self):
        """Tab: the next asset, its first phase; the last message was about the one before."""
        self.asset_index = (self.asset_index + 1) % len(self.names)
        self.phase_index = 0
        self.message = ""
        self._show()

    def next_phase(self, step):
        self.select_phase(self.phase_index + step)

    def select_phase(self, index):
        self.phase_index = index % len(self.asset.phases)
        self._show()

    def edit(self, field, delta):
        """Change one value of the selected phase; a value the asset rules refuse is not kept."""
        name, axis = field
        data = self.asset.to_dict()
        phase = data["phases"][self.phase_index]
        if axis is None:
            phase[name] = round(getattr(self.phase, name) + delta, 4)
        else:
            phase[name][axis] = round(phase[name][axis] + delta, 4)
        self._rebind(data)

    def edit_limit(self, name, step):
        """Raise or lower a limit that may be off: from off, up starts it at one step; down to 0 turns it off."""
        data = self.asset.to_dict()
        value = getattr(self.phase, name)
        value = (step if step > 0 else None) if value is None else round(value + step, 4)
        data["phases"][self.phase_index][name] = value if value is None or value > 1e-9 else None
        self._rebind(data)

    def next_rotation(self):
        """R: the selected phase's next rotation mode (one the asset rules refuse is not kept)."""
        data = self.asset.to_dict()
        data["phases"][self.phase_index]["rotation"] = ROTATIONS[(ROTATIONS.index(self.phase.rotation) + 1) % len(ROTATIONS)]
        self._rebind(data)

    def _rebind(self, data):
        """Keep the edited `data` when the asset rules accept it, else say why not."""
        try:
            edited = self.asset.rebind(data)
        except MotionWarpError as refusal:
            self.message = f"not changed: {refusal.expected}"
            self._show()
        else:
            self.replace(edited)

    def replace(self, edited):
        """Make `edited` (a checked WarpAsset) the selected asset, one undoable step."""
        name = self.names[self.asset_index]
        self.history[name].record(self.assets[name])
        self.assets[name] = edited
        self.message = ""
        self._show()

    def undo(self):
        """Bring back the selected asset as it was before its last edit, and say what that changed."""
        name = self.names[self.asset_index]
        history = self.history[name]
        if not history.undo_stack:
            self.message = "nothing to undo"
        else:
            undone = self.assets[name]
            self.assets[name] = history.undo(undone)
            self.message = "undone"
            self.say(f"Z undid {self.asset.clip}: {changes(undone, self.asset) or 'no change'}")
        self._show()

    def save(self):
        """Write the selected asset to its file, or beside it to a copy when the file is read-only."""
        try:
            self.asset.save(save_path(self.asset.path))
        except OSError as exc:
            self.message = f"could not save {self.asset.path}: {exc}"
        else:
            self.on_disk[self.names[self.asset_index]] = self.asset.to_dict()
            self.message = f"saved {self.asset.path}"
        self._show()

    def describe(self):
        phase = self.phase
        star = " (unsaved)" if self.unsaved(self.names[self.asset_index]) else ""
        offset = ", ".join(f"{v:+.2f}" for v in phase.t_offset)
        lines = [f"{self.asset.clip}{star}: phase {self.phase_index + 1}/{len(self.asset.phases)} {phase.name} "
                 f"({phase.start:.2f}-{phase.end:.2f} s)",
                 f"t_offset [{offset}] m   rate {phase.min_rate:.2f}..{phase.max_rate:.2f}",
                 f"rotation {phase.rotation} in {phase.rotation_time:.1f} of the phase, turn "
                 f"{_limit(phase.max_turn_rate, 'deg/s')}, speed {_limit(phase.max_speed, 'm/s')}",
                 f"switch off past {_limit(phase.switch_off_distance, 'm')} or {_limit(phase.switch_off_angle, 'deg')}"]
        return "\n".join(lines + ([self.message] if self.message else []))

    def _show(self):
        if self.text is not None:
            self.text.setText(self.describe())

    def destroy(self):
        self.ignoreAll()
        if self.text is not None:
            self.text.destroy()
