"""Per-file totals of a `mutmut results --all true` listing (tools/mutation.sh), then the survivors."""
import collections
import re
import sys


def main(path):
    counts = collections.defaultdict(collections.Counter)
    survivors = []
    for line in open(path, encoding="utf-8"):
        match = re.match(r"\s*([\w.]+?)\.x\S*__mutmut_\d+: (.+)$", line.rstrip())
        if not match:
            continue
        module, status = match.groups()
        counts[module][status] += 1
        if status == "survived":
            survivors.append(line.strip().split(":")[0])
    statuses = sorted({s for c in counts.values() for s in c})
    print(f"{'module':28s} {'total':>6s} " + " ".join(f"{s:>12s}" for s in statuses))
    for module, c in sorted(counts.items()):
        print(f"{module:28s} {sum(c.values()):6d} " + " ".join(f"{c[s]:12d}" for s in statuses))
    print("\nsurvivors (`mutmut show NAME`):")
    print("\n".join(survivors) or "none")


if __name__ == "__main__":
    main(sys.argv[1])
