SHAPES = [
    dict(batch=8, max_seq_len=512, dim=32),
]
