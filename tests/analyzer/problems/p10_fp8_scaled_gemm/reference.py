import torch


class Model(torch.nn.Module):
    def forward(self, x, w, x_scale, w_scale):
        acc = torch.matmul(x.to(torch.float32), w.to(torch.float32).t())
        return (acc * x_scale * w_scale.unsqueeze(0)).to(torch.bfloat16)


def get_inputs():
    x = torch.randn(256, 512).to(torch.float8_e4m3fn)
    w = torch.randn(128, 512).to(torch.float8_e4m3fn)
    return [x, w, torch.rand(256, 1), torch.rand(128)]


def get_init_inputs():
    return []
