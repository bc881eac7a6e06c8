SHAPES = [
    dict(n=4096),
]
