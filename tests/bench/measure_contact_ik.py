"""Measure where hands and feet end up with and without the contact IK (the numbers in the README).

    python tests/bench/measure_contact_ik.py

For crates 0.5 to 1.4 m and ledges 1.0 to 2.2 m, at 30 and 144 fps, the providers find the
targets and the real MotionWarper plays the interaction (tests/contact_helpers.py). Printed per
case: the largest distance of a planted hand from where it was authored on the edge, the
deepest a sole went into what it stands on during its contact windows (mm), and the fastest a
limb joint turned while the IK eased in or out next to the clip's own peak (degrees/s).
"""
import pathlib
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from panda3d.core import ClockObject  # noqa: E402

BLEND = 0.15


def main():
    from authoring.make_warp_assets import write_warp_assets
    from motionwarp import WarpAsset
    from tests.conftest import CONTACTS, MANNEQUIN, WARP_ASSETS, _make_showbase
    from tests.contact_helpers import CASES, ContactRun, Level, easing, own_peak

    base = _make_showbase()
    base.win.setActive(False)
    ClockObject.getGlobalClock().setMode(ClockObject.MNonRealTime)
    folder = pathlib.Path(tempfile.mkdtemp())
    write_warp_assets(folder, MANNEQUIN, CONTACTS)
    assets = [WarpAsset.load(folder / f"{name}.warp.json") for name in WARP_ASSETS]
    print(f"{'obstacle':<12}{'fps':>4} {'clip':<12}{'hand mm: no IK':>15}{'IK':>7}{'sole in mm: no IK':>19}{'IK':>7}"
          f"{'easing deg/s: IK':>18}{'clip':>7}")
    for height, depth, distance in CASES:
        for fps in (30, 144):
            level = Level(base.render, height, depth, distance)
            with_ik = ContactRun(base, level, assets, fps, blend_time=BLEND)
            without = ContactRun(base, level, assets, fps, ik=False)
            clip = with_ik.asset.clip
            limit = max(own_peak(base, assets, clip, fps), without.peak_turn())
            kind = "crate" if depth < 1 else "ledge"
            print(f"{kind} {height:<6.1f}{fps:>4} {clip:<12}{1000 * without.hand_errors(level):>15.1f}"
                  f"{1000 * with_ik.hand_errors(level):>7.1f}{1000 * max(0.0, without.foot_depth(level)):>19.1f}"
                  f"{1000 * max(0.0, with_ik.foot_depth(level)):>7.1f}{with_ik.peak_turn(easing(clip, BLEND)):>18.0f}"
                  f"{limit:>7.0f}")
            level.root.removeNode()


if __name__ == "__main__":
    main()
