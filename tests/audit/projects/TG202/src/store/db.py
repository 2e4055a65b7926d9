_cache = {}


def _connect(url):
    raise RuntimeError("would reach the database")


def connect(url):
    return _connect(url)


class Store:
    def __call__(self):
        return self

    def _flush(self):
        raise RuntimeError("would reach the database")

    def save(self, row):
        self._flush()
