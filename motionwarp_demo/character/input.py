"""Keyboard input that works whatever modifier is held.

ShowBase's button throwers and mouse watcher know Shift, Control, Alt and Meta as modifiers,
so with Shift held Panda3D sends `shift-w` and `shift-space`, which a game listening for `w`
and `space` never gets. Here the modifiers are cleared (every key sends its own name), and
held keys are polled from the mouse watcher each frame instead of tracked through events.
"""
from panda3d.core import ButtonHandle, ButtonRegistry, KeyboardButton, ModifierButtons

#: Held keys: name -> the keys that mean it.
HELD = {"forward": ("w", "arrow_up"), "back": ("s", "arrow_down"), "left": ("a", "arrow_left"),
        "right": ("d", "arrow_right"), "run": ("shift", "lshift", "rshift")}
_SPECIAL = {"arrow_up": KeyboardButton.up(), "arrow_down": KeyboardButton.down(),
            "arrow_left": KeyboardButton.left(), "arrow_right": KeyboardButton.right(),
            "shift": KeyboardButton.shift(), "lshift": KeyboardButton.lshift(), "rshift": KeyboardButton.rshift()}


def button(key):
    """The ButtonHandle of a key named as in Panda3D's events ("w", "arrow_up", "shift", "f3")."""
    if key in _SPECIAL:
        return _SPECIAL[key]
    if len(key) == 1:
        return KeyboardButton.asciiKey(key)
    handle = ButtonRegistry.ptr().findButton(key)
    if handle == ButtonHandle.none():
        raise ValueError(f"no key is called {key!r} in Panda3D's events")
    return handle


class KeyInput:
    """Polls held keys from `watcher` (a MouseWatcher); clears the modifiers of it and `throwers`.

    Without a window (headless) `watcher` is None and no key is ever down.
    """

    def __init__(self, watcher, throwers=()):
        self.watcher = watcher
        if watcher is not None:
            watcher.setModifierButtons(ModifierButtons())
        for thrower in throwers:
            thrower.node().setModifierButtons(ModifierButtons())
        self._held = {name: [button(key) for key in keys] for name, keys in HELD.items()}

    def down(self, name):
        """True while any key meaning `name` ("forward", "back", "left", "right", "run") is held."""
        return self.watcher is not None and any(self.watcher.isButtonDown(b) for b in self._held[name])

    def stick(self):
        """(right, forward) from the held movement keys, each -1, 0 or 1."""
        return self.down("right") - self.down("left"), self.down("forward") - self.down("back")
