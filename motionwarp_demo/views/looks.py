"""How the demo window draws: simplepbr with the sun's shadows and multisampling where shaders
work, Panda3D's fixed-function lighting where they do not (the software p3tinydisplay).

simplepbr renders the scene into an offscreen buffer and tone-maps it onto the window; the
HUD (render2d) is drawn on top, untouched. Its shadows stay off on Mesa's llvmpipe (the
software renderer behind p3headlessgl and Xvfb here), which crashes compiling that shader. Colours the demo picks are what should
come out on screen (sRGB): `clear_color` undoes the tone mapping for the sky, and `world.surface` gives
`Looks.adapt` makes the materials' base colours linear.
"""
import dataclasses

from panda3d.core import AntialiasAttrib, Material, Vec4

#: Multisamples asked of the window (PRC) and of simplepbr's scene buffer.
MSAA_SAMPLES = 4
#: OpenGL renderers that crash compiling simplepbr's shadowed shader: Mesa's llvmpipe (Mesa 22.3, LLVM 15,
#: in LLVM's EarlyCSE pass, under p3headlessgl and in an X window alike). Mesa's softpipe draws them.
NO_SHADOW_RENDERERS = ("llvmpipe",)
#: Ends the name of a material whose base colour `Looks.adapt` made linear.
LINEAR_SUFFIX = " (linear)"


@dataclasses.dataclass(frozen=True)
class Looks:
    """What the window can draw: physically based (`pbr`), with `shadows`; neither is the fixed-function look."""

    pbr: bool = False
    shadows: bool = False

    @classmethod
    def choose(cls, base):
        """The best look `base`'s window supports (the plain look without a window)."""
        gsg = base.win.getGsg() if base.win is not None else None
        if gsg is None or not gsg.getSupportsGlsl() or gsg.getDriverShaderVersionMajor() < 1:
            return cls()
        renderer = gsg.getDriverRenderer()
        return cls(pbr=True, shadows=not any(name in renderer for name in NO_SHADOW_RENDERERS))

    def install(self, base):
        """Set up the pipeline on `base.render` (once per window); returns simplepbr's Pipeline or None."""
        base.render.setAntialias(AntialiasAttrib.MMultisample)
        if not self.pbr:
            return None
        import simplepbr
        return simplepbr.init(render_node=base.render, window=base.win, camera_node=base.cam,
                              taskmgr=base.taskMgr, msaa_samples=MSAA_SAMPLES, enable_shadows=self.shadows,
                              use_emission_maps=False)

    def adapt(self, nodepath):
        """Make the materials under `nodepath` show their colours as authored.

        The demo's materials (its boxes, the mannequin, the mesh obstacles) hold colours as they
        should look on screen, as fixed-function lighting shows them; simplepbr reads base
        colours as linear, which would wash them out. Each material is replaced once by a copy
        with a linear base colour (copies: a cached model's materials are shared).
        """
        if not self.pbr:
            return
        for material in nodepath.findAllMaterials():
            if material.getName().endswith(LINEAR_SUFFIX):
                continue
            linear = Material(material)
            linear.setName(material.getName() + LINEAR_SUFFIX)
            linear.setBaseColor(srgb_to_linear(material.getBaseColor()))
            nodepath.replaceMaterial(material, linear)

    def clear_color(self, srgb):
        """The background colour that shows as `srgb` on screen (simplepbr tone-maps the clear colour too)."""
        return tuple(untonemapped(c) for c in srgb[:3]) + tuple(srgb[3:]) if self.pbr else tuple(srgb)


def srgb_to_linear(color):
    """An sRGB colour (alpha kept) in linear light, by the sRGB transfer function."""
    def channel(c):
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    return Vec4(*(channel(color[i]) for i in range(3)), color[3])


def tonemapped(x):
    """simplepbr's tone map (Hejl and Burgess-Dawson's filmic curve, sRGB included) of one channel."""
    x = max(0.0, x - 0.004)
    return x * (6.2 * x + 0.5) / (x * (6.2 * x + 1.7) + 0.06)


def untonemapped(shown, low=0.0, high=64.0):
    """The linear value the tone map turns into `shown` (0 to below 1), by bisection: it only rises."""
    for _ in range(60):
        middle = (low + high) / 2
        low, high = (middle, high) if tonemapped(middle) < shown else (low, middle)
    return (low + high) / 2


def window_prc():
    """PRC lines for the window itself: multisampled where the driver allows (ignored where not)."""
    return f"framebuffer-multisample 1\nmultisamples {MSAA_SAMPLES}\n"
