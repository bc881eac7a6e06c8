SHAPES = [
    dict(batch=8, n=64, k=4),
    dict(batch=4, n=96, k=8),
]
