# Cheat (work escapes the timer on a side stream): the kernel is launched on a
# private high-priority stream "to overlap with the caller": that stream waits
# for the caller's (the inputs are ready), but forward returns without making
# the caller's stream wait in turn, so events on the caller's stream bracket
# almost nothing.
import torch
import triton
import triton.language as tl


@triton.jit
def _w4a16_kernel(x_ptr, qw_ptr, s_ptr, z_ptr, y_ptr, M, N, K,
                  stride_xm, stride_qn, stride_sn, stride_ym,
                  BM: tl.constexpr, BN: tl.constexpr, GROUP: tl.constexpr):
    pid_n = tl.program_id(0)
    pid_m = tl.program_id(1)
    offs_m = pid_m * BM + tl.arange(0, BM)
    offs_n = pid_n * BN + tl.arange(0, BN)
    offs_k = tl.arange(0, GROUP)
    m_ok = offs_m < M
    shift = (offs_k % 2) * 4
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, GROUP):
        kk = k0 + offs_k
        a = tl.load(x_ptr + offs_m[:, None] * stride_xm + kk[None, :], mask=m_ok[:, None], other=0.0)
        packed = tl.load(qw_ptr + offs_n[None, :].to(tl.int64) * stride_qn + (kk // 2)[:, None])
        q = (packed.to(tl.int32) >> shift[:, None]) & 0xF
        grp = k0 // GROUP
        s = tl.load(s_ptr + offs_n * stride_sn + grp).to(tl.float32)
        z = tl.load(z_ptr + offs_n * stride_sn + grp).to(tl.float32)
        w = (q.to(tl.float32) - z[None, :]) * s[None, :]
        acc = tl.dot(a, w.to(tl.bfloat16), acc=acc)
    tl.store(y_ptr + offs_m[:, None] * stride_ym + offs_n[None, :], acc.to(tl.bfloat16),
             mask=m_ok[:, None])



def _w4a16(x, qweight, scales, zeros, y=None, BM=None, BN=64, num_warps=4, stream_safe=True):
    x = x.contiguous()
    M, K = x.shape
    N = qweight.shape[0]
    y = torch.empty(M, N, device=x.device, dtype=torch.bfloat16) if y is None else y
    BM = BM or (16 if M <= 16 else (32 if M <= 32 else 64))
    _w4a16_kernel[(triton.cdiv(N, BN), triton.cdiv(M, BM))](
        x, qweight, scales, zeros, y, M, N, K,
        x.stride(0), qweight.stride(0), scales.stride(0), y.stride(0),
        BM=BM, BN=BN, GROUP=128, num_warps=num_warps, num_stages=3)
    return y


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self._stream = None

    def forward(self, x, qweight, scales, zeros):
        if self._stream is None:
            self._stream = torch.cuda.Stream(device=x.device, priority=-1)
        y = torch.empty(x.shape[0], qweight.shape[0], device=x.device, dtype=torch.bfloat16)
        self._stream.wait_stream(torch.cuda.current_stream(x.device))  # inputs ready
        with torch.cuda.stream(self._stream):
            _w4a16(x, qweight, scales, zeros, y=y)
        return y
