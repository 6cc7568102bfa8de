"""Mouse and keys for a window that has none (offscreen): Panda3D's VirtualMouse in the data graph.

An offscreen buffer gets no MouseWatcher from ShowBase. A VirtualMouse poses as the window's
mouse and keyboard, so the MouseWatcher and ButtonThrower under it feed the demo exactly as
a window's would: pointer position, held buttons and the events ("mouse1", "p"). The README's
editor picture (motionwarp_demo/app/pictures.py) is made through it.
"""
from panda3d.core import ButtonThrower, MouseButton, MouseWatcher, Point3, VirtualMouse

from .input import button

MOUSE_BUTTONS = {"mouse1": MouseButton.one(), "mouse2": MouseButton.two(), "mouse3": MouseButton.three()}


class VirtualInput:
    """Installs a virtual mouse and keyboard as `base`'s (base.mouseWatcherNode, base.buttonThrowers).

    Build the demo after it, since the demo takes them when it is built. What is pressed or moved
    here reaches the demo at the next frame (the data graph is read by ShowBase's dataLoop task).
    """

    def __init__(self, base):
        if base.mouseWatcherNode is not None:
            raise RuntimeError("this ShowBase already has a mouse (a window): VirtualInput is for offscreen ones")
        self.base = base
        self.size = (base.win.getXSize(), base.win.getYSize())
        self.mouse = VirtualMouse("motionwarp-virtual-mouse")
        self.mouse.setWindowSize(*self.size)
        self.root = base.dataRoot.attachNewNode(self.mouse)
        watcher = self.root.attachNewNode(MouseWatcher("motionwarp-virtual-watcher"))
        thrower = watcher.attachNewNode(ButtonThrower("motionwarp-virtual-buttons"))
        base.mouseWatcher, base.mouseWatcherNode, base.buttonThrowers = watcher, watcher.node(), [thrower]

    def pixel(self, node, x, z):
        """The window pixel (column, row) under point (x, 0, z) of the 2-d node `node`."""
        point = self.base.render2d.getRelativePoint(node, Point3(x, 0, z))  # -1..1 across and up
        width, height = self.size
        return round((point.x + 1) / 2 * width), round((1 - point.z) / 2 * height)

    def move_to(self, column, row):
        """Put the pointer on window pixel (column, row)."""
        self.mouse.setMouseOn(True)
        self.mouse.setMousePos(column, row)

    def press(self, name):
        """Press a mouse button ("mouse1") or a key named as in Panda3D's events ("w", "p")."""
        self.mouse.pressButton(MOUSE_BUTTONS.get(name) or button(name))

    def release(self, name):
        self.mouse.releaseButton(MOUSE_BUTTONS.get(name) or button(name))

    def remove(self):
        """Take the virtual mouse out; the base is left without one, as it was."""
        self.root.removeNode()
        self.base.mouseWatcher = self.base.mouseWatcherNode = self.base.buttonThrowers = None
