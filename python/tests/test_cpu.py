"""The gemmtab package's torch layer without a GPU (tests/cli/t_python.sh
runs it where torch >= 2.4 is installed, tests/gpu/t_python.sh on the GPU
machine): the custom op's fake (meta) implementation gives the output's
shape and dtype, so torch.compile can trace it; the weight checks that
need no device raise GemmtabError naming the argument; patch() leaves CPU
modules alone, saying why. Prints "ok - ..." / "not ok - ..." lines and
the lib.sh summary line."""

import sys

import torch

import gemmtab
from gemmtab import _lib
from tap import ok, raises, summary

def main():
    ok("the torch layer imports (it registers the gemmtab:: ops)", gemmtab.Linear is not None)
    # the fake implementations, on meta tensors: no data, no device, no library call
    for name, n, k, wdt, leading in (("qkv", 2304, 8192, torch.bfloat16, (3, 5)),
                                     ("oproj", 8192, 1024, torch.bfloat16, (1,)),
                                     ("router", 256, 8192, torch.float32, (2, 1, 7))):
        x = torch.empty(leading + (k,), dtype=torch.bfloat16, device="meta")
        w = torch.empty(n, k, dtype=wdt, device="meta")
        y = torch.ops.gemmtab.linear(x, w, 0)
        want = torch.bfloat16 if wdt == torch.bfloat16 else torch.float32
        ok(f"gemmtab::linear's fake: {name} x {tuple(x.shape)} -> y {tuple(y.shape)} {y.dtype}",
           tuple(y.shape) == leading + (n,) and y.dtype == want and y.device.type == "meta")
        out = torch.empty(leading + (n,), dtype=want, device="meta")
        ok(f"gemmtab::linear_out's fake returns nothing ({name})",
           torch.ops.gemmtab.linear_out(x, w, 0, out) is None)

    # the fake under FakeTensorMode, as torch.compile's tracing runs it
    try:
        from torch._subclasses.fake_tensor import FakeTensorMode
        with FakeTensorMode():
            x = torch.empty(4, 8192, dtype=torch.bfloat16)
            w = torch.empty(2304, 8192, dtype=torch.bfloat16)
            y = torch.ops.gemmtab.linear(x, w, 0)
            ok("under FakeTensorMode: y is [4, 2304] bf16",
               tuple(y.shape) == (4, 2304) and y.dtype == torch.bfloat16)
    except ImportError as e:
        ok("FakeTensorMode is importable", False, repr(e))

    # weight checks that come before any device is touched
    raises("a weight that is no tensor", lambda: gemmtab.Linear.from_weight([[1.0]]), "w",
           _lib.GT_ERR_INVALID)
    raises("a CPU weight", lambda: gemmtab.Linear.from_weight(torch.zeros(8, 16, dtype=torch.bfloat16)),
           "w", _lib.GT_ERR_INVALID)

    # patch leaves what gemmtab cannot serve, each with its reason
    model = torch.nn.Sequential(torch.nn.Linear(16, 8), torch.nn.ReLU(), torch.nn.Linear(8, 4))
    rep = gemmtab.patch(model, verbose=False)
    ok("patch on a CPU model swaps nothing and names both layers",
       rep.swapped == [] and [s[0] for s in rep.skipped] == ["0", "2"]
       and all("CUDA" in s[1] for s in rep.skipped), str(rep.skipped))
    ok("and leaves them nn.Linear", type(model[0]) is torch.nn.Linear)

    return summary()


if __name__ == "__main__":
    sys.exit(main())
