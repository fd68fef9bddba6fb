"""The gemmtab package's GPU tests (tests/gpu/t_python.sh runs them): every
reference shape over Ms each side of the table's entries against an FP64
product, eager, out=, in a captured CUDA graph and under torch.compile;
bias; the errors bad input raises; patch(). Prints "ok - ..." / "not ok -
..." lines and the lib.sh summary line."""

import sys

import torch
import torch.nn.functional as F

import gemmtab
from tap import ok, raises, skip, summary


class _CudaArray:
    """A bare __cuda_array_interface__ at a given address: torch's own views
    refuse an odd byte offset for a 2-byte dtype, so the test builds one."""

    def __init__(self, ptr, shape, typestr):
        self.__cuda_array_interface__ = {"data": (ptr, False), "shape": shape,
                                         "typestr": typestr, "version": 2}


def _odd_bf16(raw, k):
    """A (1, k) bf16 tensor one byte into raw, or the reason torch would not make one."""
    try:
        t = torch.as_tensor(_CudaArray(raw.data_ptr() + 1, (1, k), "<f2"), device=raw.device)
        t = t.view(torch.bfloat16)
    except Exception as e:  # noqa: BLE001 - any refusal is the skip's reason
        return f"torch makes no bf16 tensor at an odd address here ({e!r:.80})"
    if t.data_ptr() % 2 == 0:
        return "torch copied the odd-address buffer to an aligned one"
    return t

# the reference workload's weights (docs/workload.md): name, N, K, w dtype, bound
SHAPES = [("qkv", 2304, 8192, torch.bfloat16, 1e-2), ("oproj", 8192, 1024, torch.bfloat16, 1e-2),
          ("pooler", 4096, 8192, torch.bfloat16, 1e-2), ("unpooler_slice", 1024, 4096, torch.bfloat16, 1e-2),
          ("unpooler", 8192, 4096, torch.bfloat16, 1e-2), ("router", 256, 8192, torch.float32, 1e-4)]
MS = [1, 2, 3, 7, 8, 9, 16, 31, 32, 33, 64, 100, 128, 129, 256, 257, 300, 512]


def rel_err(y, x, w):
    ref = x.double() @ w.double().T
    return ((y.double() - ref).norm() / ref.norm()).item()


