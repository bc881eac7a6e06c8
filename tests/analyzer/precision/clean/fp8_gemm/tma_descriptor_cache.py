"""Persistent warp-specialised FP8 GEMM using Triton's host-side TMA descriptors.

Building a TensorDescriptor costs ~15 us of Python per operand, comparable to
the whole decode-shape GEMM, so descriptors are cached by (address, shape,
strides, block): a descriptor only names memory, the kernel still loads the
operand's current bytes through it on every call. The output is a new tensor
each call.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

_NUM_SMS = None


def _num_sms():
    global _NUM_SMS
    if _NUM_SMS is None:
        _NUM_SMS = torch.cuda.get_device_properties(0).multi_processor_count
    return _NUM_SMS


@triton.jit
def _persistent_fp8(a_desc, b_desc, c_desc, as_ptr, bs_ptr, M, N, K,
                    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, NUM_SMS: tl.constexpr):
    start = tl.program_id(0)
    tiles_m = tl.cdiv(M, BM)
    tiles_n = tl.cdiv(N, BN)
    for tile in tl.range(start, tiles_m * tiles_n, NUM_SMS, flatten=True, warp_specialize=True):
        pm = tile // tiles_n
        pn = tile % tiles_n
        om = pm * BM
        on = pn * BN
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k0 in range(0, K, BK):
            a = a_desc.load([om, k0])
            b = b_desc.load([on, k0])
            acc = tl.dot(a, b.T, acc)
        rm = om + tl.arange(0, BM)
        rn = on + tl.arange(0, BN)
        sa = tl.load(as_ptr + rm, mask=rm < M, other=0.0)
        sb = tl.load(bs_ptr + rn, mask=rn < N, other=0.0)
        c_desc.store([om, on], (acc * sa[:, None] * sb[None, :]).to(tl.bfloat16))


class Model(nn.Module):
    BM, BN, BK = 128, 128, 128

    def __init__(self):
        super().__init__()
        self._descs = {}

    def _desc(self, t, block):
        key = (t.data_ptr(), tuple(t.shape), tuple(t.stride()), block)
        d = self._descs.get(key)
        if d is None:
            d = TensorDescriptor.from_tensor(t, list(block))
            if len(self._descs) > 64:
                self._descs.clear()
            self._descs[key] = d
        return d

    def forward(self, x, w, x_scale, w_scale):
        m, k = x.shape
        n = w.shape[0]
        out = torch.empty(m, n, device=x.device, dtype=torch.bfloat16)
        a_desc = self._desc(x, (self.BM, self.BK))
        b_desc = self._desc(w, (self.BN, self.BK))
        c_desc = TensorDescriptor.from_tensor(out, [self.BM, self.BN])
        sms = _num_sms()
        grid = (min(sms, triton.cdiv(m, self.BM) * triton.cdiv(n, self.BN)),)
        _persistent_fp8[grid](a_desc, b_desc, c_desc, x_scale.reshape(-1), w_scale, m, n, k,
                              BM=self.BM, BN=self.BN, BK=self.BK, NUM_SMS=sms, num_warps=8, num_stages=4)
        return out


def get_inputs():
    x = torch.randn(4096, 4096, device="cuda").clamp_(-8, 8).to(torch.float8_e4m3fn)
    w = torch.randn(4096, 4096, device="cuda").clamp_(-8, 8).to(torch.float8_e4m3fn)
    return [x, w, torch.rand(4096, 1, device="cuda") + 0.5, torch.rand(4096, device="cuda") + 0.5]


def get_init_inputs():
    return []
