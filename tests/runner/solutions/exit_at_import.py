# sys.exit(0) while being imported.
import sys

print("PASS")
sys.exit(0)
