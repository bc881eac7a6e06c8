
# --- tests/gpu/grader_compare.sh: the upstream problem's interface over the
# corpus solution above. Upstream's Model(M, N, K) holds the fp8 weight and
# its per-channel scale as buffers (the grader loads the reference's state
# dict into them) and has no activation scale: ones stand in for it.
_CorpusModel = ModelNew


class Model(_CorpusModel):
    def __init__(self, M, N, K):
        super().__init__()
        self.register_buffer("weight", torch.zeros(N, K, dtype=torch.float8_e4m3fn))
        self.register_buffer("weight_scale", torch.ones(N, dtype=torch.float32))

    def forward(self, x):
        ones = torch.ones(x.shape[0], 1, device=x.device, dtype=torch.float32)
        return super().forward(x, self.weight, ones, self.weight_scale)


ModelNew = Model
