"""Measure where hands and feet end up with and without the contact IK (the numbers in the README).

    python tests/bench/measure_contact_ik.py            # every table
    python tests/bench/measure_contact_ik.py props      # the generated irregular props only
    python tests/bench/measure_contact_ik.py real       # real props: 8 headings x 3 scales (issue 26)
    python tests/bench/measure_contact_ik.py real rock_largeB fence_gate   # those real props only
    python tests/bench/measure_contact_ik.py knight [PROP ...]   # the Knight (../shared/rigs) over the real props

Boxes: for crates 0.5 to 1.4 m and ledges 1.0 to 2.2 m, at 30 and 144 fps, the providers find
the targets and the real MotionWarper plays the interaction (tests/contact_helpers.py). Printed
per case: the largest distance of a planted hand from where it was authored on the edge, the
deepest a sole went into what it stands on during its contact windows (mm), and the fastest a
limb joint turned while the IK eased in or out next to the clip's fastest joint's peak (degrees/s).

Props: generated irregular props (tests/props.py: a log, a sloped lid, a stepped top, a grooved
plank table, a bumpy stone top, crates with a jutting lid frame, a stack, a narrow post, scaled
crates), each turned to several headings and approached from 0.5 to 2.0 m, at 30 and 144 fps.
Everything is measured from the joints' real positions against the prop's own surface
(computed from the numbers it was built from, never from the probe):
- hand: the largest distance (mm) of a planted hand (inside its contact window) from the
  surface under it, less the palm's authored height above what it touched; hands over no part
  of the prop are counted apart ("off");
- feet: the lowest and highest (mm) a planted sole was relative to what is under it;
- turn: the largest ratio, over limb joints, of how fast the joint turned (frame to frame) to
  its own peak in the clip (its fastest turn between two of the clip's frames, from the posed
  tables: contact_helpers.clip_peaks) times the play rate, or the warped clip's own (played
  without the IK) when faster.
And per prop, whether the providers take it at 12 headings and 4 distances when its measured
size (from its own numbers) is inside an asset's range.

Real props (`real`): every prop of ../shared/props/ (else the six copied into the samples) at 8
headings and 3 scales, sized from its own GLB triangles (tests/real_props.py), walked up to with the
demo's chooser, and the warp played when a fitting kind is offered (or another kind: `other` counts
those that played to their end); a summary per prop. Each completed
traversal is played again with the contact IK and without at 30 fps and measured against the prop's own
triangles (tests/real_contact_runs.py): the hand gap, the feet's lowest / highest, the hips' drop below
the no-IK run (issue 26's targets: 15 mm, 10 mm, 100 mm), and the worst of each per prop.
"""
import pathlib
import sys
import tempfile
import typing

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from panda3d.core import ClockObject, Point3  # noqa: E402

BLEND = 0.15
DISTANCES = (0.5, 1.0, 1.5, 2.0)
HEADINGS = (0.0, 37.0, 90.0, 143.0, 210.0, 301.0)


def boxes(base, assets):
    from tests.contact_helpers import CASES, ContactRun, Level, clip_peaks, easing
    print(f"{'obstacle':<12}{'fps':>4} {'clip':<12}{'hand mm: no IK':>15}{'IK':>7}{'sole in mm: no IK':>19}{'IK':>7}"
          f"{'easing deg/s: IK':>18}{'clip':>7}")
    for height, depth, distance in CASES:
        for fps in (30, 144):
            level = Level(base.render, height, depth, distance)
            with_ik = ContactRun(base, level, assets, fps, blend_time=BLEND)
            without = ContactRun(base, level, assets, fps, ik=False)
            clip = with_ik.asset.clip
            limit = max(max(clip_peaks(base, clip).values()), without.peak_turn())
            kind = "crate" if depth < 1 else "ledge"
            print(f"{kind} {height:<6.1f}{fps:>4} {clip:<12}{1000 * without.hand_errors(level):>15.1f}"
                  f"{1000 * with_ik.hand_errors(level):>7.1f}{1000 * max(0.0, without.foot_depth(level)):>19.1f}"
                  f"{1000 * max(0.0, with_ik.foot_depth(level)):>7.1f}{with_ik.peak_turn(easing(clip, BLEND)):>18.0f}"
                  f"{limit:>7.0f}")
            level.root.removeNode()


