SHAPES = [
    dict(rows=64, n=128, k=8),
]
