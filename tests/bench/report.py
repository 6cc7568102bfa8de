"""The benchmark's tables, in Markdown."""
from .scaling import FRAME_BUDGET_MS

PER_FRAME_ROWS = [
    ("update", "Panda3D `actor.update()`"),
    ("root_motion", "root motion only (`RootMotionDriver`, walking)"),
    ("task", "whole warper task (with its `actor.update()`)"),
    ("task_minus_update", "warper task minus Panda3D's update"),
    ("find", "`TraversalProvider.find`, {obstacles} obstacles (per query)"),
    ("find_open", "provider query on open ground (`TraversalProvider.find`)"),
    ("walking_up", "provider query per frame walking up to an obstacle (`TraversalProvider.find`)"),
    ("ik", "contact IK task (`ContactIK`, vaulting)"),
]
ONCE_ROWS = [
    ("warper_first", "`MotionWarper()`, first for the model (fresh process)", 1e3, "ms"),
    ("warper_later", "`MotionWarper()`, later, shared model", 1e3, "ms"),
    ("play_first", "`MotionWarper.play()`, a warper's first", 1, "us"),
    ("play_later", "`MotionWarper.play()`, later ones", 1, "us"),
    ("play_again", "`MotionWarper.play()`, the same again at once (warm caches)", 1, "us"),
    ("load_cold", "`load_actor()` cold (fresh process)", 1e3, "ms"),
    ("load_warm", "`load_actor()` warm (same process)", 1e3, "ms"),
]


def _spread(summary, scale=1.0, digits=1):
    low, high = summary.spread
    return f"{low / scale:.{digits}f}-{high / scale:.{digits}f}"


def print_report(machine, prc, load_before, load_after, overhead_ns, size, repeats, per_frame, single, batched, grown,
                 once):
    print(f"machine: {machine}")
    if prc:
        print(f"PRC: {'; '.join(prc)}")
    print(f"{load_before} (start); {load_after} (end)")
    print(f"CPU time of the thread, less {overhead_ns / 1e3:.2f} us of clock reading per sample; "
          f"{repeats} repeats; spread = lowest-highest median of a repeat")
    print()
    print(f"Per character-frame ({size['characters']} characters vaulting crates in a loop, {size['frames']} frames "
          f"per repeat; the IK on {size['ik_characters']} of them; {size['walkers']} walkers; "
          f"{size['queries']} provider queries per repeat)")
    print()
    update = per_frame["update"].median
    print("| per character-frame | median us | p90 us | spread us | ratio to update |")
    print("|---|---|---|---|---|")
    for key, label in PER_FRAME_ROWS:
        summary = per_frame[key]
        print(f"| {label.format(**size)} | {summary.median:.1f} | {summary.p90:.1f} | {_spread(summary)} "
              f"| {summary.median / update:.2f} |")
    print()
    print(f"Scaling ({size['scale_frames']} frames per repeat): all warper tasks of a frame (their own tasks, or "
          f"one `WarpBatch`, taking turns of {size['scale_frames']} frames), then Panda3D's update of the same actors; share = "
          f"median of the frames' (tasks - update) / update")
    print()
    print("| characters warping | warper tasks ms/frame | p90 ms | spread ms | Panda3D update ms/frame | ratio "
          "| share | share per character us |")
    print("|---|---|---|---|---|---|---|---|")
    for prefix, scaled in (("", single), ("batched, ", batched)):
        for count, samples in scaled.items():
            warp, panda = samples.summaries
            print(f"| {prefix}{count} | {warp.median:.3f} | {warp.p90:.3f} | {_spread(warp, digits=3)} "
                  f"| {panda.median:.3f} | {warp.median / panda.median:.2f} | {samples.share_ratio:.2f} "
                  f"| {samples.share_us:.1f} |")
    largest = max(single)
    warp_ms, panda_ms = single[largest].summaries[0].median, single[largest].summaries[1].median
    print()
    print(f"{largest} warping characters within {FRAME_BUDGET_MS:g} ms of CPU per frame: "
          f"{'yes' if warp_ms <= FRAME_BUDGET_MS else 'no'} ({warp_ms:.2f} ms: Panda3D's update of those "
          f"actors {panda_ms:.2f} ms, motionwarp's share {warp_ms - panda_ms:.2f} ms"
          f"{'; out of reach while the update alone is over budget' if panda_ms > FRAME_BUDGET_MS else ''})")
    print("motionwarp's share per warping character: "
          + ", ".join(f"{samples.share_us:.1f} us at {count}" for count, samples in single.items()))
    print()
    print("Where the own tasks' share grows: the warper's work after its pose update (a plain frame's write, else "
          "`MotionWarper.step`) per character-frame (us), as it runs, with the garbage collector off, and run again "
          "at once (its data in the CPU caches)")
    print()
    cases = list(next(iter(grown.values())))
    print("| characters | " + " | ".join(cases) + " |")
    print("|---|" + "---|" * len(cases))
    for count, row in grown.items():
        print(f"| {count} | " + " | ".join(f"{row[case]:.1f}" for case in cases) + " |")
    print()
    print("| setup | median | p90 | spread | unit |")
    print("|---|---|---|---|---|")
    for key, label, scale, unit in ONCE_ROWS:
        summary = once[key]
        digits = 2 if unit == "ms" else 1
        print(f"| {label} | {summary.median / scale:.{digits}f} | {summary.p90 / scale:.{digits}f} "
              f"| {_spread(summary, scale, digits)} | {unit} |")
