SHAPES = [
    dict(M=256, N=128, K=512),
    dict(M=4096, N=4096, K=4096),
]
