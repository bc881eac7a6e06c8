# (B, T, H, K, V). T = 16384 is the long sequential recurrence (256 chunks);
# T = 2000 ends in a partial chunk of 16 tokens.
SHAPES = [
    dict(B=2, T=4096, H=16, K=128, V=128),
    dict(B=1, T=16384, H=8, K=128, V=128),
    dict(B=4, T=2000, H=16, K=128, V=128),
]
