"""Reading JSON files field by field, with errors that name the file, the field path and what was expected."""
import json
import math
import os
import re
import tempfile

from .errors import AssetError


def read_json(path, error=AssetError):
    """The decoded JSON of `path`; `error(path, "", reason)` when it is missing or not JSON."""
    try:
        with open(path, encoding="utf-8") as stream:
            return json.load(stream)
    except FileNotFoundError:
        raise error(path, "", "file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise error(path, "", f"cannot be read ({exc})") from None
    except json.JSONDecodeError as exc:
        raise error(path, "", f"is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None


def join(field, key):
    """The path of `key` inside `field`: `phases[1]` + `end` -> `phases[1].end`."""
    return f"{field}.{key}" if field else key


def _is_number(value):
    return not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value)


class FieldChecker:
    """Validation helpers raising `error(path, field, expected)` (an AssetError by default)."""

    def __init__(self, path, error=AssetError):
        self.path, self.error = path, error

    def fail(self, field, expected):
        raise self.error(self.path, field, expected)

    def object(self, data, field, allowed, required):
        if not isinstance(data, dict):
            self.fail(field, f"expected a JSON object, got {type(data).__name__}")
        unknown = sorted(set(data) - set(allowed))
        if unknown:
            self.fail(join(field, unknown[0]), f"unknown key; expected one of {', '.join(sorted(allowed))}")
        for key in required:
            if key not in data:
                self.fail(join(field, key), "missing (required)")

    def string(self, data, key, field=""):
        value = data[key]
        if not isinstance(value, str) or not value:
            self.fail(join(field, key), f"expected a non-empty string, got {value!r}")
        return value

    def number(self, data, key, field, default=None):
        value = data.get(key, default)
        if not _is_number(value):
            self.fail(join(field, key), f"expected a finite number, got {value!r}")
        return float(value)

    def vector(self, data, key, field, length=3, default=None):
        """The list of `length` numbers under `key` (zeros when absent), as a tuple."""
        return self.numbers(data.get(key, [0.0] * length if default is None else default), join(field, key), length)

    def numbers(self, value, field, length):
        """`value` checked to be a list of `length` finite numbers, as a tuple."""
        if not isinstance(value, list) or len(value) != length or not all(_is_number(v) for v in value):
            words = {2: "two", 3: "three"}.get(length, str(length))
            self.fail(field, f"expected a list of {words} finite numbers, got {value!r}")
        return tuple(float(v) for v in value)

    def flag(self, data, key, field):
        value = data.get(key, True)
        if not isinstance(value, bool):
            self.fail(join(field, key), f"expected true or false, got {value!r}")
        return value

    def items(self, data, key, field=""):
        """A non-empty list under `key`, with each item's field path."""
        value = data[key]
        if not isinstance(value, list) or not value:
            self.fail(join(field, key), "expected a non-empty list")
        return [(item, f"{join(field, key)}[{index}]") for index, item in enumerate(value)]


def write_text_atomic(path, text):
    """Write `text` to `path` through a temporary file and a rename: the old file survives any failure."""
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    handle, temp = tempfile.mkstemp(prefix=".motionwarp-", suffix=".tmp", dir=folder)
    try:
        os.chmod(temp, _file_mode(path))  # mkstemp makes 0600 files; keep the usual permissions
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temp, path)
    except BaseException:
        if os.path.exists(temp):
            os.unlink(temp)
        raise


def _file_mode(path):
    """The permissions the written file should have: the old file's, or the umask's default."""
    try:
        return os.stat(path).st_mode & 0o777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def dumps(data):
    """JSON with two-space indents and each number list on one line, for readable diffs."""
    text = json.dumps(data, indent=2)
    return re.sub(r"\[\s+([-0-9.e, \n]+?)\s+\]", lambda m: "[" + " ".join(m.group(1).split()) + "]", text) + "\n"
