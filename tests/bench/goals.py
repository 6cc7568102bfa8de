"""Issues 20 and 29's goals, each printed against the number this run measured: met or not met.

Issue 29's table is printed row for row (its contact IK rows from tests/bench/bench_contact_ik.py,
the demo's share from tests/bench/demo_share.py, the markers' from tests/bench/markers.py)."""
import dataclasses
import statistics

from .bench_contact_ik import goal_line, goal_rows, ratios_met
from .demo_share import SHARE_GOAL
from .markers import FIND_GOAL_US

#: (what, the largest allowed, unit) per goal.
WARPER_RATIO = 0.5          # motionwarp's share per character-frame, in units of Panda3D's update
WARPER_GROWTH = 0.15        # the share per character may grow at most this much from 100 (issue 29: 20) to 500
IK_RATIO = 1.0              # contact IK per vaulting character (issue 29), in units of Panda3D's update
FIND_FACING_US, FIND_OPEN_US = 50.0, 10.0
WALKING_UP_RATIO = 1.0     # a provider query per walking-up frame (issue 29), in units of Panda3D's update
FIND_MARKERS_US = 1000.0   # MarkerProvider.find() among 10,000 markers (issue 29): under this many microseconds
MESH_BUILD_S, MESH_QUERY_US = 1.0, 500.0
SUITE_S = 60.0
#: Issue 29: the counts its rows name, and the warper's goals (x update) by path and count.
ISSUE29_COUNTS = (1, 20, 100)
OWN_TASK_RATIO = 0.5
BATCH_RATIO = {1: 0.5, 20: 0.25, 100: 0.25}


@dataclasses.dataclass
class Issue29:
    """What issue 29's rows need beyond the per-frame costs and the scaling: the contact IK by count
    ({characters: bench_contact_ik.BentCosts}) and walking (FlatCosts), the demo's share
    (demo_share.DemoShare), MarkerProvider.find among `marker_count` markers (a Summary, us), and the
    TraversalProvider walking up, beside Panda3D's update in the same frames (bench_providers.WalkingUp)."""
    ik: dict
    flat: object
    demo: object
    marker_count: int
    markers: object
    walking_up: object


def _line(what, value, goal, unit, met=None, note=""):
    met = value <= goal if met is None else met
    print(f"- {what}: {value:.2f} {unit} (goal: at most {goal:g} {unit}): {'met' if met else 'NOT met'}{note}")
    return met


def print_goals(per_frame, single, batched, mesh, suite, obstacles):
    """`single`/`batched`: {count: scaling.Scaled}; `mesh`: large_mesh.measure's dict; `suite`: run_suite's
    tuple or None (not run)."""
    print()
    print("Goals (issue 20; ratios are to Panda3D's `actor.update()` of the same actors and frames):")
    print()
    update = per_frame["update"].median
    for count in (100, 500):
        for name, scaled in (("batched (`WarpBatch`)", batched), ("own tasks", single)):
            if count in scaled:
                _line(f"warper at {count} characters, {name}: motionwarp's share per character-frame",
                      scaled[count].share_ratio, WARPER_RATIO, "x update")
    for name, scaled in (("batched", batched), ("own tasks", single)):
        if 100 in scaled and 500 in scaled:
            low, high = scaled[100].share_us, scaled[500].share_us
            _line(f"growth of the share per character from 100 to 500 characters, {name} "
                  f"({low:.1f} -> {high:.1f} us)", high / low - 1.0, WARPER_GROWTH, "(fraction)")
    _line("contact IK per vaulting character (hands and feet in their windows)", per_frame["ik"].median / update,
          IK_RATIO, "x update", note=" (resting frames apart: python -m tests.bench.bench_contact_ik)")
    find, open_ground = per_frame["find"], per_frame["find_open"]
    _line(f"provider query in front of an obstacle, {obstacles} obstacles ({find.median / update:.1f}x update)",
          find.median, FIND_FACING_US, "us")
    _line(f"provider query on open ground ({open_ground.median / update:.2f}x update)", open_ground.median,
          FIND_OPEN_US, "us")
    if mesh is not None:
        _line(f"{mesh['triangles']:,}-triangle obstacle built into the probe", mesh["build_s"].median,
              MESH_BUILD_S, "s")
        _line(f"query in front of it (its 12-triangle twin: {mesh['coarse_us'].median:.0f} us)", mesh["fine_us"].median,
              MESH_QUERY_US, "us")
    if suite is None:
        print("- the suite under 60 s: not run (`--suite` runs `python -m pytest -n auto` once and times it)")
    else:
        wall, cpu, last, passed = suite
        _line(f"`python -m pytest -n auto` wall clock ({cpu:.0f} s of CPU; {last})", wall, SUITE_S, "s",
              met=passed and wall <= SUITE_S)


def _verdict(met):
    return "met" if met else "NOT met"


def print_issue29(per_frame, single, batched, table):
    """Issue 29's table, row for row; `table`: Issue29. Counts not measured (--quick) are left out of a row."""
    print()
    print("Issue 29's table (ratios are to Panda3D's `actor.update()` of the same actors and frames):")
    print()
    for row in goal_rows(table.ik, table.flat)[:3]:
        print(f"- {goal_line(*row)}")
    for name, scaled, goals in (("one task per character", single, {c: OWN_TASK_RATIO for c in ISSUE29_COUNTS}),
                                ("in a `WarpBatch`", batched, BATCH_RATIO)):
        counts = [c for c in ISSUE29_COUNTS if c in scaled]
        shown, met = ratios_met([scaled[c].share_ratio for c in counts], [goals[c] for c in counts])
        wanted = ", ".join(f"{goals[c]:g}x at {c}" for c in counts)
        print(f"- warper, {name}, characters {' / '.join(map(str, counts))}: motionwarp's share {shown}x update "
              f"(goal: at most {wanted}): {_verdict(met)}")
    for name, scaled in (("one task per character", single), ("in a `WarpBatch`", batched)):
        if 20 in scaled and 500 in scaled:
            low, high = scaled[20].share_us, scaled[500].share_us
            print(f"- warper, {name}: growth of the share per character from 20 to 500 characters "
                  f"({low:.1f} -> {high:.1f} us): {high / low - 1.0:+.2f} (goal: at most {WARPER_GROWTH:g}): "
                  f"{_verdict(high / low - 1.0 <= WARPER_GROWTH)}")
    walking = table.walking_up
    print(f"- provider query per frame while walking up: {statistics.median(walking.us):.1f} us beside "
          f"{statistics.median(walking.update_us):.1f} us, {walking.ratio:.2f}x update (the median of "
          f"{len(walking.ratios)} frames' ratios; goal: at most {WALKING_UP_RATIO:g}x): "
          f"{_verdict(walking.ratio <= WALKING_UP_RATIO)}")
    print(f"- the demo: motionwarp's share of the frame's CPU (course, headless; range over {len(table.demo.runs)} "
          f"runs): {table.demo.line()} (goal: at most {SHARE_GOAL:.0%}): {_verdict(table.demo.met())}")
    print(f"- `MarkerProvider.find()` with {table.marker_count:,} markers: {table.markers.median:.1f} us "
          f"(goal: under {FIND_GOAL_US:g} us): {_verdict(table.markers.median < FIND_GOAL_US)}")