def turn_ratio(run, without, peaks):
    """(largest ratio of a limb joint's turn speed to its own peak in the clip (`peaks`,
    contact_helpers.clip_peaks) times the play rate, or the warped clip's own when faster; that joint)."""
    rate = max(frame["rate"] for frame in without.frames)
    plain = without.peak_turns()
    worst = (0.0, None)
    for joint, speed in run.peak_turns().items():
        limit = max(peaks[joint] * rate, plain[joint])
        worst = max(worst, (speed / limit, joint))
    return worst


def in_range(prop, assets):
    """Is the prop's measured size (its own numbers) inside any asset's traversal range?"""
    height, depth = prop.size()
    return any(a.traversal.height[0] <= height <= a.traversal.height[1]
               and a.traversal.depth[0] <= depth <= a.traversal.depth[1] for a in assets)


def providers(base, prop, assets):
    """(taken, asked) over 12 headings and the approach distances."""
    from motionwarp import SceneProbe, TraversalProvider
    from tests.props import PropLevel
    taken = asked = 0
    for heading in range(0, 360, 30):
        for distance in DISTANCES:
            level = PropLevel(base.render, prop, distance, heading)
            found = TraversalProvider(SceneProbe.from_geometry(level.root), assets).find_at(Point3(0, 0, 0), heading)
            taken, asked = taken + bool(found), asked + 1
            level.root.removeNode()
    return taken, asked


def props_table(base, assets):
    from motionwarp import SceneProbe, TraversalProvider, WarpRefused
    from tests.contact_helpers import ContactRun, clip_peaks
    from tests.props import PropLevel, props
    print(f"{'prop':<14}{'fps':>4}{'dist':>5}{'head':>5} {'clip':<12}{'hand mm: no IK':>15}{'IK':>6}{'off':>5}"
          f"{'feet mm: no IK':>16}{'IK':>12}{'turn x: IK':>11}{' joint':<12}")
    worst = {"hand": 0.0, "below": 0.0, "above": 0.0, "turn": 0.0}
    case = 0
    for prop in props():
        for distance in DISTANCES:
            for fps in (30, 144):
                heading = HEADINGS[case % len(HEADINGS)]
                case += 1
                level = PropLevel(base.render, prop, distance, heading)
                found = TraversalProvider(SceneProbe.from_geometry(level.root), assets).find_at(Point3(0, 0, 0), heading)
                if not found:
                    print(f"{prop.name:<14}{fps:>4}{distance:>5.1f}{heading:>5.0f} refused: {found.reason}")
                    level.root.removeNode()
                    continue
                try:
                    with_ik = ContactRun(base, level, assets, fps, heading=heading, blend_time=BLEND)
                    without = ContactRun(base, level, assets, fps, heading=heading, ik=False)
                except WarpRefused as refused:
                    print(f"{prop.name:<14}{fps:>4}{distance:>5.1f}{heading:>5.0f} {found.asset.clip:<12}warp refused: {refused}")
                    level.root.removeNode()
                    continue
                clip = with_ik.asset.clip
                hand0, _ = without.hand_gap(level)
                hand, off = with_ik.hand_gap(level)
                low0, high0 = without.foot_gaps(level)
                low, high = with_ik.foot_gaps(level)
                ratio, joint = turn_ratio(with_ik, without, clip_peaks(base, clip))
                worst = {"hand": max(worst["hand"], hand), "below": min(worst["below"], low),
                         "above": max(worst["above"], high), "turn": max(worst["turn"], ratio)}
                print(f"{prop.name:<14}{fps:>4}{distance:>5.1f}{heading:>5.0f} {clip:<12}{1000 * hand0:>15.1f}"
                      f"{1000 * hand:>6.1f}{off:>5}{1000 * low0:>8.0f}/{1000 * high0:<+7.0f}"
                      f"{1000 * low:>5.1f}/{1000 * high:<+6.1f}{ratio:>11.2f} {joint:<12}")
                level.root.removeNode()
    print(f"worst with the IK: hand {1000 * worst['hand']:.1f} mm, feet {1000 * worst['below']:.1f} / "
          f"+{1000 * worst['above']:.1f} mm, turn {worst['turn']:.3f}x its own peak")
    print(f"\n{'prop':<14}{'height':>7}{'depth':>7}{'in range':>9}{'taken':>7}")
    for prop in props():
        height, depth = prop.size()
        taken, asked = providers(base, prop, assets)
        print(f"{prop.name:<14}{height:>7.2f}{depth:>7.2f}{'yes' if in_range(prop, assets) else 'no':>9}"
              f"{taken:>4}/{asked}")


