"""Reading JSON files field by field, with errors that name the file, the field path and what was expected."""
import json
import os
import re
import stat

from .errors import AssetError, os_reason, shown
from .filekind import not_regular

#: Largest JSON file read (bytes): every format here is a few kilobytes; this stops `/dev/zero`.
MAX_FILE_BYTES = 4 * 1024 * 1024
#: Every number in a file lies within +-LIMIT, so it is finite (and exact enough) in Panda3D's float32.
LIMIT = 1e5
#: Longest string a file may hold (names, clip names, model paths: Linux's PATH_MAX).
MAX_STRING = 4096
#: Integers with more digits are read as floats (huge ones become inf and fail the range check).
_MAX_INT_DIGITS = 18


class _DuplicateKey(Exception):
    """Raised while parsing; read_json turns it into an error naming the key."""


def _unique_keys(pairs):
    seen = set()
    for key, _ in pairs:
        if key in seen:
            raise _DuplicateKey(key)
        seen.add(key)
    return dict(pairs)


def _parse_int(text):
    return int(text) if len(text) <= _MAX_INT_DIGITS else float(text)


def read_json(path, error=AssetError):
    """The decoded JSON of `path`; `error(path, field, reason)` when it is missing, too big or not JSON.

    Only a regular file of at most MAX_FILE_BYTES is read; a key given twice in one object is an
    error (JSON readers disagree on which one wins).
    """
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            raise error(path, "", f"expected a regular JSON file, this {not_regular(path)}")
        if info.st_size > MAX_FILE_BYTES:
            raise error(path, "", f"expected a JSON file of at most {MAX_FILE_BYTES // 2**20} MB, "
                                  f"this one has {info.st_size / 2**20:.1f} MB")
        with open(path, "rb") as stream:
            data = stream.read(MAX_FILE_BYTES + 1)
        if len(data) > MAX_FILE_BYTES:
            raise error(path, "", f"expected a JSON file of at most {MAX_FILE_BYTES // 2**20} MB")
        return json.loads(data.decode("utf-8"), object_pairs_hook=_unique_keys, parse_int=_parse_int)
    except FileNotFoundError:
        raise error(path, "", "file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise error(path, "", f"cannot be read ({os_reason(exc, path)})") from None
    except json.JSONDecodeError as exc:
        raise error(path, "", f"is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except RecursionError:
        raise error(path, "", "expected JSON nested a few levels deep, this file nests lists or objects "
                              "too deeply to read") from None
    except _DuplicateKey as exc:
        raise error(path, join("", exc.args[0]), "key given twice in one object; expected each key once") from None


def join(field, key):
    """The path of `key` inside `field`: `phases[1]` + `end` -> `phases[1].end`."""
    key = key if len(key) <= 40 else key[:40] + "..."
    return f"{field}.{key}" if field else key


def is_number(value, limit=LIMIT):
    """A number within +-limit (NaN and infinities fail the comparison; huge ints never reach float())."""
    return not isinstance(value, bool) and isinstance(value, (int, float)) and abs(value) <= limit


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
        """A non-empty string of printable characters: a control character, a line break or a lone
        surrogate (which Panda3D cannot hold in a name) is refused, so every echo stays one line."""
        value = data[key]
        if not isinstance(value, str) or not value or len(value) > MAX_STRING or not value.isprintable():
            self.fail(join(field, key), f"expected a non-empty string of at most {MAX_STRING} printable characters "
                                        f"(no control characters, line breaks or lone surrogates), got {shown(value)}")
        return value

    def number(self, data, key, field, default=None, limit=LIMIT):
        value = data.get(key, default)
        if not is_number(value, limit):
            self.fail(join(field, key), f"expected a finite number from {-limit:g} to {limit:g}, got {shown(value)}")
        return float(value)

    def vector(self, data, key, field, length=3, default=None):
        """The list of `length` numbers under `key` (zeros when absent), as a tuple."""
        return self.numbers(data.get(key, [0.0] * length if default is None else default), join(field, key), length)

    def numbers(self, value, field, length):
        """`value` checked to be a list of `length` finite numbers, as a tuple."""
        if not isinstance(value, list) or len(value) != length or not all(is_number(v) for v in value):
            words = {2: "two", 3: "three"}.get(length, str(length))
            self.fail(field, f"expected a list of {words} finite numbers from {-LIMIT:g} to {LIMIT:g}, got {shown(value)}")
        return tuple(float(v) for v in value)

    def flag(self, data, key, field, default=True):
        value = data.get(key, default)
        if not isinstance(value, bool):
            self.fail(join(field, key), f"expected true or false, got {shown(value)}")
        return value

    def items(self, data, key, field=""):
        """A non-empty list under `key`, with each item's field path."""
        value = data[key]
        if not isinstance(value, list) or not value:
            self.fail(join(field, key), "expected a non-empty list")
        return [(item, f"{join(field, key)}[{index}]") for index, item in enumerate(value)]


def dumps(data):
    """JSON with two-space indents and each number list on one line, for readable diffs.

    Strings are matched first so that text inside them (`"hero[ 1 ].glb"`) is never rewritten.
    """
    text = json.dumps(data, indent=2)
    return _STRING_OR_NUMBER_LIST.sub(lambda m: "[" + " ".join(m.group(1).split()) + "]" if m.group(1) else m.group(0),
                                      text) + "\n"


_STRING_OR_NUMBER_LIST = re.compile(r'"(?:[^"\\]|\\.)*"|\[\s+([-+0-9.eE, \n]+?)\s+\]')
