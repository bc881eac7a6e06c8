SHAPES = [
    dict(rows=4096, cols=4096),
    dict(rows=8192, cols=8192),
]
