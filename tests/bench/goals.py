"""Issue 20's goals, each printed against the number this run measured: met or not met."""

#: (what, the largest allowed, unit) per goal.
WARPER_RATIO = 0.5          # motionwarp's share per character-frame, in units of Panda3D's update
WARPER_GROWTH = 0.15        # the share per character may grow at most this much from 100 (issue 29: 20) to 500
#: Issue 29: the share per character-frame of each warper's own task at 1, 20 and 100 characters, of a
#: WarpBatch of 20 and 100, and of a WarpBatch holding one character.
WARPER_OWN_RATIO, WARPER_BATCH_RATIO, WARPER_BATCH_ONE_RATIO = 0.5, 0.25, 0.5
IK_RATIO = 1.0              # contact IK per vaulting character (issue 29), in units of Panda3D's update
FIND_FACING_US, FIND_OPEN_US = 50.0, 10.0
WALKING_UP_RATIO = 1.0     # a provider query per walking-up frame (issue 29), in units of Panda3D's update
MESH_BUILD_S, MESH_QUERY_US = 1.0, 500.0
SUITE_S = 60.0


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
    _issue_29_warper(single, batched)
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


def _issue_29_warper(single, batched):
    """Issue 29's warper rows, for the counts this run measured."""
    for count in (1, 20, 100):
        if count in single:
            _line(f"issue 29: warper, one task per character, {count} characters: share per character-frame",
                  single[count].share_ratio, WARPER_OWN_RATIO, "x update")
    for count, goal in ((1, WARPER_BATCH_ONE_RATIO), (20, WARPER_BATCH_RATIO), (100, WARPER_BATCH_RATIO)):
        if count in batched:
            _line(f"issue 29: warper in a `WarpBatch`, {count} characters: share per character-frame",
                  batched[count].share_ratio, goal, "x update")
    for name, scaled in (("one task per character", single), ("in a `WarpBatch`", batched)):
        if 20 in scaled and 500 in scaled:
            low, high = scaled[20].share_us, scaled[500].share_us
            _line(f"issue 29: growth of the share per character from 20 to 500 characters, {name} "
                  f"({low:.1f} -> {high:.1f} us)", high / low - 1.0, WARPER_GROWTH, "(fraction)")
