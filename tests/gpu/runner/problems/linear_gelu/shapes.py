SHAPES = [
    dict(m=4096, n=4096, k=4096),
    dict(m=2048, n=8192, k=4096),
]
