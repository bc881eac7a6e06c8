
# --- tests/gpu/grader_compare.sh: the upstream problem's interface over the
# corpus solution above (upstream builds Model(batch, n, k), with the
# reference's one buffer, which the grader loads; kaudit takes ModelNew
# first, so both names are the adapter).
_CorpusModel = ModelNew


class Model(_CorpusModel):
    def __init__(self, batch, n, k):
        super().__init__(k)
        self.register_buffer("_dummy", torch.zeros(1))


ModelNew = Model
