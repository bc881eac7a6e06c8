SHAPES = [
    dict(rows=64, k=128, n=128),
    dict(rows=96, k=192, n=192),
]