def real_table(base, assets, names=()):
    """Every real prop (../shared/props/, else the copies in the samples) at 8 headings and 3 scales:
    the size its own triangles give, the kinds whose ranges hold it, what a character walking up is
    offered first and how far before its body meets the prop (or the refusal 0.5 m before), and
    whether the warp played to its end; each completed traversal played again with the contact IK
    and without at 30 fps (tests/real_contact_runs.py) and measured against the prop's own
    triangles: hand gap, feet lowest / highest, hips drop (mm). `names`: only the props with those
    file stems (all when empty)."""
    from tests.real_contact_runs import Measured
    from tests.real_props import HEADINGS, PlacedProp, copied_props, fitting, level, scales, shared_props, walk_up
    from tests.test_real_props import chooser, played
    props = shared_props() or copied_props()
    unknown = set(names) - {path.stem for path in props}
    if unknown:
        raise SystemExit(f"measure_contact_ik.py real: no prop named {', '.join(sorted(unknown))}; "
                         f"the props are {', '.join(path.stem for path in props)}")
    props = [path for path in props if not names or path.stem in names]
    print("IK columns (30 fps, every completed placement): hand = largest |planted hand z - palm - prop surface under\n"
          "  the touched point| (mm), apart = hand frames whose touched point is off the prop or over a surface more\n"
          "  than 15 cm below the target (the IK keeps the target there), feet = lowest / highest planted sole above\n"
          "  what is under it (mm), hips = most the hips are below the no-IK run's in a frame (mm). Targets: hand <= 15,\n"
          "  feet -10..+10 (issue 26: within 1 cm), hips < 100.")
    print(f"{'prop':<26}{'scale':>6}{'head':>5}{'height':>7}{'depth':>7} {'fits':<17}{'answer':<34}"
          f"{'hand':>6}{'apart':>6}{'feet':>14}{'hips':>6}")
    totals, worst = {}, {}
    for path in props:
        # placements, in range, offered a fitting kind, completed, in range but offered another kind that completed
        row = totals.setdefault(path.stem, [0, 0, 0, 0, 0])
        for scale in scales(path):
            for heading in HEADINGS:
                placed = PlacedProp(path, heading, scale, 0.0)
                size = placed.size()
                kinds = fitting(assets, size)
                root, _ = level(base.render, base.loader, placed)
                near = placed.near()
                found, y = walk_up(chooser(root, assets), near)
                answer = f"refused: {y.reason}" if found is None else f"{found.kind} at {near - y:.1f} m"
                row[0] += 1
                row[1] += bool(kinds)
                measured = ""
                if kinds and found is not None and found.kind in kinds:
                    row[2] += 1
                    finished, _ = played(base, found, y)
                    row[3] += finished
                    answer += ", completed" if finished else ", NOT completed"
                    if finished:
                        run = Measured(base, root, placed, found, y)
                        hand = f"{1000 * run.hand:>6.1f}" if run.hand is not None else f"{'-':>6}"
                        measured = (f"{hand}{run.apart:>6}{1000 * run.low:>7.1f}/{1000 * run.high:<+6.1f}"
                                    f"{1000 * run.hips:>6.0f}" + ("" if run.finished else "  IK run NOT completed"))
                        mine = worst.setdefault(path.stem, _Worst())
                        mine.add(run, scale, heading, found.kind)
                elif kinds and found is not None:   # what a player gets there: does that warp play out?
                    finished, _ = played(base, found, y)
                    row[4] += finished
                    answer += ", completed (not fitting)" if finished else ", NOT completed (not fitting)"
                shown = f"{size[0]:>7.2f}{size[1]:>7.2f}" if size[0] is not None else f"{'-':>7}{'-':>7}"
                print(f"{path.stem:<26}{scale:>6.2f}{heading:>5.0f}{shown} {','.join(sorted(kinds)) or '-':<17}"
                      f"{answer:<34}{measured}")
                root.removeNode()
    print(f"\n{'prop':<26}{'placed':>7}{'in range':>9}{'offered':>8}{'completed':>10}{'other':>6}")
    for name, (placed, in_range, offered, completed, other) in totals.items():
        print(f"{name:<26}{placed:>7}{in_range:>9}{offered:>8}{completed:>10}{other:>6}")
    placed, in_range, offered, completed, other = (sum(row[k] for row in totals.values()) for k in range(5))
    print(f"{'all':<26}{placed:>7}{in_range:>9}{offered:>8}{completed:>10}{other:>6}")
    print("\nWith the contact IK, worst per prop over its completed placements (mm; where: scale@heading kind)")
    print(f"{'prop':<26}{'runs':>5}{'hand':>7} {'where':<18}{'apart':>6}{'feet low':>9} {'where':<18}"
          f"{'high':>7} {'where':<18}{'hips':>6} {'where':<18}{'fail':>5}")
    everything = _Worst()
    for name, mine in worst.items():
        print(f"{name:<26}{mine.row()}")
        everything.merge(mine)
    print(f"{'all':<26}{everything.row()}")


