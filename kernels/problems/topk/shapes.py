# (batch, n, k). 12000 is deliberately not a power of two; k = 1 is an argmax.
SHAPES = [
    dict(batch=1, n=131072, k=64),
    dict(batch=64, n=8192, k=8),
    dict(batch=32, n=16384, k=32),
    dict(batch=16, n=12000, k=16),
    dict(batch=128, n=4096, k=1),
]
