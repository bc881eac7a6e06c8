# (T tokens, H hidden, I intermediate, E experts, K experts per token).
SHAPES = [
    dict(T=32768, H=4096, I=1536, E=128, K=8),
    dict(T=4096, H=2048, I=1024, E=64, K=4),
    dict(T=777, H=2048, I=768, E=128, K=8),
]