def knight_table(base, names=()):
    """The Knight (../shared/rigs/Knight.glb, its skeleton turned 180 degrees by its character file) walking up
    to every real prop of ../shared/props/ at 4 headings and 3 scales with the demo's chooser over its own
    traversal assets (assets/knight); each traversal offered is played with the contact IK and without at 30
    fps and measured against the prop's own triangles: the planted feet (the foot joint less its contact's
    authored height, above the prop or the ground: lowest / highest, mm) and the hips' drop below the no-IK
    run (mm); the worst per prop. `names`: only the props with those file stems."""
    import json

    from motionwarp import InteractionChooser, JumpProvider, SceneProbe, TraversalProvider, WarpAsset
    from motionwarp_demo.character.character_file import Character
    from tests.contact_helpers import ContactRun
    from tests.pose_oracle import KNIGHT
    from tests.real_contact_runs import PropSurface, hips_drops, planted_feet
    from tests.real_props import HEADINGS, PlacedProp, level, scales, shared_props, walk_up
    props = [path for path in shared_props() if not names or path.stem in names]
    if KNIGHT is None or not props:
        raise SystemExit("measure_contact_ik.py knight: needs ../shared/rigs/Knight.glb and ../shared/props/ "
                         f"({'no such prop' if names and KNIGHT is not None else 'not beside the project'})")
    knight = Character.load(str(ROOT / "characters" / "knight.json"))
    assets = [WarpAsset.from_dict(dict(json.loads(path.read_text()), model=str(KNIGHT)), path)
              for path in sorted((ROOT / "assets" / "knight").glob("*.warp.json"))]
    assets = [asset for asset in assets if asset.traversal is not None]
    print(f"{'prop':<26}{'scale':>6}{'head':>5} {'answer':<12}{'feet':>14}{'hips':>6}")
    worst, everything = {}, _Worst()
    for path in props:
        for scale in scales(path):
            for heading in HEADINGS[::2]:
                placed = PlacedProp(path, heading, scale, 0.0)
                root, _ = level(base.render, base.loader, placed)
                probe = SceneProbe.from_geometry(root)
                chooser = InteractionChooser([TraversalProvider(probe, assets), JumpProvider(probe, assets, reach=3.5)])
                found, y = walk_up(chooser, placed.near())
                if found is not None:
                    surface = PropSurface(root, placed)
                    with_ik, without = (ContactRun(base, surface, None, 30, ik=ik, found=found, pos=(0.0, y, 0.0),
                                                   actor=knight.load_actor(), feet=knight.feet,
                                                   joints=(*knight.feet, "hips")) for ik in (True, False))
                    soles = [gap for _, _, gap in planted_feet(with_ik, surface, knight.feet)] or [0.0]
                    run = _Feet(min(soles), max(soles), max([0.0] + [drop for _, drop in hips_drops(with_ik, without)]))
                    worst.setdefault(path.stem, _Worst()).add(run, scale, heading, found.kind)
                    print(f"{path.stem:<26}{scale:>6.2f}{heading:>5.0f} {found.kind:<12}"
                          f"{1000 * run.low:>7.1f}/{1000 * run.high:<+6.1f}{1000 * run.hips:>6.0f}"
                          + ("" if with_ik.finished and without.finished else "  NOT completed"))
                root.removeNode()
    print("\nWith the contact IK, worst per prop (mm; where: scale@heading kind; fail: outside issue 26's targets)")
    print(f"{'prop':<26}{'runs':>5}{'feet low':>9} {'where':<18}{'high':>7} {'where':<18}{'hips':>6} {'where':<18}{'fail':>5}")
    for name, mine in worst.items():
        print(f"{name:<26}{mine.feet_row()}")
        everything.merge(mine)
    print(f"{'all':<26}{everything.feet_row()}")


