def lonely():
    return 1


def lazy():
    return 2
