def compute_version():
    return "1.0"
