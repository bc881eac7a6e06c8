SHAPES = [
    dict(rows=64, cols=128),
    dict(rows=96, cols=64),
]
