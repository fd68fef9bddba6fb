"""The torch layer: gemmtab.Linear, the gemmtab::linear custom op, patch()."""

import torch

from . import _lib
from ._lib import GemmtabError, GT_BF16, GT_FP32, GT_ERR_INVALID, GT_ERR_UNSUPPORTED, \
    GT_ERR_MISALIGNED

_DT = {torch.bfloat16: GT_BF16, torch.float32: GT_FP32}
# the library's (w, x, y) combinations: the bf16 projections, the fp32 router
_Y_OF_W = {torch.bfloat16: torch.bfloat16, torch.float32: torch.float32}


def _fail(status, argument, detail):
    raise GemmtabError(f"gemmtab: {argument}: {detail} ({_lib.status_string(status)})",
                       status, argument)


def _stream(device):
    return torch.cuda.current_stream(device).cuda_stream


# the handles the op may be given: the op's int names one of these
_weights = {}


def _run(x, w, handle, y):
    wt = _weights.get(handle)
    if wt is None:
        _fail(GT_ERR_INVALID, "handle", f"{handle:#x} is no live gemmtab weight")
    m = x.numel() // w.shape[1]
    if m:
        wt.linear(x.data_ptr(), m, y.data_ptr(), _stream(x.device))


@torch.library.custom_op("gemmtab::linear", mutates_args=())
def _linear_op(x: torch.Tensor, w: torch.Tensor, handle: int) -> torch.Tensor:
    y = torch.empty(x.shape[:-1] + (w.shape[0],), dtype=_Y_OF_W[w.dtype], device=x.device)
    _run(x, w, handle, y)
    return y


@_linear_op.register_fake
def _(x, w, handle):
    return x.new_empty(x.shape[:-1] + (w.shape[0],), dtype=_Y_OF_W[w.dtype])


@torch.library.custom_op("gemmtab::linear_out", mutates_args=("out",))
def _linear_out_op(x: torch.Tensor, w: torch.Tensor, handle: int, out: torch.Tensor) -> None:
    _run(x, w, handle, out)


@_linear_out_op.register_fake
def _(x, w, handle, out):
    return None


def _check_x(x, w):
    if not isinstance(x, torch.Tensor):
        _fail(GT_ERR_INVALID, "x", f"a {type(x).__name__}, not a tensor")
    if not x.is_cuda:
        _fail(GT_ERR_INVALID, "x", f"a {x.device} tensor; gemmtab needs a CUDA tensor")
    if x.device != w.device:
        _fail(GT_ERR_INVALID, "x", f"on {x.device}, the weight on {w.device}")
    if x.dtype != torch.bfloat16:
        _fail(GT_ERR_UNSUPPORTED, "x", f"dtype {x.dtype}; gemmtab takes bfloat16 x")
    if x.dim() < 1 or x.shape[-1] != w.shape[1]:
        _fail(GT_ERR_INVALID, "x", f"shape {tuple(x.shape)}; the last dimension must be K = {w.shape[1]}")
    if not x.is_contiguous():
        _fail(GT_ERR_INVALID, "x", "not contiguous (call .contiguous() first)")
    if x.data_ptr() % x.element_size():
        _fail(GT_ERR_MISALIGNED, "x", f"at {x.data_ptr():#x}, not aligned to its element")
    if x.numel() // w.shape[1] > 2**31 - 1:
        _fail(GT_ERR_INVALID, "x", "more than 2^31 - 1 rows")


def _check_out(out, x, w):
    want = x.shape[:-1] + (w.shape[0],)
    if not isinstance(out, torch.Tensor) or not out.is_cuda or out.device != x.device:
        _fail(GT_ERR_INVALID, "out", f"must be a CUDA tensor on {x.device}")
    if out.dtype != _Y_OF_W[w.dtype]:
        _fail(GT_ERR_UNSUPPORTED, "out", f"dtype {out.dtype}; this weight's y is {_Y_OF_W[w.dtype]}")
    if tuple(out.shape) != tuple(want):
        _fail(GT_ERR_INVALID, "out", f"shape {tuple(out.shape)}, wanted {tuple(want)}")
    if not out.is_contiguous():
        _fail(GT_ERR_INVALID, "out", "not contiguous")
    if out.data_ptr() % out.element_size():
        _fail(GT_ERR_MISALIGNED, "out", f"at {out.data_ptr():#x}, not aligned to its element")


