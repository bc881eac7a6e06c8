SHAPES = [
    dict(rows=32, n=256, k=8),
    dict(rows=64, n=512, k=16),
]
