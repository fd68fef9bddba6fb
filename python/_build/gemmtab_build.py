"""A PEP 517 build backend for the gemmtab package, in the tree
(pyproject.toml's backend-path): the package is pure Python, so its wheel
is a zip of gemmtab/ and its metadata. It needs nothing from a registry,
so `pip install ./python` works where none is reachable, with or without
build isolation, on any pip that knows PEP 517."""

import base64
import hashlib
import io
import os
import tarfile
import zipfile

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _version():
    """The repository's VERSION (one level up from python/), or the copy an
    sdist carries beside pyproject.toml."""
    for path in (os.path.join(os.path.dirname(HERE), "VERSION"), os.path.join(HERE, "VERSION")):
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                return f.read().strip()
    raise RuntimeError("gemmtab_build: no VERSION file above or beside " + HERE)


NAME, VERSION = "gemmtab", _version()
TAG = "py3-none-any"
DIST = f"{NAME}-{VERSION}.dist-info"


def _metadata():
    with open(os.path.join(HERE, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    return (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {VERSION}\n"
            "Summary: PyTorch entry to libgemmtab: tuned decode-time GEMM dispatch with a cuBLAS fallback\n"
            "Requires-Python: >=3.9\nProvides-Extra: torch\nRequires-Dist: torch>=2.4; extra == \"torch\"\n"
            "Description-Content-Type: text/markdown\n\n" + readme)


def _wheel_meta():
    return f"Wheel-Version: 1.0\nGenerator: gemmtab_build\nRoot-Is-Purelib: true\nTag: {TAG}\n"


def _package_files():
    out = []
    for root, dirs, files in os.walk(os.path.join(HERE, NAME)):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for f in sorted(files):
            if f.endswith(".py"):
                path = os.path.join(root, f)
                out.append((os.path.relpath(path, HERE).replace(os.sep, "/"), path))
    return out


def _digest(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    d = os.path.join(metadata_directory, DIST)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "METADATA"), "w", encoding="utf-8") as f:
        f.write(_metadata())
    with open(os.path.join(d, "WHEEL"), "w", encoding="utf-8") as f:
        f.write(_wheel_meta())
    return DIST


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    name = f"{NAME}-{VERSION}-{TAG}.whl"
    record = []
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        def put(arc, data):
            z.writestr(zipfile.ZipInfo(arc, date_time=(2026, 1, 1, 0, 0, 0)), data)
            record.append(f"{arc},{_digest(data)},{len(data)}")
        for arc, path in _package_files():
            with open(path, "rb") as f:
                put(arc, f.read())
        put(f"{NAME}/_version.py", f'__version__ = "{VERSION}"\n'.encode())
        put(f"{DIST}/METADATA", _metadata().encode())
        put(f"{DIST}/WHEEL", _wheel_meta().encode())
        record.append(f"{DIST}/RECORD,,")
        z.writestr(zipfile.ZipInfo(f"{DIST}/RECORD", date_time=(2026, 1, 1, 0, 0, 0)),
                   "\n".join(record) + "\n")
    return name


def build_sdist(sdist_directory, config_settings=None):
    base = f"{NAME}-{VERSION}"
    name = base + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as t:
        for rel in ["pyproject.toml", "README.md", "_build/gemmtab_build.py"] + \
                   [arc for arc, _ in _package_files()]:
            t.add(os.path.join(HERE, rel), arcname=f"{base}/{rel}")
        data = (VERSION + "\n").encode()
        info = tarfile.TarInfo(f"{base}/VERSION")
        info.size, info.mtime = len(data), 1767225600
        t.addfile(info, io.BytesIO(data))
    return name