class _Feet(typing.NamedTuple):
    """A run measured by its feet and hips only (the Knight's: no hand contacts), for _Worst."""
    low: float
    high: float
    hips: float
    hand: typing.Optional[float] = None
    apart: int = 0


class _Worst:
    """Worst of a prop's measured runs, and where each was (scale, heading, kind)."""

    def __init__(self):
        self.runs, self.apart, self.failing = 0, 0, 0
        self.hand = self.high = self.hips = (0.0, "")
        self.low = (0.0, "")

    def add(self, run, scale, heading, kind):
        where = f"x{scale:g}@{heading:.0f} {kind}"
        self.runs += 1
        self.apart += run.apart
        self.hand = max(self.hand, (run.hand or 0.0, where))
        self.low = min(self.low, (run.low, where))
        self.high = max(self.high, (run.high, where))
        self.hips = max(self.hips, (run.hips, where))
        self.failing += (run.hand or 0.0) > 0.015 or run.low < -0.01 or run.high > 0.01 or run.hips >= 0.1

    def merge(self, other):
        self.runs, self.apart, self.failing = (self.runs + other.runs, self.apart + other.apart,
                                               self.failing + other.failing)
        self.hand, self.high, self.hips = max(self.hand, other.hand), max(self.high, other.high), max(self.hips, other.hips)
        self.low = min(self.low, other.low)

    def feet_row(self):
        """`row` without the hands' columns (a run with no hand contact)."""
        return (f"{self.runs:>5}{1000 * self.low[0]:>9.1f} {self.low[1]:<18}{1000 * self.high[0]:>+7.1f} "
                f"{self.high[1]:<18}{1000 * self.hips[0]:>6.0f} {self.hips[1]:<18}{self.failing:>5}")

    def row(self):
        return (f"{self.runs:>5}{1000 * self.hand[0]:>7.1f} {self.hand[1]:<18}{self.apart:>6}"
                f"{1000 * self.low[0]:>9.1f} {self.low[1]:<18}{1000 * self.high[0]:>+7.1f} {self.high[1]:<18}"
                f"{1000 * self.hips[0]:>6.0f} {self.hips[1]:<18}{self.failing:>5}")


def main():
    from authoring.make_warp_assets import write_warp_assets
    from motionwarp import WarpAsset
    from tests.conftest import CONTACTS, MANNEQUIN, WARP_ASSETS, _make_showbase

    base = _make_showbase()
    base.win.setActive(False)
    ClockObject.getGlobalClock().setMode(ClockObject.MNonRealTime)
    folder = pathlib.Path(tempfile.mkdtemp())
    write_warp_assets(folder, MANNEQUIN, CONTACTS)
    if sys.argv[1:2] == ["knight"]:
        knight_table(base, sys.argv[2:])
        return
    if sys.argv[1:2] == ["real"]:
        real_table(base, [WarpAsset.load(path) for path in sorted(folder.glob("*.warp.json"))], sys.argv[2:])
        return
    assets = [WarpAsset.load(folder / f"{name}.warp.json") for name in WARP_ASSETS]
    if sys.argv[1:] != ["props"]:
        boxes(base, assets)
        print()
    props_table(base, assets)


if __name__ == "__main__":
    main()
