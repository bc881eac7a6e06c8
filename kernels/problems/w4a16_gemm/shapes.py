# N, K = 12288, 4096 (a fused QKV projection) from decode to prefill.
SHAPES = [
    dict(M=1, N=12288, K=4096),
    dict(M=32, N=12288, K=4096),
    dict(M=256, N=12288, K=4096),
    dict(M=17, N=4096, K=11008),
]
