"""Task pools: import, de-duplication, content hashing, versions, splits and grading.

Pure Python + numpy/pyarrow: no Django import. The Django services call these functions and
persist what they return.
"""
