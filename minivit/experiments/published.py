"""Published numbers the lessons set beside our own runs (quoted from the papers and posts named)."""

# top-1 at test resolution, models trained at 224 without fine-tuning
# fmt: off
RESOLUTION = {
    # the post's whole table (github.com/iclr-blogposts/2025, _posts/2025-04-28-positional-embedding.md,
    # "Results"): one run per model, 100 epochs at 224 px with RandAugment, Mixup, CutMix and random
    # erasing (the post does not say whether its crops were random-resized); the learned table is
    # stretched by 2-D interpolation at other sizes, RoPE and ALiBi are used as they are
    "ICLR 2025 blog post, ImageNet-100, ViT trained at 224": {
        "sizes": [96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448, 480, 512],
        "learned": [18.80, 33.96, 44.10, 51.42, 55.48, 56.52, 57.14,
                       57.02, 56.48, 55.88, 55.20, 54.34, 53.42, 52.32],
        "none": [16.82, 30.84, 42.96, 49.22, 53.86, 55.80, 56.52,
                    55.86, 55.22, 54.16, 53.50, 52.40, 51.48, 49.80],
        "rope-mixed": [18.98, 32.92, 44.84, 51.60, 55.26, 57.98, 58.76,
                          59.84, 59.70, 58.92, 58.44, 57.86, 56.88, 55.62],
        "alibi2d": [19.60, 36.44, 50.28, 55.84, 60.74, 61.52, 64.00,
                       64.62, 65.54, 65.76, 65.24, 64.24, 63.56, 62.20],
    },
    "RoPE-ViT (Heo et al. 2024), DeiT-III ViT-S on ImageNet-1k": {
        "sizes": [224, 384],
        "learned": [80.4, 79.4],
        "rope-axial": [80.9, 80.0],
        "rope-mixed": [80.9, 81.8],
    },
}
# fmt: on
