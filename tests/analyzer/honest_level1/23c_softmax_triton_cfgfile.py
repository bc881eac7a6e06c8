import json
import os

import torch
import torch.nn as nn
import triton
import triton.language as tl

# Launch configurations per (n_cols, dtype), kept across processes in the user's cache folder.
# Only launch parameters are stored, never data or results.
_CFG_PATH = os.path.join(os.path.expanduser("~"), ".cache", "kb_softmax", "launch_cfg.json")
try:
    with open(_CFG_PATH) as f:
        _CFG = json.load(f)
except (OSError, ValueError):
    _CFG = {}


def _save_cfg():
    try:
        os.makedirs(os.path.dirname(_CFG_PATH), exist_ok=True)
        with open(_CFG_PATH, "w") as f:
            json.dump(_CFG, f)
    except OSError:
        pass


@triton.jit
def softmax_online_kernel(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    xr = x_ptr + row * stride
    yr = y_ptr + row * stride
    m_i = tl.full((BLOCK,), float("-inf"), dtype=tl.float32)
    l_i = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        v = tl.load(xr + cols, mask=cols < n_cols, other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m_i, v)
        l_i = tl.where(m_new == float("-inf"), 0.0, l_i * tl.exp(m_i - m_new) + tl.exp(v - m_new))
        m_i = m_new
    m = tl.max(m_i, axis=0)
    l = tl.sum(tl.where(m_i == float("-inf"), 0.0, l_i * tl.exp(m_i - m)), axis=0)
    inv = 1.0 / l
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        msk = cols < n_cols
        v = tl.load(xr + cols, mask=msk, other=0.0).to(tl.float32)
        tl.store(yr + cols, (tl.exp(v - m) * inv).to(y_ptr.dtype.element_ty), mask=msk)


def _launch_cfg(n_cols, dtype):
    key = f"{n_cols}:{dtype}"
    cfg = _CFG.get(key)
    if cfg is None:
        block = min(8192, triton.next_power_of_2(max(n_cols, 16)))
        cfg = {"BLOCK": block, "num_warps": 8 if block >= 2048 else 4}
        _CFG[key] = cfg
        _save_cfg()
    return cfg


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        rows, cols = x.shape
        y = torch.empty_like(x)
        cfg = _launch_cfg(cols, x.dtype)
        softmax_online_kernel[(rows,)](x, y, cols, x.stride(0), BLOCK=cfg["BLOCK"], num_warps=cfg["num_warps"])
        return y