def main():
    dev = torch.device("cuda", 0)
    torch.manual_seed(1)
    print(f"# {gemmtab.table_description(0)}")
    d = gemmtab.table_description(0)
    ok("the description says which table device 0 uses, or that none is its card's",
       (" in use on " in d and gemmtab.table_in_use(0) is not None)
       or (d.startswith("no table for ") and gemmtab.table_in_use(0) is None), d)
    for name, n, k, wdt, bound in SHAPES:
        w = (torch.randn(n, k, device=dev) / k ** 0.5).to(wdt)
        lin = gemmtab.Linear.from_weight(w)
        served = lin.served_ms()
        print(f"# {name}: {n} x {k} {wdt}, a table entry at {len(served)} of M = 1..512, "
              f"{lin.device_bytes()} device bytes")
        worst, worst_m = 0.0, 0
        for m in MS:
            x = torch.randn(m, k, device=dev, dtype=torch.bfloat16)
            e = rel_err(lin(x), x, w)
            if e > worst:
                worst, worst_m = e, m
        ok(f"{name}: eager at {len(MS)} Ms within {bound:g} (worst {worst:.2e} at m={worst_m})", worst <= bound)
        x = torch.randn(2, 3, k, device=dev, dtype=torch.bfloat16)
        y = lin(x)
        ok(f"{name}: a [2, 3, K] batch gives [2, 3, N]", tuple(y.shape) == (2, 3, n) and rel_err(
            y.reshape(6, n), x.reshape(6, k), w) <= bound)
        out = torch.empty(8, n, device=dev, dtype=y.dtype)
        x = torch.randn(8, k, device=dev, dtype=torch.bfloat16)
        r = lin(x, out=out)
        ok(f"{name}: out= is written and returned", r is out and rel_err(out, x, w) <= bound)
        # a captured graph, replayed on new contents of its input
        for m in (1, 32):
            xs = torch.randn(m, k, device=dev, dtype=torch.bfloat16)
            s = torch.cuda.Stream()
            s.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(s):
                lin(xs)       # warm up outside the capture
            torch.cuda.current_stream().wait_stream(s)
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                ys = lin(xs)
            xs.copy_(torch.randn(m, k, device=dev, dtype=torch.bfloat16))
            g.replay()
            torch.cuda.synchronize()
            ok(f"{name}: a captured graph replayed at m={m}", rel_err(ys, xs, w) <= bound)
        # the baseline at an x that is element- but not 16-byte aligned
        buf = torch.randn(4 * k + 8, device=dev, dtype=torch.bfloat16)
        xm = buf[1:1 + 4 * k].view(4, k)
        ok(f"{name}: an x not 16-byte aligned runs (the baseline)", rel_err(lin(xm), xm, w) <= bound)
    # torch.compile traces the custom op
    n, k = 2304, 8192
    w = (torch.randn(n, k, device=dev) / k ** 0.5).to(torch.bfloat16)
    lin = gemmtab.Linear.from_weight(w)
    f = torch.compile(lambda x: lin(x) * 2, fullgraph=True)
    x = torch.randn(8, k, device=dev, dtype=torch.bfloat16)
    try:
        y = f(x)
        ok("torch.compile(fullgraph=True) traces gemmtab::linear", rel_err(y / 2, x, w) <= 1e-2)
    except Exception as e:   # noqa: BLE001: the test reports what failed
        ok("torch.compile(fullgraph=True) traces gemmtab::linear", False, repr(e)[:300])
    # bias
    b = torch.randn(n, device=dev, dtype=torch.bfloat16)
    lb = gemmtab.Linear.from_weight(w, bias=b)
    ref = F.linear(x.float(), w.float(), b.float())
    ok("a bias is added after the product",
       ((lb(x).float() - ref).norm() / ref.norm()).item() <= 1e-2)

    # errors, each naming the argument and carrying the status
    raises("a CPU x", lambda: lin(torch.randn(1, k, dtype=torch.bfloat16)), "x", 1)
    raises("an fp16 x", lambda: lin(torch.randn(1, k, device=dev, dtype=torch.float16)), "x", 2)
    raises("a non-contiguous x", lambda: lin(torch.randn(k, 2, device=dev, dtype=torch.bfloat16).T), "x", 1)
    raw = torch.empty(2 * k + 2, device=dev, dtype=torch.uint8)
    odd = _odd_bf16(raw, k)
    if isinstance(odd, str):
        skip("an x not aligned to its element", odd)
    else:
        raises("an x not aligned to its element", lambda: lin(odd), "x", 3)
    raises("a wrong K", lambda: lin(torch.randn(1, k // 2, device=dev, dtype=torch.bfloat16)), "x", 1)
    raises("a CPU weight", lambda: gemmtab.Linear.from_weight(w.cpu()), "w", 1)
    raises("an fp16 weight", lambda: gemmtab.Linear.from_weight(w.half()), "w", 2)
    raises("an out of the wrong shape",
           lambda: lin(x, out=torch.empty(3, n, device=dev, dtype=torch.bfloat16)), "out", 1)
    if torch.cuda.device_count() > 1:
        raises("x on another GPU than w",
               lambda: lin(torch.randn(1, k, device="cuda:1", dtype=torch.bfloat16)), "x", 1)
    else:
        skip("x on another GPU than w", "one GPU here")
    w2 = w.clone()
    l2 = gemmtab.Linear.from_weight(w2)
    w2.add_(1)
    raises("a weight changed in place after prepare", lambda: l2(x), "w", 1)

    # untuned records: an unserved shape's calls are counted and written
    gemmtab.record_untuned(True)
    wu = (torch.randn(1000, 2304, device=dev) / 48).to(torch.bfloat16)
    lu = gemmtab.Linear.from_weight(wu)
    for m in (3, 3, 70):
        lu(torch.randn(m, 2304, device=dev, dtype=torch.bfloat16))
    rows = [r for r in gemmtab.stats() if r["n"] == 1000 and r["k"] == 2304]
    ok("stats count the unserved shape's calls (m 3 twice, 70 once)",
       sorted((r["m_lo"], r["m_hi"], r["no_entry"]) for r in rows) == [(3, 3, 2), (65, 72, 1)], str(rows))
    import os
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "untuned.yaml")
        gemmtab.write_untuned(p)
        text = open(p).read()
    ok("write_untuned names it as a shape to sweep",
       "n: 1000, k: 2304, w: bf16, x: bf16, y: bf16, tol: 1e-2,\n     m: 3..72}" in text, text[-300:])
    gemmtab.record_untuned(False)

    # patch: the served shape is swapped, an unserved one left, outputs equal
    model = torch.nn.Sequential(torch.nn.Linear(8192, 2304, bias=False),
                                torch.nn.Linear(2304, 1000)).to(dev, torch.bfloat16)
    xin = torch.randn(4, 8192, device=dev, dtype=torch.bfloat16)
    with torch.no_grad():
        before = model(xin).float()
        rep = gemmtab.patch(model, verbose=False)
        after = model(xin).float()
    print("# " + str(rep).replace("\n", "\n# "))
    served = len(gemmtab.Linear.from_weight(model[0].weight).served_ms()) > 0
    if served:
        ok("patch swaps the 2304 x 8192 layer the table serves",
           [s[0] for s in rep.swapped] == ["0"] and isinstance(model[0], gemmtab.Linear))
    else:
        skip("patch swaps the served layer", "the table serves no M of qkv on this GPU")
    ok("patch leaves the 1000 x 2304 layer, saying why",
       [s[0] for s in rep.skipped] == ["1"] and "no table" in rep.skipped[0][1], rep.skipped[0][1])
    ok("the patched model computes what it did", ((after - before).norm() / before.norm()).item() <= 2e-2)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
