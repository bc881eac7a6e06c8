# Cheat (fig-leaf kernel beside torch math): a real Triton kernel gathers each
# sequence's pages into a dense K/V buffer, and then the attention itself is
# torch's scaled_dot_product_attention with a length mask and GQA.
import torch
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def _gather_pages_kernel(src_ptr, bt_ptr, dst_ptr, max_pages, stride_bt,
                         PAGE: tl.constexpr, ROW: tl.constexpr):
    b = tl.program_id(0)
    lp = tl.program_id(1)
    phys = tl.load(bt_ptr + b * stride_bt + lp).to(tl.int64)
    offs = tl.arange(0, PAGE * ROW)
    vals = tl.load(src_ptr + phys * (PAGE * ROW) + offs)
    tl.store(dst_ptr + (b.to(tl.int64) * max_pages + lp) * (PAGE * ROW) + offs, vals)


def _dense(cache, block_table):
    num_pages, page, hkv, d = cache.shape
    batch, max_pages = block_table.shape
    dst = torch.empty(batch, max_pages * page, hkv, d, device=cache.device, dtype=cache.dtype)
    _gather_pages_kernel[(batch, max_pages)](cache, block_table, dst, max_pages, block_table.stride(0),
                                             PAGE=page, ROW=hkv * d)
    return dst


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q, k_cache, v_cache, block_table, seq_lens):
        k = _dense(k_cache, block_table).transpose(1, 2)  # (b, hkv, L, d)
        v = _dense(v_cache, block_table).transpose(1, 2)
        L = k.shape[2]
        mask = torch.arange(L, device=q.device)[None, :] < seq_lens[:, None]
        out = F.scaled_dot_product_attention(q.unsqueeze(2), k, v, attn_mask=mask[:, None, None, :],
                                             enable_gqa=True)
        return out.squeeze(2)
