SHAPES = [
    dict(rows=256, cols=64, groups=8),
    dict(rows=192, cols=32, groups=4),
]
