SHAPES = [
    dict(batch=512, in_features=1024, out_features=4096),
]
