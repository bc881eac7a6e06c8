SHAPES = [
    dict(rows=128, cols=64, picks=96),
]
