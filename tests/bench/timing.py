"""CPU time of this thread, per call and summarised over repeats.

The thread's CPU clock (`time.thread_time_ns`) leaves out time other processes take on a
shared machine, but reading it is a system call (about 1 us here): `CpuTimer` measures an
empty interval at start and subtracts its median from every sample.
"""
import statistics
import time

_now = time.thread_time_ns


class CpuTimer:
    """Times calls in thread CPU nanoseconds, less the cost of reading the clock twice."""

    def __init__(self, calibration=20000):
        empty = []
        for _ in range(calibration):
            t0 = _now()
            empty.append(_now() - t0)
        self.overhead_ns = statistics.median(empty)

    def us(self, function, *args):
        """(microseconds of CPU `function(*args)` took, its result)."""
        t0 = _now()
        result = function(*args)
        return (_now() - t0 - self.overhead_ns) / 1e3, result

    def start(self):
        return _now()

    def since(self, t0):
        """Microseconds of CPU since `t0` (from `start()`)."""
        return (_now() - t0 - self.overhead_ns) / 1e3


def p90(values):
    return statistics.quantiles(values, n=10)[-1] if len(values) > 1 else values[0]


class Summary:
    """Samples gathered in several repeats: median and p90 of all of them, and the spread of the
    repeats' medians (how much the figure moves from one repeat to the next)."""

    def __init__(self, repeats):
        self.repeats = [list(samples) for samples in repeats if samples]
        if not self.repeats:
            raise ValueError("no samples")
        self.all = [value for samples in self.repeats for value in samples]

    @classmethod
    def chunked(cls, samples, count):
        """Samples taken one after another, split into `count` consecutive repeats."""
        size = max(1, -(-len(samples) // count))
        return cls([samples[i:i + size] for i in range(0, len(samples), size)])

    @property
    def median(self):
        return statistics.median(self.all)

    @property
    def p90(self):
        return p90(self.all)

    @property
    def spread(self):
        """(lowest, highest) median of a repeat."""
        medians = [statistics.median(samples) for samples in self.repeats]
        return min(medians), max(medians)

    @property
    def count(self):
        return len(self.all)
