SHAPES = [
    {"rows": 64, "cols": 32},
    {"rows": 96, "cols": 48},
]
