SHAPES = [
    dict(batch=2, steps=512, channels=16),
    dict(batch=1, steps=384, channels=32),
]
