"""gemmtab: libgemmtab's tuned decode-time GEMMs from Python.

The C calls need no torch: status_string, table_description,
table_in_use, library_path. The tensor layer (Linear, prepare, linear, patch) imports
torch on first use."""

from ._lib import GemmtabError, library_path, library_version, record_untuned, stats, \
    status_string, table_description, table_in_use, write_untuned


def _own_version():
    try:
        from ._version import __version__ as v  # written into the wheel by the build
        return v
    except ImportError:  # run from the source tree: the repository's VERSION
        import os
        path = os.path.join(os.path.dirname(__file__), "..", "..", "VERSION")
        try:
            with open(path, encoding="utf-8") as f:
                return f.read().strip()
        except OSError:
            return "unknown"


__version__ = _own_version()

__all__ = ["GemmtabError", "library_path", "library_version", "status_string", "table_description", "table_in_use",
           "record_untuned", "stats", "write_untuned",
           "Linear", "PatchReport", "prepare", "linear", "patch"]

_TORCH_NAMES = {"Linear", "PatchReport", "prepare", "linear", "patch"}


def __getattr__(name):
    if name in _TORCH_NAMES:
        try:
            from . import _torch
        except ImportError as e:
            raise ImportError(f"gemmtab.{name} needs torch (pip install torch): {e}") from e
        return getattr(_torch, name)
    raise AttributeError(f"module 'gemmtab' has no attribute {name!r}")
