"""Regenerate the README's demo pictures: `PYTHONPATH=. python -m demo.pictures` (headless, ~10 s).

docs/demo_vault.png: four moments of the first vault, side view, tiled 2x2 at half size.
docs/demo_hud.png: the HUD and the debug view (targets, edges, root trails) as that vault lands, side view.
"""
import pathlib
import subprocess
import sys
import tempfile

from panda3d.core import Filename, PNMImage

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
VAULT_MOMENTS = (2.9, 3.3, 3.7, 4.3)  # seconds into the course: approach, hands on, over, landing


def shoot(path, at, *options):
    """One headless screenshot of the course at `at` seconds, through main.py as a user would take it."""
    subprocess.run([sys.executable, str(ROOT / "main.py"), "--headless", "--autopilot", "--screenshot", str(path),
                    "--at", str(at), *options], check=True, cwd=ROOT, stdout=subprocess.DEVNULL)


def tile(paths, out):
    """The images in `paths` at half size, left to right then top to bottom, two per row."""
    first = PNMImage(Filename.fromOsSpecific(str(paths[0])))
    half_w, half_h = first.getXSize() // 2, first.getYSize() // 2
    sheet = PNMImage(half_w * 2, half_h * ((len(paths) + 1) // 2))
    for index, path in enumerate(paths):
        image = PNMImage(Filename.fromOsSpecific(str(path)))
        small = PNMImage(half_w, half_h)
        small.quickFilterFrom(image)
        sheet.copySubImage(small, (index % 2) * half_w, (index // 2) * half_h)
    if not sheet.write(Filename.fromOsSpecific(str(out))):
        raise OSError(f"could not write {out}")


def main():
    with tempfile.TemporaryDirectory() as temp:
        frames = [pathlib.Path(temp) / f"vault{i}.png" for i in range(len(VAULT_MOMENTS))]
        for path, at in zip(frames, VAULT_MOMENTS):
            shoot(path, at, "--view", "side")
        tile(frames, DOCS / "demo_vault.png")
    shoot(DOCS / "demo_hud.png", 4.3, "--view", "side", "--debug-view")
    print(f"wrote {DOCS / 'demo_vault.png'} and {DOCS / 'demo_hud.png'}")


if __name__ == "__main__":
    main()
