"""Command line: `python -m motionwarp inspect MODEL.glb [--write-asset CLIP OUT.warp.json] [--write-character OUT.json]`."""
import argparse
import sys

from .base.errors import MotionWarpError


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        """One line and exit status 2, instead of argparse's usage block."""
        self.exit(2, f"motionwarp: {message} (see python -m motionwarp --help)\n")


def main(argv=None):
    parser = _Parser(prog="python -m motionwarp", description="Tools for bringing a character to motionwarp.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    inspect = commands.add_parser("inspect", help="clips, joints and the root motion each candidate root would carry")
    inspect.add_argument("model", help="a glTF character (.glb or .gltf)")
    inspect.add_argument("--write-asset", nargs=2, metavar=("CLIP", "OUT"),
                         help="also write a starting warp asset for CLIP (one phase over the clip) to OUT")
    inspect.add_argument("--write-character", metavar="OUT",
                         help="also write a character file for the demo (python main.py --character OUT)")
    inspect.add_argument("--root-joint", help="root joint for --write-asset (default: the recommended one)")
    inspect.add_argument("--root-mode", choices=("bone", "projected"), help="root mode for --write-asset")
    args = parser.parse_args(argv)
    from .tools import character_writer, inspector
    try:
        model = inspector.Model(args.model)
        print(inspector.report(model))
        if args.write_asset:
            clip, out = args.write_asset
            asset = inspector.write_asset(model, clip, out, args.root_joint, args.root_mode)
            print(f"\nwrote {out}: clip {asset.clip!r}, root {asset.root_joint!r} ({asset.root_mode} mode), "
                  f"one phase 0 .. {asset.phases[0].end:.3f} s")
        if args.write_character:
            data, notes = character_writer.write_character(model, args.write_character)
            roles = ", ".join(f"{role} {clip}" + (f" ({data['speeds'][role]:g} m/s)" if role in data["speeds"] else "")
                              for role, clip in data["clips"].items())
            print(f"\nwrote {args.write_character}: {roles}; turn {data['turn']:g}, scale {data['scale']:g}, "
                  f"root {data['root_joint']!r} ({data['root_mode']} mode)")
            for note in notes:
                print(f"  note: {note}")
    except MotionWarpError as exc:
        print(f"motionwarp: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"motionwarp: could not write {exc.filename}: {exc.strerror}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
