# Graded shapes. 4096x4096x4127 has a K that is not a multiple of 16 (nor of any
# tile size), 32x8192x8192 is decode-like, 4096x14336x4096 is an MLP up-projection.
SHAPES = [
    dict(M=4096, N=4096, K=4096),
    dict(M=4096, N=4096, K=4127),
    dict(M=32, N=8192, K=8192),
    dict(M=4096, N=14336, K=4096),
]
