SHAPES = [
    dict(rows=64, k=128, n=128),
]
