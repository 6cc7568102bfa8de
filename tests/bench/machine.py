"""What the numbers were measured on: CPU, cores, Python and Panda3D versions, and the load."""
import os
import platform


def cpu_model():
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def load_average():
    """The 1, 5 and 15 minute load averages, or None where the system does not tell."""
    try:
        return os.getloadavg()
    except (OSError, AttributeError):
        return None


def describe():
    """One line naming the machine and the software versions."""
    from panda3d.core import PandaSystem
    return (f"{cpu_model()}, {os.cpu_count()} cores; Python {platform.python_version()}; "
            f"Panda3D {PandaSystem.getVersionString()}; {platform.system()} {platform.release()}")


def load_line():
    load = load_average()
    if load is None:
        return "load average: unknown"
    return f"load average (1/5/15 min): {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f} on {os.cpu_count()} cores"
