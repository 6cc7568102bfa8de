"""What a fresh process pays: its first load_actor() and first MotionWarper() of the mannequin.

    python -m tests.bench.cold_start [PRC line ...]   # prints {"load_actor_ms": .., "warper_ms": ..} as JSON

`first_use_ms(repeats, prc)` runs it in that many fresh subprocesses (the modules imported and
ShowBase opened before the clock starts), with this worktree first on the path.
"""
import json
import os
import subprocess
import sys

from .characters import MANNEQUIN, ROOT, own_task
from .timing import CpuTimer


def measure(prc=()):
    from .headless import windowless_base
    base, _ = windowless_base(prc=prc)
    from motionwarp import MotionWarper, load_actor
    timer = CpuTimer(calibration=2000)
    load_us, actor = timer.us(load_actor, MANNEQUIN)
    actor.reparentTo(base.render)
    t0 = timer.start()
    own_task(base.taskMgr, lambda: MotionWarper(actor, render=base.render))
    return {"load_actor_ms": load_us / 1e3, "warper_ms": timer.since(t0) / 1e3}


def first_use_ms(repeats, prc=()):
    """[{'load_actor_ms', 'warper_ms'}] from `repeats` fresh processes, with the PRC lines `prc`."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    runs = []
    for _ in range(repeats):
        done = subprocess.run([sys.executable, "-m", "tests.bench.cold_start", *prc], cwd=ROOT, env=env,
                              capture_output=True, text=True, check=True)
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    return runs


if __name__ == "__main__":
    print(json.dumps(measure(sys.argv[1:])))
