"""Published numbers the lessons set beside our own runs (quoted from the papers and posts named)."""

# top-1 at test resolution, models trained at 224 without fine-tuning
RESOLUTION = {
    "ICLR 2025 blog post, ImageNet-100, ViT trained at 224": {
        "sizes": [96, 224, 384, 512],
        "learned": [18.80, 55.48, 55.88, 52.32],
        "none": [16.82, 53.86, 54.16, 49.80],
        "rope-mixed": [18.98, 55.26, 58.92, 55.62],
        "alibi2d": [19.60, 60.74, 65.76, 62.20],
    },
    "RoPE-ViT (Heo et al. 2024), DeiT-III ViT-S on ImageNet-1k": {
        "sizes": [224, 384],
        "learned": [80.4, 79.4],
        "rope-axial": [80.9, 80.0],
        "rope-mixed": [80.9, 81.8],
    },
}
