"""motionwarp demo: walk a mannequin into boxes and watch it vault and mantle with motion warping.

    python main.py                                   # a window; the keys are shown on screen
    python main.py --headless --autopilot --report out/course.json [--screenshot out/course.png]

The options and the run live in demo/app/cli.py.
"""
import sys

from demo.app.cli import main

if __name__ == "__main__":
    sys.exit(main())