class Linear(torch.nn.Module):
    """y = x @ w.T (+ bias) through libgemmtab's table, cuBLAS where it has
    no entry. Owns the prepared handle and keeps w alive; runs on
    torch.cuda.current_stream(); capturable in torch.cuda.graph (prepare
    outside the capture); traced by torch.compile as gemmtab::linear."""

    def __init__(self, weight, bias=None):
        super().__init__()
        w = weight.detach() if isinstance(weight, torch.Tensor) else weight
        if not isinstance(w, torch.Tensor):
            _fail(GT_ERR_INVALID, "w", f"a {type(w).__name__}, not a tensor")
        if not w.is_cuda:
            _fail(GT_ERR_INVALID, "w", f"a {w.device} tensor; gemmtab needs a CUDA tensor")
        if w.dtype not in _DT:
            _fail(GT_ERR_UNSUPPORTED, "w", f"dtype {w.dtype}; gemmtab takes bfloat16 (or float32: the router path)")
        if w.dim() != 2:
            _fail(GT_ERR_INVALID, "w", f"shape {tuple(w.shape)}; it must be [N, K]")
        if not w.is_contiguous():
            _fail(GT_ERR_INVALID, "w", "not contiguous (call .contiguous() first)")
        if torch.cuda.is_current_stream_capturing():
            _fail(GT_ERR_INVALID, "w", "prepared during a graph capture: prepare before capturing")
        if bias is not None and (not isinstance(bias, torch.Tensor) or bias.shape != (w.shape[0],)
                                 or bias.device != w.device):
            _fail(GT_ERR_INVALID, "bias", f"must be a tensor of shape ({w.shape[0]},) on {w.device}")
        self.in_features, self.out_features = w.shape[1], w.shape[0]
        self.weight = torch.nn.Parameter(w, requires_grad=False)
        self.bias = None if bias is None else torch.nn.Parameter(bias.detach(), requires_grad=False)
        self._wt = _lib.Weight(w.device.index, w.data_ptr(), w.shape[0], w.shape[1], _DT[w.dtype],
                               GT_BF16, _DT[_Y_OF_W[w.dtype]], _stream(w.device))
        self._version = w._version
        self._handle = self._wt.handle
        _weights[self._handle] = self._wt

    @classmethod
    def from_weight(cls, w, bias=None):
        """Prepare w ([N, K], CUDA, bf16 or fp32) for y = x @ w.T."""
        return cls(w, bias)

    @classmethod
    def from_linear(cls, module):
        """A gemmtab.Linear with an nn.Linear's weight and bias."""
        return cls(module.weight, module.bias)

    def forward(self, x, out=None):
        w = self.weight
        if not torch.compiler.is_compiling():
            _check_x(x, w)
            if out is not None:
                _check_out(out, x, w)
            if w._version != self._version:
                _fail(GT_ERR_INVALID, "w", "changed in place since it was prepared (a LoRA "
                      "merge?): prepare it again (gemmtab.Linear.from_weight, or patch the model again)")
        if out is None:
            out = _linear_op(x, w, self._handle)
        else:
            _linear_out_op(x, w, self._handle, out)
        if self.bias is not None:
            out.add_(self.bias)
        return out

    def explain(self, m):
        """Which dispatch entry a call with m rows uses, and why."""
        return self._wt.explain(m)

    def device_bytes(self):
        """Device memory the handle allocated (re-laid copies, workspace); w is not counted."""
        return self._wt.device_bytes()

    def served_ms(self, max_m=512):
        """The Ms in 1..max_m that run a table entry (not the baseline)."""
        return [m for m in range(1, max_m + 1) if ": entry " in self.explain(m)]

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, " \
               f"bias={self.bias is not None}, dtype={self.weight.dtype}"

    def __del__(self):
        _weights.pop(getattr(self, "_handle", None), None)
        wt = getattr(self, "_wt", None)
        if wt is not None:
            wt.close()


def prepare(w):
    """A prepared handle for w: gemmtab.Linear.from_weight(w)."""
    return Linear(w)


def linear(x, handle, out=None):
    """y = x @ w.T through a handle from prepare()."""
    return handle(x, out=out)


class PatchReport:
    """What patch() did: .swapped [(name, N, K, Ms served)], .skipped
    [(name, why)], .device_bytes (the re-laid copies and workspace of the
    swapped modules)."""

    def __init__(self):
        self.swapped, self.skipped, self.device_bytes = [], [], 0

    def __str__(self):
        lines = [f"gemmtab.patch: swapped {len(self.swapped)} nn.Linear modules, "
                 f"{self.device_bytes / 2**20:.1f} MiB of device memory for their re-laid copies "
                 f"and workspace; {_lib.table_description()}"]
        for name, n, k, ms in self.swapped:
            lines.append(f"  {name}: {n} x {k}, a table entry at {len(ms)} of its Ms ({_ranges(ms)})")
        for name, why in self.skipped:
            lines.append(f"  {name}: left as it was: {why}")
        lines.append("  a weight changed in place later (a LoRA merge) needs a new patch")
        return "\n".join(lines)


def _ranges(ms):
    out, i = [], 0
    while i < len(ms):
        j = i
        while j + 1 < len(ms) and ms[j + 1] == ms[j] + 1:
            j += 1
        out.append(str(ms[i]) if i == j else f"{ms[i]}-{ms[j]}")
        i = j + 1
    return ",".join(out) or "none"


def patch(model, max_m=512, verbose=True):
    """Swap each nn.Linear of model whose shape the compiled table serves at
    some M in 1..max_m (bf16 CUDA weights) for a gemmtab.Linear sharing its
    weight and bias; returns a PatchReport (printed when verbose)."""
    report = PatchReport()
    todo = [(name, mod) for name, mod in model.named_modules() if type(mod) is torch.nn.Linear]
    for name, mod in todo:
        w = mod.weight
        if not w.is_cuda or w.dtype != torch.bfloat16:
            report.skipped.append((name, f"a {w.dtype} weight on {w.device} (gemmtab swaps bf16 CUDA weights)"))
            continue
        if not w.is_contiguous():
            report.skipped.append((name, "its weight is not contiguous"))
            continue
        g = Linear.from_linear(mod)
        ms = g.served_ms(max_m)
        if not ms:
            why = (f"no table entry for {w.shape[0]} x {w.shape[1]}" if _lib.table_in_use(w.device.index)
                   else "no table compiled in for this GPU (gemmtab.table_description() says why)")
            report.skipped.append((name, f"{why} (cuBLAS either way)"))
            del g
            continue
        parent = model.get_submodule(name.rpartition(".")[0]) if "." in name else model
        setattr(parent, name.rpartition(".")[2], g)
        report.swapped.append((name, w.shape[0], w.shape[1], ms))
        report.device_bytes += g.device_bytes()
    if verbose:
        print(report)
    return report
