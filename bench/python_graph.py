"""bench/python_graph.py: does gemmtab.Linear keep the C library's speed
inside a captured torch.cuda.graph? (A benchmark; needs a GPU, torch and
the gemmtab package: GEMMTAB_LIB names the library.)

    python3 bench/python_graph.py [FAMILY [M ...]]     (default: qkv 1 32)

Times gemmtab.Linear and torch.nn.functional.linear on the same shape by
docs/workload.md's method, in PyTorch: each is captured into a graph of
REPS calls over ROT rotated copies of W (ROT x W is several times the L2,
so no call finds its weight in the cache), each call preceded by an
L2-allocating read of a FLUSH-byte buffer; a graph of the reads alone is
replayed beside them and subtracted. The three graphs are replayed
ROUNDS times in alternating order, and each figure is the median per
call. Prints a Markdown table: both times, the speedup F.linear /
gemmtab, and the dispatch entry. Compare the speedup with the C library's
for the same point (gemmtab bench, or bench/h200.md): inside a graph the
Python layer launches nothing of its own.
"""

import statistics
import sys

import torch
import torch.nn.functional as F

import gemmtab

FAMILIES = {  # docs/workload.md: N, K, W dtype
    "qkv": (2304, 8192, torch.bfloat16),
    "oproj": (8192, 1024, torch.bfloat16),
    "pooler": (4096, 8192, torch.bfloat16),
    "unpooler": (8192, 4096, torch.bfloat16),
    "unpooler_slice": (1024, 4096, torch.bfloat16),
    "router": (256, 8192, torch.float32),
}
REPS = 64
ROUNDS = 15
FLUSH = 128 << 20
MIN_ROTATED = 320 << 20   # bytes of rotated weight copies, over 5 L2s of 60 MB


def capture(body, reps):
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for i in range(reps):
            body(i)
    return g


def replay_ms(g):
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    g.replay()
    b.record()
    b.synchronize()
    return a.elapsed_time(b)


def bench_point(family, m):
    n, k, wdt = FAMILIES[family]
    wbytes = n * k * torch.finfo(wdt).bits // 8
    rot = max(2, -(-MIN_ROTATED // wbytes))
    gen = torch.Generator(device="cuda").manual_seed(1234)
    ws = [torch.randn(n, k, device="cuda", generator=gen).mul_(0.02).to(wdt) for _ in range(rot)]
    mods = [gemmtab.Linear.from_weight(w) for w in ws]
    x = torch.randn(m, k, device="cuda", generator=gen).to(torch.bfloat16)
    # F.linear needs one dtype: the router's x goes in as FP32, cast outside the graph
    xf = x if wdt == torch.bfloat16 else x.float()
    ydt = torch.bfloat16 if wdt == torch.bfloat16 else torch.float32
    y_gt = torch.empty(m, n, device="cuda", dtype=ydt)
    y_f = torch.empty(m, n, device="cuda", dtype=ydt)
    flush = torch.ones(FLUSH // 4, device="cuda", dtype=torch.float32)
    acc = torch.empty((), device="cuda", dtype=torch.float32)

    # correctness first: both paths against an FP64 product
    ref = (x.double() @ ws[0].double().T)
    for y in (mods[0](x), F.linear(xf, ws[0])):
        rel = ((y.double() - ref).norm() / ref.norm()).item()
        bound = 1e-2 if wdt == torch.bfloat16 else 1e-4
        if not rel <= bound:
            raise SystemExit(f"python_graph: {family} m={m}: relative L2 error {rel:.3e} over {bound:.0e}")

    def read(_):
        torch.sum(flush, dim=0, out=acc)

    def run_gt(i):
        read(i)
        mods[i % rot](x, out=y_gt)

    def run_f(i):
        read(i)
        torch.matmul(xf, ws[i % rot].T, out=y_f)

    # warm up on a side stream before capturing, as torch.cuda.graph asks
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for i in range(3):
            run_gt(i)
            run_f(i)
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    graphs = {"read": capture(read, REPS), "gemmtab": capture(run_gt, REPS),
              "F.linear": capture(run_f, REPS)}
    for g in graphs.values():  # warm-up
        g.replay()
    torch.cuda.synchronize()
    times = {name: [] for name in graphs}
    order = list(graphs)
    for r in range(ROUNDS):
        for name in (order if r % 2 == 0 else order[::-1]):
            times[name].append(replay_ms(graphs[name]))
    per = {}
    for name in ("gemmtab", "F.linear"):
        per[name] = statistics.median((t - e) * 1e3 / REPS for t, e in zip(times[name], times["read"]))
    explain = mods[0].explain(m)
    del graphs, mods
    torch.cuda.synchronize()
    return per["gemmtab"], per["F.linear"], explain, rot


def main(argv):
    family = argv[1] if len(argv) > 1 else "qkv"
    if family not in FAMILIES:
        raise SystemExit(f"python_graph: unknown family {family!r} (one of {', '.join(FAMILIES)})")
    ms = [int(a) for a in argv[2:]] or [1, 32]
    print(f"# gemmtab.Linear inside torch.cuda.graph ({torch.cuda.get_device_name()}, "
          f"torch {torch.__version__}, gemmtab {gemmtab.__version__})\n")
    print(f"table: {gemmtab.table_description()}\n")
    print(f"{REPS} calls a graph, each after a read of {FLUSH >> 20} MiB; the reads' graph "
          f"subtracted; median of {ROUNDS} rounds\n")
    print("| family | M | gemmtab.Linear us | F.linear us | speedup | rotated copies | dispatch |")
    print("|---|---|---|---|---|---|---|")
    for m in ms:
        g, f, explain, rot = bench_point(family, m)
        entry = explain.split(": ", 1)[-1]
        print(f"| {family} | {m} | {g:.2f} | {f:.2f} | {f / g:.3f} | {rot} | {entry[:60]} |")


if __name__ == "__main__":
    main(sys.argv)
