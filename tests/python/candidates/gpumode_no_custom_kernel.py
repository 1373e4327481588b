# GPU MODE-format submission without custom_kernel: bad input.
def kernel(data):
    return data[0]
