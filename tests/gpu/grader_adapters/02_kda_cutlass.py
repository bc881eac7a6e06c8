
# --- tests/gpu/grader_compare.sh: the upstream problem's interface over the
# corpus solution above. Upstream's Model(B, T, H, K, V, chunk_size) has no
# parameters (its one buffer is not persistent, so its state dict is empty)
# and takes q, k, v, g, beta in the corpus's layouts, with the same K^-0.5
# scale and the same recurrence, which upstream's reference evaluates in
# chunks: the chunk size changes the order of the sums, not the result.
# Upstream's beta is bf16 where the corpus's problem gives fp32, and the
# corpus solution was written for fp32: bf16 to fp32 is exact, so the
# conversion changes no value.
_CorpusModel = ModelNew


class Model(_CorpusModel):
    def __init__(self, B, T, H, K, V, chunk_size=64):
        super().__init__()

    def forward(self, q, k, v, g, beta):
        return super().forward(q, k, v, g, beta.float())


ModelNew = Model
