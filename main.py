"""motionwarp demo from a clone: walk a mannequin into boxes and watch it vault and mantle with motion warping.

    python main.py                                   # a window; the keys are shown on screen
    python main.py --headless --autopilot --report out/course.json [--screenshot out/course.png]

The same demo is installed with the package: `python -m motionwarp_demo` (or `motionwarp-demo`).
The options and the run live in motionwarp_demo/app/cli.py.
"""
import sys

from motionwarp_demo.app.cli import main

if __name__ == "__main__":
    sys.exit(main(prog="main.py"))
