# A KernelBench-format problem written for the tests (one file: Model,
# get_inputs, get_init_inputs; no forbidden list): a 2D convolution then a
# ReLU, and a row sum to make a tensor method part of the math.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, channels_in, channels_out, kernel):
        super().__init__()
        self.conv = nn.Conv2d(channels_in, channels_out, kernel, bias=False)

    def forward(self, x):
        y = torch.relu(self.conv(x.contiguous()))
        return y.sum(dim=-1).view(y.shape[0], -1)


batch = 8
channels_in = 16
channels_out = 32
size = 64


def get_inputs():
    return [torch.randn(batch, channels_in, size, size)]


def get_init_inputs():
    return [channels_in, channels_out, 3]
