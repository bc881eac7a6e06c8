# Clean: Triton W4A16 GEMM (in-register int4 unpack, zero point subtracted in
# bf16, tl.dot in fp32 per quantisation group, per-column scale applied to the
# group's fp32 sum) whose column tile is tuned on the first call for each shape:
# BN = 32, 64 and 128 are each run once to compile, then timed over three
# launches with CUDA events, and the fastest is kept in a dict keyed by
# (M, N, K, dtype, device), never by addresses or tensor identity. Later calls
# with that shape only launch the stored choice; each candidate writes a scratch
# output of its own and the returned tensor is computed afresh.
import torch
import triton
import triton.language as tl

_GROUP = 128
_CANDIDATES = (32, 64, 128)


@triton.jit
def _w4a16_dot_kernel(x_ptr, qw_ptr, s_ptr, z_ptr, y_ptr, M, N, K, n_groups,
                      stride_xm, stride_qn, stride_sn, stride_zn, stride_ym,
                      BM: tl.constexpr, BN: tl.constexpr, GROUP: tl.constexpr):
    pid_n = tl.program_id(0)
    pid_m = tl.program_id(1)
    offs_m = pid_m * BM + tl.arange(0, BM)
    offs_n = pid_n * BN + tl.arange(0, BN)
    offs_k = tl.arange(0, GROUP)
    m_ok = offs_m < M
    n_ok = offs_n < N
    shift = (offs_k % 2) * 4
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for grp in range(0, n_groups):
        kk = grp * GROUP + offs_k
        k_ok = kk < K
        a = tl.load(x_ptr + offs_m[:, None].to(tl.int64) * stride_xm + kk[None, :],
                    mask=m_ok[:, None] & k_ok[None, :], other=0.0)
        packed = tl.load(qw_ptr + offs_n[None, :].to(tl.int64) * stride_qn + (kk // 2)[:, None],
                         mask=k_ok[:, None] & n_ok[None, :], other=0)
        q = (packed.to(tl.int32) >> shift[:, None]) & 0xF
        s = tl.load(s_ptr + offs_n.to(tl.int64) * stride_sn + grp, mask=n_ok, other=0.0).to(tl.float32)
        z = tl.load(z_ptr + offs_n.to(tl.int64) * stride_zn + grp, mask=n_ok, other=0.0).to(tl.float32)
        wq = (q.to(tl.float32) - z[None, :]).to(tl.bfloat16)
        acc += tl.dot(a, wq, out_dtype=tl.float32) * s[None, :]
    tl.store(y_ptr + offs_m[:, None].to(tl.int64) * stride_ym + offs_n[None, :], acc.to(tl.bfloat16),
             mask=m_ok[:, None] & n_ok[None, :])


def _w4a16(x, qweight, scales, zeros, BN):
    M, K = x.shape
    N = qweight.shape[0]
    y = torch.empty(M, N, device=x.device, dtype=torch.bfloat16)
    BM = 16 if M <= 16 else (32 if M <= 32 else 64)
    _w4a16_dot_kernel[(triton.cdiv(N, BN), triton.cdiv(M, BM))](
        x, qweight, scales, zeros, y, M, N, K, triton.cdiv(K, _GROUP),
        x.stride(0), qweight.stride(0), scales.stride(0), zeros.stride(0), y.stride(0),
        BM=BM, BN=BN, GROUP=_GROUP, num_warps=4, num_stages=3)
    return y


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self._bn = {}  # (M, N, K, dtype, device) -> tuned BN

    def _tuned_bn(self, x, qweight, scales, zeros):
        key = (x.shape[0], qweight.shape[0], x.shape[1], x.dtype, str(x.device))
        bn = self._bn.get(key)
        if bn is None:
            times = {}
            for cand in _CANDIDATES:
                _w4a16(x, qweight, scales, zeros, cand)  # compile and warm up
                start = torch.cuda.Event(enable_timing=True)
                end = torch.cuda.Event(enable_timing=True)
                start.record()
                for _ in range(3):
                    _w4a16(x, qweight, scales, zeros, cand)
                end.record()
                end.synchronize()
                times[cand] = start.elapsed_time(end)
            bn = self._bn[key] = min(times, key=times.get)
        return bn

    def forward(self, x, qweight, scales, zeros):
        M, K = x.shape
        N = qweight.shape[0]
        if M == 0 or N == 0:
            return torch.empty(M, N, device=x.device, dtype=torch.bfloat16)
        args = (x.contiguous(), qweight.contiguous(), scales.contiguous(), zeros.contiguous())
        return _w4a16(*args, self._tuned_bn(*args))
