"""Paged-KV decode attention with grouped-query heads.

k_cache / v_cache: (num_pages, page_size, num_kv_heads, head_dim) bf16.
block_table: (batch, max_pages_per_seq) int32, physical page of each logical page.
seq_lens: (batch,) int32. The reference gathers each batch's pages into a dense
(batch, max_seq_len) view, masks positions >= seq_len and works in fp32.
"""
import math

import torch

batch = 32
num_heads = 32
num_kv_heads = 8
head_dim = 128
max_seq_len = 4000
page_size = 16


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q, k_cache, v_cache, block_table, seq_lens):
        b, hq, d = q.shape
        page = k_cache.shape[1]
        hkv = k_cache.shape[2]
        group = hq // hkv
        max_pages = block_table.shape[1]
        # (b, max_pages, page, hkv, d) -> (b, hkv, L, d)
        k = k_cache[block_table.long()].reshape(b, max_pages * page, hkv, d).permute(0, 2, 1, 3).float()
        v = v_cache[block_table.long()].reshape(b, max_pages * page, hkv, d).permute(0, 2, 1, 3).float()
        qf = q.float().reshape(b, hkv, group, d)
        scores = torch.einsum("bhgd,bhld->bhgl", qf, k) * (1.0 / math.sqrt(d))
        pos = torch.arange(max_pages * page, device=q.device)
        valid = pos[None, :] < seq_lens[:, None].long()
        scores = scores.masked_fill(~valid[:, None, None, :], float("-inf"))
        p = torch.softmax(scores, dim=-1)
        out = torch.einsum("bhgl,bhld->bhgd", p, v)
        return out.reshape(b, hq, d).to(q.dtype)


def get_inputs():
    pages_per_seq = (max_seq_len + page_size - 1) // page_size
    num_pages = batch * pages_per_seq + 7
    # Lengths come from the CPU generator so that they are the same on every
    # machine for a given seed; sequence 0 is always full length.
    seq_lens = torch.randint(1, max_seq_len + 1, (batch,), dtype=torch.int32)
    seq_lens[0] = max_seq_len
    perm = torch.randperm(num_pages)[: batch * pages_per_seq]
    block_table = perm.reshape(batch, pages_per_seq).to(torch.int32)
    q = torch.randn(batch, num_heads, head_dim, device="cuda", dtype=torch.bfloat16)
    k_cache = torch.randn(num_pages, page_size, num_kv_heads, head_dim, device="cuda", dtype=torch.bfloat16)
    v_cache = torch.randn(num_pages, page_size, num_kv_heads, head_dim, device="cuda", dtype=torch.bfloat16)
    return [q, k_cache, v_cache, block_table.cuda(), seq_lens.cuda()]


def get_init_inputs():
    return []
