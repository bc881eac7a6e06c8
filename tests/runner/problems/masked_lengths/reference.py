"""The mean of each sequence's first seq_lens[b] rows, as a paged-attention
problem's lengths: drawn uniformly from 1 to max_seq_len, the first sequence
always max_seq_len long."""
import torch

batch = 8
max_seq_len = 512
dim = 32


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, seq_lens):
        pos = torch.arange(x.shape[1], device=x.device)
        valid = (pos[None, :] < seq_lens[:, None].long()).float()
        return (x * valid[:, :, None]).sum(1) / seq_lens[:, None].float()


def get_inputs():
    x = torch.randn(batch, max_seq_len, dim, device="cuda")
    seq_lens = torch.randint(1, max_seq_len + 1, (batch,), dtype=torch.int32)
    seq_lens[0] = max_seq_len
    return [x, seq_lens.to("cuda")]


def get_init_inputs():
    return []
