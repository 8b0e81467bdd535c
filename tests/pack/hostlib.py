"""Python callables that test programs bind as host functions."""


class Image:
    """An opaque object: BAML only passes it around."""

    def __init__(self, path: str, width: int) -> None:
        self.path = path
        self.width = width


def load_image(path: str) -> Image:
    return Image(path, len(path) * 10)


def image_width(image: Image) -> int:
    return image.width
