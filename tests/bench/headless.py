"""What the character benchmarks share: their options, a windowless ShowBase on a stepped clock,
and vault targets moved beside each character."""
import argparse

from panda3d.core import ClockObject, loadPrcFileData


def options(doc, flags=()):
    """--characters and --frames, with `doc`'s first line as the description; `flags`: [(name, help)]
    of on/off options more."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--characters", type=int, default=20)
    parser.add_argument("--frames", type=int, default=600)
    for name, what in flags:
        parser.add_argument(name, action="store_true", help=what)
    return parser.parse_args()


def windowless_base(fps=60, prc=()):
    """(ShowBase without a window, the global clock in non-real-time mode at `fps`); `prc`: more PRC lines."""
    loadPrcFileData("bench", "\n".join(["window-type none", "audio-library-name null", "notify-level-device fatal",
                                         *prc]))
    from direct.showbase.ShowBase import ShowBase
    base = ShowBase(windowType="none")
    clock = ClockObject.getGlobalClock()
    clock.setMode(ClockObject.MNonRealTime)
    clock.setFrameRate(fps)
    return base, clock


def shifted(targets, dx):
    """`targets` moved `dx` metres along X (to the crate in front of a character placed there)."""
    for target in targets:
        target.pos.x += dx
    return targets
