"""Colour conversions."""


def rgb_to_gray(image):
    """Convert RGB to grayscale."""
    return image


def hsv_to_rgb(image):
    """Convert HSV to RGB."""
    return image
