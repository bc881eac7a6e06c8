SHAPES = [
    dict(rows=16, n=64, k=8),
]
