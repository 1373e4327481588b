# GPU MODE-format submission that drops the scale: wrong on every input.
def custom_kernel(data):
    a, b = data
    return a + b
