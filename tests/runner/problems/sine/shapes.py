SHAPES = [
    dict(rows=64, cols=128),
    dict(rows=32, cols=256),
]
