# A problem that grades nothing: no shape, so no case to check.
SHAPES = []
