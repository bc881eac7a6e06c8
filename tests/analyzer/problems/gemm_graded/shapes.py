# (M, N, K) graded by the benchmark.
SHAPES = [
    dict(M=4096, N=4096, K=4096),
    dict(M=3000, N=5120, K=1536),
]
