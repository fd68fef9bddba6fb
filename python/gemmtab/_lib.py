"""Loading libgemmtab and the C calls, through ctypes; no torch here."""

import ctypes
import os
import shutil
import subprocess
import sys

GT_OK = 0
GT_ERR_INVALID = 1
GT_ERR_UNSUPPORTED = 2
GT_ERR_MISALIGNED = 3
GT_ERR_CUDA = 4
GT_ERR_CUBLAS = 5
GT_ERR_NO_MEMORY = 6

GT_BF16 = 0
GT_FP32 = 1



def _libname():
    """The SONAME, libgemmtab.so.MAJOR, of the package's own version (what a
    program loads; libgemmtab.so is only the link-time name)."""
    from . import __version__
    return "libgemmtab.so." + __version__.split(".")[0]


class GemmtabError(RuntimeError):
    """A call the library refused or that failed: .status is the gt_status
    (None where no status applies), .argument the argument at fault."""

    def __init__(self, message, status=None, argument=None):
        self.status = status
        self.argument = argument
        super().__init__(message)


def _candidates():
    """Where the library is looked for, in order, as (path, how found)."""
    env = os.environ.get("GEMMTAB_LIB")
    if env:
        # an explicit choice is the only one tried: a wrong path is an error
        return [(env, "GEMMTAB_LIB")]
    name = _libname()
    out = []
    prefix = os.environ.get("GEMMTAB_PREFIX")
    if prefix:
        out.append((os.path.join(prefix, "lib", name), "GEMMTAB_PREFIX"))
    out.append((os.path.join(sys.prefix, "lib", name), "the Python prefix"))
    if shutil.which("pkg-config"):
        try:
            r = subprocess.run(["pkg-config", "--variable=libdir", "gemmtab"],
                               capture_output=True, text=True, timeout=10)
            if r.returncode == 0 and r.stdout.strip():
                out.append((os.path.join(r.stdout.strip(), name), "pkg-config gemmtab"))
        except (OSError, subprocess.SubprocessError):
            pass
    out.append((name, "the system's library path"))
    return out


def _load():
    tried = []
    for path, how in _candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append(f"{path} ({how}): no such file")
            continue
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            tried.append(f"{path} ({how}): {e}")
    raise GemmtabError(f"gemmtab: {_libname()} not found; tried:\n  " + "\n  ".join(tried) +
                       "\nset GEMMTAB_LIB to the library, or GEMMTAB_PREFIX to its install prefix")


class _Stat(ctypes.Structure):
    _fields_ = [("n", ctypes.c_int), ("k", ctypes.c_int), ("w", ctypes.c_int), ("x", ctypes.c_int),
                ("y", ctypes.c_int), ("m_lo", ctypes.c_int), ("m_hi", ctypes.c_int),
                ("no_entry", ctypes.c_ulong), ("unusable", ctypes.c_ulong),
                ("misaligned", ctypes.c_ulong), ("refused", ctypes.c_ulong)]


_lib = None
_path = None


def lib():
    """The loaded library (loaded on first use), with its prototypes set."""
    global _lib, _path
    if _lib is None:
        l, p = _load()
        vp, i, sz = ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t
        l.gt_status_string.argtypes = [i]
        l.gt_status_string.restype = ctypes.c_char_p
        l.gt_version.argtypes = []
        l.gt_version.restype = ctypes.c_char_p
        l.gt_table_description.argtypes = []
        l.gt_table_description.restype = ctypes.c_char_p
        l.gt_context_create.argtypes = [i, ctypes.POINTER(vp)]
        l.gt_context_destroy.argtypes = [vp]
        l.gt_weight_prepare_on.argtypes = [vp, vp, i, i, i, i, i, vp, ctypes.POINTER(vp)]
        l.gt_weight_destroy.argtypes = [vp]
        l.gt_linear.argtypes = [vp, vp, i, vp, vp]
        l.gt_weight_explain.argtypes = [vp, i, ctypes.c_char_p, sz]
        l.gt_weight_device_bytes.argtypes = [vp, ctypes.POINTER(sz)]
        l.gt_record_untuned.argtypes = [i]
        l.gt_stats.argtypes = [ctypes.POINTER(_Stat), i, ctypes.POINTER(i)]
        l.gt_untuned_write.argtypes = [ctypes.c_char_p]
        for f in ("gt_context_create", "gt_context_destroy", "gt_weight_prepare_on",
                  "gt_weight_destroy", "gt_linear", "gt_weight_explain", "gt_weight_device_bytes",
                  "gt_record_untuned", "gt_stats", "gt_untuned_write"):
            getattr(l, f).restype = i
        _lib, _path = l, p
    return _lib


def library_path():
    """The file the library was loaded from."""
    lib()
    return _path


