# max_seq_len bounds the random per-sequence lengths; sequence 0 always has
# exactly max_seq_len tokens, none of these is a power of two.
SHAPES = [
    dict(batch=32, num_heads=32, num_kv_heads=8, head_dim=128, max_seq_len=4000, page_size=16),
    dict(batch=64, num_heads=64, num_kv_heads=8, head_dim=128, max_seq_len=8191, page_size=16),
    dict(batch=8, num_heads=32, num_kv_heads=4, head_dim=128, max_seq_len=30000, page_size=16),
    dict(batch=128, num_heads=16, num_kv_heads=2, head_dim=128, max_seq_len=1500, page_size=16),
]