def status_string(status):
    """The library's description of a gt_status."""
    return lib().gt_status_string(int(status)).decode()


def library_version():
    """The loaded library's gt_version(); gemmtab.__version__ is the package's."""
    return lib().gt_version().decode()


def table_description(device=None):
    """Which of the library's compiled-in tables a CUDA device uses, where
    each was tuned, and why each other was not chosen (gt_table_description).
    With a device index, the library's context for it is made first (so its
    choice is the one described); without, the last context's choice, or
    the tables compiled in before any."""
    if device is not None:
        context(device)
    return lib().gt_table_description().decode()


def table_in_use(device=None):
    """The path of the table a CUDA device uses (as the library's build
    named it, "runtime/tables/h200.h"), or None when no table compiled in is
    that card's and every M runs the cuBLAS baseline (or, without a device
    index, when no context has chosen yet)."""
    d = table_description(device)
    if not d.startswith("table ") or " in use on " not in d or "; but the kernels of table " in d:
        return None
    return d[len("table "):d.index(" in use on ")]


def check(status, what, argument=None):
    """Raise GemmtabError for a status other than GT_OK."""
    if status != GT_OK:
        at = f" ({argument})" if argument else ""
        raise GemmtabError(f"gemmtab: {what}{at}: {status_string(status)}", status, argument)


_contexts = {}


def context(device):
    """The library's context for a CUDA device index, made once per process
    (it loads the table's kernels onto the device)."""
    ctx = _contexts.get(device)
    if ctx is None:
        p = ctypes.c_void_p()
        check(lib().gt_context_create(int(device), ctypes.byref(p)),
              f"gt_context_create on device {device}", "device")
        ctx = _contexts[device] = p
    return ctx


class Weight:
    """A prepared weight handle (gt_weight): the re-laid copies and the
    workspace live as long as this object. Takes raw device pointers; the
    torch layer (gemmtab.Linear) keeps the tensors alive."""

    def __init__(self, device, w_ptr, n, k, w_dtype, x_dtype, y_dtype, stream=0):
        self._h = None
        self._lib = lib()
        h = ctypes.c_void_p()
        check(self._lib.gt_weight_prepare_on(context(device), w_ptr, n, k, w_dtype, x_dtype,
                                             y_dtype, stream, ctypes.byref(h)),
              f"gt_weight_prepare of a {n} x {k} weight", "w")
        self._h = h
        self.device, self.n, self.k = device, n, k

    @property
    def handle(self):
        """The gt_weight pointer, as an int."""
        return self._h.value

    def linear(self, x_ptr, m, y_ptr, stream):
        check(self._lib.gt_linear(self._h, x_ptr, m, y_ptr, stream), f"gt_linear at m={m}")

    def explain(self, m):
        buf = ctypes.create_string_buffer(512)
        check(self._lib.gt_weight_explain(self._h, int(m), buf, len(buf)),
              f"gt_weight_explain at m={m}", "m")
        return buf.value.decode()

    def device_bytes(self):
        b = ctypes.c_size_t()
        check(self._lib.gt_weight_device_bytes(self._h, ctypes.byref(b)), "gt_weight_device_bytes")
        return b.value

    def close(self):
        if self._h is not None and self._h.value:
            self._lib.gt_weight_destroy(self._h)
        self._h = None

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass   # interpreter shutdown: the CUDA context may be gone


def record_untuned(on=True):
    """Count, for weights prepared from now on, the calls that run the cuBLAS
    baseline and why (as GEMMTAB_RECORD_UNTUNED=1 does from the start)."""
    check(lib().gt_record_untuned(1 if on else 0), "gt_record_untuned", "on")


def stats():
    """The counts so far: one dict per weight shape and M bucket that ran
    the baseline (n, k, w, x, y, m_lo, m_hi, no_entry, unusable,
    misaligned, refused). A call captured into a CUDA graph counts once."""
    count = ctypes.c_int()
    check(lib().gt_stats(None, 0, ctypes.byref(count)), "gt_stats")
    rows = (_Stat * max(count.value, 1))()
    check(lib().gt_stats(rows, count.value, ctypes.byref(count)), "gt_stats")
    names = {GT_BF16: "bf16", GT_FP32: "fp32"}
    out = []
    for r in rows[:count.value]:
        d = {f: getattr(r, f) for f, _ in _Stat._fields_}
        for f in ("w", "x", "y"):
            d[f] = names.get(d[f], d[f])
        out.append(d)
    return out


def write_untuned(path):
    """Write the shapes and Ms that ran untuned as a shapes fragment for
    `gemmtab sweep --space BASE --shapes path`."""
    check(lib().gt_untuned_write(os.fsencode(path)), f"gt_untuned_write to {path}", "path")
